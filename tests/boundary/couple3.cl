#pragma OPENCL FP_CONTRACT OFF
// Two coupled 7-point diffusions in 3D with a coefficient read across its neighbours
// (tests/boundary/mixed_3d.xml): U and V diffuse and relax towards each other at a rate from
// C's 6 neighbours. Written as for one device: a cell is updated where its whole stencil lies
// inside the buffer (nx, ny, nz: the buffer's extents).
__kernel void couple3(__global const float* U, __global const float* V, __global const float* C,
                      __global float* U2, __global float* V2, const int nx, const int ny,
                      const int nz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int sy = nx, sz = nx * ny;
  const int c = x + sy * y + sz * z;
  const float k =
      0.01f * (((C[c - 1] + C[c + 1]) + (C[c - sy] + C[c + sy])) + (C[c - sz] + C[c + sz]));
  const float u = U[c], v = V[c];
  const float lap_u =
      (((U[c - 1] + U[c + 1]) + (U[c - sy] + U[c + sy])) + (U[c - sz] + U[c + sz])) - 6.0f * u;
  const float lap_v =
      (((V[c - 1] + V[c + 1]) + (V[c - sy] + V[c + sy])) + (V[c - sz] + V[c + sz])) - 6.0f * v;
  U2[c] = u + (0.08f * lap_u + k * (v - u));
  V2[c] = v + (0.08f * lap_v + k * (u - v));
}

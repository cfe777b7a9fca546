#pragma OPENCL FP_CONTRACT OFF
// A 7-point heat step in 3D (tests/boundary/periodic_z.xml): V = U + alpha * (the 6 neighbours
// - 6 U). Written as for one device: a cell is updated where its whole stencil lies inside the
// buffer (nx, ny, nz: the buffer's extents).
__kernel void heat7(__global const float* U, __global float* V, const int nx, const int ny,
                    const int nz, const float alpha) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int sy = nx;
  const int sz = nx * ny;
  const int c = x + sy * y + sz * z;
  const float u = U[c];
  const float lap = U[c - 1] + U[c + 1] + U[c - sy] + U[c + sy] + U[c - sz] + U[c + sz] - 6.0f * u;
  V[c] = u + alpha * lap;
}

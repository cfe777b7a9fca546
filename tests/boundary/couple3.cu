// Two coupled 7-point diffusions in 3D with a coefficient read across its neighbours
// (tests/boundary/mixed_3d.xml; the CUDA twin of couple3.cl): U and V diffuse and relax towards
// each other at a rate from C's 6 neighbours. Written as for one device: a cell is updated
// where its whole stencil lies inside the buffer (nx, ny, nz: the buffer's extents).
__global__ void couple3(const float* U, const float* V, const float* C, float* U2, float* V2,
                        const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
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

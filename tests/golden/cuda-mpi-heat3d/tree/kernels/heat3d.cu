// Explicit 3D heat equation, 7-point Laplacian: V = U + alpha * (sum of 6 neighbours - 6 U).
// The CUDA version of heat3d.cl: the same arithmetic in the same order, the same guards.
// Bit-exact with the serial reference when built without FMA contraction (--fmad=false, the
// generated CMakeLists.txt's default).
// nx, ny, nz are the extents of the buffer the kernel is given (owned plus ghost cells). A cell
// is updated only where its whole stencil lies inside that buffer; the outer shell (the fixed
// domain boundary) keeps the value V already holds.

__global__ void heat(const float* U, float* V, const int nx, const int ny, const int nz,
                     const float alpha) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int sy = nx;
  const int sz = nx * ny;
  const int c = x + sy * y + sz * z;
  const float u = U[c];
  const float lap = U[c - 1] + U[c + 1] + U[c - sy] + U[c + sy] + U[c - sz] + U[c + sz] - 6.0f * u;
  V[c] = u + alpha * lap;
}

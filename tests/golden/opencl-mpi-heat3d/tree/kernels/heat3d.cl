#pragma OPENCL FP_CONTRACT OFF
// Explicit 3D heat equation, 7-point Laplacian: V = U + alpha * (sum of 6 neighbours - 6 U).
// nx, ny, nz are the extents of the buffer the kernel is given (owned plus ghost cells). A cell
// is updated only where its whole stencil lies inside that buffer; the outer shell (the fixed
// domain boundary) keeps the value V already holds.

__kernel void heat(__global const float* U, __global float* V, const int nx, const int ny,
                   const int nz, const float alpha) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int sy = nx;
  const int sz = nx * ny;
  const int c = x + sy * y + sz * z;
  const float u = U[c];
  const float lap = U[c - 1] + U[c + 1] + U[c - sy] + U[c + sy] + U[c - sz] + U[c + sz] - 6.0f * u;
  V[c] = u + alpha * lap;
}

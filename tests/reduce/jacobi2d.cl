#pragma OPENCL FP_CONTRACT OFF
// 5-point Jacobi relaxation in 2D: B = 0.25 * (W + E + S + N) of A.
// nx, ny are the extents of the buffer the kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer; the outer ring (the fixed
// domain boundary) keeps the value B already holds.

__kernel void jacobi(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  B[c] = 0.25f * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx]);
}

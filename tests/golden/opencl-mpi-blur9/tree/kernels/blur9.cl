#pragma OPENCL FP_CONTRACT OFF
// 3x3 box blur: B = (sum of the 9 cells of the 3x3 block around each cell of A) / 9.
// The diagonal neighbours make the halo include corners, so a 2D cut must exchange them too.
// nx, ny are the extents of the buffer the kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer; the outer ring (the fixed
// domain boundary) keeps the value B already holds. The global size is exactly the buffer's
// extents and the work-group size is left to the runtime.

#define ONE_NINTH 0.111111111f

__kernel void blur(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const int s = c - nx;  // row below
  const int n = c + nx;  // row above
  const float sum =
      A[s - 1] + A[s] + A[s + 1] + A[c - 1] + A[c] + A[c + 1] + A[n - 1] + A[n] + A[n + 1];
  B[c] = sum * ONE_NINTH;
}

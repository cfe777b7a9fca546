#pragma OPENCL FP_CONTRACT OFF
// 5-point Jacobi relaxation in 2D, B = 0.25 * (W + E + S + N) of A: the OpenCL version of
// jacobi2d_fast.cu (the same arithmetic in the same order as examples/jacobi2d, the same guards,
// the same mapping of work-items to cells). Each work-item computes JACOBI_FAST_ROWS consecutive
// rows (y) of one column (x), with the column's south and centre values in registers.
// Launch: global = (round_up(nx, 128), ceil(ny / JACOBI_FAST_ROWS)), local = (128, 1).
// nx, ny are the extents of the buffer the kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer; the outer ring (the fixed
// domain boundary) keeps the value B already holds.

#ifndef JACOBI_FAST_ROWS
#define JACOBI_FAST_ROWS 16
#endif

__kernel void jacobi_fast(__global const float* restrict A, __global float* restrict B,
                          const int nx, const int ny) {
  const int x = get_global_id(0);
  const int y0 = get_global_id(1) * JACOBI_FAST_ROWS;
  if (x < 1 || x >= nx - 1) return;
  const int ylo = y0 < 1 ? 1 : y0;
  const int yhi = y0 + JACOBI_FAST_ROWS < ny - 1 ? y0 + JACOBI_FAST_ROWS : ny - 1;
  if (ylo >= yhi) return;
  const long s = nx;
  __global const float* a = A + (x + s * ylo);
  __global float* b = B + (x + s * ylo);
  float south = a[-s];
  float centre = a[0];
  for (int y = ylo; y < yhi; ++y, a += s, b += s) {
    const float north = a[s];
    b[0] = 0.25f * (a[-1] + a[1] + south + north);
    south = centre;
    centre = north;
  }
}

// 5-point Jacobi relaxation in 2D, B = 0.25 * (W + E + S + N) of A, written to move as few bytes
// as possible: the same arithmetic in the same order as examples/jacobi2d (bit-exact with its
// serial reference when built without FMA contraction, --fmad=false, the generated
// CMakeLists.txt's default), the same guards, a different mapping of threads to cells.
//
// Each thread computes JACOBI_FAST_ROWS consecutive rows (y) of one column (x): it loads the
// column's JACOBI_FAST_ROWS + 2 values of A once, all before the first use (many loads in flight
// per thread, which a bandwidth-bound kernel needs), and reads its west and east neighbours from
// the rows its warp has just loaded (L1 hits). Blocks are wide in x (the spec uses 128 x 1), so
// every warp reads and writes whole 128-byte lines. DRAM traffic is then close to one read and
// one write of 4 bytes per cell.
//
// Launch: global = (round_up(nx, 128), ceil(ny / JACOBI_FAST_ROWS)), local = (128, 1); see
// jacobi2d_fast.xml. Thread (x, t) computes rows [t * ROWS, (t + 1) * ROWS) of column x.
// nx, ny are the extents of the buffer the kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer; the outer ring (the fixed
// domain boundary) keeps the value B already holds.

#ifndef JACOBI_FAST_ROWS
#define JACOBI_FAST_ROWS 16
#endif

__global__ void jacobi_fast(const float* __restrict__ A, float* __restrict__ B, const int nx,
                            const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * JACOBI_FAST_ROWS;
  if (x < 1 || x >= nx - 1) return;  // past the buffer, or the stencil would leave it
  const int ylo = y0 < 1 ? 1 : y0;
  const int yhi = y0 + JACOBI_FAST_ROWS < ny - 1 ? y0 + JACOBI_FAST_ROWS : ny - 1;
  if (ylo >= yhi) return;
  const long first = x + static_cast<long>(nx) * ylo;
  const float* a = A + first;
  float* b = B + first;
  const long s = nx;
  if (yhi - ylo == JACOBI_FAST_ROWS) {
    // The common case: every row of the thread is inside. col[i] is row ylo - 1 + i.
    float col[JACOBI_FAST_ROWS + 2];
#pragma unroll
    for (int i = 0; i < JACOBI_FAST_ROWS + 2; ++i) col[i] = a[(i - 1) * s];
#pragma unroll
    for (int i = 0; i < JACOBI_FAST_ROWS; ++i) {
      const float* r = a + i * s;
      b[i * s] = 0.25f * (r[-1] + r[1] + col[i] + col[i + 2]);
    }
  } else {
    // The first and last rows of the buffer: a sliding column (south, centre) in registers.
    float south = a[-s];
    float centre = a[0];
    for (int y = ylo; y < yhi; ++y, a += s, b += s) {
      const float north = a[s];
      b[0] = 0.25f * (a[-1] + a[1] + south + north);
      south = centre;
      centre = north;
    }
  }
}

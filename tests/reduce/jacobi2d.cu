// 5-point Jacobi relaxation in 2D: B = 0.25 * (W + E + S + N) of A.
// The CUDA version of jacobi2d.cl: the same arithmetic in the same order, the same guards.
// Bit-exact with the serial reference when built without FMA contraction (--fmad=false, the
// generated CMakeLists.txt's default).
// nx, ny are the extents of the buffer the kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer; the outer ring (the fixed
// domain boundary) keeps the value B already holds.

__global__ void jacobi(const float* A, float* B, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  B[c] = 0.25f * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx]);
}

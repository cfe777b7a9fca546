// STEPOCL (Li, Brunet, Namyst, HPCC 2013), Listing 1:
//   A[i][j] = CNST * (B[i][j+1] + B[i][j-1] + B[i-10][j] + B[i+10][j])
// The CUDA version of stepocl_jacobi.cl: the same arithmetic in the same order, the same
// guards. Bit-exact with the serial reference when built without FMA contraction
// (--fmad=false, the generated CMakeLists.txt's default).
// x is the fastest axis and carries the +-10 reach; y carries +-1. The kernel runs over
// whatever buffer it is given (owned cells plus ghost cells): nx, ny are that buffer's extents.
// A cell is updated only where its whole stencil lies inside the buffer; the others (the fixed
// domain boundary) keep the value the output array already holds.

#define CNST 0.25f
#define REACH_X 10
#define REACH_Y 1

__global__ void stepocl_jacobi(const float* B, float* A, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < REACH_X || x >= nx - REACH_X || y < REACH_Y || y >= ny - REACH_Y) return;
  const int c = x + nx * y;
  A[c] = CNST * (B[c + nx] + B[c - nx] + B[c - REACH_X] + B[c + REACH_X]);
}

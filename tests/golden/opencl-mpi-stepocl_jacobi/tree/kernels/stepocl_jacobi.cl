#pragma OPENCL FP_CONTRACT OFF
// STEPOCL (Li, Brunet, Namyst, HPCC 2013), Listing 1:
//   A[i][j] = CNST * (B[i][j+1] + B[i][j-1] + B[i-10][j] + B[i+10][j])
// written for one device. x is the fastest axis and carries the +-10 reach; y carries +-1.
// The kernel runs over whatever buffer it is given (owned cells plus ghost cells): nx, ny are
// that buffer's extents. A cell is updated only where its whole stencil lies inside the buffer;
// the others (the fixed domain boundary) keep the value the output array already holds.

#define CNST 0.25f
#define REACH_X 10
#define REACH_Y 1

__kernel void stepocl_jacobi(__global const float* B, __global float* A, const int nx,
                             const int ny) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < REACH_X || x >= nx - REACH_X || y < REACH_Y || y >= ny - REACH_Y) return;
  const int c = x + nx * y;
  A[c] = CNST * (B[c + nx] + B[c - nx] + B[c - REACH_X] + B[c + REACH_X]);
}

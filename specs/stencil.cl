// The single-device kernel that specs/stepocl_listing.xml describes: STEPOCL's Listing 1
// (Li, Brunet, Namyst, HPCC 2013), A = CNST * (four neighbours of B), on the paper's fixed
// 4098x1026 grid. The paper's description form has no scalar arguments, so the extents are
// constants here; examples/stepocl_jacobi is the same stencil written to run on any partition.

#define CNST 0.25f
#define NX 4098
#define NY 1026

__kernel void stencil(__global float* A, __global const float* B) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x < 10 || x >= NX - 10 || y < 1 || y >= NY - 1) return;
  const int c = x + NX * y;
  A[c] = CNST * (B[c + NX] + B[c - NX] + B[c - 10] + B[c + 10]);
}

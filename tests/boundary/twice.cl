#pragma OPENCL FP_CONTRACT OFF
// kinds.cl's 13-point smoothing step as two kernels, A -> B and B -> A (mirror_copy_twice.xml):
// the same arithmetic in the same order, the same guards.
#define STEPGEN_TEST_SMOOTH(S, D)                                                       \
  const int x = get_global_id(0);                                                       \
  const int y = get_global_id(1);                                                       \
  if (x < 2 || x >= nx - 2 || y < 2 || y >= ny - 2) return;                             \
  const int c = x + nx * y;                                                             \
  const float side = (S[c - 1] + S[c + 1]) + (S[c - nx] + S[c + nx]);                   \
  const float diag = (S[c - nx - 1] + S[c - nx + 1]) + (S[c + nx - 1] + S[c + nx + 1]); \
  const float far = (S[c - 2] + S[c + 2]) + (S[c - 2 * nx] + S[c + 2 * nx]);            \
  D[c] = ((0.4f * S[c] + 0.1f * side) + 0.025f * diag) + 0.025f * far;

__kernel void there(__global const float* A, __global float* B, const int nx,
                    const int ny){STEPGEN_TEST_SMOOTH(A, B)} __kernel
    void back(__global const float* B, __global float* A, const int nx, const int ny) {
  STEPGEN_TEST_SMOOTH(B, A)
}

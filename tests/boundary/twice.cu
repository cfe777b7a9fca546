// twice.cl for CUDA (kinds_test.sh runs mirror_copy_twice.xml's CUDA program on the CPU
// emulation of tests/cuda_emu): the same arithmetic in the same order, the same guards.
#define STEPGEN_TEST_SMOOTH(S, D)                                                       \
  const int x = blockIdx.x * blockDim.x + threadIdx.x;                                  \
  const int y = blockIdx.y * blockDim.y + threadIdx.y;                                  \
  if (x < 2 || x >= nx - 2 || y < 2 || y >= ny - 2) return;                             \
  const int c = x + nx * y;                                                             \
  const float side = (S[c - 1] + S[c + 1]) + (S[c - nx] + S[c + nx]);                   \
  const float diag = (S[c - nx - 1] + S[c - nx + 1]) + (S[c + nx - 1] + S[c + nx + 1]); \
  const float far = (S[c - 2] + S[c + 2]) + (S[c - 2 * nx] + S[c + 2 * nx]);            \
  D[c] = ((0.4f * S[c] + 0.1f * side) + 0.025f * diag) + 0.025f * far;

__global__ void there(const float* A, float* B, const int nx,
                      const int ny){STEPGEN_TEST_SMOOTH(A, B)} __global__
    void back(const float* B, float* A, const int nx, const int ny) {
  STEPGEN_TEST_SMOOTH(B, A)
}

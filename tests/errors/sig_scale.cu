// Kernels for the signature cases of the error suite (sig_*.xml, sig_*.yaml): the CUDA versions
// of sig_scale.cl.
#include <stdint.h>

typedef float real;

__global__ void scale(const real* in, real* out, const int n, const float f) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f * in[i];
}

__global__ void shift(const float* in, float* out, const int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n) out[i] = in[i - 1];
}

// The CUDA twin of k.cl: nvcc fuses by default; the generated CMakeLists.txt and the bench
// builds compile with --fmad=false.
__global__ void fma_like(const float* a, const float* c, const float* d, float* b, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) b[x] = a[x] * c[x] + d[x];
}

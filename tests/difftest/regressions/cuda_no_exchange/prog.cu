// point-wise: reads a at the centre only
__global__ void k0(const float* a, float* b, const int nx) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= nx) return;
  b[x] = 0.5f * a[x] + 0.25f;
}

// line.cl in CUDA: a 1D float grid read through float4 pointers, one thread per 4 cells.
__global__ void scale(const float4* A, float4* B, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n / 4) return;
  const float4 a = A[i];
  B[i] = make_float4(0.5f * a.x + 1.0f, 0.5f * a.y + 1.0f, 0.5f * a.z + 1.0f, 0.5f * a.w + 1.0f);
}

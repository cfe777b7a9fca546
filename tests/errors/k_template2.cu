// A template kernel of two parameters: stepgen launches templates of one type parameter.
template <typename T, int R>
__global__ void blur(const T* a, T* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R && i < n - R) b[i] = a[i - R] + a[i + R];
}

// Two CUDA kernels in forms people write for one device: a template over the element type
// (with its explicit instantiation), and a float grid read through float4 pointers.
template <typename T>
__global__ void jacobi(const T* A, T* B, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = y * nx + x;
  B[c] = T(0.25) * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx]);
}
template __global__ void jacobi<float>(const float*, float*, int, int);

__global__ void ysmooth(const float4* A, float4* B, const int nx, const int ny) {
  const int x4 = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int w = nx / 4;
  if (x4 >= w || y >= ny) return;
  if (y < 1 || y >= ny - 1) return;
  const int c = x4 + w * y;
  const float4 a = A[c - w], b = A[c + w], m = A[c];
  B[c] = make_float4(0.5f * (a.x + b.x) + 0.25f * m.x, 0.5f * (a.y + b.y) + 0.25f * m.y,
                     0.5f * (a.z + b.z) + 0.25f * m.z, 0.5f * (a.w + b.w) + 0.25f * m.w);
}

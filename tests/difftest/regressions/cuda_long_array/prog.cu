__global__ void k0(const long long* a, long long* b, const int nx) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= nx) return;
  if (x < 1 || x >= nx - 1) return;
  b[x] = (long long)(((unsigned)a[x - 1] + 2u * (unsigned)a[x] + 3u * (unsigned)a[x + 1]) % 1021u);
}

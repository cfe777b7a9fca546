// wrap.cl in CUDA: a periodic Jacobi step written for one device, wrapping with % nx and % ny.
__global__ void jacobi(const float* A, float* B, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int xm = (x + nx - 1) % nx, xp = (x + 1) % nx;
  const int ym = (y + ny - 1) % ny, yp = (y + 1) % ny;
  B[x + nx * y] = 0.25f * (A[xm + nx * y] + A[xp + nx * y] + A[x + nx * ym] + A[x + nx * yp]);
}

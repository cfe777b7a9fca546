// Issue 22's failing case: both kernels skip the one-cell shell of their buffer.
__global__ void lap(const float* u, float* L, const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * (y + ny * z);
  L[i] = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - nx * ny] + u[i + nx * ny] -
         6.0f * u[i];
}

__global__ void upd(const float* uprev, const float* u, const float* L, const float* c,
                    float* unew, const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * (y + ny * z);
  unew[i] = 0.5f * u[i] + 0.25f * uprev[i] + 0.0625f * c[i] * L[i];
}

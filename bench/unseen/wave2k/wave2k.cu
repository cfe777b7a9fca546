// The CUDA version of wave2k.cl: the same arithmetic, the same guards.
__global__ void lap(const float* u, float* L, const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int c = x + nx * (y + ny * z);
  L[c] = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny] - 6.0f * u[c];
}
__global__ void upd(const float* uprev, const float* u, const float* L, const float* c,
                    float* unew, const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * (y + ny * z);
  unew[i] = 2.0f * u[i] - uprev[i] + 0.05f * c[i] * L[i];
}

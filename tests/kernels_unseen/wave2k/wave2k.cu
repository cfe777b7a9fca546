// A 3D wave step in two launches (issue 22's failing case; see wave2k.xml): the CUDA version of
// wave2k.cl, the same arithmetic in the same order, the same guards. nx, ny, nz are the extents
// of the buffer each kernel is given. Both kernels skip the same one-cell shell of their buffer,
// upd too although it reads no neighbour: a kernel written for one device.

__global__ void lap(const float* u, float* L, const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int sy = nx;
  const int sz = nx * ny;
  const int i = x + sy * y + sz * z;
  L[i] = u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz] - 6.0f * u[i];
}

__global__ void upd(const float* uprev, const float* u, const float* L, const float* c, float* unew,
                    const int nx, const int ny, const int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * y + nx * ny * z;
  unew[i] = 2.0f * u[i] - uprev[i] + 0.0625f * c[i] * L[i];
}

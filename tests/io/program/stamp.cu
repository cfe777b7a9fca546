// The CUDA version of stamp.cl: the same arithmetic.
__global__ void stamp(float* a, const float* scale, const int nx, const int ny, const int nz,
                      const int step) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  const int c = x + nx * (y + ny * z);
  a[c] = a[c] * scale[0] + (float)step;  // scale[0] = 0.5 (data/scale.raw)
}

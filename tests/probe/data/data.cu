// The CUDA twin of data.cl: the same arithmetic in the same order.
__global__ void blend(const float* u, const int* m, const float* h, float* v, const int nx,
                      const int ny) {
  const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x),
            y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y < 2 || y >= ny - 2) return;
  const int c = x + nx * y;
  float r = 0.5f * u[c];
  if (m[c] == 9) r += 0.25f * u[c + 2 * nx];
  if (h[c] > 2.5f) r += 0.25f * u[c - nx];
  v[c] = r;
}

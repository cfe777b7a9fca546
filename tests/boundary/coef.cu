// A 5-point diffusion step with a coefficient per cell (tests/boundary/periodic_coef.xml):
// B = A + C * (the 4 neighbours - 4 A). Written as for one device: a cell is updated where its
// whole stencil lies inside the buffer (nx, ny: the buffer's extents).
__global__ void diffuse(const float* A, const float* C, float* B, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  B[c] = A[c] + C[c] * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx] - 4.0f * A[c]);
}

// Three coupled diffusions with a coefficient read across its neighbours (tests/boundary/
// mixed_*.xml; the CUDA twin of couple.cl): each of U, V, W diffuses and relaxes towards the next,
// at a rate from C's 4 neighbours. Written as for one device: a cell is updated where its whole
// stencil lies inside the buffer (nx, ny: the buffer's extents).
__global__ void couple(const float* U, const float* V, const float* W, const float* C, float* U2,
                       float* V2, float* W2, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const float k = 0.02f * ((C[c - 1] + C[c + 1]) + (C[c - nx] + C[c + nx]));
  const float u = U[c], v = V[c], w = W[c];
  const float lap_u = ((U[c - 1] + U[c + 1]) + (U[c - nx] + U[c + nx])) - 4.0f * u;
  const float lap_v = ((V[c - 1] + V[c + 1]) + (V[c - nx] + V[c + nx])) - 4.0f * v;
  const float lap_w = ((W[c - 1] + W[c + 1]) + (W[c - nx] + W[c + nx])) - 4.0f * w;
  U2[c] = u + (0.1f * lap_u + k * (v - u));
  V2[c] = v + (0.1f * lap_v + k * (w - v));
  W2[c] = w + (0.1f * lap_w + k * (u - w));
}

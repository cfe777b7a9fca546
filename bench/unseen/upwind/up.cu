// First-order upwind advection along y, written for one device: the velocity is u - 0.5, and
// each cell reads q's upstream neighbour; the first and last rows are left as they are.
__global__ void upwind(const float* u, const float* q, float* qn, const int nx, const int ny,
                       const float c) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y < 1 || y >= ny - 1) return;
  const int i = x + nx * y;
  const float v = u[i] - 0.5f;
  const float dq = v > 0.0f ? q[i] - q[i - nx] : q[i + nx] - q[i];
  qn[i] = q[i] - c * v * dq;
}

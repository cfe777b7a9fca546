// Two kernels per time step: diffusion plus fourth-order hyperdiffusion, split in two stages.
//   laplacian:   T = lap(U)                              (reads U with a 1-cell halo)
//   hyperdiffuse: V = U + D * T - K * lap(T)             (reads T with a 1-cell halo, U at centre)
// The CUDA version of twostage.cl: the same arithmetic in the same order, the same guards.
// Bit-exact with the serial reference when built without FMA contraction (--fmad=false, the
// generated CMakeLists.txt's default).
// The second kernel reads T where the first one wrote it on another device, so T's ghost cells
// must be exchanged between the two launches.
// nx, ny are the extents of the buffer each kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer; the outer ring (the fixed
// domain boundary) keeps the value the output array already holds (T stays 0 there).

#define D 0.0625f
#define K 0.015625f

__global__ void laplacian(const float* U, float* T, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  T[c] = U[c - 1] + U[c + 1] + U[c - nx] + U[c + nx] - 4.0f * U[c];
}

__global__ void hyperdiffuse(const float* T, const float* U, float* V, const int nx, const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const float t = T[c];
  const float lap_t = T[c - 1] + T[c + 1] + T[c - nx] + T[c + nx] - 4.0f * t;
  V[c] = U[c] + (D * t - K * lap_t);
}

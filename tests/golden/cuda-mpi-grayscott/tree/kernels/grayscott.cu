// Gray-Scott reaction-diffusion, one explicit Euler step (dt = 1): the CUDA version of
// grayscott.cl, the same arithmetic in the same order, the same guards. Bit-exact with the
// serial reference when built without FMA contraction (--fmad=false, the generated
// CMakeLists.txt's default). No boundary logic: the periodic frame is in the buffer.

#define DU 0.16f
#define DV 0.08f
#define FEED 0.035f
#define KILL 0.065f

__global__ void grayscott(const float* U, const float* V, float* U2, float* V2, const int nx,
                          const int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const float u = U[c];
  const float v = V[c];
  const float lap_u = ((U[c - 1] + U[c + 1]) + (U[c - nx] + U[c + nx])) - 4.0f * u;
  const float lap_v = ((V[c - 1] + V[c + 1]) + (V[c - nx] + V[c + nx])) - 4.0f * v;
  const float uvv = u * v * v;
  U2[c] = u + ((DU * lap_u - uvv) + FEED * (1.0f - u));
  V2[c] = v + ((DV * lap_v + uvv) - (FEED + KILL) * v);
}

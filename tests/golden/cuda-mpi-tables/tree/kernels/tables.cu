// A weighted 9-point stencil whose weights come from a table, plus a source term from a
// second table: the CUDA version of tables.cl, the same arithmetic in the same order and the
// same guards. Bit-exact with the serial reference when built without FMA contraction
// (--fmad=false, the generated CMakeLists.txt's default). Tables reach the kernel as pointers
// to const.

__global__ void weighted(const float* A, float* B, const float* w, const float* src, const int nx,
                         const int ny, const int ox, const int oy, const int sx, const int sy) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const int s = c - nx;  // row below
  const int n = c + nx;  // row above
  float sum = w[0] * A[s - 1];
  sum += w[1] * A[s];
  sum += w[2] * A[s + 1];
  sum += w[3] * A[c - 1];
  sum += w[4] * A[c];
  sum += w[5] * A[c + 1];
  sum += w[6] * A[n - 1];
  sum += w[7] * A[n];
  sum += w[8] * A[n + 1];
  const int gx = x + ox;
  const int gy = y + oy;
  B[c] = sum + 0.01f * src[gx % sx + sx * (gy % sy)];
}

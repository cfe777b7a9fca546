// Upwind advection of U towards +x and +y: second-order upwind (Beam-Warming) along x, first
// order along y. It reads only cells below: x-2, x-1 and y-1, so the halo is one-sided.
// The CUDA version of advect.cl: the same arithmetic in the same order, the same guards.
// Bit-exact with the serial reference when built without FMA contraction (--fmad=false, the
// generated CMakeLists.txt's default).
// The x Courant number alternates between 8 bands of the GLOBAL grid, so the kernel needs its
// global column: x0 is the global x of its buffer's element 0, gnx the global extent along x.
// nx, ny are the extents of the buffer the kernel is given (owned plus ghost cells). A cell is
// updated only where its whole stencil lies inside that buffer: the low edges (x < 2, y < 1)
// are the fixed inflow boundary and keep the value V already holds; the high edges are outflow
// and are computed like any other cell.

#define HALO_LO_X 2
#define HALO_LO_Y 1
#define BANDS 8
#define CX_EVEN 0.25f
#define CX_ODD 0.375f
#define CY 0.125f

__global__ void advect(const float* U, float* V, const int nx, const int ny, const int x0,
                       const int gnx) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  if (x < HALO_LO_X || y < HALO_LO_Y) return;
  const int gx = x0 + x;
  const float cx = ((gx * BANDS / gnx) & 1) ? CX_ODD : CX_EVEN;
  const int c = x + nx * y;
  const float u = U[c];
  const float dx = 1.5f * u - 2.0f * U[c - 1] + 0.5f * U[c - 2];
  const float dy = u - U[c - nx];
  V[c] = u - cx * dx - CY * dy;
}

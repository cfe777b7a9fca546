// The CUDA twin of seidel.cl: the same arithmetic in the same order.
// PolyBench/C 4.2.1 seidel-2d as a wavefront: Gauss-Seidel in place, one launch per hyperplane
// 2i + j = h of the interior (row i, column j), h = step % planes, so that every cell reads
// neighbours already updated (h - 1, h - 2, h - 3) and not yet updated (h + 1 .. h + 3) as the
// serial loop nest does. A cell is written only when its hyperplane comes.
__global__ void seidel(double* A, const int nx, const int ny, const int ox, const int oy,
                       const int gnx, const int gny, const int step) {
  const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x),
            y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int i = y + oy, j = x + ox;  // the cell's row and column in the grid
  if (i < 1 || i > gny - 2 || j < 1 || j > gnx - 2) return;
  const int planes = 2 * (gny - 3) + (gnx - 3) + 1;
  if (2 * (i - 1) + (j - 1) != step % planes) return;
  const int c = x + nx * y;
  A[c] = (A[c - nx - 1] + A[c - nx] + A[c - nx + 1] + A[c - 1] + A[c] + A[c + 1] + A[c + nx - 1] +
          A[c + nx] + A[c + nx + 1]) /
         9.0;
}

// A periodic Jacobi step written for one device: the neighbours wrap with % nx and % ny.
__kernel void jacobi(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  const int xm = (x + nx - 1) % nx, xp = (x + 1) % nx;
  const int ym = (y + ny - 1) % ny, yp = (y + 1) % ny;
  B[x + nx * y] = 0.25f * (A[xm + nx * y] + A[xp + nx * y] + A[x + nx * ym] + A[x + nx * yp]);
}

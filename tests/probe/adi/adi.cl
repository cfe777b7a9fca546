// PolyBench/C 4.2.1 adi (double): the column sweep, then the row sweep, each a tridiagonal solve
// along a whole line (a forward recurrence, then back-substitution), one work-item per line.
// u and v are N x N with x the column (j) and y the row (i) of PolyBench's u[i][j]; p and q are
// the sweeps' coefficients, stored as v is. The line's first and last cells are the boundary.
// The coefficients come from the grid's size n and the time steps, as PolyBench computes them.
#pragma OPENCL FP_CONTRACT OFF
__kernel void colsweep(__global const double* u, __global double* v, __global double* p,
                       __global double* q, const int nx, const int ny, const int n, const int tsteps) {
  const double DX = 1.0 / (double)n, DY = 1.0 / (double)n, DT = 1.0 / (double)tsteps;
  const double mul1 = 2.0 * DT / (DX * DX), mul2 = 1.0 * DT / (DY * DY);
  const double a = -mul1 / 2.0, b = 1.0 + mul1, c = a, d = -mul2 / 2.0, f = d;
  const int i = get_global_id(0);  // a column
  if (i >= nx) return;
  if (i < 1 || i >= nx - 1) return;
  v[i] = 1.0;
  p[i] = 0.0;
  q[i] = v[i];
  for (int j = 1; j < ny - 1; j++) {
    const int k = i + nx * j;
    p[k] = -c / (a * p[k - nx] + b);
    q[k] = (-d * u[k - 1] + (1.0 + 2.0 * d) * u[k] - f * u[k + 1] - a * q[k - nx]) /
           (a * p[k - nx] + b);
  }
  v[i + nx * (ny - 1)] = 1.0;
  for (int j = ny - 2; j >= 1; j--) {
    const int k = i + nx * j;
    v[k] = p[k] * v[k + nx] + q[k];
  }
}
__kernel void rowsweep(__global const double* v, __global double* u, __global double* p,
                       __global double* q, const int nx, const int ny, const int n, const int tsteps) {
  const double DX = 1.0 / (double)n, DY = 1.0 / (double)n, DT = 1.0 / (double)tsteps;
  const double mul1 = 2.0 * DT / (DX * DX), mul2 = 1.0 * DT / (DY * DY);
  const double a = -mul1 / 2.0, c = a, d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
  const int i = get_global_id(1);  // a row
  if (i >= ny) return;
  if (i < 1 || i >= ny - 1) return;
  const int row = nx * i;
  u[row] = 1.0;
  p[row] = 0.0;
  q[row] = u[row];
  for (int j = 1; j < nx - 1; j++) {
    const int k = row + j;
    p[k] = -f / (d * p[k - 1] + e);
    q[k] = (-a * v[k - nx] + (1.0 + 2.0 * a) * v[k] - c * v[k + nx] - d * q[k - 1]) /
           (d * p[k - 1] + e);
  }
  u[row + nx - 1] = 1.0;
  for (int j = nx - 2; j >= 1; j--) {
    const int k = row + j;
    u[k] = p[k] * u[k + 1] + q[k];
  }
}

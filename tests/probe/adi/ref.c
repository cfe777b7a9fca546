/* Serial reference of tests/probe/adi: PolyBench/C 4.2.1 kernel_adi (double), the loop nest as
   PolyBench writes it. Usage: ref N TSTEPS IN.raw OUT_U.raw OUT_V.raw. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  if (argc != 6) return 2;
  const int n = atoi(argv[1]), tsteps = atoi(argv[2]);
  double *U = calloc(n * n, sizeof(double)), *V = calloc(n * n, sizeof(double)),
         *P = calloc(n * n, sizeof(double)), *Q = calloc(n * n, sizeof(double));
  FILE* in = fopen(argv[3], "rb");
  if (!U || !V || !P || !Q || !in || fread(U, sizeof(double) * n * n, 1, in) != 1) return 1;
  fclose(in);
#define u(i, j) U[(i) * n + (j)]
#define v(i, j) V[(i) * n + (j)]
#define p(i, j) P[(i) * n + (j)]
#define q(i, j) Q[(i) * n + (j)]
  double DX = 1.0 / (double)n, DY = 1.0 / (double)n, DT = 1.0 / (double)tsteps;
  double B1 = 2.0, B2 = 1.0;
  double mul1 = B1 * DT / (DX * DX), mul2 = B2 * DT / (DY * DY);
  double a = -mul1 / 2.0, b = 1.0 + mul1, c = a, d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++) { /* column sweep: column i, p/q/v indexed [j][i] */
      v(0, i) = 1.0;
      p(0, i) = 0.0;
      q(0, i) = v(0, i);
      for (int j = 1; j < n - 1; j++) {
        p(j, i) = -c / (a * p(j - 1, i) + b);
        q(j, i) = (-d * u(j, i - 1) + (1.0 + 2.0 * d) * u(j, i) - f * u(j, i + 1) -
                   a * q(j - 1, i)) / (a * p(j - 1, i) + b);
      }
      v(n - 1, i) = 1.0;
      for (int j = n - 2; j >= 1; j--) v(j, i) = p(j, i) * v(j + 1, i) + q(j, i);
    }
    for (int i = 1; i < n - 1; i++) { /* row sweep: row i */
      u(i, 0) = 1.0;
      p(i, 0) = 0.0;
      q(i, 0) = u(i, 0);
      for (int j = 1; j < n - 1; j++) {
        p(i, j) = -f / (d * p(i, j - 1) + e);
        q(i, j) = (-a * v(i - 1, j) + (1.0 + 2.0 * a) * v(i, j) - c * v(i + 1, j) -
                   d * q(i, j - 1)) / (d * p(i, j - 1) + e);
      }
      u(i, n - 1) = 1.0;
      for (int j = n - 2; j >= 1; j--) u(i, j) = p(i, j) * u(i, j + 1) + q(i, j);
    }
  }
  FILE* ou = fopen(argv[4], "wb");
  FILE* ov = fopen(argv[5], "wb");
  if (!ou || !ov || fwrite(U, sizeof(double) * n * n, 1, ou) != 1 ||
      fwrite(V, sizeof(double) * n * n, 1, ov) != 1 || fclose(ou) != 0 || fclose(ov) != 0)
    return 1;
  return 0;
}

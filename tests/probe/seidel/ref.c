/* Serial reference of tests/probe/seidel: PolyBench/C 4.2.1 kernel_seidel_2d (double), the
   loop nest as PolyBench writes it. Usage: ref N TSTEPS IN.raw OUT.raw. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const int n = atoi(argv[1]), tsteps = atoi(argv[2]);
  double* A = malloc(sizeof(double) * n * n);
  FILE* in = fopen(argv[3], "rb");
  if (!A || !in || fread(A, sizeof(double) * n * n, 1, in) != 1) return 1;
  fclose(in);
#define a(i, j) A[(i) * n + (j)]
  for (int t = 0; t <= tsteps - 1; t++)
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        a(i, j) = (a(i - 1, j - 1) + a(i - 1, j) + a(i - 1, j + 1) + a(i, j - 1) + a(i, j) +
                   a(i, j + 1) + a(i + 1, j - 1) + a(i + 1, j) + a(i + 1, j + 1)) /
                  9.0;
  FILE* out = fopen(argv[4], "wb");
  if (!out || fwrite(A, sizeof(double) * n * n, 1, out) != 1 || fclose(out) != 0) return 1;
  return 0;
}

/* Serial reference of tests/probe/lbm: the D2Q9 channel of lbm.cl on the whole 64x32 grid, 40
   steps, written from the model (pull streaming with bounce-back, BGK collision), not from the
   kernel. Usage: ref OBST.raw OUT_DIR (writes OUT_DIR/f0.raw .. f8.raw). Build with
   -ffp-contract=off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
enum { NX = 64, NY = 32, STEPS = 40, N = NX * NY };
static const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const int opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
static float f[9][N], g[9][N];
static int obst[N];
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* in = fopen(argv[1], "rb");
  if (!in || fread(obst, sizeof obst, 1, in) != 1) return 1;
  fclose(in);
  const float w[9] = {0.44444445f, 0.11111111f, 0.11111111f, 0.11111111f, 0.11111111f,
                      0.027777778f, 0.027777778f, 0.027777778f, 0.027777778f};
  for (int i = 0; i < 9; ++i)
    for (int c = 0; c < N; ++c) f[i][c] = g[i][c] = w[i];
  const float wq[9] = {4.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f,
                       1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};
  for (int t = 0; t < STEPS; ++t) {
    for (int y = 1; y < NY - 1; ++y)
      for (int x = 1; x < NX - 1; ++x) {
        const int c = x + NX * y;
        if (obst[c] != 0) continue;
        float p[9];
        for (int i = 0; i < 9; ++i) {
          const int from = (x - ex[i]) + NX * (y - ey[i]);
          p[i] = i == 0 ? f[0][c] : obst[from] != 0 ? f[opp[i]][c] : f[i][from];
        }
        const float rho = p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7] + p[8];
        const float ux = (p[1] - p[3] + p[5] - p[6] - p[7] + p[8]) / rho + 1e-5f;
        const float uy = (p[2] - p[4] + p[5] + p[6] - p[7] - p[8]) / rho;
        const float omega = 1.2f, usq = 1.5f * (ux * ux + uy * uy);
        for (int i = 0; i < 9; ++i) {
          const float cu = i == 0 ? 0.0f
                           : ex[i] == 0 ? (ey[i] > 0 ? uy : -uy)
                           : ey[i] == 0 ? (ex[i] > 0 ? ux : -ux)
                                        : (ex[i] > 0 ? ux : -ux) + (ey[i] > 0 ? uy : -uy);
          const float eq = wq[i] * rho * (1.0f + 3.0f * cu + 4.5f * cu * cu - usq);
          g[i][c] = p[i] + omega * (eq - p[i]);
        }
      }
    for (int i = 0; i < 9; ++i) { /* swap f and g */
      static float tmp[N];
      memcpy(tmp, f[i], sizeof tmp);
      memcpy(f[i], g[i], sizeof tmp);
      memcpy(g[i], tmp, sizeof tmp);
    }
  }
  for (int i = 0; i < 9; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/f%d.raw", argv[2], i);
    FILE* out = fopen(path, "wb");
    if (!out || fwrite(f[i], sizeof f[i], 1, out) != 1 || fclose(out) != 0) return 1;
  }
  return 0;
}

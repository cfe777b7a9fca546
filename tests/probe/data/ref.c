/* Serial reference of tests/probe/data (written from the model, not the kernel): 4 steps of
   v = u/2 + u(y+2)/4 where m is 9 + u(y-1)/4 where h > 2.5 (h is 3 everywhere), on rows
   2..NY-3, then swap(u, v). Usage: ref u.raw m.raw OUT_DIR (writes OUT_DIR/u.raw, v.raw). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NX 40
#define NY 48
static float u[NX * NY], v[NX * NY];
static int m[NX * NY];
static void load(const char* path, void* to, size_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f || fread(to, 1, bytes, f) != bytes) { fprintf(stderr, "ref: cannot read %s\n", path); exit(1); }
  fclose(f);
}
static void save(const char* dir, const char* name, const float* a) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(a, sizeof(float), NX * NY, f) != NX * NY) { fprintf(stderr, "ref: cannot write %s\n", path); exit(1); }
  fclose(f);
}
int main(int argc, char** argv) {
  if (argc != 4) return 2;
  load(argv[1], u, sizeof u);
  load(argv[2], m, sizeof m);
  memcpy(v, u, sizeof u);
  float *a = u, *b = v;
  for (int t = 0; t < 4; ++t) {
    for (int y = 2; y < NY - 2; ++y)
      for (int x = 0; x < NX; ++x) {
        const int c = x + NX * y;
        float r = 0.5f * a[c];
        if (m[c] == 9) r += 0.25f * a[c + 2 * NX];
        r += 0.25f * a[c - NX]; /* h = 3 > 2.5 */
        b[c] = r;
      }
    float* s = a; a = b; b = s;
  }
  save(argv[3], "u.raw", a);
  save(argv[3], "v.raw", b);
  return 0;
}

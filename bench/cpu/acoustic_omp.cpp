// A 16-thread OpenMP CPU version of the 25-point acoustic stencil (examples/acoustic), the CPU
// baseline of bench/ooc_gpu.sh: the same arithmetic, three rotating pressure arrays and vel.
// Usage: acoustic_omp NX NY NZ STEPS THREADS   (prints "seconds per step: S")
// Build: g++ -O3 -march=native -fopenmp acoustic_omp.cpp -o acoustic_omp
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: acoustic_omp NX NY NZ STEPS THREADS\n");
    return 1;
  }
  const long nx = std::atol(argv[1]), ny = std::atol(argv[2]), nz = std::atol(argv[3]);
  const int steps = std::atoi(argv[4]), threads = std::atoi(argv[5]);
  omp_set_num_threads(threads);
  const long n = nx * ny * nz, sy = nx, sz = nx * ny;
  std::vector<float> a(n), b(n), c(n), vel(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a[i] = b[i] = c[i] = 0.25f + 1e-6f * static_cast<float>(i % 977), vel[i] = 0.5f;
  float *prev = a.data(), *cur = b.data(), *next = c.data();
  const float C0 = -2.84722222f, C1 = 1.6f, C2 = -0.2f, C3 = 0.0253968254f, C4 = -0.00178571429f;
  const float DT2 = 0.0625f;
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) {
#pragma omp parallel for collapse(2) schedule(static)
    for (long z = 4; z < nz - 4; ++z)
      for (long y = 4; y < ny - 4; ++y)
#pragma omp simd
        for (long x = 4; x < nx - 4; ++x) {
          const long i = x + sy * y + sz * z;
          auto ax = [&](long st) {
            return C4 * (cur[i + 4 * st] + cur[i - 4 * st]) + C3 * (cur[i + 3 * st] + cur[i - 3 * st]) +
                   C2 * (cur[i + 2 * st] + cur[i - 2 * st]) + C1 * (cur[i + st] + cur[i - st]);
          };
          const float lap = 3.0f * C0 * cur[i] + ax(1) + ax(sy) + ax(sz);
          next[i] = vel[i] * vel[i] * DT2 * lap + 2.0f * cur[i] - prev[i];
        }
    float* t = prev;
    prev = cur;
    cur = next;
    next = t;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("seconds per step: %.6f (%ldx%ldx%ld, %d steps, %d threads, checksum %.6g)\n",
              secs / steps, nx, ny, nz, steps, threads, static_cast<double>(cur[n / 2]));
  return 0;
}

// The 25-point acoustic wave propagator of examples/acoustic on the CPU with OpenMP: the same
// float operations in the same order as examples/acoustic/reference.cpp (and acoustic.cl), the
// same initial values (p0 random(11), p1 and p2 copies of p0, vel random(5)), the same rotation
// of the three pressure levels, any grid size. The CPU baseline of the out-of-core benchmarks.
//
// Usage: acoustic_omp NX NY NZ STEPS THREADS [--out DIR]
// Prints one line:
//   RESULT name=acoustic_omp grid=NXxNYxNZ steps=S threads=T s_per_step=X ms_per_step=Y
// (wall time of the STEPS steps after one untimed warm-up step on a copy of the start, so the
// run computes exactly STEPS steps from the initial values). --out writes p0, p1, p2 as
// DIR/<name>.raw like the serial reference (at 64 56 48 10 they equal reference_acoustic's).
// Build: g++ -O3 -march=native -fopenmp -ffp-contract=off -I runtime/include acoustic_omp.cpp
// (-ffp-contract=off keeps it bit-exact with the reference; without it GCC fuses a*b+c.)
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"

namespace {

constexpr int kRadius = 4;
// The same decimal literals as acoustic.cl, so both compilers round them to the same floats.
constexpr float C0 = -2.84722222f;     // -205/72
constexpr float C1 = 1.6f;             //  8/5
constexpr float C2 = -0.2f;            // -1/5
constexpr float C3 = 0.0253968254f;    //  8/315
constexpr float C4 = -0.00178571429f;  // -1/560
constexpr float DT2 = 0.0625f;

inline float axis8(const float* __restrict p, long c, long s) {
  return C4 * (p[c + 4 * s] + p[c - 4 * s]) + C3 * (p[c + 3 * s] + p[c - 3 * s]) +
         C2 * (p[c + 2 * s] + p[c - 2 * s]) + C1 * (p[c + s] + p[c - s]);
}

struct Grid {
  long nx, ny, nz;
  long count() const { return nx * ny * nz; }
};

/// One step: p_next from p_prev, p_cur, vel, for every cell whose stencil lies inside the grid.
void sweep(const Grid& g, const float* __restrict p_prev, const float* __restrict p_cur,
           const float* __restrict vel, float* __restrict p_next) {
  const long sy = g.nx;
  const long sz = g.nx * g.ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (long z = kRadius; z < g.nz - kRadius; ++z) {
    for (long y = kRadius; y < g.ny - kRadius; ++y) {
#pragma omp simd
      for (long x = kRadius; x < g.nx - kRadius; ++x) {
        const long c = x + sy * y + sz * z;
        const float centre = p_cur[c];
        float lap = (3.0f * C0) * centre;
        lap = lap + axis8(p_cur, c, 1);
        lap = lap + axis8(p_cur, c, sy);
        lap = lap + axis8(p_cur, c, sz);
        const float v = vel[c];
        p_next[c] = v * v * DT2 * lap + 2.0f * centre - p_prev[c];
      }
    }
  }
}

/// random(seed) over the whole array, or a copy of `from`, filled by the threads that will
/// compute on it (first touch places the pages on their NUMA nodes).
void fill(const Grid& g, float* a, std::uint64_t seed, const float* from) {
  const long plane = g.nx * g.ny;
#pragma omp parallel for schedule(static)
  for (long z = 0; z < g.nz; ++z) {
    if (from)
      std::memcpy(a + z * plane, from + z * plane, static_cast<std::size_t>(plane) * sizeof(float));
    else
      stepgen::rt::fill_random<float>(a + z * plane, static_cast<std::size_t>(plane), seed,
                                      static_cast<std::uint64_t>(z * plane));
  }
}

float* alloc(const Grid& g) {
  auto* p = static_cast<float*>(
      std::aligned_alloc(64, (static_cast<std::size_t>(g.count()) * 4 + 63) / 64 * 64));
  if (!p) {
    std::fprintf(stderr, "acoustic_omp: out of memory\n");
    std::exit(1);
  }
  return p;
}

long positive(const char* s, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "acoustic_omp: bad %s '%s'\n", what, s);
    std::exit(2);
  }
  return v;
}

void write_raw(const std::string& dir, const char* name, const float* a, long count) {
  const std::string path = dir + "/" + name + ".raw";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f ||
      std::fwrite(a, sizeof(float), static_cast<std::size_t>(count), f) !=
          static_cast<std::size_t>(count) ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "acoustic_omp: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && !(argc == 8 && std::strcmp(argv[6], "--out") == 0)) {
    std::fprintf(stderr, "usage: %s NX NY NZ STEPS THREADS [--out DIR]\n", argv[0]);
    return 2;
  }
  const Grid g{positive(argv[1], "NX"), positive(argv[2], "NY"), positive(argv[3], "NZ")};
  const long steps = positive(argv[4], "STEPS");
  const int threads = static_cast<int>(positive(argv[5], "THREADS"));
  omp_set_num_threads(threads);

  float* p0 = alloc(g);
  float* p1 = alloc(g);
  float* p2 = alloc(g);
  float* vel = alloc(g);
  fill(g, p0, 11, nullptr);
  fill(g, p1, 0, p0);  // copy(p0)
  fill(g, p2, 0, p0);  // copy(p0)
  fill(g, vel, 5, nullptr);

  // Warm-up (threads started, pages touched): one step into p2, whose values the first timed
  // step overwrites everywhere it writes; its fixed shell keeps the copy of p0.
  sweep(g, p0, p1, vel, p2);

  const double t0 = omp_get_wtime();
  for (long step = 0; step < steps; ++step) {
    sweep(g, p0, p1, vel, p2);
    // rotate p0 p1 p2: p0 <- old p1, p1 <- old p2, p2 <- old p0's buffer.
    float* old0 = p0;
    p0 = p1;
    p1 = p2;
    p2 = old0;
  }
  const double s = (omp_get_wtime() - t0) / static_cast<double>(steps);
  std::printf(
      "RESULT name=acoustic_omp grid=%ldx%ldx%ld steps=%ld threads=%d s_per_step=%.6f "
      "ms_per_step=%.3f\n",
      g.nx, g.ny, g.nz, steps, threads, s, 1e3 * s);
  if (argc == 8) {
    write_raw(argv[7], "p0", p0, g.count());
    write_raw(argv[7], "p1", p1, g.count());
    write_raw(argv[7], "p2", p2, g.count());
  }
  for (float* p : {p0, p1, p2, vel}) std::free(p);
  return 0;
}

// Serial reference for examples/seismic: the 13-point acoustic wave over the whole grid with the
// spec's two sources (<inject>) and two receivers (<record>), in the body's order.
// Same float operations in the same order as seismic.cl; build with -ffp-contract=off. Writes
// p1, p2, p3 (.raw) and the two traces (traces.csv, receivers.csv) as the program writes them.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"
#include "stepgen/exec/traces.hpp"

namespace {
// The grid: examples/seismic/seismic.xml's 64x64x48, or with --size 128 the 128^3 of
// bench/specs/sim/seismic128.xml (the same kernel, sources and receivers moved to its seams).
int kNx = 64;
int kNy = 64;
int kNz = 48;
constexpr long kSteps = 30;
constexpr int kRadius = 2;
// The same decimal literals as seismic.cl, so both compilers round them to the same floats.
constexpr float C0 = -2.5f;
constexpr float C1 = 1.33333333f;
constexpr float C2 = -0.0833333333f;
constexpr float DT2 = 0.1f;

float axis4(const std::vector<float>& p, int c, int s) {
  return C2 * (p[c + 2 * s] + p[c - 2 * s]) + C1 * (p[c + s] + p[c - s]);
}

void sweep(const std::vector<float>& p_prev, const std::vector<float>& p_cur,
           const std::vector<float>& vel, std::vector<float>& p_next) {
  const int sy = kNx;
  const int sz = kNx * kNy;
  for (int z = kRadius; z < kNz - kRadius; ++z) {
    for (int y = kRadius; y < kNy - kRadius; ++y) {
      for (int x = kRadius; x < kNx - kRadius; ++x) {
        const int c = x + sy * y + sz * z;
        const float centre = p_cur[c];
        float lap = (3.0f * C0) * centre;
        lap = lap + axis4(p_cur, c, 1);
        lap = lap + axis4(p_cur, c, sy);
        lap = lap + axis4(p_cur, c, sz);
        const float v = vel[c];
        p_next[c] = v * v * DT2 * lap + 2.0f * centre - p_prev[c];
      }
    }
  }
}

std::size_t at(const stepgen::rt::Vec3& p) {
  return static_cast<std::size_t>(p[0] + kNx * (p[1] + kNy * p[2]));
}

// The Ricker source's value: the C++ the generator writes for the spec's expression.
double ricker(std::int64_t step) {
  return static_cast<double>(
      10 * (1 - 2 * std::pow(3.141592653589793 * 15 * (step * 1e-2 - 0.1), 2)) *
      std::exp(static_cast<double>(-std::pow(3.141592653589793 * 15 * (step * 1e-2 - 0.1), 2))));
}

// wavelet.raw's values: (i % 7 - 3) * 0.25, one per step.
double wavelet(std::int64_t step) {
  return static_cast<double>(step % 7 - 3) * 0.25;
}

stepgen::rt::Record record(const char* name, std::vector<stepgen::rt::Vec3> points,
                           std::int64_t every, const char* file) {
  return stepgen::rt::Record(0, name, std::move(points), 3, every, file, sizeof(float),
                             stepgen::rt::cell_value<float>, stepgen::rt::trace_digits<float>());
}

void sample(stepgen::rt::Record& r, const std::vector<float>& a, std::int64_t step) {
  if (!r.due(step)) return;
  for (std::size_t k = 0; k < r.points.size(); ++k) r.put(step, k, a[at(r.points[k])]);
}
}  // namespace

int main(int argc, char** argv) {
  // --size 128: bench/specs/sim/seismic128.xml (taken out before the common options).
  bool big = false;
  {
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]) == "--size" && i + 1 < argc) {
        if (std::string(argv[i + 1]) != "128" && std::string(argv[i + 1]) != "64") {
          std::fprintf(stderr, "--size: 64 (seismic.xml) or 128 (seismic128.xml)\n");
          return 2;
        }
        big = std::string(argv[++i]) == "128";
        continue;
      }
      argv[kept++] = argv[i];
    }
    argc = kept;
  }
  if (big) kNx = kNy = kNz = 128;
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  const std::size_t count = static_cast<std::size_t>(kNx) * kNy * kNz;
  std::vector<float> p1(count);
  stepgen::rt::fill_random<float>(p1.data(), count, 11, 0);
  std::vector<float> p2 = p1;  // init="copy(p1)"
  std::vector<float> p3 = p1;  // init="copy(p1)"
  std::vector<float> vel(count);
  stepgen::rt::fill_random<float>(vel.data(), count, 5, 0);

  stepgen::rt::Record receivers =
      big ? record("p2", {{64, 62, 22}, {80, 40, 72}, {32, 96, 64}, {66, 64, 64}, {127, 127, 127}},
                   3, "receivers.csv")
          : record("p2", {{32, 31, 11}, {40, 20, 36}, {16, 48, 32}, {33, 32, 24}, {63, 63, 47}}, 3,
                   "receivers.csv");
  stepgen::rt::Record traces = big ? record("p3",
                                            {{64, 64, 64},
                                             {63, 64, 64},
                                             {64, 63, 63},
                                             {64, 64, 65},
                                             {40, 80, 31},
                                             {20, 100, 32},
                                             {100, 20, 43},
                                             {2, 2, 2}},
                                            1, "traces.csv")
                                   : record("p3",
                                            {{32, 32, 24},
                                             {31, 32, 24},
                                             {32, 31, 23},
                                             {32, 32, 25},
                                             {20, 40, 11},
                                             {10, 50, 12},
                                             {50, 10, 16},
                                             {2, 2, 2}},
                                            1, "traces.csv");
  receivers.begin(opt.steps);
  traces.begin(opt.steps);
  const stepgen::rt::Vec3 source =
      big ? stepgen::rt::Vec3{64, 64, 64} : stepgen::rt::Vec3{32, 32, 24};
  const stepgen::rt::Vec3 second =
      big ? stepgen::rt::Vec3{40, 80, 32} : stepgen::rt::Vec3{20, 40, 12};
  for (long step = 0; step < opt.steps; ++step) {
    sample(receivers, p2, step);
    sweep(p1, p2, vel, p3);
    // inject: cell = cell + T(value)
    p3[at(source)] = p3[at(source)] + static_cast<float>(ricker(step));
    p3[at(second)] = p3[at(second)] + static_cast<float>(wavelet(step));
    sample(traces, p3, step);
    // rotate p1 p2 p3: p1 <- old p2, p2 <- old p3, p3 <- old p1's buffer.
    std::swap(p1, p2);  // p1 = old p2, p2 = old p1
    std::swap(p2, p3);  // p2 = old p3, p3 = old p1
  }
  // vel is read-only: not saved.
  examples::write_raw(opt, "p1", p1);
  examples::write_raw(opt, "p2", p2);
  examples::write_raw(opt, "p3", p3);
  for (const stepgen::rt::Record* r : {&receivers, &traces}) {
    const std::string text = r->csv();
    const std::string path = opt.out + "/" + r->file;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}

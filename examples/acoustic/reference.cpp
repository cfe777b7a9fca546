// Serial reference for examples/acoustic: the 25-point acoustic wave propagator over the whole
// grid, with the spec's rotation of the three pressure levels.
// Same float operations in the same order as acoustic.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 64;
constexpr int kNy = 56;
constexpr int kNz = 48;
constexpr long kSteps = 10;
constexpr int kRadius = 4;
// The same decimal literals as acoustic.cl, so both compilers round them to the same floats.
constexpr float C0 = -2.84722222f;     // -205/72
constexpr float C1 = 1.6f;             //  8/5
constexpr float C2 = -0.2f;            // -1/5
constexpr float C3 = 0.0253968254f;    //  8/315
constexpr float C4 = -0.00178571429f;  // -1/560
constexpr float DT2 = 0.0625f;

float axis8(const std::vector<float>& p, int c, int s) {
  return C4 * (p[c + 4 * s] + p[c - 4 * s]) + C3 * (p[c + 3 * s] + p[c - 3 * s]) +
         C2 * (p[c + 2 * s] + p[c - 2 * s]) + C1 * (p[c + s] + p[c - s]);
}

void sweep(const std::vector<float>& p_prev, const std::vector<float>& p_cur,
           const std::vector<float>& vel, std::vector<float>& p_next) {
  constexpr int sy = kNx;
  constexpr int sz = kNx * kNy;
  for (int z = kRadius; z < kNz - kRadius; ++z) {
    for (int y = kRadius; y < kNy - kRadius; ++y) {
      for (int x = kRadius; x < kNx - kRadius; ++x) {
        const int c = x + sy * y + sz * z;
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
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  const std::size_t count = static_cast<std::size_t>(kNx) * kNy * kNz;
  std::vector<float> p0(count);
  stepgen::rt::fill_random<float>(p0.data(), count, 11, 0);
  std::vector<float> p1 = p0;  // init="copy(p0)"
  std::vector<float> p2 = p0;  // init="copy(p0)"
  std::vector<float> vel(count);
  stepgen::rt::fill_random<float>(vel.data(), count, 5, 0);

  for (long step = 0; step < opt.steps; ++step) {
    sweep(p0, p1, vel, p2);
    // rotate p0 p1 p2: p0 <- old p1, p1 <- old p2, p2 <- old p0's buffer.
    std::swap(p0, p1);  // p0 = old p1, p1 = old p0
    std::swap(p1, p2);  // p1 = old p2, p2 = old p0
  }
  // vel is read-only: not saved.
  examples::write_raw(opt, "p0", p0);
  examples::write_raw(opt, "p1", p1);
  examples::write_raw(opt, "p2", p2);
  return 0;
}

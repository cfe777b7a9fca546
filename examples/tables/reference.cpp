// Serial reference for examples/tables: the weighted 9-point stencil over the whole grid, its
// weights those of coef.raw (written out below), its source term the 16x8 random table.
// Same float operations in the same order as tables.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 256;
constexpr int kNy = 192;
constexpr int kSx = 16;  // the table src: 16x8, random(5)
constexpr int kSy = 8;
constexpr long kSteps = 24;
// coef.raw: these 9 floats, little-endian.
constexpr float kW[9] = {0.05f, 0.1f, 0.07f, 0.11f, 0.3f, 0.12f, 0.06f, 0.09f, 0.1f};

void sweep(const std::vector<float>& a, std::vector<float>& b, const std::vector<float>& src) {
  for (int y = 1; y < kNy - 1; ++y) {
    for (int x = 1; x < kNx - 1; ++x) {
      const int c = x + kNx * y;
      const int s = c - kNx;
      const int n = c + kNx;
      float sum = kW[0] * a[s - 1];
      sum += kW[1] * a[s];
      sum += kW[2] * a[s + 1];
      sum += kW[3] * a[c - 1];
      sum += kW[4] * a[c];
      sum += kW[5] * a[c + 1];
      sum += kW[6] * a[n - 1];
      sum += kW[7] * a[n];
      sum += kW[8] * a[n + 1];
      b[c] = sum + 0.01f * src[x % kSx + kSx * (y % kSy)];
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  std::vector<float> src(static_cast<std::size_t>(kSx) * kSy);
  stepgen::rt::fill_random<float>(src.data(), src.size(), 5, 0);
  std::vector<float> a(static_cast<std::size_t>(kNx) * kNy);
  stepgen::rt::fill_random<float>(a.data(), a.size(), 11, 0);
  std::vector<float> b = a;  // init="copy(A)"

  for (long step = 0; step < opt.steps; ++step) {
    sweep(a, b, src);
    std::swap(a, b);
  }
  examples::write_raw(opt, "A", a);
  examples::write_raw(opt, "B", b);
  return 0;
}

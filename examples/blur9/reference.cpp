// Serial reference for examples/blur9: 3x3 box blur over the whole grid.
// Same float operations in the same order as blur9.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 512;
constexpr int kNy = 384;
constexpr long kSteps = 30;
constexpr float kOneNinth = 0.111111111f;  // the same literal as blur9.cl

void sweep(const std::vector<float>& a, std::vector<float>& b) {
  for (int y = 1; y < kNy - 1; ++y) {
    for (int x = 1; x < kNx - 1; ++x) {
      const int c = x + kNx * y;
      const int s = c - kNx;
      const int n = c + kNx;
      const float sum =
          a[s - 1] + a[s] + a[s + 1] + a[c - 1] + a[c] + a[c + 1] + a[n - 1] + a[n] + a[n + 1];
      b[c] = sum * kOneNinth;
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  std::vector<float> a(static_cast<std::size_t>(kNx) * kNy);
  stepgen::rt::fill_random<float>(a.data(), a.size(), 9, 0);
  std::vector<float> b = a;  // init="copy(A)"

  for (long step = 0; step < opt.steps; ++step) {
    sweep(a, b);
    std::swap(a, b);
  }
  examples::write_raw(opt, "A", a);
  examples::write_raw(opt, "B", b);
  return 0;
}

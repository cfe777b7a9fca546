// Serial reference for examples/jacobi2d: 5-point Jacobi over the whole grid.
// Same float operations in the same order as jacobi2d.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 1024;
constexpr int kNy = 768;
constexpr long kSteps = 100;

void sweep(const std::vector<float>& a, std::vector<float>& b) {
  for (int y = 1; y < kNy - 1; ++y) {
    for (int x = 1; x < kNx - 1; ++x) {
      const int c = x + kNx * y;
      b[c] = 0.25f * (a[c - 1] + a[c + 1] + a[c - kNx] + a[c + kNx]);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  std::vector<float> a(static_cast<std::size_t>(kNx) * kNy);
  stepgen::rt::fill_random<float>(a.data(), a.size(), 7, 0);
  std::vector<float> b = a;  // init="copy(A)"

  for (long step = 0; step < opt.steps; ++step) {
    sweep(a, b);
    std::swap(a, b);
  }
  examples::write_raw(opt, "A", a);
  examples::write_raw(opt, "B", b);
  return 0;
}

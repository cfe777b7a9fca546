// Serial reference for examples/stepocl_jacobi: STEPOCL's Listing 1 over the whole grid.
// Same float operations in the same order as stepocl_jacobi.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 4098;
constexpr int kNy = 1026;
constexpr long kSteps = 50;
constexpr float kCnst = 0.25f;
constexpr int kReachX = 10;
constexpr int kReachY = 1;

void sweep(const std::vector<float>& b, std::vector<float>& a) {
  for (int y = kReachY; y < kNy - kReachY; ++y) {
    for (int x = kReachX; x < kNx - kReachX; ++x) {
      const int c = x + kNx * y;
      a[c] = kCnst * (b[c + kNx] + b[c - kNx] + b[c - kReachX] + b[c + kReachX]);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  std::vector<float> b(static_cast<std::size_t>(kNx) * kNy);
  stepgen::rt::fill_random<float>(b.data(), b.size(), 2013, 0);
  std::vector<float> a = b;  // init="copy(B)": boundary cells agree in both buffers

  for (long step = 0; step < opt.steps; ++step) {
    sweep(b, a);
    std::swap(a, b);
  }
  examples::write_raw(opt, "A", a);
  examples::write_raw(opt, "B", b);
  return 0;
}

// Serial reference for examples/advect: upwind advection over the whole grid, where the buffer
// is the whole grid (its element 0 is global x 0).
// Same float operations in the same order as advect.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 640;
constexpr int kNy = 480;
constexpr long kSteps = 40;
constexpr int kHaloLoX = 2;
constexpr int kHaloLoY = 1;
constexpr int kBands = 8;
constexpr float kCxEven = 0.25f;
constexpr float kCxOdd = 0.375f;
constexpr float kCy = 0.125f;

void sweep(const std::vector<float>& u_in, std::vector<float>& v_out) {
  for (int y = kHaloLoY; y < kNy; ++y) {
    for (int x = kHaloLoX; x < kNx; ++x) {
      const float cx = ((x * kBands / kNx) & 1) ? kCxOdd : kCxEven;
      const int c = x + kNx * y;
      const float u = u_in[c];
      const float dx = 1.5f * u - 2.0f * u_in[c - 1] + 0.5f * u_in[c - 2];
      const float dy = u - u_in[c - kNx];
      v_out[c] = u - cx * dx - kCy * dy;
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  std::vector<float> u(static_cast<std::size_t>(kNx) * kNy);
  stepgen::rt::fill_random<float>(u.data(), u.size(), 640, 0);
  std::vector<float> v = u;  // init="copy(U)"

  for (long step = 0; step < opt.steps; ++step) {
    sweep(u, v);
    std::swap(u, v);
  }
  examples::write_raw(opt, "U", u);
  examples::write_raw(opt, "V", v);
  return 0;
}

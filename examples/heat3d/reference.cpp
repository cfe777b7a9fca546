// Serial reference for examples/heat3d: 7-point explicit heat equation over the whole grid.
// Same float operations in the same order as heat3d.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 96;
constexpr int kNy = 64;
constexpr int kNz = 48;
constexpr long kSteps = 20;
constexpr float kAlpha = 0.125f;  // the spec's scalar argument

void sweep(const std::vector<float>& u_in, std::vector<float>& v_out) {
  constexpr int sy = kNx;
  constexpr int sz = kNx * kNy;
  for (int z = 1; z < kNz - 1; ++z) {
    for (int y = 1; y < kNy - 1; ++y) {
      for (int x = 1; x < kNx - 1; ++x) {
        const int c = x + sy * y + sz * z;
        const float u = u_in[c];
        const float lap = u_in[c - 1] + u_in[c + 1] + u_in[c - sy] + u_in[c + sy] + u_in[c - sz] +
                          u_in[c + sz] - 6.0f * u;
        v_out[c] = u + kAlpha * lap;
      }
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  std::vector<float> u(static_cast<std::size_t>(kNx) * kNy * kNz);
  stepgen::rt::fill_random<float>(u.data(), u.size(), 42, 0);
  std::vector<float> v = u;  // init="copy(U)"

  for (long step = 0; step < opt.steps; ++step) {
    sweep(u, v);
    std::swap(u, v);
  }
  examples::write_raw(opt, "U", u);
  examples::write_raw(opt, "V", v);
  return 0;
}

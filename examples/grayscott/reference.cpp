// Serial reference for examples/grayscott: Gray-Scott over the whole grid, periodic in x and
// y by modulo indexing. Same float operations in the same order as grayscott.cl; build with
// -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 128;
constexpr int kNy = 64;
constexpr long kSteps = 100;
constexpr float kDu = 0.16f, kDv = 0.08f, kFeed = 0.035f, kKill = 0.065f;

int at(int x, int y) {
  return (x + kNx) % kNx + kNx * ((y + kNy) % kNy);
}

void step(const std::vector<float>& u_in, const std::vector<float>& v_in, std::vector<float>& u_out,
          std::vector<float>& v_out) {
  for (int y = 0; y < kNy; ++y)
    for (int x = 0; x < kNx; ++x) {
      const int c = at(x, y);
      const float u = u_in[c];
      const float v = v_in[c];
      const float lap_u =
          ((u_in[at(x - 1, y)] + u_in[at(x + 1, y)]) + (u_in[at(x, y - 1)] + u_in[at(x, y + 1)])) -
          4.0f * u;
      const float lap_v =
          ((v_in[at(x - 1, y)] + v_in[at(x + 1, y)]) + (v_in[at(x, y - 1)] + v_in[at(x, y + 1)])) -
          4.0f * v;
      const float uvv = u * v * v;
      u_out[c] = u + ((kDu * lap_u - uvv) + kFeed * (1.0f - u));
      v_out[c] = v + ((kDv * lap_v + uvv) - (kFeed + kKill) * v);
    }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  const std::size_t n = static_cast<std::size_t>(kNx) * kNy;
  std::vector<float> u(n), v(n), u2(n, 0.0f), v2(n, 0.0f);
  stepgen::rt::fill_random<float>(u.data(), n, 11, 0);
  stepgen::rt::fill_random<float>(v.data(), n, 12, 0);
  for (long s = 0; s < opt.steps; ++s) {
    step(u, v, u2, v2);
    std::swap(u, u2);
    std::swap(v, v2);
  }
  examples::write_raw(opt, "U", u);
  examples::write_raw(opt, "V", v);
  examples::write_raw(opt, "U2", u2);
  examples::write_raw(opt, "V2", v2);
  return 0;
}

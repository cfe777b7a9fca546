// Serial reference for examples/twostage: the two kernels of each step over the whole grid.
// Same float operations in the same order as twostage.cl; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 384;
constexpr int kNy = 256;
constexpr long kSteps = 25;
constexpr float D = 0.0625f;
constexpr float K = 0.015625f;

void laplacian(const std::vector<float>& u, std::vector<float>& t) {
  for (int y = 1; y < kNy - 1; ++y) {
    for (int x = 1; x < kNx - 1; ++x) {
      const int c = x + kNx * y;
      t[c] = u[c - 1] + u[c + 1] + u[c - kNx] + u[c + kNx] - 4.0f * u[c];
    }
  }
}

void hyperdiffuse(const std::vector<float>& t_in, const std::vector<float>& u,
                  std::vector<float>& v) {
  for (int y = 1; y < kNy - 1; ++y) {
    for (int x = 1; x < kNx - 1; ++x) {
      const int c = x + kNx * y;
      const float t = t_in[c];
      const float lap_t = t_in[c - 1] + t_in[c + 1] + t_in[c - kNx] + t_in[c + kNx] - 4.0f * t;
      v[c] = u[c] + (D * t - K * lap_t);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  const std::size_t count = static_cast<std::size_t>(kNx) * kNy;
  std::vector<float> u(count);
  stepgen::rt::fill_random<float>(u.data(), count, 25, 0);
  std::vector<float> v = u;           // init="copy(U)"
  std::vector<float> t(count, 0.0f);  // init="zero"

  for (long step = 0; step < opt.steps; ++step) {
    laplacian(u, t);
    hyperdiffuse(t, u, v);
    std::swap(u, v);
  }
  // T has save="false".
  examples::write_raw(opt, "U", u);
  examples::write_raw(opt, "V", v);
  return 0;
}

// Serial reference for tests/kernels_unseen/wave2k: both launches of each step over the whole
// grid, then the spec's rotation. Same float operations in the same order as wave2k.cl and
// wave2k.cu; build with -ffp-contract=off.

#include <utility>
#include <vector>

#include "reference_io.hpp"
#include "stepgen/description/init.hpp"

namespace {
constexpr int kNx = 37;
constexpr int kNy = 29;
constexpr int kNz = 41;
constexpr long kSteps = 12;
constexpr int kSy = kNx;
constexpr int kSz = kNx * kNy;

bool rim(int x, int y, int z) {
  return x < 1 || x >= kNx - 1 || y < 1 || y >= kNy - 1 || z < 1 || z >= kNz - 1;
}

void lap(const std::vector<float>& u, std::vector<float>& L) {
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        if (rim(x, y, z)) continue;
        const int i = x + kSy * y + kSz * z;
        L[i] =
            u[i - 1] + u[i + 1] + u[i - kSy] + u[i + kSy] + u[i - kSz] + u[i + kSz] - 6.0f * u[i];
      }
}

void upd(const std::vector<float>& uprev, const std::vector<float>& u, const std::vector<float>& L,
         const std::vector<float>& c, std::vector<float>& unew) {
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        if (rim(x, y, z)) continue;
        const int i = x + kSy * y + kSz * z;
        unew[i] = 2.0f * u[i] - uprev[i] + 0.0625f * c[i] * L[i];
      }
}
}  // namespace

int main(int argc, char** argv) {
  const examples::Options opt = examples::parse_options(argc, argv, kSteps);
  const std::size_t count = static_cast<std::size_t>(kNx) * kNy * kNz;
  std::vector<float> uprev(count), u(count), c(count), L(count, 0.0f);
  stepgen::rt::fill_random<float>(uprev.data(), count, 3, 0);
  stepgen::rt::fill_random<float>(u.data(), count, 7, 0);
  stepgen::rt::fill_random<float>(c.data(), count, 5, 0);
  std::vector<float> unew = u;  // init="copy(u)"

  for (long step = 0; step < opt.steps; ++step) {
    lap(u, L);
    upd(uprev, u, L, c, unew);
    // rotate uprev u unew: uprev <- old u, u <- old unew, unew <- old uprev's buffer.
    std::swap(uprev, u);
    std::swap(u, unew);
  }
  // L is a temporary (save="false") and c is read-only: neither is saved.
  examples::write_raw(opt, "uprev", uprev);
  examples::write_raw(opt, "u", u);
  examples::write_raw(opt, "unew", unew);
  return 0;
}

// Serial reference of tests/boundary/*.xml: the 13-point step of kinds.cl over the whole grid,
// each neighbour outside the grid mapped per dimension by the boundary kind (boundary.hpp):
// periodic wraps, mirror reflects about the edge face, copy takes the edge cell, value(0.5) is
// 0.5 (a corner outside in a value dimension too). Build with -ffp-contract=off.
// Usage: boundary_reference KIND_X KIND_Y OUT_DIR [NX NY]   (kinds: periodic, mirror, copy,
// value; the grid 64x48 unless given)
//        boundary_reference heat3d-z OUT_DIR   (heat7.cl's 7-point step on
// 16x12x20, z by modulo indexing, the x and y edges fixed); heat3d-z-inject: with
// periodic_z_inject.xml's sources. STEPGEN_REF_INJECT=1: mirror_copy_inject.xml's sources.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"

namespace {
int kNx = 64, kNy = 48;
constexpr int kSteps = 30;
constexpr float kValue = 0.5f;

// The source coordinate of c along an extent n, or -1 for the value.
int map(const std::string& kind, int c, int n) {
  if (c >= 0 && c < n) return c;
  if (kind == "periodic") return (c + n) % n;
  if (kind == "mirror") return c < 0 ? -1 - c : 2 * n - 1 - c;
  if (kind == "copy") return c < 0 ? 0 : n - 1;
  return -1;
}

void write(const std::string& path, const std::vector<float>& a) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(a.data(), sizeof(float), a.size(), f) != a.size() || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
}
}  // namespace

// periodic_z_inject.xml (`inject`: with its sources; without them the same stencil alone): 12
// steps of heat7.cl over 16x12x20, periodic in z (modulo indexing), the cells on the x and y
// edges never computed (they keep their values, A's and B's in turn).
int heat3d_z(const std::string& out, bool inject) {
  constexpr int nx = 16, ny = 12, nz = 20, steps = 12;
  constexpr float alpha = 0.125f;
  std::vector<float> a(static_cast<std::size_t>(nx) * ny * nz);
  stepgen::rt::fill_random<float>(a.data(), a.size(), 5, 0);
  std::vector<float> b = a;
  auto at = [&](int x, int y, int z) {
    return static_cast<std::size_t>(x + nx * (y + ny * ((z + nz) % nz)));
  };
  for (int s = 0; s < steps; ++s) {
    for (int z = 0; z < nz; ++z)
      for (int y = 1; y < ny - 1; ++y)
        for (int x = 1; x < nx - 1; ++x) {
          const float u = a[at(x, y, z)];
          const float lap = a[at(x - 1, y, z)] + a[at(x + 1, y, z)] + a[at(x, y - 1, z)] +
                            a[at(x, y + 1, z)] + a[at(x, y, z - 1)] + a[at(x, y, z + 1)] - 6.0f * u;
          b[at(x, y, z)] = u + alpha * lap;
        }
    if (inject) {  // periodic_z_inject.xml's sources, added to B after the launch
      b[at(8, 6, 0)] += static_cast<float>(0.25 * s + 1);
      b[at(3, 4, 19)] += static_cast<float>(-0.75);
    }
    std::swap(a, b);
  }
  write(out + "/A.raw", a);
  write(out + "/B.raw", b);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "heat3d-z") return heat3d_z(argv[2], false);
  if (argc == 3 && std::string(argv[1]) == "heat3d-z-inject") return heat3d_z(argv[2], true);
  // mirror_copy_inject.xml's sources (STEPGEN_REF_INJECT=1): added to B after each step.
  const bool inject = std::getenv("STEPGEN_REF_INJECT") != nullptr;
  if (argc != 4 && argc != 6) {
    std::fprintf(stderr, "usage: %s KIND_X KIND_Y OUT_DIR [NX NY]\n", argv[0]);
    return 2;
  }
  if (argc == 6) {
    kNx = std::atoi(argv[4]);
    kNy = std::atoi(argv[5]);
  }
  const std::string kx = argv[1], ky = argv[2], out = argv[3];
  std::vector<float> a(static_cast<std::size_t>(kNx) * kNy), b(a.size(), 0.0f);
  stepgen::rt::fill_random<float>(a.data(), a.size(), 5, 0);
  auto get = [&](int x, int y) {
    const int sx = map(kx, x, kNx), sy = map(ky, y, kNy);
    if (sx < 0 || sy < 0) return kValue;  // x is looked at first: its value wins a corner
    return a[static_cast<std::size_t>(sx + kNx * sy)];
  };
  for (int s = 0; s < kSteps; ++s) {
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        const float side = (get(x - 1, y) + get(x + 1, y)) + (get(x, y - 1) + get(x, y + 1));
        const float diag =
            (get(x - 1, y - 1) + get(x + 1, y - 1)) + (get(x - 1, y + 1) + get(x + 1, y + 1));
        const float far = (get(x - 2, y) + get(x + 2, y)) + (get(x, y - 2) + get(x, y + 2));
        b[static_cast<std::size_t>(x + kNx * y)] =
            ((0.4f * get(x, y) + 0.1f * side) + 0.025f * diag) + 0.025f * far;
      }
    if (inject) {
      b[static_cast<std::size_t>(1 + kNx * 0)] += static_cast<float>(0.25 * s + 1);
      b[static_cast<std::size_t>(40 + kNx * 47)] += static_cast<float>(-0.5);
      b[static_cast<std::size_t>(62 + kNx * 20)] +=
          static_cast<float>(std::sin(static_cast<double>(s)));
    }
    std::swap(a, b);
  }
  write(out + "/A.raw", a);
  write(out + "/B.raw", b);
  return 0;
}

// The kernel probe (runtime/stepgen/exec/probe.hpp) on kernels it could not see into with its first
// values alone, written as host C++: a solid mask marking every probe cell solid, a wavefront
// writing one hyperplane a step, a line recurrence, a kernel that writes no cell.
#include <doctest/doctest.h>

#include "stepgen/exec/probe.hpp"

using namespace stepgen::rt;

namespace {

const Box kBlindGrid = Box::from_extent(2, {100, 80, 1});

ProbeKernel blind_two_args(const char* name, const std::vector<Vec3>& declared) {
  ProbeKernel k;
  k.name = name;
  k.args = {{0, ArgAccess::kRead, Halo::from_points(2, declared)},
            {1, ArgAccess::kWrite, Halo::from_points(2, {})}};
  k.follows = {true, true, false};
  k.views = true;
  return k;
}

}  // namespace

TEST_CASE("probe: a solid mask marking every probe cell solid is probed with the mask at 0") {
  // if (obst[c] != 0) return; then a pull from (-1,-1): with integers 1..7 every cell is solid.
  auto lbm = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const std::int32_t* obst = a[0].as<std::int32_t>();
    const float* f = a[1].as<float>();
    float* g = a[2].as<float>();
    for (Index y = 1; y < ny - 1; ++y)
      for (Index x = 1; x < nx - 1; ++x) {
        const Index c = x + nx * y;
        if (obst[c] != 0) continue;
        g[c] = obst[c - 1 - nx] != 0 ? f[c] : f[c - 1 - nx];
      }
  };
  ProbeKernel k;
  k.name = "lbm";
  k.args = {{0, ArgAccess::kRead, Halo::from_widths(2, {1, 1, 0}, {1, 1, 0})},
            {1, ArgAccess::kRead, Halo::from_points(2, {{0, 0, 0}})},  // (-1,-1) missing
            {2, ArgAccess::kWrite, Halo::from_points(2, {})}};
  k.follows = {true, true, false};
  k.views = true;
  const std::vector<ProbeElement> elements = {{"obst", 4, false}, {"f", 4, true}, {"g", 4, true}};
  const KernelProbe p = probe_kernel(k, kBlindGrid, elements, lbm);
  CHECK(p.ints_zero);
  CHECK(p.rim_lo == Vec3{1, 1, 0});
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0] ==
        "kernel 'lbm' reads array 'f' at offset (-1,-1), outside its declared halo (seen with its "
        "integer arrays at 0: a branch taken where a mask is 0): add the point to the argument's "
        "halo");
}

TEST_CASE("probe: a kernel that writes no cell in any probe run cannot be checked: an error") {
  ProbeKernel k = blind_two_args("none", {});
  const std::vector<ProbeElement> elements = {{"A", 4, true}, {"B", 4, true}};
  const KernelProbe p =
      probe_kernel(k, kBlindGrid, elements, [](std::vector<HostArray>&, const Box&) {});
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].find("kernel 'none' cannot be checked by the kernel probe: it wrote no cell "
                         "in ") == 0);
  CHECK(p.errors[0].find("--probe off runs the program without the probe") != std::string::npos);
  Probed all;
  all.kernels.push_back(p);
  CHECK_THROWS_AS(probe_report(all, 2, true, stdout), RunError);
}

TEST_CASE("probe: a wavefront writing one hyperplane a step is probed where it writes") {
  // Gauss-Seidel in place over the hyperplane 2y + x == step % planes (grid indices): at step 0
  // it writes no cell of the probe's box; its halo lacks (1,0) and (0,1).
  constexpr Index planes = 3 * 100;
  auto seidel = [](std::vector<HostArray>& a, const Box& box, std::int64_t step) {
    const Index nx = box.extent(0), ny = box.extent(1);
    float* u = a[0].as<float>();
    for (Index y = 1; y < ny - 1; ++y)
      for (Index x = 1; x < nx - 1; ++x) {
        if (2 * (y + box.lo[1]) + (x + box.lo[0]) != step % planes) continue;
        const Index c = x + nx * y;
        u[c] = (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]) / 4;
      }
  };
  ProbeKernel k;
  k.name = "seidel";
  k.args = {{0, ArgAccess::kReadWrite, Halo::from_points(2, {{-1, 0, 0}, {0, -1, 0}})}};
  k.follows = {true, true, false};
  k.views = true;
  k.uses_step = true;
  k.steps = 2 * planes;
  const std::vector<ProbeElement> elements = {{"A", 4, true}};
  const KernelProbe p = probe_kernel(k, kBlindGrid, elements, seidel);
  CHECK_FALSE(p.rim_known);
  CHECK_FALSE(p.views_safe());
  CHECK(p.steps.size() > 1);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].find("kernel 'seidel' reads array 'A' at offsets (0,1) and (1,0), outside its "
                         "declared halo (seen at step ") == 0);
  // Declared whole, it passes; its rim widens nothing (the spec's halos are kept).
  k.args[0].halo = Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}});
  const KernelProbe q = probe_kernel(k, kBlindGrid, elements, seidel);
  CHECK(q.errors.empty());
  Probed probed;
  probed.kernels.push_back(q);
  ProbeLaunch l;
  probe_needs(probed, {l}, 2);
  CHECK(probed.rim_lo == Vec3{0, 0, 0});
  CHECK(probed.rim_hi == Vec3{0, 0, 0});
}

TEST_CASE("probe: a line recurrence needs every buffer to hold the whole line") {
  // A tridiagonal-like sweep along y, looped over (the launch covers x only): v[y] from u over
  // the whole column, the first and last rows the boundary (PolyBench adi's column sweep).
  auto sweep = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const double* u = a[0].as<double>();
    double* v = a[1].as<double>();
    for (Index x = 0; x < nx; ++x) {
      double q = 0;
      for (Index y = 1; y < ny - 1; ++y) q = 0.5 * q + u[x + nx * y], v[x + nx * y] = q;
      for (Index y = ny - 2; y >= 1; --y) v[x + nx * y] = 0.5 * v[x + nx * (y + 1)] + v[x + nx * y];
    }
  };
  const Box grid = Box::from_extent(2, {40, 60, 1});
  ProbeKernel k;
  k.name = "sweep";
  k.args = {{0, ArgAccess::kRead, Halo::from_widths(2, {0, 29, 0}, {0, 29, 0})},
            {1, ArgAccess::kWrite, Halo::from_points(2, {})}};
  k.follows = {true, false, false};
  k.views = false;
  const std::vector<ProbeElement> elements = {{"u", 8, true}, {"v", 8, true}};
  const KernelProbe p = probe_kernel(k, grid, elements, sweep);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].find("kernel 'sweep' reads array 'u' along y as far as its buffer goes") == 0);
  CHECK(p.errors[0].find("on 2 devices that is a halo of at least 30 cells along y (halo_lo; "
                         "declared 29)") != std::string::npos);
  k.args[0].halo = Halo::from_widths(2, {0, 30, 0}, {0, 30, 0});
  const KernelProbe q = probe_kernel(k, grid, elements, sweep);
  CHECK(q.errors.empty());
  CHECK(q.line[1]);
  Probed probed;
  probed.kernels.push_back(q);
  Box whole = grid, part = grid;
  part.lo[1] = 1;  // a buffer lacking the line's first row
  CHECK_NOTHROW(probe_check_lines(probed, {whole, whole}, grid));
  CHECK_THROWS_AS(probe_check_lines(probed, {whole, part}, grid), RunError);
}

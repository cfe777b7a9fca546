// The kernel probe (runtime/stepgen/exec/probe.hpp) on kernels written as host C++: the rim a
// kernel leaves, the offsets it reads against its declared halo, view rules and widened margins.
#include "stepgen/exec/probe.hpp"

#include <doctest/doctest.h>

#include <cstdio>

#include "stepgen/plan/exchange.hpp"

using namespace stepgen::rt;

namespace {

// A 2D float stencil "kernel" run over a whole buffer as one device would: out = sum of `in` at
// `reads` (offsets), for cells at least `guard_lo`/`guard_hi` from the buffer's edge per dimension.
struct HostKernel {
  std::vector<Vec3> reads;
  Vec3 guard_lo{1, 1, 0}, guard_hi{1, 1, 0};
  int in = 0, out = 1;
  void operator()(std::vector<HostArray>& a, const Box& box) const {
    const Index nx = box.extent(0), ny = box.extent(1);
    const float* src = a[static_cast<std::size_t>(in)].as<float>();
    float* dst = a[static_cast<std::size_t>(out)].as<float>();
    for (Index y = guard_lo[1]; y < ny - guard_hi[1]; ++y)
      for (Index x = guard_lo[0]; x < nx - guard_hi[0]; ++x) {
        float s = 0;
        for (const Vec3& o : reads) s += src[(x + o[0]) + nx * (y + o[1])];
        dst[x + nx * y] = s;
      }
  }
};

const std::vector<Vec3> kFivePoint = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};

ProbeKernel kernel_of(const std::vector<Vec3>& declared) {
  ProbeKernel k;
  k.name = "k";
  k.args = {{0, ArgAccess::kRead, Halo::from_points(2, declared)},
            {1, ArgAccess::kWrite, Halo::from_points(2, {})}};
  k.follows = {true, true, false};
  k.views = true;
  return k;
}

const std::vector<ProbeElement> kFloats = {{"A", 4, true}, {"B", 4, true}};
const Box kGrid = Box::from_extent(2, {100, 80, 1});

// A scan along y, B[y] = 0.5 B[y-1] + A[y]: a recurrence, right on one device only.
void scan_y(std::vector<HostArray>& a, const Box& box) {
  const Index nx = box.extent(0), ny = box.extent(1);
  const float* u = a[0].as<float>();
  float* v = a[1].as<float>();
  for (Index x = 0; x < nx; ++x) {
    float acc = 0;
    for (Index y = 0; y < ny; ++y) {
      acc = 0.5f * acc + u[x + nx * y];
      v[x + nx * y] = acc;
    }
  }
}

}  // namespace

TEST_CASE("probe: a five-point kernel as declared: rim 1 on each side, no error, views safe") {
  HostKernel run{kFivePoint};
  const KernelProbe p = probe_kernel(kernel_of(kFivePoint), kGrid, kFloats, run);
  CHECK(p.probed);
  CHECK(p.wrote);
  CHECK(p.is_box);
  CHECK(p.box == Box{2, {38, 28, 0}, {62, 52, 1}});
  CHECK(p.rim_lo == Vec3{1, 1, 0});
  CHECK(p.rim_hi == Vec3{1, 1, 0});
  CHECK(p.errors.empty());
  CHECK(p.warnings.empty());
  CHECK(p.views_safe());
  const ViewRim v = probe_view_rim(&p, 1, 1, 1);
  CHECK(v.safe);
  CHECK(v.lo == 1);
  CHECK(v.hi == 1);
}

TEST_CASE("probe: a halo declared too small is an error naming kernel, array and offset") {
  HostKernel run{kFivePoint};
  std::vector<Vec3> declared = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}};  // (0,1) missing
  const KernelProbe p = probe_kernel(kernel_of(declared), kGrid, kFloats, run);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0] ==
        "kernel 'k' reads array 'A' at offset (0,1), outside its declared halo: add the point to "
        "the argument's halo");
  CHECK(p.error_arrays == std::vector<int>{0});
  // Every point outside the halo in one message, not the first only, so that one fix mends
  // them all.
  const KernelProbe two =
      probe_kernel(kernel_of({{-1, 0, 0}, {1, 0, 0}}), kGrid, kFloats, run);  // y: both missing
  REQUIRE(two.errors.size() == 1);
  CHECK(two.errors[0] ==
        "kernel 'k' reads array 'A' at offsets (0,-1) and (0,1), outside its declared halo: add "
        "them to the argument's halo");
  Probed all;
  all.kernels = {p};
  CHECK_THROWS_WITH_AS(probe_report(all, 2, true, stdout),
                       doctest::Contains("declared halo too small"), RunError);
}

TEST_CASE("probe: reads in a branch taken where an integer mask is 0 are seen") {
  // A shallow-water kernel copies land cells (mask != 0) and averages the neighbours of sea
  // cells (mask == 0): the probe's integer values must include 0, or a halo declared without
  // (0,-1) and (0,1) passes and 3 devices give NaNs silently.
  auto masked = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const unsigned char* mask = a[0].as<unsigned char>();
    const float* h = a[1].as<float>();
    float* out = a[2].as<float>();
    for (Index y = 1; y < ny - 1; ++y)
      for (Index x = 1; x < nx - 1; ++x) {
        const Index c = x + nx * y;
        out[c] = mask[c] != 0 ? h[c] : 0.25f * (h[c - 1] + h[c + 1] + h[c - nx] + h[c + nx]);
      }
  };
  ProbeKernel k;
  k.name = "lf";
  k.args = {
      {0, ArgAccess::kRead, Halo::from_points(2, {})},
      {1, ArgAccess::kRead, Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}})},  // (0,+-1) missing
      {2, ArgAccess::kWrite, Halo::from_points(2, {})}};
  k.follows = {true, true, false};
  k.views = true;
  const std::vector<ProbeElement> elements = {{"mask", 1, false}, {"h", 4, true}, {"o", 4, true}};
  const KernelProbe p = probe_kernel(k, kGrid, elements, masked);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0] ==
        "kernel 'lf' reads array 'h' at offsets (0,-1) and (0,1), outside its declared halo (seen "
        "with its integer arrays at 0: a branch taken where a mask is 0): add "
        "them to the argument's halo");
}

TEST_CASE("probe: reads in a branch on a sign are seen (upwinding, wet and dry cells)") {
  // The probe's floating values are in [1, 2): `u > 0` always held, and an upwind kernel
  // declaring only its upstream side for positive u passed. The pass with negated values takes
  // the other side.
  auto upwind = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const float* u = a[0].as<float>();
    const float* q = a[1].as<float>();
    float* out = a[2].as<float>();
    for (Index y = 1; y < ny - 1; ++y)
      for (Index x = 1; x < nx - 1; ++x) {
        const Index c = x + nx * y;
        out[c] = q[c] - 0.1f * u[c] * (u[c] > 0 ? q[c] - q[c - 1] : q[c + 1] - q[c]);
      }
  };
  ProbeKernel k;
  k.name = "upwind";
  k.args = {{0, ArgAccess::kRead, Halo::from_points(2, {})},
            {1, ArgAccess::kRead, Halo::from_points(2, {{-1, 0, 0}})},  // (1,0) missing
            {2, ArgAccess::kWrite, Halo::from_points(2, {})}};
  k.follows = {true, true, false};
  k.views = true;
  const std::vector<ProbeElement> elements = {{"u", 4, true}, {"q", 4, true}, {"o", 4, true}};
  const KernelProbe p = probe_kernel(k, kGrid, elements, upwind);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0] ==
        "kernel 'upwind' reads array 'q' at offset (1,0), outside its declared halo (seen with its "
        "floating values negated: a branch on a sign): add the point "
        "to the argument's halo");
  // Declared whole, no error and no warning: both sides were seen.
  k.args[1].halo = Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}});
  const KernelProbe whole = probe_kernel(k, kGrid, elements, upwind);
  CHECK(whole.errors.empty());
  CHECK(whole.warnings.empty());
  // Doubles, a wet/dry test: dry cells (h <= 0) average their neighbours.
  auto wetdry = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const double* h = a[0].as<double>();
    double* out = a[1].as<double>();
    for (Index y = 1; y < ny - 1; ++y)
      for (Index x = 1; x < nx - 1; ++x) {
        const Index c = x + nx * y;
        out[c] = h[c] > 0.0 ? h[c] : 0.5 * (h[c - nx] + h[c + nx]);
      }
  };
  ProbeKernel d;
  d.name = "wetdry";
  d.args = {{0, ArgAccess::kRead, Halo::from_points(2, {})},
            {1, ArgAccess::kWrite, Halo::from_points(2, {})}};
  d.follows = {true, true, false};
  d.views = true;
  const std::vector<ProbeElement> doubles = {{"h", 8, true}, {"o", 8, true}};
  const KernelProbe q = probe_kernel(d, kGrid, doubles, wetdry);
  REQUIRE(q.errors.size() == 1);
  CHECK(q.errors[0] ==
        "kernel 'wetdry' reads array 'h' at offsets (0,-1) and (0,1), outside its declared halo "
        "(seen with its floating values negated: a branch on a sign): "
        "add them to the argument's halo");
}

TEST_CASE("probe: a halo wider than what is read is a warning") {
  HostKernel run{{{0, 0, 0}, {1, 0, 0}}};
  const KernelProbe p = probe_kernel(kernel_of(kFivePoint), kGrid, kFloats, run);
  CHECK(p.errors.empty());
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("(-1,0) (0,-1) (0,1)") != std::string::npos);
}

TEST_CASE("probe: a guard wider than the halo is measured, and views grow by it") {
  // Reads nothing around (like issue 22's `upd`) but skips a rim of 1, and 3 above along y.
  HostKernel run{{{0, 0, 0}}, {1, 1, 0}, {1, 3, 0}};
  const KernelProbe p = probe_kernel(kernel_of({}), kGrid, kFloats, run);
  CHECK(p.rim_lo == Vec3{1, 1, 0});
  CHECK(p.rim_hi == Vec3{1, 3, 0});
  CHECK(p.views_safe());
  const ViewRim v = probe_view_rim(&p, 1, 0, 0);
  CHECK(v.safe);
  CHECK(v.lo == 1);
  CHECK(v.hi == 3);
  // The overlap views then compute exactly the planes one whole launch computes.
  Part part;
  part.owned = Box{2, {0, 10, 0}, {100, 30, 1}};
  part.ghost = Box{2, {0, 9, 0}, {100, 31, 1}};
  std::vector<Transfer> plan = {{0, 1, {Box{2, {0, 10, 0}, {100, 11, 1}}}},
                                {0, 2, {Box{2, {0, 29, 0}, {100, 30, 1}}}}};
  const OverlapViews ov = overlap_views(part, 1, 0, 0, {&plan}, v.lo, v.hi);
  REQUIRE(ov.split);
  // Each view, computed by the kernel (rim 1 below, 3 above), and their union.
  std::vector<Index> computed;
  auto add = [&](const Box& b) {
    for (Index y = b.lo[1] + v.lo; y < b.hi[1] - v.hi; ++y) computed.push_back(y);
  };
  for (const Box& b : ov.boundary) add(b);
  add(ov.interior);
  std::sort(computed.begin(), computed.end());
  std::vector<Index> whole;
  for (Index y = part.ghost.lo[1] + 1; y < part.ghost.hi[1] - 3; ++y) whole.push_back(y);
  CHECK(computed == whole);
}

TEST_CASE("probe: a kernel that computes edge cells differently is not run on views") {
  // Reads one cell around but writes up to the buffer's edge (one-sided at the edge).
  HostKernel run{{{0, 0, 0}}, {0, 0, 0}, {0, 0, 0}};
  const KernelProbe p = probe_kernel(kernel_of(kFivePoint), kGrid, kFloats, run);
  CHECK(p.rim_lo == Vec3{0, 0, 0});
  const ViewRim v = probe_view_rim(&p, 1, 1, 1);
  CHECK_FALSE(v.safe);
  CHECK(v.why.find("edge cells computed differently") != std::string::npos);
}

TEST_CASE("probe: cells written in a pattern that is not a box: views not safe") {
  auto run = [](std::vector<HostArray>& a, const Box& box) {
    float* dst = a[1].as<float>();
    for (Index i = 0; i < box.volume(); i += 2) dst[i] = 5.0f;  // every other cell
  };
  const KernelProbe p = probe_kernel(kernel_of({}), kGrid, kFloats, run);
  CHECK(p.wrote);
  CHECK_FALSE(p.is_box);
  CHECK_FALSE(p.views_safe());
}

TEST_CASE("probe: rims wider than the halos widen ghost zones and chunk windows") {
  Probed probed;
  KernelProbe lap, upd;  // issue 22's pair: lap reads 1 and skips 1; upd reads 0 and skips 2
  lap.kernel = "lap";
  lap.probed = lap.wrote = lap.is_box = true;
  lap.rim_lo = lap.rim_hi = {1, 1, 1};
  upd = lap;
  upd.kernel = "upd";
  upd.rim_lo = upd.rim_hi = {2, 2, 2};
  probed.kernels = {lap, upd};
  probe_needs(probed, {{0, {0, 0, 0}, {0, 0, 0}}, {1, {0, 0, 0}, {0, 0, 0}}}, 3);
  CHECK(probed.rim_lo == Vec3{2, 2, 2});
  CHECK(probed.need_lo == Vec3{2, 2, 2});
  Vec3 ghost_lo{1, 1, 1}, ghost_hi{1, 1, 1};
  CHECK(probed.widen_ghosts(ghost_lo, ghost_hi, 1, {1, 1, 1}, {1, 1, 1}));
  CHECK(ghost_lo == Vec3{2, 2, 2});
  Vec3 shrink_lo{1, 1, 1}, shrink_hi{1, 1, 1};
  CHECK(probed.widen_shrink(shrink_lo, shrink_hi));
  CHECK(shrink_hi == Vec3{2, 2, 2});
  // With rims no wider than the halos (upd skipping 1), nothing changes.
  probed.kernels[1].rim_lo = probed.kernels[1].rim_hi = {1, 1, 1};
  probed.rim_lo = probed.rim_hi = probed.need_lo = probed.need_hi = {0, 0, 0};
  probe_needs(probed, {{0, {0, 0, 0}, {0, 0, 0}}, {1, {0, 0, 0}, {0, 0, 0}}}, 3);
  ghost_lo = ghost_hi = shrink_lo = shrink_hi = {1, 1, 1};
  CHECK_FALSE(probed.widen_ghosts(ghost_lo, ghost_hi, 1, {1, 1, 1}, {1, 1, 1}));
  CHECK_FALSE(probed.widen_shrink(shrink_lo, shrink_hi));
}

TEST_CASE("probe: a guard wider than half the first box is measured on a larger one") {
  HostKernel run{{{0, 0, 0}}, {15, 15, 0}, {15, 15, 0}};
  const KernelProbe p = probe_kernel(kernel_of({}), kGrid, kFloats, run);
  CHECK(p.wrote);
  CHECK(p.box.extent(0) == 64);
  CHECK(p.rim_lo == Vec3{15, 15, 0});
  CHECK(p.rim_hi == Vec3{15, 15, 0});
}

namespace {

// A kernel that also decides the whole grid's boundary from global indices (docs/spec.md rule
// 3): it skips `global_lo`/`global_hi` cells from the grid's edges besides its own guard.
struct GlobalGuardKernel {
  HostKernel local;
  Box grid;
  Vec3 global_lo{0, 0, 0}, global_hi{0, 0, 0};
  void operator()(std::vector<HostArray>& a, const Box& box) const {
    std::vector<HostArray> before = a;
    local(a, box);
    // Undo the writes the global guard forbids.
    const Index nx = box.extent(0), ny = box.extent(1);
    float* dst = a[static_cast<std::size_t>(local.out)].as<float>();
    const float* old = before[static_cast<std::size_t>(local.out)].as<float>();
    for (Index y = 0; y < ny; ++y)
      for (Index x = 0; x < nx; ++x) {
        const Index gx = box.lo[0] + x, gy = box.lo[1] + y;
        if (gx < grid.lo[0] + global_lo[0] || gx >= grid.hi[0] - global_hi[0] ||
            gy < grid.lo[1] + global_lo[1] || gy >= grid.hi[1] - global_hi[1])
          dst[x + nx * y] = old[x + nx * y];
      }
  }
};

}  // namespace

TEST_CASE("probe: on a grid the probe's box covers, a wide global boundary is not the rim") {
  // Seed 10120 of the differential tester: on a small grid the probe's box is the whole grid,
  // and a kernel skipping 3 cells of the grid's boundary (global indices) but only 1 of its
  // buffer's showed a rim of 3. Views grown by 3 then computed ghost cells beside the MPI
  // exchange refreshing them (CUDA MPI overlap on 3 ranks differed). The rim is the kernel's
  // own guard: measured again on the box shrunk by the first rim.
  const Box grid = Box::from_extent(2, {17, 21, 1});
  GlobalGuardKernel run{HostKernel{kFivePoint}, grid, {3, 3, 0}, {2, 1, 0}};
  const KernelProbe p = probe_kernel(kernel_of(kFivePoint), grid, kFloats, run);
  CHECK(p.box == grid);
  CHECK(p.rim_lo == Vec3{1, 1, 0});
  CHECK(p.rim_hi == Vec3{1, 1, 0});
  CHECK(p.views_safe());
  // Its own guard wider than the halo is still measured as such.
  GlobalGuardKernel wide{HostKernel{kFivePoint, {2, 1, 0}, {1, 2, 0}}, grid, {3, 3, 0}, {2, 1, 0}};
  const KernelProbe q = probe_kernel(kernel_of(kFivePoint), grid, kFloats, wide);
  CHECK(q.rim_lo == Vec3{2, 1, 0});
  CHECK(q.rim_hi == Vec3{1, 2, 0});
  CHECK(q.views_safe());
}

TEST_CASE("probe: a grid too small to tell the kernel's rim from the grid's boundary: no views") {
  // 9 cells, a global boundary of 3 and an own guard of 3: the box shrunk by the rim (3 cells)
  // is too small for the guard to leave a cell, so the two cannot be told apart.
  const Box grid = Box::from_extent(2, {9, 9, 1});
  GlobalGuardKernel run{HostKernel{kFivePoint, {3, 3, 0}, {3, 3, 0}}, grid, {3, 3, 0}, {3, 3, 0}};
  const KernelProbe p = probe_kernel(kernel_of(kFivePoint), grid, kFloats, run);
  CHECK(p.probed);
  CHECK(p.rim_lo == Vec3{3, 3, 0});
  CHECK_FALSE(p.views_safe());
  CHECK(p.why.find("cannot be told from the grid's boundary") != std::string::npos);
  // The probe's line says what "no views" does to the run, as the report's overlap line will:
  // CUDA runs the kernel whole and does not overlap; OpenCL's slabs by offsets need no views.
  Probed all;
  all.kernels = {p};
  for (const bool views_overlap : {true, false}) {
    std::FILE* out = std::tmpfile();
    REQUIRE(out);
    probe_report(all, 2, false, out, views_overlap);
    std::rewind(out);
    char line[512] = {};
    REQUIRE(std::fgets(line, sizeof line, out));
    std::fclose(out);
    const std::string text = line;
    CHECK(text.find("; no views: ") != std::string::npos);
    CHECK(text.find(views_overlap
                        ? "(it runs whole: no overlap)"
                        : "(the overlap needs none: slabs by offsets)") != std::string::npos);
  }
}

TEST_CASE("probe: a guard too wide to tell on the first box is told on a larger one") {
  // STEPOCL's Jacobi (examples/stepocl_jacobi): reach 10 along x on a 4098x1026 grid. On the
  // 24-cell box the box shrunk by the rim (4 cells) leaves the kernel no cell to write; the
  // 64-cell box tells the rim, and views stay safe (the CUDA overlap stays on).
  const Box grid = Box::from_extent(2, {4098, 1026, 1});
  HostKernel run{
      {{0, 0, 0}, {-10, 0, 0}, {10, 0, 0}, {0, -1, 0}, {0, 1, 0}}, {10, 1, 0}, {10, 1, 0}};
  const KernelProbe p =
      probe_kernel(kernel_of({{-10, 0, 0}, {10, 0, 0}, {0, -1, 0}, {0, 1, 0}}), grid, kFloats, run);
  CHECK(p.box.extent(0) == 64);
  CHECK(p.rim_lo == Vec3{10, 1, 0});
  CHECK(p.rim_hi == Vec3{10, 1, 0});
  CHECK_FALSE(p.rim_undecided);
  CHECK(p.views_safe());
}

TEST_CASE("probe: a kernel that takes its local index for the grid's is refused") {
  // A red-black Gauss-Seidel half-step picking its colour from the local (x + y) & 1 is wrong
  // in every mode but one device (buffers start anywhere).
  auto redblack = [](bool global) {
    return [global](std::vector<HostArray>& a, const Box& box) {
      const Index nx = box.extent(0), ny = box.extent(1);
      float* u = a[0].as<float>();
      for (Index y = 1; y < ny - 1; ++y)
        for (Index x = 1; x < nx - 1; ++x) {
          const Index gx = global ? x + box.lo[0] : x, gy = global ? y + box.lo[1] : y;
          if (((gx + gy) & 1) != 0) continue;
          const Index c = x + nx * y;
          u[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
        }
    };
  };
  ProbeKernel k;
  k.name = "rb";
  k.args = {{0, ArgAccess::kReadWrite,
             Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}})}};
  k.follows = {true, true, false};
  k.views = true;
  const std::vector<ProbeElement> elements = {{"u", 4, true}};
  const KernelProbe local = probe_kernel(k, kGrid, elements, redblack(false));
  REQUIRE(local.errors.size() == 1);
  CHECK(local.errors[0].find("kernel 'rb' computes cells differently when its buffer starts one "
                             "cell lower along x") == 0);
  // From offset + the local index (as the docs say): the same cells, no error.
  const KernelProbe offset = probe_kernel(k, kGrid, elements, redblack(true));
  CHECK(offset.errors.empty());
}

TEST_CASE("probe: a kernel that wraps its buffer periodically, or reads a fixed cell, is refused") {
  // A Jacobi kernel written for one device with (x + nx - 1) % nx wraps is wrong in every mode
  // but one device, exit 0 (a buffer is one part of the grid). Its reads near
  // the middle are the declared five points; only its edge cells read across the buffer.
  enum class Kind { kWrap, kFixed, kClamp };
  auto kernel = [](Kind kind) {
    return [kind](std::vector<HostArray>& a, const Box& box) {
      const Index nx = box.extent(0), ny = box.extent(1);
      const float* in = a[0].as<float>();
      float* out = a[1].as<float>();
      for (Index y = 0; y < ny; ++y)
        for (Index x = 0; x < nx; ++x) {
          Index xm = x - 1, xp = x + 1, ym = y - 1, yp = y + 1;
          if (kind == Kind::kWrap) {
            xm = (xm + nx) % nx, xp %= nx, ym = (ym + ny) % ny, yp %= ny;
          } else {  // clamped at the buffer's edge: reads stay near
            xm = std::max<Index>(xm, 0), xp = std::min(xp, nx - 1);
            ym = std::max<Index>(ym, 0), yp = std::min(yp, ny - 1);
          }
          float s = in[xm + nx * y] + in[xp + nx * y] + in[x + nx * ym] + in[x + nx * yp];
          if (kind == Kind::kFixed) s += in[0];  // a "boundary value" at the buffer's first cell
          out[x + nx * y] = s;
        }
    };
  };
  const KernelProbe wrap = probe_kernel(kernel_of(kFivePoint), kGrid, kFloats, kernel(Kind::kWrap));
  REQUIRE(wrap.errors.size() == 1);
  CHECK(wrap.errors[0].find("kernel 'k' reads array 'A' across its buffer: on a 24x24 buffer, "
                            "cell (23,12) of 'B' changes when cell (0,12) of 'A' does") == 0);
  const KernelProbe fixed =
      probe_kernel(kernel_of(kFivePoint), kGrid, kFloats, kernel(Kind::kFixed));
  REQUIRE(fixed.errors.size() == 1);  // the corner cell moves with the buffer: the shifted box
  CHECK(fixed.errors[0].find("computes cells differently when its buffer starts one cell lower") !=
        std::string::npos);
  const KernelProbe clamp =
      probe_kernel(kernel_of(kFivePoint), kGrid, kFloats, kernel(Kind::kClamp));
  CHECK(clamp.errors.empty());
}

TEST_CASE("probe: the guard after a buffer holds what a kernel with the grid's sizes reaches") {
  // A 24x24 box of a 100x80 grid: a kernel indexing with the grid's row length reaches
  // 23 + 100 * 23 + 1 = 2324 cells, 1748 past the box; planes of 24 cells: 73.
  const Box box{2, {38, 28, 0}, {62, 52, 1}};
  CHECK(probe_guard_planes(kGrid, box, 4) == 73);
  // At least one plane (a rounded-up launch without its guard writes just past the end).
  CHECK(probe_guard_planes(box, box, 4) == 1);
  // At most 64 MiB: a 3D grid of 4096^3 doubles.
  const Box big = Box::from_extent(3, {4096, 4096, 4096});
  const Box b3 = probe_box(big, {true, true, true});
  const Index planes = probe_guard_planes(big, b3, 8);
  CHECK(planes * 24 * 24 * 8 >= (Index{64} << 20));
  CHECK((planes - 1) * 24 * 24 * 8 < (Index{64} << 20));
  // The message names the kernel, the array and the first element changed past the end.
  std::vector<unsigned char> guard(40);
  for (std::size_t i = 0; i < guard.size(); ++i) guard[i] = probe_guard_byte(i);
  CHECK(probe_guard_error("k", "B", box, 4, guard.data(), guard.size()).empty());
  guard[9] = static_cast<unsigned char>(guard[9] + 1);  // element 2 of the guard
  CHECK(probe_guard_error("k", "B", box, 4, guard.data(), guard.size())
            .find("kernel 'k' writes past the end of its buffer of array 'B': run on a 24x24 "
                  "buffer (the kernel probe's), it changed element 578, 3 past its last") == 0);
}

TEST_CASE("probe: a kernel computing cell pairs is checked by a shift of its pair") {
  // u and v interleaved in one array (W[2*c], W[2*c+1]), one work-item per pair (global size
  // extent(W, 0) / 2): a shift by one cell pairs other cells, so the check shifts by a pair,
  // and accepts a kernel that is right on every partition the plan makes (cut at even cells).
  auto pairs = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const float* in = a[0].as<float>();
    float* out = a[1].as<float>();
    for (Index y = 0; y < ny; ++y)
      for (Index i = 0; 2 * i + 1 < nx; ++i) {
        const Index c = 2 * i + nx * y;
        out[c] = in[c + 1];  // u <- v
        out[c + 1] = in[c];  // v <- u
      }
  };
  ProbeKernel k = kernel_of({{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}});
  const KernelProbe one = probe_kernel(k, kGrid, kFloats, pairs);
  REQUIRE(one.errors.size() == 1);
  CHECK(one.errors[0].find("starts one cell lower along x") != std::string::npos);
  k.shift = {2, 1, 1};
  const KernelProbe two = probe_kernel(k, kGrid, kFloats, pairs);
  CHECK(two.errors.empty());
}

TEST_CASE("probe: a kernel that reads a whole line (a recurrence) is refused, not given a halo") {
  // A scan along y, V[y] = 0.5 V[y-1] + U[y]: no halo makes it right on 2 devices (each
  // buffer's recurrence starts at its own edge), so the probe must not suggest adding its
  // reads to the argument's halo. Undeclared, it is an error that no halo describes (declared
  // as a halo that wide: the next test).
  const KernelProbe p = probe_kernel(kernel_of({{0, 0, 0}}), kGrid, kFloats, scan_y);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].find("kernel 'k' reads array 'A' along y as far as its buffer goes: on a "
                         "24x24 buffer, cell (12,23) of 'B' (its edge) changes when cell "
                         "(12,12) of 'A' does") == 0);
}

TEST_CASE("probe: a whole-line kernel declared with a halo as wide as half its line is refused") {
  // A z-scan launched over x and y only (global size 1 along z, a loop over z), its read
  // declared with halo_lo 14 on a grid of 30 planes: the middle cell's reads reach the edge
  // within that halo, yet it runs wrong on 2 devices, exit 0 (part 1's buffer starts at plane
  // 1, so its recurrence misses plane 0). So the cells at the buffer's edges are changed
  // along every dimension, looped over or launched, and a change reaching
  // the far side through the whole line is refused as such.
  // Looped over: y is not the launch's, so the probe's box is the grid's 30 rows there.
  const Box grid = Box::from_extent(2, {100, 30, 1});
  ProbeKernel looped = kernel_of({{0, 0, 0}});
  looped.follows = {true, false, false};
  looped.args[0].halo = Halo::from_widths(2, {0, 14, 0}, {0, 0, 0});
  const KernelProbe p = probe_kernel(looped, grid, kFloats, scan_y);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].find("kernel 'k' reads array 'A' along y as far as its buffer goes: on a "
                         "24x30 buffer, cell (12,15) of 'B' changes when cell (12,0) of 'A' "
                         "does") == 0);
  // Launched along y, a halo of half the probe's 24 rows: the same error (it was reported as
  // a read across the buffer, a wrap, before).
  ProbeKernel launched = kernel_of({{0, 0, 0}});
  launched.args[0].halo = Halo::from_widths(2, {0, 12, 0}, {0, 0, 0});
  const KernelProbe q = probe_kernel(launched, kGrid, kFloats, scan_y);
  REQUIRE(q.errors.size() == 1);
  CHECK(q.errors[0].find("kernel 'k' reads array 'A' along y as far as its buffer goes: on a "
                         "24x24 buffer, cell (12,13) of 'B' changes when cell (12,0) of 'A' "
                         "does") == 0);
  // A halo as wide as the whole line is right on any partition (every buffer holds the line):
  // no error.
  looped.args[0].halo = Halo::from_widths(2, {0, 29, 0}, {0, 0, 0});
  CHECK(probe_kernel(looped, grid, kFloats, scan_y).errors.empty());
  // A stencil looped over y with the same wide halo but reading only its neighbours: no error.
  auto loop3 = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const float* u = a[0].as<float>();
    float* v = a[1].as<float>();
    for (Index x = 0; x < nx; ++x)
      for (Index y = 1; y + 1 < ny; ++y) v[x + nx * y] = u[x + nx * (y - 1)] + u[x + nx * (y + 1)];
  };
  ProbeKernel three = kernel_of({{0, -1, 0}, {0, 1, 0}});
  three.follows = {true, false, false};
  CHECK(probe_kernel(three, grid, kFloats, loop3).errors.empty());
}

TEST_CASE("probe: a stencil reaching a small grid's edge within its halo is no whole line") {
  // The differential tester's seed 14100: a read at x - 2 on a 5-cell grid, rim 0 above: the
  // edge cell 4 reads the middle cell 2, as declared.
  auto minus2 = [](std::vector<HostArray>& a, const Box& box) {
    const Index nx = box.extent(0), ny = box.extent(1);
    const float* u = a[0].as<float>();
    float* v = a[1].as<float>();
    for (Index y = 0; y < ny; ++y)
      for (Index x = 2; x < nx; ++x) v[x + nx * y] = u[x - 2 + nx * y];
  };
  const Box small = Box::from_extent(2, {5, 80, 1});
  const KernelProbe p = probe_kernel(kernel_of({{0, 0, 0}, {-2, 0, 0}}), small, kFloats, minus2);
  CHECK(p.errors.empty());
}

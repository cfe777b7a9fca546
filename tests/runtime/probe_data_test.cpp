// The kernel probe on the program's initial data (runtime/stepgen/exec/probe_data.hpp), with
// kernels written as host C++: a read taken only where a mask from a file is 9 (the probe's
// integers are 0 and 1..7), one taken only where a floating array exceeds the probe's values.
#include "stepgen/exec/probe_data.hpp"

#include <doctest/doctest.h>

#include <cstring>

using namespace stepgen::rt;

namespace {

const Box kDataGrid = Box::from_extent(2, {40, 48, 1});

// g = f, plus f two rows up where m is 9, plus f one row down where h > 2.5.
void blend(std::vector<HostArray>& a, const Box& box) {
  const Index nx = box.extent(0), ny = box.extent(1);
  const std::int32_t* m = a[0].as<std::int32_t>();
  const float* f = a[1].as<float>();
  const float* h = a[2].as<float>();
  float* g = a[3].as<float>();
  for (Index y = 2; y < ny - 2; ++y)
    for (Index x = 0; x < nx; ++x) {
      const Index c = x + nx * y;
      float r = 0.5f * f[c];
      if (m[c] == 9) r += 0.25f * f[c + 2 * nx];
      if (h[c] > 2.5f) r += 0.25f * f[c - nx];
      g[c] = r;
    }
}

struct DataCase {
  ProbeKernel k;
  std::vector<ProbeElement> elements{
      {"m", 4, false}, {"f", 4, true}, {"h", 4, true}, {"g", 4, true}};
  std::vector<ArrayInfo> arrays;
  std::vector<HostArray> host;

  // m from a file (9 on rows 30..33, x 10..19: `nines`), f random, h value(`h`) made on the
  // devices (no host copy), g written.
  DataCase(bool nines, float h, const Box& held = kDataGrid) {
    k.name = "blend";
    k.args = {{0, ArgAccess::kRead, Halo::from_points(2, {{0, 0, 0}})},
              {1, ArgAccess::kRead, Halo::from_points(2, {{0, 0, 0}})},
              {2, ArgAccess::kRead, Halo::from_points(2, {{0, 0, 0}})},
              {3, ArgAccess::kWrite, Halo::from_points(2, {})}};
    k.follows = {true, true, false};
    k.views = true;
    arrays = {{"m", 4, kNoFlags, nullptr, init_host()},
              {"f", 4, kFloating, nullptr, init_random<float>(5)},
              {"h", 4, kFloating, nullptr, init_value<float>(h)},
              {"g", 4, kResult | kFloating | kStoredBack, nullptr, init_zero()}};
    host.emplace_back("m", 4, held);
    std::int32_t* mv = host.back().as<std::int32_t>();
    const Vec3 e = held.extents();
    for (Index y = held.lo[1]; y < held.hi[1]; ++y)
      for (Index x = held.lo[0]; x < held.hi[0]; ++x)
        mv[(x - held.lo[0]) + e[0] * (y - held.lo[1])] =
            nines && y >= 30 && y < 34 && x >= 10 && x < 20 ? 9 : 0;
    host.push_back(HostArray::absent("f", 4, kDataGrid));
    host.push_back(HostArray::absent("h", 4, kDataGrid));
    host.push_back(HostArray::absent("g", 4, kDataGrid));
  }
  std::vector<std::string> probe() {
    const ProbeStepRun run(
        [](std::vector<HostArray>& a, const Box& b, std::int64_t) { blend(a, b); });
    const KernelProbe measured = probe_kernel(k, kDataGrid, elements, run);
    CHECK(measured.errors.empty());  // the probe's own values never take the branches
    return probe_on_data(k, measured, kDataGrid, elements, arrays.data(), host, run, 0);
  }
};

}  // namespace

TEST_CASE("probe on data: a mask value only the data hold, a value above the probe's") {
  {  // m is 9 on a band away from the box's middle; h is 1: the mask's far read
    DataCase c(true, 1.0f);
    const std::vector<std::string> errors = c.probe();
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] ==
          "kernel 'blend' reads array 'f' at offset (0,2), outside its declared halo (seen on the "
          "program's initial data with 'm' at 9 everywhere (a value it holds)): add the point to "
          "the argument's halo");
  }
  {  // h is 3, made on the devices: the box's own data take that branch
    DataCase c(false, 3.0f);
    const std::vector<std::string> errors = c.probe();
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("reads array 'f' at offset (0,-1), outside its declared halo (seen on "
                         "the program's initial data)") != std::string::npos);
  }
  {  // neither branch in the data: nothing
    DataCase c(false, 1.0f);
    CHECK(c.probe().empty());
  }
}

TEST_CASE("probe on data: an MPI rank's host arrays hold its own cells; the box moves there") {
  // The rank holds rows 24..47 only: the box (24x24 at the grid's centre, rows 12..35) moves to
  // rows 24..47, where its m is the rank's own (the 9s), and the read is seen.
  Box mine = kDataGrid;
  mine.lo[1] = 24;
  DataCase c(true, 1.0f, mine);
  const std::vector<std::string> errors = c.probe();
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("offset (0,2)") != std::string::npos);
}

TEST_CASE("probe on data: initial values made on the devices, computed for the box") {
  const std::vector<ProbeElement> elements{{"f", 4, true}, {"c", 4, true}};
  const std::vector<ArrayInfo> arrays = {{"f", 4, kFloating, nullptr, init_random<float>(5)},
                                         {"c", 4, kFloating, nullptr, init_copy(0)}};
  const std::vector<HostArray> host = {HostArray::absent("f", 4, kDataGrid),
                                       HostArray::absent("c", 4, kDataGrid)};
  Box box = kDataGrid;
  box.lo = {3, 5, 0};
  box.hi = {7, 9, 1};
  const HostArray f = probe_initial_box(arrays.data(), 0, host, kDataGrid, box, elements);
  const HostArray c = probe_initial_box(arrays.data(), 1, host, kDataGrid, box, elements);
  CHECK(std::memcmp(f.bytes.data(), c.bytes.data(), f.bytes.size()) == 0);  // copy(f)
  // Cell (4, 6): global index 4 + 40 * 6, as the devices' random(5) makes it.
  const std::uint64_t bits = random_bits(5, 4 + 40 * 6, ArrayInit::kFloat);
  std::uint32_t got = 0;
  std::memcpy(&got, f.bytes.data() + (1 + 4 * 1) * 4, 4);
  CHECK(got == static_cast<std::uint32_t>(bits));
}

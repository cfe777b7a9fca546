// The engine's initial values made on the devices (runtime/stepgen/exec/engine_init.hpp: devinit)
// on the host backend: zero, value, random (float and double) with the host fill's bits,
// copy(X) of a made X and of an uploaded X, a copy made by its source's own fill; every part's
// buffer holds over its ghost box within the grid the cells the whole grid has there, on
// every partition. A copy() cycle is an internal error, never a hang.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "jacobi_case.hpp"
#include "stepgen/exec/engine_host.hpp"
#include "stepgen/plan/placement.hpp"

using namespace engine_case;

// A namespace of its own (not an anonymous one): the unity build (scripts/setup.sh) compiles
// the engine tests as one file.
namespace init_test {

enum : int { kR, kCopyR, kV, kZ, kCopyV, kD, kU, kCopyU, kInitArrays };

const rt::ArrayInfo kInits[kInitArrays] = {
    {"R", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_random<float>(7u)},
    {"CopyR", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_copy(kR)},
    {"V", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_value<float>(2.5f)},
    {"Z", sizeof(double), rt::kFloating, rt::compare_arrays<double>, rt::init_zero()},
    {"CopyV", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_copy(kV)},
    {"D", sizeof(double), rt::kFloating, rt::compare_arrays<double>, rt::init_random<double>(3u)},
    {"U", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_host()},
    {"CopyU", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_copy(kU)},
};

// What cell `g` (global linear index) of array `id` holds after the whole grid's host fill.
void expected(int id, std::uint64_t g, unsigned char* out) {
  const float f = id == kR || id == kCopyR   ? rt::random_value<float>(7u, g)
                  : id == kU || id == kCopyU ? 100.0f + static_cast<float>(g)
                                             : 2.5f;
  const double d = id == kD ? rt::random_value<double>(3u, g) : 0.0;
  if (id == kZ || id == kD)
    std::memcpy(out, &d, sizeof d);
  else
    std::memcpy(out, &f, sizeof f);
}

// The arrays with no host copy, but U (uploaded: its values on the host, over the grid).
std::vector<HostArray> host_arrays() {
  std::vector<HostArray> host;
  for (const rt::ArrayInfo& a : kInits)
    host.push_back(HostArray::absent(a.name, a.element_bytes, kGrid));
  host[kU] = HostArray("U", sizeof(float), kGrid);
  for (Index i = 0; i < kGrid.volume(); ++i)
    host[kU].as<float>()[i] = 100.0f + static_cast<float>(i);
  return host;
}

void no_steps(rt::InCore<host::Backend>&, std::int64_t) {}

// Every part's buffers against the whole grid's fill, over the part's ghost box within the grid.
void check_parts(const rt::PartitionRequest& request, int devices) {
  rt::Partition partition = rt::partition(request);
  std::vector<host::Device> d = place_on_devices(partition, devices);
  rt::Problem<host::Backend> p = problem(1);
  p.arrays = kInits;
  p.array_count = kInitArrays;
  std::vector<HostArray> host = host_arrays();
  rt::InCore<host::Backend> engine(p, d, partition, host, rt::Probed{});
  engine.set_gathered(std::vector<bool>(kInitArrays, false));
  engine.run(0, no_steps);
  for (std::size_t q = 0; q < engine.parts(); ++q) {
    const Box within = rt::intersect(engine.part(q).ghost, kGrid);
    for (int id = 0; id < kInitArrays; ++id) {
      CAPTURE(q);
      CAPTURE(kInits[id].name);
      const HostArray& buf = *engine.buffers(q)[static_cast<std::size_t>(id)];
      int wrong = 0;
      for (Index y = within.lo[1]; y < within.hi[1]; ++y)
        for (Index x = within.lo[0]; x < within.hi[0]; ++x) {
          unsigned char want[8] = {};
          expected(id, static_cast<std::uint64_t>(y * kGrid.extent(0) + x), want);
          const Box& b = buf.box;
          const std::size_t at =
              static_cast<std::size_t>((y - b.lo[1]) * b.extent(0) + (x - b.lo[0])) *
              buf.element_bytes;
          if (std::memcmp(buf.bytes.data() + at, want, buf.element_bytes) != 0) ++wrong;
        }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("engine init: values made on the devices are the host fill's bits on every partition") {
  check_parts(request(1, rt::Strategy::kSlabs, 1), 1);
  check_parts(request(3, rt::Strategy::kSlabs, 1), 3);
  check_parts(request(4, rt::Strategy::kMinExchange, 2), 4);
  check_parts(request(6, rt::Strategy::kSlabs, 1), 2);  // several parts per device
}

TEST_CASE("engine init: a copy() cycle is an internal error") {
  const rt::ArrayInfo cycle[2] = {
      {"P", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_copy(1)},
      {"Q", sizeof(float), rt::kFloating, rt::compare_arrays<float>, rt::init_copy(0)},
  };
  rt::Partition partition = rt::partition(request(1, rt::Strategy::kSlabs, 1));
  std::vector<host::Device> d(1);
  rt::Problem<host::Backend> p = problem(1);
  p.arrays = cycle;
  p.array_count = 2;
  std::vector<HostArray> host = {HostArray::absent("P", sizeof(float), kGrid),
                                 HostArray::absent("Q", sizeof(float), kGrid)};
  rt::InCore<host::Backend> engine(p, d, partition, host, rt::Probed{});
  engine.set_gathered({false, false});
  CHECK_THROWS_WITH(engine.run(0, no_steps), doctest::Contains("form a cycle"));
}

}  // namespace init_test

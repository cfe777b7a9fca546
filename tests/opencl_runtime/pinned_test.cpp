// The OpenCL runtime's page-locked host arrays (cl::pinned_allocator, direct mapping out of
// core), on the first OpenCL CPU device the ICD finds (PoCL in CI): allocation, contents, copies
// to and from a device buffer, release in either order, and the error when an array is
// larger than the device's largest allocation.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "stepgen/exec/opencl.hpp"

using namespace stepgen;

namespace {
std::vector<cl::Device> one_device() {
  rt::Options opt;
  opt.device_type = "cpu";
  opt.devices = 1;
  return cl::discover(opt);
}
}  // namespace

TEST_CASE("pinned host array: zeroed, adopted, copied to a device buffer and back") {
  std::vector<cl::Device> devices = one_device();
  const cl::Device& d = devices[0];
  const rt::Box grid = rt::Box::from_extent(3, {40, 30, 20});
  rt::HostArray a("p", 4, grid, cl::pinned_allocator(d));
  REQUIRE(a.bytes.size() == 40 * 30 * 20 * 4);
  CHECK(a.bytes.adopted());
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < a.bytes.size(); ++i) nonzero += a.bytes[i] != 0;
  CHECK(nonzero == 0);
  for (std::size_t i = 0; i < a.bytes.size(); ++i)
    a.bytes[i] = static_cast<unsigned char>((i * 2654435761u) >> 11);

  // A box of it to a device buffer holding a larger box, and back into a second pinned array:
  // exactly the box's cells arrive.
  rt::Box sub = grid;
  sub.lo = {3, 2, 1};
  sub.hi = {37, 29, 18};
  cl::Mem buf = cl::create_buffer(d, grid, 4, "p");
  cl::write_box(d, buf, grid, a, sub, nullptr);
  rt::HostArray b("p", 4, grid, cl::pinned_allocator(d));
  cl::read_box(d, buf, grid, b, sub, nullptr);
  cl::check(clFinish(d.queue.get()), "clFinish", d.label());
  std::size_t wrong = 0;
  for (rt::Index z = 0; z < 20; ++z)
    for (rt::Index y = 0; y < 30; ++y)
      for (rt::Index x = 0; x < 40; ++x) {
        const std::size_t at = 4 * static_cast<std::size_t>((z * 30 + y) * 40 + x);
        const bool in = x >= 3 && x < 37 && y >= 2 && y < 29 && z >= 1 && z < 18;
        static const unsigned char zero[4] = {0, 0, 0, 0};
        wrong += std::memcmp(b.bytes.data() + at, in ? a.bytes.data() + at : zero, 4) != 0;
      }
  CHECK(wrong == 0);
  // --verify's copy is owned memory with the same bits.
  rt::HostArray copy = b;
  CHECK_FALSE(copy.bytes.adopted());
  CHECK(std::memcmp(copy.bytes.data(), b.bytes.data(), b.bytes.size()) == 0);
  // The devices may go before the arrays: the arrays hold their buffer and queue.
  devices.clear();
  a.bytes[0] = 1;
  CHECK(a.bytes[0] == 1);
}

TEST_CASE("pinned host array: larger than the device allows gives a clear error") {
  std::vector<cl::Device> devices = one_device();
  const cl::Device& d = devices[0];
  // More than the largest allocation: refused before a byte is touched, with the size asked.
  const std::size_t n = static_cast<std::size_t>(d.max_alloc) + 4096;
  try {
    rt::HostBytes bytes = cl::pinned_allocator(d)(n, "A");
    // An implementation may allow it (host memory): then it must be usable.
    CHECK(bytes.size() == n);
    MESSAGE("the implementation allowed a host allocation past the device's largest");
  } catch (const rt::RunError& e) {
    const std::string what = e.what();
    CHECK(what.find("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) failed on device 0") !=
          std::string::npos);
    CHECK(what.find("page-locked host array A (" + rt::human_bytes(static_cast<double>(n)) + ")") !=
          std::string::npos);
    CHECK(what.find("largest allocation is") != std::string::npos);
    CHECK(what.find("--pinned off") != std::string::npos);
  }
}

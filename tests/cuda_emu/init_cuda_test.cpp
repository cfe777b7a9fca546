// devinit: initial values made on a CUDA GPU (stepgen/exec/init_cuda.hpp), run on the CPU emulation
// of the CUDA runtime (stepgen_cuda_emu.hpp, included first by the build) on the second of two
// emulated devices: random(seed) equals rt::random_value<T> for float, double, int (and the
// other integer widths) over a sub-box with a non-zero origin, the cells outside it untouched;
// value(v), zero and copy(X) likewise (tests/runtime/init_device_cases.hpp). On a GPU the same
// test checks the real kernel (the lead's H100 runs).
#include "stepgen/exec/init_cuda.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "../runtime/init_device_cases.hpp"
#include "stepgen/exec/cuda.hpp"

using namespace stepgen;

namespace {

struct CudaFill {
  const cuda::Device& d;
  cuda::Buffer make(const std::vector<unsigned char>& bytes) {
    const rt::Box b = rt::Box::from_extent(1, {static_cast<rt::Index>(bytes.size()), 1, 1});
    cuda::Buffer buf(d, b, 1, "init test");
    cuda::check(cudaMemcpy(buf.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
                "cudaMemcpy", d);
    return buf;
  }
  std::vector<unsigned char> read(const cuda::Buffer& b, std::size_t n) {
    std::vector<unsigned char> out(n);
    cuda::check(cudaMemcpy(out.data(), b.get(), n, cudaMemcpyDeviceToHost), "cudaMemcpy", d);
    return out;
  }
  std::vector<unsigned char> fill(const rt::Box& buffer, const rt::Box& sub, const rt::Box& grid,
                                  const rt::ArrayInit& init, std::size_t element_bytes,
                                  unsigned char before, bool twice) {
    const std::size_t n = static_cast<std::size_t>(buffer.volume()) * element_bytes;
    d.use();
    cuda::Buffer m = make(std::vector<unsigned char>(n, before));
    cuda::Buffer also = make(std::vector<unsigned char>(n, before));
    cuda::init_box(d, m, buffer, sub, grid, init, element_bytes, twice ? &also : nullptr);
    cuda::finish(d);
    std::vector<unsigned char> got = read(m, n);
    if (twice) {
      const std::vector<unsigned char> more = read(also, n);
      got.insert(got.end(), more.begin(), more.end());
    }
    return got;
  }
  std::vector<unsigned char> copy(const std::vector<unsigned char>& src) {
    d.use();
    cuda::Buffer a = make(src);
    cuda::Buffer b = make(std::vector<unsigned char>(src.size(), 0));
    cuda::copy_buffer(d, b, a, src.size());
    cuda::finish(d);
    return read(b, src.size());
  }
};

}  // namespace

TEST_CASE("initial values on the device (CUDA): the host's bits over a sub-box") {
  rt::Options opt;
  std::vector<cuda::Device> devices = cuda::discover(opt);
  REQUIRE(!devices.empty());
  CudaFill backend{devices.back()};
  init_cases::every_init(backend);
}

// The kernel's floating-point conversion (value_bits: one I2F and one FMUL on the GPU) against
// the integer building of init.hpp (rt::random_bits_from_hash, what OpenCL computes): every one
// of the 2^24 float values, doubles at a million spread hashes, integers alike.
TEST_CASE("initial values on the device (CUDA): the float conversion equals the integer one") {
  using cuda::init_detail::value_bits;
  std::size_t wrong = 0;
  for (std::uint64_t m = 0; m < (std::uint64_t{1} << 24); ++m) {
    const std::uint64_t bits = (m << 40) | (m * 0x9E3779B9ull & 0xFFFFFFFFFFull);
    if (value_bits<rt::ArrayInit::kFloat>(bits) !=
        rt::random_bits_from_hash(bits, rt::ArrayInit::kFloat))
      ++wrong;
  }
  CHECK(wrong == 0);
  for (std::uint64_t i = 0; i < 1000000; ++i) {
    const std::uint64_t bits = rt::splitmix64(i) >> (i % 64);  // every leading-bit position
    if (value_bits<rt::ArrayInit::kDouble>(bits) !=
        rt::random_bits_from_hash(bits, rt::ArrayInit::kDouble))
      ++wrong;
    if (value_bits<rt::ArrayInit::kInteger>(bits) !=
        rt::random_bits_from_hash(bits, rt::ArrayInit::kInteger))
      ++wrong;
  }
  CHECK(wrong == 0);
}

// Exact reductions on a CUDA GPU (cuda::Reducer, stepgen/exec/reduce_cuda.hpp), run on the CPU
// emulation of the CUDA runtime (stepgen_cuda_emu.hpp, included first by the build): every type
// and op equals rt::Reduction on the host bit for bit (tests/reduce/device_cases.hpp), with the
// emulated GPU's own work split and with many threads (two column levels), on the second of
// two emulated devices.
#include "stepgen/exec/reduce_cuda.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../reduce/device_cases.hpp"
#include "stepgen/exec/cuda.hpp"

using namespace stepgen;

namespace {

std::vector<cuda::Device> gpus() {
  rt::Options opt;
  return cuda::discover(opt);
}

struct CudaBackend {
  const cuda::Device& d;
  cuda::Reducer reducer;
  CudaBackend(const cuda::Device& dev, rt::Index max_items) : d(dev), reducer(dev, max_items) {}

  template <typename T>
  cuda::Buffer upload(const std::vector<T>& v) {
    const rt::Box b = rt::Box::from_extent(1, {static_cast<rt::Index>(v.size()), 1, 1});
    cuda::Buffer buf(d, b, sizeof(T), "data");
    cuda::check(cudaMemcpy(buf.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice),
                "cudaMemcpy", d);
    return buf;
  }
  template <typename T>
  void reduce(const cuda::Buffer& a, const cuda::Buffer* minus, const rt::Box& buffer,
              const rt::Box& box, rt::Reduction& into) {
    reducer.reduce_box<T>(a, minus, buffer, box, into);
  }
};

}  // namespace

TEST_CASE("device reduction (CUDA): every type and op equals the host's, bit for bit") {
  std::vector<cuda::Device> devices = gpus();
  REQUIRE(devices.size() >= 2);
  CudaBackend backend(devices[1], 0);
  reduce_cases::every_type(backend);
  reduce_cases::hard_floats(backend);
}

TEST_CASE("device reduction (CUDA): many threads, two column levels") {
  std::vector<cuda::Device> devices = gpus();
  CudaBackend backend(devices[0], 8192);  // 256 lanes x 32 row items: 8192 > 4096
  const rt::Box buffer = reduce_cases::box3({0, 0, 0}, {203, 57, 3});
  const std::vector<rt::Box> boxes = {buffer, reduce_cases::box3({1, 2, 0}, {200, 55, 2})};
  reduce_cases::all_ops<float>(backend, reduce_cases::Mix::kFinite, 11, buffer, boxes, "float");
  reduce_cases::all_ops<double>(backend, reduce_cases::Mix::kSmall, 12, buffer, boxes, "double");
  reduce_cases::all_ops<std::int64_t>(backend, reduce_cases::Mix::kFinite, 13, buffer, boxes,
                                      "int64");
}

TEST_CASE("device reduction (CUDA): few work-items, long rows") {
  std::vector<cuda::Device> devices = gpus();
  CudaBackend backend(devices[0], 64);
  reduce_cases::long_rows(backend);
}

TEST_CASE("device reduction (CUDA): many large floats per thread") {
  std::vector<cuda::Device> devices = gpus();
  CudaBackend backend(devices[0], 64);
  reduce_cases::many_per_item(backend);
}

TEST_CASE("device reduction (CUDA): reducer_for keeps one reducer per GPU") {
  std::vector<cuda::Device> devices = gpus();
  REQUIRE(devices.size() >= 2);
  cuda::Reducer& r0 = cuda::reducer_for(devices[0]);
  CHECK(&cuda::reducer_for(devices[0]) == &r0);
  CHECK(&cuda::reducer_for(devices[1]) != &r0);
  // Through it, on each GPU: the host's bits.
  for (const cuda::Device& d : devices) {
    CudaBackend backend(d, 0);
    const std::vector<float> v = {1.5f, -0.0f, 3.25f, 1e-40f, -7.0f, 2.0f};
    const cuda::Buffer buf = backend.upload(v);
    const rt::Box box = reduce_cases::box3({0, 0, 0}, {6, 1, 1});
    rt::Reduction got(rt::ReduceOp::kL2), want(rt::ReduceOp::kL2);
    cuda::reducer_for(d).reduce_box<float>(buf, nullptr, box, box, got);
    for (float x : v) want.add(x);
    CHECK(reduce_cases::bits(got.value()) == reduce_cases::bits(want.value()));
  }
}

namespace {

/// One thread's float accumulator in mode M over `v`, as the kernel drives it (groups of four,
/// a carry every kEvery values, a last carry): its limbs, then its counts.
template <bool Square, int M>
std::vector<long long> float_limbs(const std::vector<float>& v) {
  using Acc = cuda::reduce_detail::FloatAcc<Square, M>;
  Acc s;
  int since = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    s.add(v[i]);
    if (i % 4 == 3 || i + 1 == v.size()) {
      since += i % 4 == 3 ? 4 : static_cast<int>(i % 4) + 1;
      if (since >= Acc::kEvery) {
        since = 0;
        s.carry();
      }
    }
  }
  s.carry();
  std::vector<long long> out(s.acc, s.acc + Acc::kN);
  out.insert(out.end(), s.cnt, s.cnt + 3);
  return out;
}

}  // namespace

TEST_CASE(
    "device reduction (CUDA): the hot class and the window (modes 1, 3) give the limbs of the "
    "compare") {
  // Mode 0 adds every value through the compare over the classes; modes 1 and 3 first try the
  // thread's hot class. Data that stays in one class, that moves between classes (the hot class
  // follows it), that jumps at random, with zeros, subnormals, infinities and NaN: the same
  // digits.
  std::mt19937_64 rng(41);
  std::vector<std::vector<float>> cases;
  for (reduce_cases::Mix mix :
       {reduce_cases::Mix::kFinite, reduce_cases::Mix::kSmall, reduce_cases::Mix::kZeros,
        reduce_cases::Mix::kInfinities, reduce_cases::Mix::kNan}) {
    std::vector<float> v(3001);
    for (float& x : v) x = reduce_cases::random_value<float>(rng, mix);
    cases.push_back(v);
  }
  std::vector<float> moving;  // long runs in one class, then another
  for (int run = 0; run < 12; ++run) {
    const float scale = std::ldexp(1.0f, (run * 37) % 200 - 100);
    for (int i = 0; i < 700; ++i)
      moving.push_back(scale * reduce_cases::random_value<float>(rng, reduce_cases::Mix::kSmall));
  }
  cases.push_back(moving);
  std::vector<float> large(2000, 3.4e38f);  // the largest payloads: no overflow of 64 bits
  for (std::size_t i = 0; i < large.size(); i += 3) large[i] = -1.5e-45f;
  cases.push_back(large);
  // The top of l2's first exponent window (e = base + 7): squares near 2^62, so that the window's
  // 128-bit sum carries into its high word.
  std::vector<float> top(3000, 15.999999f);
  for (std::size_t i = 0; i < top.size(); i += 7) top[i] = -8.5f;
  cases.push_back(top);
  for (const std::vector<float>& v : cases) {
    CHECK(float_limbs<false, 1>(v) == float_limbs<false, 0>(v));
    CHECK(float_limbs<true, 1>(v) == float_limbs<true, 0>(v));
    CHECK(float_limbs<false, 3>(v) == float_limbs<false, 0>(v));
    CHECK(float_limbs<true, 3>(v) == float_limbs<true, 0>(v));
  }
}

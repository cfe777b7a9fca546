// Exact reductions on an OpenCL device (cl::Reducer, stepgen/exec/reduce_opencl.hpp) on the first
// OpenCL CPU device (PoCL in CI): every type and op equals rt::Reduction on the host bit for
// bit (tests/reduce/device_cases.hpp), with the device's own work split and with many
// work-items (two column levels), and a reduction split over parts merges to the whole's.
#include "stepgen/exec/reduce_opencl.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "../reduce/device_cases.hpp"
#include "stepgen/exec/opencl.hpp"

using namespace stepgen;

namespace {

std::vector<cl::Device> first_cpu() {
  rt::Options opt;
  opt.device_type = "cpu";
  opt.devices = 1;
  return cl::discover(opt);
}

struct OpenClBackend {
  cl::Device& d;
  cl::Reducer reducer;
  OpenClBackend(cl::Device& dev, rt::Index max_items,
                cl::Reducer::FloatL2 float_l2 = cl::Reducer::FloatL2::kAuto)
      : d(dev), reducer(dev, max_items, float_l2) {}

  template <typename T>
  cl::Mem upload(const std::vector<T>& v) {
    cl_int err = CL_SUCCESS;
    cl::Mem m(
        clCreateBuffer(d.context.get(), CL_MEM_READ_WRITE, v.size() * sizeof(T), nullptr, &err));
    cl::check(err, "clCreateBuffer", d.label());
    cl::check(clEnqueueWriteBuffer(d.queue.get(), m.get(), CL_TRUE, 0, v.size() * sizeof(T),
                                   v.data(), 0, nullptr, nullptr),
              "clEnqueueWriteBuffer", d.label());
    return m;
  }
  template <typename T>
  void reduce(const cl::Mem& a, const cl::Mem* minus, const rt::Box& buffer, const rt::Box& box,
              rt::Reduction& into) {
    reducer.reduce_box<T>(a, minus, buffer, box, into);
  }
};

}  // namespace

TEST_CASE("device reduction (OpenCL): every type and op equals the host's, bit for bit") {
  std::vector<cl::Device> devices = first_cpu();
  OpenClBackend backend(devices[0], 0);
  reduce_cases::every_type(backend);
  reduce_cases::hard_floats(backend);
}

TEST_CASE("device reduction (OpenCL): many work-items, two column levels") {
  std::vector<cl::Device> devices = first_cpu();
  OpenClBackend backend(devices[0], 8192);  // 256 lanes x 32 row items: 8192 > 4096
  const rt::Box buffer = reduce_cases::box3({0, 0, 0}, {203, 57, 3});
  const std::vector<rt::Box> boxes = {buffer, reduce_cases::box3({1, 2, 0}, {200, 55, 2})};
  reduce_cases::all_ops<float>(backend, reduce_cases::Mix::kFinite, 11, buffer, boxes, "float");
  reduce_cases::all_ops<double>(backend, reduce_cases::Mix::kSmall, 12, buffer, boxes, "double");
  reduce_cases::all_ops<std::int64_t>(backend, reduce_cases::Mix::kFinite, 13, buffer, boxes,
                                      "int64");
}

TEST_CASE("device reduction (OpenCL): parts merged equal the whole, whatever the split") {
  std::vector<cl::Device> devices = first_cpu();
  OpenClBackend backend(devices[0], 0);
  const rt::Box buffer = reduce_cases::box3({0, 0, 0}, {50, 40, 1});
  std::mt19937_64 rng(5);
  std::vector<float> a(static_cast<std::size_t>(buffer.volume()));
  for (auto& v : a) v = reduce_cases::random_value<float>(rng, reduce_cases::Mix::kFinite);
  const cl::Mem da = backend.upload(a);
  for (rt::ReduceOp op : reduce_cases::kOps) {
    rt::Reduction whole(op);
    backend.reduce<float>(da, nullptr, buffer, buffer, whole);
    rt::Reduction parts(op);
    for (rt::Index y0 : {0, 7, 8, 30}) {  // rows [0,7) [7,8) [8,30) [30,40)
      const rt::Index y1 = y0 == 0 ? 7 : y0 == 7 ? 8 : y0 == 8 ? 30 : 40;
      rt::Reduction part(op);
      backend.reduce<float>(da, nullptr, buffer, reduce_cases::box3({0, y0, 0}, {50, y1, 1}), part);
      parts.merge(part);
    }
    const std::string what = std::string("op ") + reduce_cases::op_name(op);
    INFO(what);
    CHECK(reduce_cases::bits(parts.value()) == reduce_cases::bits(whole.value()));
  }
}

TEST_CASE("device reduction (OpenCL): few work-items, long rows") {
  std::vector<cl::Device> devices = first_cpu();
  OpenClBackend backend(devices[0], 64);
  reduce_cases::long_rows(backend);
  reduce_cases::many_per_item(backend);
}

TEST_CASE("device reduction (OpenCL): float l2 with the GPU's kernel (exponent classes)") {
  // The CPU's kernel (indexed limbs) is what the other cases run on PoCL.
  std::vector<cl::Device> devices = first_cpu();
  OpenClBackend backend(devices[0], 0, cl::Reducer::FloatL2::kClasses);
  reduce_cases::every_mix<float>(backend, "float");
  reduce_cases::hard_floats(backend);
  OpenClBackend few(devices[0], 64, cl::Reducer::FloatL2::kClasses);
  reduce_cases::long_rows(few);
  reduce_cases::many_per_item(few);
}

TEST_CASE("device reduction (OpenCL): reducer_for keeps one reducer per device") {
  std::vector<cl::Device> devices = first_cpu();
  cl::Reducer& r = cl::reducer_for(devices[0]);
  CHECK(&cl::reducer_for(devices[0]) == &r);
  OpenClBackend backend(devices[0], 0);
  const std::vector<float> v = {1.5f, -0.0f, 3.25f, 1e-40f, -7.0f, 2.0f};
  const cl::Mem buf = backend.upload(v);
  const rt::Box box = reduce_cases::box3({0, 0, 0}, {6, 1, 1});
  rt::Reduction got(rt::ReduceOp::kL2), want(rt::ReduceOp::kL2);
  r.reduce_box<float>(buf, nullptr, box, box, got);
  for (float x : v) want.add(x);
  CHECK(reduce_cases::bits(got.value()) == reduce_cases::bits(want.value()));
}

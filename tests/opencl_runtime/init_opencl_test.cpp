// devinit: initial values made on an OpenCL device (stepgen/exec/init_opencl.hpp) on the first
// OpenCL CPU device (PoCL in CI): random(seed) equals rt::random_value<T> for float, double, int
// (and the other integer widths) over a sub-box with a non-zero origin of a part's buffer, the
// cells outside it untouched; value(v), zero and copy(X) likewise
// (tests/runtime/init_device_cases.hpp).
#include "stepgen/exec/init_opencl.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "../runtime/init_device_cases.hpp"
#include "stepgen/exec/opencl.hpp"

using namespace stepgen;

namespace {

struct OpenClFill {
  cl::Device& d;
  cl::Mem make(const std::vector<unsigned char>& bytes) {
    cl_int err = CL_SUCCESS;
    cl::Mem m(clCreateBuffer(d.context.get(), CL_MEM_READ_WRITE, bytes.size(), nullptr, &err));
    cl::check(err, "clCreateBuffer", d.label());
    cl::check(clEnqueueWriteBuffer(d.queue.get(), m.get(), CL_TRUE, 0, bytes.size(), bytes.data(),
                                   0, nullptr, nullptr),
              "clEnqueueWriteBuffer", d.label());
    return m;
  }
  std::vector<unsigned char> read(const cl::Mem& m, std::size_t n) {
    std::vector<unsigned char> out(n);
    cl::check(
        clEnqueueReadBuffer(d.queue.get(), m.get(), CL_TRUE, 0, n, out.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer", d.label());
    return out;
  }
  std::vector<unsigned char> fill(const rt::Box& buffer, const rt::Box& sub, const rt::Box& grid,
                                  const rt::ArrayInit& init, std::size_t element_bytes,
                                  unsigned char before, bool twice) {
    const std::size_t n = static_cast<std::size_t>(buffer.volume()) * element_bytes;
    cl::Mem m = make(std::vector<unsigned char>(n, before));
    cl::Mem also = make(std::vector<unsigned char>(n, before));
    cl::init_box(d, m, buffer, sub, grid, init, element_bytes, twice ? &also : nullptr);
    cl::finish(d);
    std::vector<unsigned char> got = read(m, n);
    if (twice) {
      const std::vector<unsigned char> more = read(also, n);
      got.insert(got.end(), more.begin(), more.end());
    }
    return got;
  }
  std::vector<unsigned char> copy(const std::vector<unsigned char>& src) {
    cl::Mem a = make(src);
    cl::Mem b = make(std::vector<unsigned char>(src.size(), 0));
    cl::copy_buffer(d, b, a, src.size());
    cl::finish(d);
    return read(b, src.size());
  }
};

}  // namespace

TEST_CASE("initial values on the device (OpenCL): the host's bits over a sub-box") {
  rt::Options opt;
  opt.device_type = "cpu";
  opt.devices = 1;
  std::vector<cl::Device> devices = cl::discover(opt);
  OpenClFill backend{devices[0]};
  init_cases::every_init(backend);
}

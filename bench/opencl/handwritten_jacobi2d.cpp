// Baseline for the OpenCL benchmark: the loop a person writes by hand for the 2D 5-point Jacobi
// on one device, with the same kernel file, grid, work-group size and initial values as
// bench/specs/jacobi2d_16384.xml. Times the time loop only (first enqueue to clFinish), like
// the generated program's "kernels:" line on one device.
// Usage: handwritten_jacobi2d KERNEL.cl [NX NY STEPS]
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"

#define CHECK(call)                                                           \
  do {                                                                        \
    cl_int e_ = (call);                                                       \
    if (e_ != CL_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s failed: %d (line %d)\n", #call, e_, __LINE__); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s KERNEL.cl [NX NY STEPS]\n", argv[0]);
    return 2;
  }
  const int nx = argc > 2 ? std::atoi(argv[2]) : 16384;
  const int ny = argc > 3 ? std::atoi(argv[3]) : 16384;
  const int steps = argc > 4 ? std::atoi(argv[4]) : 1000;
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();

  cl_platform_id platforms[16];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(16, platforms, &np));
  cl_device_id device = nullptr;
  for (cl_uint i = 0; i < np && !device; ++i)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &device, nullptr) != CL_SUCCESS)
      device = nullptr;
  if (!device) {
    std::fprintf(stderr, "no GPU\n");
    return 1;
  }
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  CHECK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  CHECK(err);
  const char* src = source.c_str();
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 1, &device, "", nullptr, nullptr));
  cl_kernel k = clCreateKernel(prog, "jacobi", &err);
  CHECK(err);

  const size_t n = static_cast<size_t>(nx) * ny;
  std::vector<float> host(n);
  stepgen::rt::fill_random(host.data(), n, 7);
  // Explicit blocking uploads: with CL_MEM_COPY_HOST_PTR some drivers copy lazily, at the first
  // launch, which would put the upload inside the timed loop.
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
  CHECK(err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
  CHECK(err);
  CHECK(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, n * 4, host.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, n * 4, host.data(), 0, nullptr, nullptr));
  CHECK(clFinish(q));

  const size_t global[2] = {(static_cast<size_t>(nx) + 31) / 32 * 32,
                            (static_cast<size_t>(ny) + 7) / 8 * 8};
  const size_t local[2] = {32, 8};
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) {
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &a));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &b));
    CHECK(clSetKernelArg(k, 2, sizeof(int), &nx));
    CHECK(clSetKernelArg(k, 3, sizeof(int), &ny));
    CHECK(clEnqueueNDRangeKernel(q, k, 2, nullptr, global, local, 0, nullptr, nullptr));
    std::swap(a, b);
  }
  CHECK(clFinish(q));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("handwritten: %.6f s for %d steps (%.4f ms/step)\n", secs, steps, 1e3 * secs / steps);
  CHECK(clEnqueueReadBuffer(q, a, CL_TRUE, 0, n * 4, host.data(), 0, nullptr, nullptr));
  double sum = 0;
  for (size_t i = 0; i < n; i += 4097) sum += host[i];
  std::printf("checksum %.6f\n", sum);
  return 0;
}

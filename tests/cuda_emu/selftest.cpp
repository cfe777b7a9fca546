// The CPU emulation of CUDA (stepgen_cuda_emu.hpp) against what a GPU does: copies land where
// CUDA puts them, launches run every thread once, and the mistakes a GPU rejects are rejected.
// Run with STEPGEN_CUDA_EMULATE=3 and STEPGEN_CUDA_EMULATE_MEMORY=1048576 (tests/cuda_emu.cmake),
// in issue order and deferred (STEPGEN_CUDA_EMULATE_ORDER=deferred).

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "stepgen/exec/cuda.hpp"

namespace {

__global__ void count_threads(int* hits, int nx, int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  hits[x + nx * (y + ny * z)] += 1;
}

__global__ void scale(float* a, float s) {
  a[threadIdx.x] *= s;
}

void* device_alloc(int device, std::size_t bytes) {
  REQUIRE(cudaSetDevice(device) == cudaSuccess);
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, bytes) == cudaSuccess);
  return p;
}

}  // namespace

TEST_CASE("a launch takes an array's pointer as its type, a same-size scalar or a vector of it") {
  // The generated launches pass cuda::ElementPtr<T>; a kernel written with `const float4*` over
  // a float array (global size extent(A, 0) / 4) must compile, as in OpenCL; double* must not.
  using stepgen::cuda::ElementPtr;
  static_assert(std::is_convertible_v<ElementPtr<float>, float*>);
  static_assert(std::is_convertible_v<ElementPtr<float>, const float*>);
  static_assert(std::is_convertible_v<ElementPtr<float>, const float4*>);
  static_assert(std::is_convertible_v<ElementPtr<float>, float2*>);
  static_assert(std::is_convertible_v<ElementPtr<double>, double2*>);
  static_assert(std::is_convertible_v<ElementPtr<long>, long long*>);
  static_assert(!std::is_convertible_v<ElementPtr<float>, double*>);
  static_assert(!std::is_convertible_v<ElementPtr<float>, int*>);
  static_assert(!std::is_convertible_v<ElementPtr<float>, unsigned char*>);
  float data[8] = {};
  const ElementPtr<float> p{data};
  const float4* v = p;
  CHECK(static_cast<const void*>(v) == static_cast<const void*>(data));
}

TEST_CASE("devices, properties and memory come from the environment") {
  int n = 0;
  REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
  CHECK(n == 3);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 2) == cudaSuccess);
  CHECK(prop.totalGlobalMem == 1048576u);
  CHECK(cudaGetDeviceProperties(&prop, 3) == cudaErrorInvalidDevice);
  CHECK(cudaSetDevice(3) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaSuccess);  // read and reset
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 2u << 20) == cudaErrorMemoryAllocation);
  REQUIRE(cudaMalloc(&p, 1u << 19) == cudaSuccess);
  std::size_t free = 0, total = 0;
  CHECK(cudaMemGetInfo(&free, &total) == cudaSuccess);
  CHECK(free == (1u << 19));
  CHECK(cudaFree(p) == cudaSuccess);
  CHECK(cudaFree(static_cast<char*>(p) + 4) == cudaErrorInvalidDevicePointer);
  (void)cudaGetLastError();
}

TEST_CASE("a 3D copy moves the box CUDA's pitched pointers describe, and no other byte") {
  // Host box 5x4x3 bytes; device box 7x6x4 bytes; copy a 3x2x2 region.
  std::vector<unsigned char> host(5 * 4 * 3);
  std::iota(host.begin(), host.end(), 0);
  auto* dev = static_cast<unsigned char*>(device_alloc(0, 7 * 6 * 4));
  REQUIRE(cudaMemset(dev, 0, 7 * 6 * 4) == cudaSuccess);
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(host.data(), 5, 5, 4);
  p.srcPos = make_cudaPos(1, 1, 0);
  p.dstPtr = make_cudaPitchedPtr(dev, 7, 7, 6);
  p.dstPos = make_cudaPos(2, 3, 1);
  p.extent = make_cudaExtent(3, 2, 2);
  p.kind = cudaMemcpyHostToDevice;
  REQUIRE(cudaMemcpy3D(&p) == cudaSuccess);
  std::vector<unsigned char> back(7 * 6 * 4);
  REQUIRE(cudaMemcpy(back.data(), dev, back.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 7; ++x) {
        const bool in = x >= 2 && x < 5 && y >= 3 && y < 5 && z >= 1 && z < 3;
        const int want =
            in ? host[static_cast<std::size_t>((x - 2 + 1) + 5 * ((y - 3 + 1) + 4 * (z - 1)))] : 0;
        CAPTURE(x);
        CAPTURE(y);
        CAPTURE(z);
        CHECK(back[static_cast<std::size_t>(x + 7 * (y + 6 * z))] == want);
      }
  CHECK(cudaFree(dev) == cudaSuccess);
}

TEST_CASE("copies that a GPU rejects are rejected") {
  auto* a = static_cast<char*>(device_alloc(0, 64));
  auto* b = static_cast<char*>(device_alloc(1, 64));
  std::vector<char> host(128);
  // Past the end of the allocation.
  CHECK(cudaMemcpy(a + 32, host.data(), 40, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  // The kind says host for device memory, and device for host memory.
  CHECK(cudaMemcpy(a, host.data(), 8, cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(host.data(), a, 8, cudaMemcpyHostToHost) == cudaErrorInvalidValue);
  // A peer copy naming the wrong device.
  CHECK(cudaMemcpyPeer(b, 0, a, 0, 8) == cudaErrorInvalidValue);
  CHECK(cudaMemcpyPeer(b, 1, a, 0, 8) == cudaSuccess);
  // A 3D copy whose last row runs past the allocation.
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(host.data(), 16, 16, 8);
  p.dstPtr = make_cudaPitchedPtr(a, 16, 16, 4);
  p.extent = make_cudaExtent(16, 4, 2);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p) == cudaErrorInvalidValue);
  p.extent = make_cudaExtent(17, 1, 1);  // wider than the pitch
  CHECK(cudaMemcpy3D(&p) == cudaErrorInvalidPitchValue);
  (void)cudaGetLastError();
  CHECK(cudaFree(a) == cudaSuccess);
  CHECK(cudaFree(b) == cudaSuccess);
}

TEST_CASE("a launch runs every thread of every block once, with CUDA's indices") {
  const int nx = 37, ny = 11, nz = 5;
  auto* hits = static_cast<int*>(device_alloc(2, sizeof(int) * nx * ny * nz));
  REQUIRE(cudaMemset(hits, 0, sizeof(int) * nx * ny * nz) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  const dim3 block(8, 4, 2);
  const dim3 grid((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
  STEPGEN_LAUNCH(count_threads, grid, block, s)(hits, nx, ny, nz);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<int> back(static_cast<std::size_t>(nx * ny * nz));
  REQUIRE(cudaMemcpyAsync(back.data(), hits, sizeof(int) * back.size(), cudaMemcpyDeviceToHost,
                          s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  for (int h : back) CHECK(h == 1);
  // Too many threads per block.
  STEPGEN_LAUNCH(count_threads, dim3(1), dim3(64, 32), s)(hits, nx, ny, nz);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(cudaFree(hits) == cudaSuccess);
}

TEST_CASE("launches on another device's stream or memory are rejected; peer access allows memory") {
  auto* a0 = static_cast<float*>(device_alloc(0, 64 * sizeof(float)));
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  cudaStream_t s1 = nullptr;
  REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
  STEPGEN_LAUNCH(scale, dim3(1), dim3(64), s1)(a0, 2.0f);  // device 0's memory on device 1
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  std::vector<float> host(64, 1.0f);
  STEPGEN_LAUNCH(scale, dim3(1), dim3(64), s1)(host.data(), 2.0f);  // host memory
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  STEPGEN_LAUNCH(scale, dim3(1), dim3(64), s1)(a0, 2.0f);  // device 1's stream on device 0
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  int can = 0;
  REQUIRE(cudaDeviceCanAccessPeer(&can, 1, 0) == cudaSuccess);
  REQUIRE(can == 1);
  REQUIRE(cudaDeviceEnablePeerAccess(0, 0) == cudaSuccess);
  CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorPeerAccessAlreadyEnabled);
  (void)cudaGetLastError();
  REQUIRE(cudaMemcpy(a0, host.data(), 64 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  STEPGEN_LAUNCH(scale, dim3(1), dim3(64), s1)(a0, 2.0f);
  CHECK(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaMemcpy(host.data(), a0, 64 * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[63] == 2.0f);
  CHECK(cudaStreamDestroy(s1) == cudaSuccess);
  CHECK(cudaFree(a0) == cudaSuccess);
}

TEST_CASE("events time and order streams; page locking is checked") {
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  cudaStream_t s0 = nullptr;
  REQUIRE(cudaStreamCreateWithPriority(&s0, cudaStreamNonBlocking, -1) == cudaSuccess);
  cudaEvent_t a = nullptr, b = nullptr, quiet = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&a, cudaEventDefault) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&b, cudaEventDefault) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&quiet, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventRecord(a, s0) == cudaSuccess);
  REQUIRE(cudaEventRecord(b, s0) == cudaSuccess);
  REQUIRE(cudaEventRecord(quiet, s0) == cudaSuccess);
  float ms = -1;
  REQUIRE(cudaEventSynchronize(quiet) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaSuccess);
  CHECK(ms >= 0);
  CHECK(cudaEventElapsedTime(&ms, a, quiet) == cudaErrorInvalidResourceHandle);
  CHECK(cudaEventQuery(b) == cudaSuccess);
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  cudaStream_t s1 = nullptr;
  REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
  CHECK(cudaStreamWaitEvent(s1, a, 0) == cudaSuccess);              // across devices: allowed
  CHECK(cudaEventRecord(a, s1) == cudaErrorInvalidResourceHandle);  // device 0's event on device 1
  std::vector<char> host(4096);
  CHECK(cudaHostRegister(host.data(), host.size(), cudaHostRegisterPortable) == cudaSuccess);
  CHECK(cudaHostRegister(host.data() + 8, 16, 0) == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaHostUnregister(host.data()) == cudaSuccess);
  CHECK(cudaHostUnregister(host.data()) == cudaErrorHostMemoryNotRegistered);
  (void)cudaGetLastError();
  for (cudaEvent_t e : {a, b, quiet}) CHECK(cudaEventDestroy(e) == cudaSuccess);
  CHECK(cudaStreamDestroy(s1) == cudaSuccess);
  CHECK(cudaStreamDestroy(s0) == cudaSuccess);
}

TEST_CASE("deferred: work runs when the host waits for it, after the events it waits for") {
  stepgen_cuda_emu::Machine& m = stepgen_cuda_emu::machine();
  if (!m.deferred) return;  // the issue-order run has nothing to show here
  for (unsigned seed = 1; seed <= 20; ++seed) {
    m.rng.seed(seed);
    auto* a = static_cast<float*>(device_alloc(0, 64 * sizeof(float)));
    float* host = nullptr;
    REQUIRE(cudaMallocHost(reinterpret_cast<void**>(&host), 64 * sizeof(float)) == cudaSuccess);
    for (int i = 0; i < 64; ++i) host[i] = 1.0f;
    cudaStream_t s0 = nullptr, s1 = nullptr;
    REQUIRE(cudaStreamCreate(&s0) == cudaSuccess);
    REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
    cudaEvent_t scaled = nullptr;
    REQUIRE(cudaEventCreateWithFlags(&scaled, cudaEventDisableTiming) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(a, host, 64 * sizeof(float), cudaMemcpyHostToDevice, s0) ==
            cudaSuccess);
    STEPGEN_LAUNCH(scale, dim3(1), dim3(64), s0)(a, 3.0f);
    REQUIRE(cudaEventRecord(scaled, s0) == cudaSuccess);
    CHECK(cudaEventQuery(scaled) == cudaErrorNotReady);  // nothing ran yet
    REQUIRE(cudaStreamWaitEvent(s1, scaled, 0) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(host, a, 64 * sizeof(float), cudaMemcpyDeviceToHost, s1) ==
            cudaSuccess);
    CHECK(host[5] == 1.0f);  // the copy back waits in its queue
    REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
    CAPTURE(seed);
    CHECK(host[5] == 3.0f);  // after the kernel on the other stream, whatever the order chosen
    CHECK(cudaEventQuery(scaled) == cudaSuccess);
    CHECK(cudaEventDestroy(scaled) == cudaSuccess);
    CHECK(cudaStreamDestroy(s0) == cudaSuccess);
    CHECK(cudaStreamDestroy(s1) == cudaSuccess);
    CHECK(cudaFreeHost(host) == cudaSuccess);
    CHECK(cudaFree(a) == cudaSuccess);
  }
}

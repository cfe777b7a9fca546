// Where an in-core run's set-up goes on one GPU (issue 26: a short run's whole time exceeds its
// kernels by its set-up, 3-4 ms for 2-2.5 GiB on the H100): Jacobi 16384^2's two arrays
// (A random(7), B copy(A), 1 GiB each) made as the generated programs make them
// (runtime/stepgen/init_cuda.hpp's fill kernel, then a device-to-device copy), each part timed
// with CUDA events, on fresh memory (the first touch of a new allocation) and again on the same
// memory; beside them the same fill with the leading bit found by __clzll instead of the
// shift ladder (checked for the same bits), and cudaMemsetAsync (the memory's write speed).
// Usage: setup_parts [NX NY REPS]   (default 16384 16384 3; the median of REPS warm repeats)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "common.cuh"
#include "stepgen/init_cuda.hpp"

namespace {

using stepgen::cuda::init_detail::FillBox;
using stepgen::cuda::init_detail::splitmix64;
using U64 = unsigned long long;

/// random_bits for floats (init.hpp's kFloat), the leading bit by __clzll.
__device__ inline U64 random_float_clz(U64 mixed, U64 index) {
  const U64 m = splitmix64(mixed ^ index) >> 40;
  if (m == 0) return 0;
  const int top = 63 - __clzll(static_cast<long long>(m));
  return (static_cast<U64>(top - 24 + 127) << 23) | ((m << (23 - top)) & 0x7FFFFFull);
}

__global__ void fill_clz(unsigned* buf, U64 mixed, FillBox b) {
  const long long x0 = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long dx = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long z = blockIdx.z; z < b.nz; z += gridDim.z)
    for (long long y = blockIdx.y; y < b.ny; y += gridDim.y) {
      unsigned* row = buf + b.base + y * b.sy + z * b.sz;
      const U64 g = b.first + static_cast<U64>((y + z * b.gy) * b.gx);
      for (long long x = x0; x < b.nx; x += dx)
        row[x] = static_cast<unsigned>(random_float_clz(mixed, g + static_cast<U64>(x)));
    }
}

__global__ void count_differences(const unsigned* a, const unsigned* b, size_t n,
                                  unsigned long long* out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) atomicAdd(out, 1ull);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "[NX NY REPS]";
  const long nx = bench::arg_or(argc, argv, 1, 16384, usage);
  const long ny = bench::arg_or(argc, argv, 2, 16384, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 3, 3, usage));
  const size_t n = static_cast<size_t>(nx) * static_cast<size_t>(ny), bytes = n * 4;
  FillBox box{};
  box.nx = nx;
  box.ny = ny;
  box.nz = 1;
  box.sy = nx;
  box.sz = nx * ny;
  box.gx = nx;
  box.gy = ny;
  const U64 mixed = splitmix64(7);
  // The generated programs' launch (init_cuda.hpp's launch_fill).
  const unsigned block = static_cast<unsigned>(std::min<long>(256, (nx + 31) / 32 * 32));
  const dim3 grid(static_cast<unsigned>(std::min<long>((nx + block - 1) / block, 1024)),
                  static_cast<unsigned>(std::min<long>(ny, 65535)), 1);
  cudaStream_t s;
  BENCH_CHECK(cudaFree(nullptr));
  BENCH_CHECK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1;
  BENCH_CHECK(cudaEventCreate(&e0));
  BENCH_CHECK(cudaEventCreate(&e1));
  auto timed = [&](auto&& work) {
    BENCH_CHECK(cudaEventRecord(e0, s));
    work();
    BENCH_CHECK(cudaEventRecord(e1, s));
    BENCH_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return static_cast<double>(ms);
  };
  auto fill = [&](unsigned* p) {
    stepgen::cuda::init_detail::stepgen_init_fill<unsigned><<<grid, block, 0, s>>>(
        p, stepgen::rt::ArrayInit::kRandom, stepgen::rt::ArrayInit::kFloat, mixed, 0, box);
    BENCH_CHECK(cudaGetLastError());
  };
  auto fill2 = [&](unsigned* p) {
    fill_clz<<<grid, block, 0, s>>>(p, mixed, box);
    BENCH_CHECK(cudaGetLastError());
  };
  auto copy = [&](unsigned* to, const unsigned* from) {
    BENCH_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s));
  };
  auto median = [&](auto&& work) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) t.push_back(timed(work));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };

  unsigned *a = nullptr, *b = nullptr, *c = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  BENCH_CHECK(cudaMalloc(&a, bytes));
  BENCH_CHECK(cudaMalloc(&b, bytes));
  const double alloc_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double fill_first = timed([&] { fill(a); });
  const double copy_first = timed([&] { copy(b, a); });
  const double fill_warm = median([&] { fill(a); });
  const double copy_warm = median([&] { copy(b, a); });
  const double clz_warm = median([&] { fill2(b); });
  // The same bits: A (the ladder) against B (__clzll).
  unsigned long long* diff = nullptr;
  BENCH_CHECK(cudaMalloc(&diff, sizeof *diff));
  BENCH_CHECK(cudaMemsetAsync(diff, 0, sizeof *diff, s));
  count_differences<<<1024, 256, 0, s>>>(a, b, n, diff);
  BENCH_CHECK(cudaGetLastError());
  unsigned long long differ = 0;
  BENCH_CHECK(cudaMemcpyAsync(&differ, diff, sizeof differ, cudaMemcpyDeviceToHost, s));
  BENCH_CHECK(cudaStreamSynchronize(s));
  const double memset_warm = median([&] { BENCH_CHECK(cudaMemsetAsync(a, 0, bytes, s)); });
  BENCH_CHECK(cudaMalloc(&c, bytes));
  const double memset_first = timed([&] { BENCH_CHECK(cudaMemsetAsync(c, 0, bytes, s)); });
  const double gib = static_cast<double>(bytes) / (1 << 30);
  auto rate = [&](double ms, double moved) { return moved * bytes / (ms * 1e-3) / 1e9; };
  std::printf("setup_parts: %ldx%ld floats, %.2f GiB per array; ms (GB/s of the bytes moved)\n",
              nx, ny, gib);
  std::printf("| part | first touch | warm (median of %d) |\n| --- | --- | --- |\n", reps);
  std::printf("| cudaMalloc x2 (host clock) | %.3f | - |\n", alloc_ms);
  std::printf("| fill random (stepgen, shift ladder) | %.3f (%.0f) | %.3f (%.0f) |\n", fill_first,
              rate(fill_first, 1), fill_warm, rate(fill_warm, 1));
  std::printf("| fill random, __clzll | - | %.3f (%.0f) |\n", clz_warm, rate(clz_warm, 1));
  std::printf("| copy(A) device to device | %.3f (%.0f) | %.3f (%.0f) |\n", copy_first,
              rate(copy_first, 2), copy_warm, rate(copy_warm, 2));
  std::printf("| cudaMemsetAsync | %.3f (%.0f) | %.3f (%.0f) |\n", memset_first,
              rate(memset_first, 1), memset_warm, rate(memset_warm, 1));
  std::printf("setup_parts: the __clzll fill gives %s (%llu of %zu values differ)\n",
              differ == 0 ? "the same bits" : "DIFFERENT bits", differ, n);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(c));
  BENCH_CHECK(cudaFree(diff));
  return differ == 0 ? 0 : 1;
}

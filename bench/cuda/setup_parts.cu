// Where an in-core run's set-up goes on one GPU (issue 26: a short run's whole time exceeds its
// kernels by its set-up, 3-4 ms for 2-2.5 GiB on the H100): Jacobi 16384^2's two arrays
// (A random(7), B copy(A), 1 GiB each) made as the generated programs make them
// (runtime/stepgen/init_cuda.hpp's fill kernel, then a device-to-device copy), each part timed
// with CUDA events, on fresh memory (the first touch of a new allocation) and again on the same
// memory, and cudaMemsetAsync (the memory's write speed). The fill's values are checked against
// the host's rt::random_bits (every 4099th value, floats and doubles): the same bits.
// (2026-11-25 on the H100: the fill found the leading bit with a ladder of 64-bit shifts, 1.65
// ms per GiB of floats, 1.21 in a float-only kernel with __clzll; init_cuda.hpp's kernel with
// __clzll, which it now uses: 1.45 ms, the same bits.)
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

/// How many of every 4099th value of `n` (and the last) differ from the host's random_bits.
template <typename E>
size_t host_differences(const E* device, size_t n, U64 seed, int type, size_t* checked) {
  std::vector<E> got(n);
  BENCH_CHECK(cudaMemcpy(got.data(), device, n * sizeof(E), cudaMemcpyDeviceToHost));
  size_t differ = 0;
  *checked = 0;
  for (size_t i = 0; i < n; i = i + 4099 < n || i + 1 == n ? i + 4099 : n - 1) {
    ++*checked;
    if (got[i] != static_cast<E>(stepgen::rt::random_bits(seed, i, type))) ++differ;
  }
  return differ;
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
  // One enqueue of `work`, timed by events (bench::time_loop, common.cuh): ms.
  auto timed = [&](auto&& work) { return bench::time_loop(s, 1, 1, 0, [&](long) { work(); })[0]; };
  auto fill = [&](unsigned* p) {
    stepgen::cuda::init_detail::stepgen_init_fill<unsigned><<<grid, block, 0, s>>>(
        p, stepgen::rt::ArrayInit::kRandom, stepgen::rt::ArrayInit::kFloat, mixed, 0, box);
    BENCH_CHECK(cudaGetLastError());
  };
  auto copy = [&](unsigned* to, const unsigned* from) {
    BENCH_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s));
  };
  // The median of `reps` of them.
  auto median = [&](auto&& work) {
    return bench::median(bench::time_loop(s, 1, reps, 0, [&](long) { work(); }));
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
  size_t checked = 0, checked_d = 0;
  const size_t differ = host_differences(a, n, 7, stepgen::rt::ArrayInit::kFloat, &checked);
  // Doubles: the first half of B's bytes as doubles (n / 2 of them), seed 9.
  FillBox half = box;
  half.nx = nx / 2;
  half.sy = nx / 2;
  half.sz = half.nx * ny;
  half.gx = nx / 2;
  stepgen::cuda::init_detail::stepgen_init_fill<U64>
      <<<grid, block, 0, s>>>(reinterpret_cast<U64*>(b), stepgen::rt::ArrayInit::kRandom,
                              stepgen::rt::ArrayInit::kDouble, splitmix64(9), 0, half);
  BENCH_CHECK(cudaGetLastError());
  const size_t differ_d = host_differences(reinterpret_cast<const U64*>(b), n / 2, 9,
                                           stepgen::rt::ArrayInit::kDouble, &checked_d);
  const double memset_warm = median([&] { BENCH_CHECK(cudaMemsetAsync(a, 0, bytes, s)); });
  BENCH_CHECK(cudaMalloc(&c, bytes));
  const double memset_first = timed([&] { BENCH_CHECK(cudaMemsetAsync(c, 0, bytes, s)); });
  const double gib = static_cast<double>(bytes) / (1 << 30);
  auto rate = [&](double ms, double moved) { return moved * bytes / (ms * 1e-3) / 1e9; };
  std::printf("setup_parts: %ldx%ld floats, %.2f GiB per array; ms (GB/s of the bytes moved)\n", nx,
              ny, gib);
  std::printf("| part | first touch | warm (median of %d) |\n| --- | --- | --- |\n", reps);
  std::printf("| cudaMalloc x2 (host clock) | %.3f | - |\n", alloc_ms);
  std::printf("| fill random (init_cuda.hpp) | %.3f (%.0f) | %.3f (%.0f) |\n", fill_first,
              rate(fill_first, 1), fill_warm, rate(fill_warm, 1));
  std::printf("| copy(A) device to device | %.3f (%.0f) | %.3f (%.0f) |\n", copy_first,
              rate(copy_first, 2), copy_warm, rate(copy_warm, 2));
  std::printf("| cudaMemsetAsync | %.3f (%.0f) | %.3f (%.0f) |\n", memset_first,
              rate(memset_first, 1), memset_warm, rate(memset_warm, 1));
  std::printf(
      "setup_parts: the fill against the host's random_bits: %zu of %zu floats and %zu of "
      "%zu doubles differ\n",
      differ, checked, differ_d, checked_d);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(c));
  return differ == 0 && differ_d == 0 ? 0 : 1;
}

// Where an in-core run's set-up goes on one GPU (issue 26: a short run's whole time exceeds its
// kernels by its set-up, 3-4 ms for 2-2.5 GiB on the H100): two arrays of NX x NY x NZ floats
// (A random(7), B copy(A)) made as the generated programs make them (init_cuda.hpp's fill
// kernel and launch, then a device-to-device copy), each part timed with CUDA events, on fresh
// memory (the first touch of a new allocation) and again on the same memory. Beside them: the
// fill kernel of before 2026-11-25's second session (one thread per cell, a block per 256 cells
// of a row, the kind and type branched on per cell, the float built in integers); today's
// kernel over the same cells given as rows and planes (a part's box that is not one run of
// cells) and writing A and B at once (copy(A) made by A's fill); zero by the fill kernel; and
// cudaMemsetAsync (the memory's write speed). Every fill's values are checked against the
// host's rt::random_bits (every 4099th value, floats and doubles): the same bits.
// Usage: setup_parts [NX NY NZ REPS]   (default 16384 16384 1 3; the median of REPS warm repeats)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "common.cuh"
#include "stepgen/exec/init_cuda.hpp"

namespace {

using stepgen::cuda::init_detail::FillBox;
using stepgen::cuda::init_detail::splitmix64;
using U64 = unsigned long long;

/// The fill kernel before (init_cuda.hpp at 686b395), for the before/after rows.
__device__ inline U64 old_random_bits(U64 mixed, U64 index, int type) {
  const U64 bits = splitmix64(mixed ^ index);
  if (type == stepgen::rt::ArrayInit::kInteger) return bits % 100ull;
  const int width = type == stepgen::rt::ArrayInit::kFloat ? 24 : 53;
  const U64 m = bits >> (64 - width);
  if (m == 0) return 0;
  const int top = 63 - __clzll(static_cast<long long>(m));
  if (type == stepgen::rt::ArrayInit::kFloat)
    return (static_cast<U64>(top - 24 + 127) << 23) | ((m << (23 - top)) & 0x7FFFFFull);
  return (static_cast<U64>(top - 53 + 1023) << 52) | ((m << (52 - top)) & 0xFFFFFFFFFFFFFull);
}
template <typename E>
__global__ void old_fill(E* buf, int kind, int type, U64 mixed, U64 value, FillBox b) {
  const long long x0 = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long dx = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long z = blockIdx.z; z < b.nz; z += gridDim.z)
    for (long long y = blockIdx.y; y < b.ny; y += gridDim.y) {
      E* row = buf + b.base + y * b.sy + z * b.sz;
      const U64 g = b.first + static_cast<U64>((y + z * b.gy) * b.gx);
      for (long long x = x0; x < b.nx; x += dx) {
        U64 v = value;
        if (kind == stepgen::rt::ArrayInit::kRandom)
          v = old_random_bits(mixed, g + static_cast<U64>(x), type);
        row[x] = static_cast<E>(v);
      }
    }
}

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
  using stepgen::rt::ArrayInit;
  namespace id = stepgen::cuda::init_detail;
  const char* usage = "[NX NY NZ REPS]";
  const long nx = bench::arg_or(argc, argv, 1, 16384, usage);
  const long ny = bench::arg_or(argc, argv, 2, 16384, usage);
  const long nz = bench::arg_or(argc, argv, 3, 1, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 4, 3, usage));
  const size_t n = static_cast<size_t>(nx) * static_cast<size_t>(ny) * static_cast<size_t>(nz),
               bytes = n * 4;
  // The whole grid on one GPU, as rt::fill_geometry gives it to the kernel: one long row.
  const stepgen::rt::Box grid = stepgen::rt::Box::from_extent(3, {nx, ny, nz});
  const FillBox box = stepgen::rt::fill_geometry(grid, grid, grid);
  FillBox rows{};  // the same cells as rows and planes (a part's box that is not one run)
  rows.nx = nx;
  rows.ny = ny;
  rows.nz = nz;
  rows.sy = nx;
  rows.sz = nx * ny;
  rows.gx = nx;
  rows.gy = ny;
  const U64 mixed = splitmix64(7);
  // The generated programs' launch (init_cuda.hpp's fill_launch) and the one before.
  const id::FillLaunch now = id::fill_launch(box);
  const unsigned block = static_cast<unsigned>(std::min<long>(256, (nx + 31) / 32 * 32));
  const dim3 old_grid(static_cast<unsigned>(std::min<long>((nx + block - 1) / block, 1024)),
                      static_cast<unsigned>(std::min<long>(ny, 65535)),
                      static_cast<unsigned>(std::min<long>(nz, 65535)));
  cudaStream_t s;
  BENCH_CHECK(cudaFree(nullptr));
  BENCH_CHECK(cudaStreamCreate(&s));
  // One enqueue of `work`, timed by events (bench::time_loop, common.cuh): ms.
  auto timed = [&](auto&& work) { return bench::time_loop(s, 1, 1, 0, [&](long) { work(); })[0]; };
  auto fill = [&](unsigned* p) {
    id::stepgen_init_fill<unsigned, ArrayInit::kFloat>
        <<<now.grid, now.block, 0, s>>>(p, nullptr, mixed, 0, box);
    BENCH_CHECK(cudaGetLastError());
  };
  const id::FillLaunch by_rows = id::fill_launch(rows);
  auto fill_rows = [&](unsigned* p) {
    id::stepgen_init_fill<unsigned, ArrayInit::kFloat>
        <<<by_rows.grid, by_rows.block, 0, s>>>(p, nullptr, mixed, 0, rows);
    BENCH_CHECK(cudaGetLastError());
  };
  auto fill_both = [&](unsigned* p, unsigned* q) {
    id::stepgen_init_fill<unsigned, ArrayInit::kFloat>
        <<<now.grid, now.block, 0, s>>>(p, q, mixed, 0, box);
    BENCH_CHECK(cudaGetLastError());
  };
  auto fill_before = [&](unsigned* p) {
    old_fill<unsigned>
        <<<old_grid, block, 0, s>>>(p, ArrayInit::kRandom, ArrayInit::kFloat, mixed, 0, rows);
    BENCH_CHECK(cudaGetLastError());
  };
  auto zero = [&](unsigned* p) {
    id::stepgen_init_fill<unsigned, -1><<<now.grid, now.block, 0, s>>>(p, nullptr, 0, 0, box);
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
  size_t checked = 0, checked_d = 0, checked_old = 0;
  const size_t differ = host_differences(a, n, 7, ArrayInit::kFloat, &checked);
  const double before_warm = median([&] { fill_before(b); });
  const size_t differ_old = host_differences(b, n, 7, ArrayInit::kFloat, &checked_old);
  const double rows_warm = median([&] { fill_rows(b); });
  size_t checked_rows = 0, checked_both = 0;
  const size_t differ_rows = host_differences(b, n, 7, ArrayInit::kFloat, &checked_rows);
  const double zero_warm = median([&] { zero(b); });
  const double both_warm = median([&] { fill_both(a, b); });
  const size_t differ_both = host_differences(b, n, 7, ArrayInit::kFloat, &checked_both);
  // Doubles: the first n / 2 elements of B as doubles (half the bytes: one long row), seed 9.
  FillBox half = box;
  half.nx = static_cast<long long>(n / 2);
  half.sy = half.sz = half.gx = half.nx;
  const id::FillLaunch hl = id::fill_launch(half);
  id::stepgen_init_fill<U64, ArrayInit::kDouble>
      <<<hl.grid, hl.block, 0, s>>>(reinterpret_cast<U64*>(b), nullptr, splitmix64(9), 0, half);
  BENCH_CHECK(cudaGetLastError());
  const size_t differ_d =
      host_differences(reinterpret_cast<const U64*>(b), n / 2, 9, ArrayInit::kDouble, &checked_d);
  const double memset_warm = median([&] { BENCH_CHECK(cudaMemsetAsync(a, 0, bytes, s)); });
  BENCH_CHECK(cudaMalloc(&c, bytes));
  const double memset_first = timed([&] { BENCH_CHECK(cudaMemsetAsync(c, 0, bytes, s)); });
  const double gib = static_cast<double>(bytes) / (1 << 30);
  auto rate = [&](double ms, double moved) { return moved * bytes / (ms * 1e-3) / 1e9; };
  std::printf("setup_parts: %ldx%ldx%ld floats, %.2f GiB per array; ms (GB/s of the bytes moved)\n",
              nx, ny, nz, gib);
  std::printf("| part | first touch | warm (median of %d) |\n| --- | --- | --- |\n", reps);
  std::printf("| cudaMalloc x2 (host clock) | %.3f | - |\n", alloc_ms);
  std::printf("| fill random, the kernel before (%ux%ux%u blocks of %u) | - | %.3f (%.0f) |\n",
              old_grid.x, old_grid.y, old_grid.z, block, before_warm, rate(before_warm, 1));
  std::printf(
      "| fill random (init_cuda.hpp: %ux%ux%u blocks of %ux%u) | %.3f (%.0f) | %.3f (%.0f) |\n",
      now.grid.x, now.grid.y, now.grid.z, now.block.x, now.block.y, fill_first, rate(fill_first, 1),
      fill_warm, rate(fill_warm, 1));
  std::printf("| fill random by rows and planes (%ux%ux%u blocks of %ux%u) | - | %.3f (%.0f) |\n",
              by_rows.grid.x, by_rows.grid.y, by_rows.grid.z, by_rows.block.x, by_rows.block.y,
              rows_warm, rate(rows_warm, 1));
  std::printf("| fill random into A and B (copy(A) made by the fill) | - | %.3f (%.0f) |\n",
              both_warm, rate(both_warm, 2));
  std::printf("| fill zero by the kernel (a memset in the programs) | - | %.3f (%.0f) |\n",
              zero_warm, rate(zero_warm, 1));
  std::printf("| copy(A) device to device | %.3f (%.0f) | %.3f (%.0f) |\n", copy_first,
              rate(copy_first, 2), copy_warm, rate(copy_warm, 2));
  std::printf("| cudaMemsetAsync | %.3f (%.0f) | %.3f (%.0f) |\n", memset_first,
              rate(memset_first, 1), memset_warm, rate(memset_warm, 1));
  std::printf(
      "setup_parts: the fill against the host's random_bits: %zu of %zu floats and %zu of "
      "%zu doubles differ (the kernel before: %zu of %zu floats; by rows: %zu of %zu; the copy "
      "written by the fill: %zu of %zu)\n",
      differ, checked, differ_d, checked_d, differ_old, checked_old, differ_rows, checked_rows,
      differ_both, checked_both);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(c));
  return differ == 0 && differ_d == 0 && differ_old == 0 && differ_rows == 0 && differ_both == 0
             ? 0
             : 1;
}

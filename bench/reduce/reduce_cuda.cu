// The cost of an exact device reduction (cuda::Reducer,
// runtime/include/stepgen/exec/reduce_cuda.hpp) on one GPU: each op (sum, l2, min, max, linf) over
// NX x NY floats, alone and as `a - minus` (Jacobi's residual: l2 of B - A), and over N^3 doubles,
// against a plain (non-exact) sum kernel reading the same bytes and against the time to read them
// at the card's peak bandwidth. Each time is the median of REPS calls, host wall clock around the
// whole call (kernels, read-back, the host's merge), as the time loop pays it. CHECK=1 (default)
// also compares a few results with rt::Reduction on the host, bit for bit. Usage: reduce_cuda [NX
// NY N3 REPS]   (default 16384 16384 1160 20) Built by bench/phases/reduce.sh (bench/run.sh reduce)
// with -O3 --fmad=false; compiled for sm_90 by the ctest "reduce: the CUDA reduction kernels
// compile (nvcc, sm_90)".
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/reduce_cuda.hpp"

using namespace stepgen;

namespace {

__device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/// Random values in [-1, 1) (a few of them tiny), from a hash of the index: no host upload.
template <typename T>
__global__ void fill(T* p, long long n, unsigned long long seed) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const unsigned long long h = mix64(static_cast<unsigned long long>(i) * 2654435761ull + seed);
    T v = static_cast<T>(static_cast<double>(h >> 11) * 0x1p-52 - 1.0);
    if ((h & 1023) == 0) v *= static_cast<T>(1e-30);
    p[i] = v;
  }
}

/// The non-exact baseline: each thread sums its share of a (or a - b) in T, one partial per
/// thread (the bytes read are the exact reduction's; the arithmetic is one add per value).
template <typename T>
__global__ void plain_sum(const T* a, const T* b, int has_b, long long n, T* out) {
  const long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  T s = 0;
  if (has_b)
    for (long long i = g; i < n; i += stride) s += a[i] - b[i];
  else
    for (long long i = g; i < n; i += stride) s += a[i];
  out[g] = s;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

long arg(int argc, char** argv, int i, long fallback) {
  if (i >= argc) return fallback;
  const long v = std::strtol(argv[i], nullptr, 10);
  if (v <= 0) {
    std::fprintf(stderr, "usage: %s [NX NY N3 REPS]\n", argv[0]);
    std::exit(2);
  }
  return v;
}

const char* op_name(rt::ReduceOp op) {
  switch (op) {
    case rt::ReduceOp::kSum:
      return "sum";
    case rt::ReduceOp::kL2:
      return "l2";
    case rt::ReduceOp::kMin:
      return "min";
    case rt::ReduceOp::kMax:
      return "max";
    case rt::ReduceOp::kLinf:
      return "linf";
  }
  return "?";
}

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

struct Setup {
  const cuda::Device& d;
  cuda::Reducer& reducer;
  double peak_gbs;
  int reps;
  bool check;
  int failures = 0;
  double l2_minus_ms = 0;  ///< float l2 of B - A: Jacobi's residual
};

/// One data type: fill A and B, time every op alone and with minus, print the rows.
template <typename T>
void run_type(Setup& s, const char* type, const rt::Box& grid) {
  const cuda::Device& d = s.d;
  const long long n = grid.volume();
  cuda::Buffer a(d, grid, sizeof(T), "A"), b(d, grid, sizeof(T), "B");
  const dim3 block(256), blocks(4096);
  auto* f = &fill<T>;
  STEPGEN_LAUNCH(f, blocks, block, d.stream())(static_cast<T*>(a.get()), n, 1ull);
  STEPGEN_LAUNCH(f, blocks, block, d.stream())(static_cast<T*>(b.get()), n, 2ull);
  cuda::check(cudaStreamSynchronize(d.stream()), "fill", d);

  // The plain sum's time, alone and with minus (its partials: one per thread).
  const dim3 pblocks(static_cast<unsigned>(s.reducer.max_items() / 256));
  T* partial = nullptr;
  cuda::check(cudaMalloc(&partial, static_cast<std::size_t>(s.reducer.max_items()) * sizeof(T)),
              "cudaMalloc", d);
  double plain_ms[2];
  for (int minus = 0; minus < 2; ++minus) {
    std::vector<double> ms;
    for (int r = 0; r < s.reps + 1; ++r) {
      const double t0 = now_ms();
      auto* k = &plain_sum<T>;
      STEPGEN_LAUNCH(k, pblocks, block, d.stream())
      (static_cast<const T*>(b.get()), static_cast<const T*>(a.get()), minus, n, partial);
      cuda::check(cudaStreamSynchronize(d.stream()), "plain_sum", d);
      if (r > 0) ms.push_back(now_ms() - t0);  // the first call warms up
    }
    plain_ms[minus] = median(ms);
  }
  cudaFree(partial);

  std::vector<T> host_a, host_b;
  for (rt::ReduceOp op : {rt::ReduceOp::kSum, rt::ReduceOp::kL2, rt::ReduceOp::kMin,
                          rt::ReduceOp::kMax, rt::ReduceOp::kLinf})
    for (int minus = 0; minus < 2; ++minus) {
      std::vector<double> ms;
      double value = 0;
      for (int r = 0; r < s.reps + 1; ++r) {
        rt::Reduction into(op);
        const double t0 = now_ms();
        s.reducer.reduce_box<T>(b, minus ? &a : nullptr, grid, grid, into);
        if (r > 0) ms.push_back(now_ms() - t0);
        value = into.value();
      }
      const double bytes = static_cast<double>(n) * sizeof(T) * (minus ? 2 : 1);
      const double t = median(ms);
      const double peak_ms = bytes / (s.peak_gbs * 1e6);
      if (std::is_same_v<T, float> && op == rt::ReduceOp::kL2 && minus) s.l2_minus_ms = t;
      std::printf("%-7s %-17s %-5s %-5s %8.3f %10.4f %10.4f %10.4f %9.1f %7.1f%%  %.17g\n", type,
                  grid.str().c_str(), op_name(op), minus ? "B-A" : "no", bytes / (1 << 30), t,
                  plain_ms[minus], peak_ms, bytes / (t * 1e6), 100.0 * peak_ms / t, value);
      std::printf("RESULT name=reduce_%s_%s%s cells=%lld ms=%.4f plain_ms=%.4f peak_ms=%.4f\n",
                  type, op_name(op), minus ? "_minus" : "", n, t, plain_ms[minus], peak_ms);
      const bool checked =
          s.check && ((std::is_same_v<T, float> && minus) || (op == rt::ReduceOp::kSum && !minus));
      if (checked) {
        // The host copies, when first needed (B always, A for B - A).
        for (auto [host, dev] : {std::pair{&host_b, &b}, std::pair{&host_a, &a}}) {
          if (!host->empty() || (host == &host_a && !minus)) continue;
          host->resize(static_cast<std::size_t>(n));
          cuda::check(cudaMemcpy(host->data(), dev->get(), n * sizeof(T), cudaMemcpyDeviceToHost),
                      "cudaMemcpy", d);
        }
        rt::Reduction want(op);
        for (long long i = 0; i < n; ++i)
          want.add(minus ? static_cast<T>(host_b[static_cast<std::size_t>(i)] -
                                          host_a[static_cast<std::size_t>(i)])
                         : host_b[static_cast<std::size_t>(i)]);
        const bool same = bits(want.value()) == bits(value);
        s.failures += same ? 0 : 1;
        std::printf("  check %s %s%s against the host: %s (host %.17g)\n", type, op_name(op),
                    minus ? " B-A" : "", same ? "same bits" : "DIFFERENT", want.value());
      }
    }
}

}  // namespace

int main(int argc, char** argv) {
  const long nx = arg(argc, argv, 1, 16384), ny = arg(argc, argv, 2, 16384);
  const long n3 = arg(argc, argv, 3, 1160);
  const int reps = static_cast<int>(arg(argc, argv, 4, 20));
  const char* check_env = std::getenv("CHECK");
  const bool check = !check_env || std::string(check_env) != "0";
  try {
    rt::Options opt;
    opt.devices = 1;
    std::vector<cuda::Device> devices = cuda::discover(opt);
    const cuda::Device& d = devices[0];
    int clock_khz = 0, bus_bits = 0;
    cuda::check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d.ordinal),
                "cudaDeviceGetAttribute", d);
    cuda::check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d.ordinal),
                "cudaDeviceGetAttribute", d);
    const double peak_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    cuda::Reducer reducer(d);
    Setup s{d, reducer, peak_gbs, reps, check};
    std::printf(
        "exact device reductions (CUDA) on %s: %lld threads, peak bandwidth %.0f GB/s "
        "(memory clock x bus width), median of %d calls\n\n",
        d.label().c_str(), static_cast<long long>(reducer.max_items()), peak_gbs, reps);
    std::printf("%-7s %-17s %-5s %-5s %8s %10s %10s %10s %9s %8s  %s\n", "type", "box", "op",
                "minus", "GiB", "ms exact", "ms plain", "ms peak", "GB/s", "of peak", "value");
    run_type<float>(s, "float", rt::Box::from_extent(2, {nx, ny, 1}));
    std::printf(
        "\nJacobi %ldx%ld, l2 of B - A every 100 steps: %.4f ms per 100 steps of about "
        "1.1 ms = %.2f%% of the run (target <= 2%%)\n\n",
        nx, ny, s.l2_minus_ms, 100.0 * s.l2_minus_ms / 110.0);
    run_type<double>(s, "double", rt::Box::from_extent(3, {n3, n3, n3}));
    return s.failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reduce_cuda: %s\n", e.what());
    return 1;
  }
}

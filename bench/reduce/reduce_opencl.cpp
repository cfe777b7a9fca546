// The cost of an exact device reduction through OpenCL (cl::Reducer,
// runtime/include/stepgen/exec/reduce_opencl.hpp) on one device: each op (sum, l2, min, max, linf)
// over NX x NY floats, alone and as `a - minus` (Jacobi's residual: l2 of B - A), and over N^3
// doubles, against a plain (non-exact) sum kernel reading the same bytes and, when PEAK_GBS is
// given (the card's bandwidth in GB/s), the time to read them at that speed. Each time is the
// median of REPS calls, host wall clock around the whole call (kernels, read-back, the host's
// merge). CHECK=1 (default) also compares a few results with rt::Reduction on the host.
// Usage: reduce_opencl [NX NY N3 REPS]   (default 16384 16384 1160 20)
// DEVICE_TYPE=gpu (default) | cpu | all picks the device (the first that matches).
// Built by `bench/run.sh prepare` (the GPU machine has no OpenCL headers) and run by
// `bench/run.sh reduce`; the ctest "reduce: the OpenCL benchmark on PoCL" runs it small.
#include "stepgen/exec/reduce_opencl.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "stepgen/exec/opencl.hpp"

using namespace stepgen;

namespace {

const char* kPlainSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void plain_sum_float(__global const float* a, __global const float* b, int has_b,
                              long n, __global float* out) {
  const long g = get_global_id(0), stride = get_global_size(0);
  float s = 0;
  if (has_b) for (long i = g; i < n; i += stride) s += a[i] - b[i];
  else for (long i = g; i < n; i += stride) s += a[i];
  out[g] = s;
}
__kernel void plain_sum_double(__global const double* a, __global const double* b, int has_b,
                               long n, __global double* out) {
  const long g = get_global_id(0), stride = get_global_size(0);
  double s = 0;
  if (has_b) for (long i = g; i < n; i += stride) s += a[i] - b[i];
  else for (long i = g; i < n; i += stride) s += a[i];
  out[g] = s;
}
)CLC";

std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

template <typename T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix64(i * 2654435761ull + seed);
    T x = static_cast<T>(static_cast<double>(h >> 11) * 0x1p-52 - 1.0);
    if ((h & 1023) == 0) x *= static_cast<T>(1e-30);
    v[i] = x;
  }
  return v;
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
  const cl::Device& d;
  cl::Reducer& reducer;
  cl::Program& plain;
  double peak_gbs;  // 0: unknown
  int reps;
  bool check;
  int failures = 0;
  double l2_minus_ms = 0;
};

template <typename T>
void run_type(Setup& s, const char* type, const rt::Box& grid) {
  const cl::Device& d = s.d;
  const auto n = static_cast<std::size_t>(grid.volume());
  const std::vector<T> host_a = random_values<T>(n, 1), host_b = random_values<T>(n, 2);
  const cl::Mem a = cl::create_buffer(d, grid, sizeof(T), "A");
  const cl::Mem b = cl::create_buffer(d, grid, sizeof(T), "B");
  cl::check(clEnqueueWriteBuffer(d.queue.get(), a.get(), CL_TRUE, 0, n * sizeof(T), host_a.data(),
                                 0, nullptr, nullptr),
            "clEnqueueWriteBuffer", d.label());
  cl::check(clEnqueueWriteBuffer(d.queue.get(), b.get(), CL_TRUE, 0, n * sizeof(T), host_b.data(),
                                 0, nullptr, nullptr),
            "clEnqueueWriteBuffer", d.label());

  const char* plain_name = std::is_same_v<T, float> ? "plain_sum_float" : "plain_sum_double";
  cl::Kernel plain = cl::create_kernel(d, s.plain, plain_name);
  const auto items = static_cast<size_t>(s.reducer.max_items());
  cl::Mem partial = cl::create_buffer(
      d, rt::Box::from_extent(1, {static_cast<rt::Index>(items), 1, 1}), sizeof(T), "partial");
  double plain_ms[2];
  for (int minus = 0; minus < 2; ++minus) {
    std::vector<double> ms;
    cl::set_arg(d, plain, 0, b, plain_name);
    cl::set_arg(d, plain, 1, a, plain_name);
    cl::set_arg(d, plain, 2, static_cast<cl_int>(minus), plain_name);
    cl::set_arg(d, plain, 3, static_cast<cl_long>(n), plain_name);
    cl::set_arg(d, plain, 4, partial, plain_name);
    for (int r = 0; r < s.reps + 1; ++r) {
      const double t0 = now_ms();
      cl::launch(d, plain, plain_name, 1, &items, nullptr);
      cl::finish(d);
      if (r > 0) ms.push_back(now_ms() - t0);
    }
    plain_ms[minus] = median(ms);
  }

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
      const double peak_ms = s.peak_gbs > 0 ? bytes / (s.peak_gbs * 1e6) : 0;
      if (std::is_same_v<T, float> && op == rt::ReduceOp::kL2 && minus) s.l2_minus_ms = t;
      std::printf("%-7s %-17s %-5s %-5s %8.3f %10.4f %10.4f %10.4f %9.1f %7.1f%%  %.17g\n", type,
                  grid.str().c_str(), op_name(op), minus ? "B-A" : "no", bytes / (1 << 30), t,
                  plain_ms[minus], peak_ms, bytes / (t * 1e6), peak_ms > 0 ? 100 * peak_ms / t : 0,
                  value);
      std::printf("RESULT name=reduce_opencl_%s_%s%s cells=%zu ms=%.4f plain_ms=%.4f\n", type,
                  op_name(op), minus ? "_minus" : "", n, t, plain_ms[minus]);
      if (s.check &&
          ((std::is_same_v<T, float> && minus) || (op == rt::ReduceOp::kSum && !minus))) {
        rt::Reduction want(op);
        for (std::size_t i = 0; i < n; ++i)
          want.add(minus ? static_cast<T>(host_b[i] - host_a[i]) : host_b[i]);
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
  const char* peak_env = std::getenv("PEAK_GBS");
  const char* type_env = std::getenv("DEVICE_TYPE");
  try {
    rt::Options opt;
    opt.devices = 1;
    opt.device_type = type_env ? type_env : "gpu";
    std::vector<cl::Device> devices = cl::discover(opt);
    const cl::Device& d = devices[0];
    cl::Program plain = cl::build_program(d, kPlainSource, "");
    cl::Reducer reducer(d);
    Setup s{d,     reducer,
            plain, peak_env ? std::atof(peak_env) : 0.0,
            reps,  !check_env || std::string(check_env) != "0"};
    std::printf(
        "exact device reductions (OpenCL) on %s: %lld work-items, peak bandwidth %s, "
        "median of %d calls\n\n",
        d.label().c_str(), static_cast<long long>(reducer.max_items()),
        peak_env ? (std::string(peak_env) + " GB/s").c_str() : "unknown (PEAK_GBS)", reps);
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
    std::fprintf(stderr, "reduce_opencl: %s\n", e.what());
    return 1;
  }
}

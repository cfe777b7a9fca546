// Shared by the hand-written CUDA baselines of bench/cuda/: error checks, options, the median,
// a timed loop measured with CUDA events, and the one machine-readable result line.
// Result line (one per measurement, parsed by `bench/run.sh incore`):
//   RESULT name=NAME gpus=G grid=NXxNY[xNZ] steps=S reps=R ms_per_step=M runs=M1,M2,...
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stepgen/description/init.hpp"

#define BENCH_CHECK(call)                                                       \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

namespace bench {

/// argv[i] as a positive integer, or `fallback` when absent; exits with usage on a bad value.
inline long arg_or(int argc, char** argv, int i, long fallback, const char* usage) {
  if (i >= argc) return fallback;
  char* end = nullptr;
  const long v = std::strtol(argv[i], &end, 10);
  if (*argv[i] == '\0' || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "bad argument '%s'\nusage: %s %s\n", argv[i], argv[0], usage);
    std::exit(2);
  }
  return v;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline std::string join(const std::vector<double>& v) {
  std::string s;
  char buf[32];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.4f", i ? "," : "", v[i]);
    s += buf;
  }
  return s;
}

/// Prints the result line and returns the median ms/step.
inline double report(const std::string& name, int gpus, const std::string& grid, long steps,
                     const std::vector<double>& ms_per_step) {
  const double m = median(ms_per_step);
  std::printf("RESULT name=%s gpus=%d grid=%s steps=%ld reps=%zu ms_per_step=%.4f runs=%s\n",
              name.c_str(), gpus, grid.c_str(), steps, ms_per_step.size(), m,
              join(ms_per_step).c_str());
  std::fflush(stdout);
  return m;
}

/// A device array of `count` floats holding `host`'s values.
inline float* upload(const std::vector<float>& host) {
  float* d = nullptr;
  BENCH_CHECK(cudaMalloc(&d, host.size() * sizeof(float)));
  BENCH_CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

/// The spec's `random(seed)` values (stepgen/description/init.hpp), on the host.
inline std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::vector<float> v(count);
  stepgen::rt::fill_random<float>(v.data(), count, seed, 0);
  return v;
}

/// Runs `step(s)` for s in [0, steps) on `stream` after `warmup` untimed steps, `reps` times;
/// each repetition is timed with CUDA events around its launches. Returns ms/step per rep.
template <typename Step>
std::vector<double> time_loop(cudaStream_t stream, long steps, int reps, long warmup, Step step) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  long s = 0;
  for (long w = 0; w < warmup; ++w) step(s++);
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> out;
  for (int r = 0; r < reps; ++r) {
    BENCH_CHECK(cudaEventRecord(start, stream));
    for (long i = 0; i < steps; ++i) step(s++);
    BENCH_CHECK(cudaEventRecord(stop, stream));
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    out.push_back(ms / static_cast<double>(steps));
  }
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  return out;
}

inline unsigned blocks(long n, unsigned b) {
  return static_cast<unsigned>((n + b - 1) / b);
}

}  // namespace bench

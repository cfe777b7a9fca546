// Memory bandwidths of this machine's GPUs, the yardsticks of `bench/run.sh incore`:
//   - device copy: cudaMemcpy device to device of a large buffer, and a float4 copy kernel;
//     bytes counted as read + write (2 x buffer size), per GPU;
//   - host links, pinned memory: host to device, device to host, and both at once (two
//     streams), per GPU;
//   - GPU to GPU (peer access enabled where cudaDeviceCanAccessPeer allows): every ordered pair
//     one way, and 0 <-> 1 both ways at once; bytes counted once (what crosses the link).
// Each figure is the median of REPS timed repetitions (CUDA events) after one warm-up.
// Output, one line each:  BW kind=KIND gpu=G [peer=P] bytes=N GBps=X
// Usage: bandwidth [MIB REPS]   (default 1024 MiB per buffer, 9 repetitions)
#include <cstring>

#include "common.cuh"

namespace {

__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out,
                            std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = in[i];
}

/// Median GB/s of `reps` timings of `op` (enqueued on `stream`), `bytes` counted per call.
template <typename Op>
double measure(cudaStream_t stream, int reps, double bytes, Op op) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  op();  // warm-up
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> gbps;
  for (int r = 0; r < reps; ++r) {
    BENCH_CHECK(cudaEventRecord(start, stream));
    op();
    BENCH_CHECK(cudaEventRecord(stop, stream));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    gbps.push_back(bytes / (ms * 1e-3) / 1e9);
  }
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  return bench::median(gbps);
}

void line(const char* kind, int gpu, int peer, std::size_t bytes, double gbps) {
  if (peer >= 0)
    std::printf("BW kind=%s gpu=%d peer=%d bytes=%zu GBps=%.1f\n", kind, gpu, peer, bytes, gbps);
  else
    std::printf("BW kind=%s gpu=%d bytes=%zu GBps=%.1f\n", kind, gpu, bytes, gbps);
  std::fflush(stdout);
}

/// Two streams timed together, `a` of GPU `da` and `b` of GPU `db` (the same GPU or two): the
/// start on `a`, `b` waits for it, `op_a` on `a`, `op_b` on `b`, the end on `a` after `b`.
template <typename OpA, typename OpB>
double measure_both(int da, cudaStream_t a, int db, cudaStream_t b, int reps, double bytes,
                    OpA op_a, OpB op_b) {
  cudaEvent_t fork, join;  // each created on the GPU of the stream that records it
  BENCH_CHECK(cudaSetDevice(db));
  BENCH_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  BENCH_CHECK(cudaSetDevice(da));
  BENCH_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  auto both = [&] {
    BENCH_CHECK(cudaSetDevice(da));
    BENCH_CHECK(cudaEventRecord(fork, a));
    op_a();
    BENCH_CHECK(cudaSetDevice(db));
    BENCH_CHECK(cudaStreamWaitEvent(b, fork, 0));
    op_b();
    BENCH_CHECK(cudaEventRecord(join, b));
    BENCH_CHECK(cudaSetDevice(da));
    BENCH_CHECK(cudaStreamWaitEvent(a, join, 0));
  };
  const double r = measure(a, reps, bytes, both);
  BENCH_CHECK(cudaEventDestroy(fork));
  BENCH_CHECK(cudaSetDevice(db));
  BENCH_CHECK(cudaEventDestroy(join));
  BENCH_CHECK(cudaSetDevice(da));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "[MIB REPS]";
  const std::size_t bytes = static_cast<std::size_t>(bench::arg_or(argc, argv, 1, 1024, usage))
                            << 20;
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 2, 9, usage));
  int count = 0;
  BENCH_CHECK(cudaGetDeviceCount(&count));
  std::printf("%d GPU(s), %zu MiB buffers, median of %d\n", count, bytes >> 20, reps);

  // Pinned host buffers shared by every GPU's host-link measurements.
  void* h_in = nullptr;
  void* h_out = nullptr;
  BENCH_CHECK(cudaMallocHost(&h_in, bytes));
  BENCH_CHECK(cudaMallocHost(&h_out, bytes));
  std::memset(h_in, 1, bytes);

  std::vector<void*> d_a(count), d_b(count);
  std::vector<cudaStream_t> s1(count), s2(count);
  for (int g = 0; g < count; ++g) {
    BENCH_CHECK(cudaSetDevice(g));
    cudaDeviceProp prop;
    BENCH_CHECK(cudaGetDeviceProperties(&prop, g));
    std::printf("GPU %d: %s, %d SMs, %.1f GiB\n", g, prop.name, prop.multiProcessorCount,
                prop.totalGlobalMem / 1073741824.0);
    BENCH_CHECK(cudaMalloc(&d_a[g], bytes));
    BENCH_CHECK(cudaMalloc(&d_b[g], bytes));
    BENCH_CHECK(cudaMemset(d_a[g], 1, bytes));
    BENCH_CHECK(cudaMemset(d_b[g], 0, bytes));
    BENCH_CHECK(cudaStreamCreateWithFlags(&s1[g], cudaStreamNonBlocking));
    BENCH_CHECK(cudaStreamCreateWithFlags(&s2[g], cudaStreamNonBlocking));

    line("d2d_memcpy", g, -1, bytes, measure(s1[g], reps, 2.0 * bytes, [&] {
           BENCH_CHECK(cudaMemcpyAsync(d_b[g], d_a[g], bytes, cudaMemcpyDeviceToDevice, s1[g]));
         }));
    const std::size_t n4 = bytes / sizeof(float4);
    const unsigned threads = 256;
    const unsigned grid = static_cast<unsigned>(prop.multiProcessorCount) * 2048u / threads * 4u;
    line("copy_kernel", g, -1, bytes, measure(s1[g], reps, 2.0 * bytes, [&] {
           copy_float4<<<grid, threads, 0, s1[g]>>>(static_cast<const float4*>(d_a[g]),
                                                    static_cast<float4*>(d_b[g]), n4);
         }));
    line("h2d_pinned", g, -1, bytes, measure(s1[g], reps, 1.0 * bytes, [&] {
           BENCH_CHECK(cudaMemcpyAsync(d_a[g], h_in, bytes, cudaMemcpyHostToDevice, s1[g]));
         }));
    line("d2h_pinned", g, -1, bytes, measure(s1[g], reps, 1.0 * bytes, [&] {
           BENCH_CHECK(cudaMemcpyAsync(h_out, d_b[g], bytes, cudaMemcpyDeviceToHost, s1[g]));
         }));
    line("bidir_pinned", g, -1, bytes,
         measure_both(
             g, s1[g], g, s2[g], reps, 2.0 * bytes,
             [&] {
               BENCH_CHECK(cudaMemcpyAsync(d_a[g], h_in, bytes, cudaMemcpyHostToDevice, s1[g]));
             },
             [&] {
               BENCH_CHECK(cudaMemcpyAsync(h_out, d_b[g], bytes, cudaMemcpyDeviceToHost, s2[g]));
             }));
  }

  // GPU to GPU.
  for (int g = 0; g < count; ++g)
    for (int p = 0; p < count; ++p) {
      if (p == g) continue;
      int can = 0;
      BENCH_CHECK(cudaDeviceCanAccessPeer(&can, g, p));
      if (can) {
        BENCH_CHECK(cudaSetDevice(g));
        const cudaError_t e = cudaDeviceEnablePeerAccess(p, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
          (void)cudaGetLastError();
        else
          BENCH_CHECK(e);
      }
      std::printf("peer access %d -> %d: %s\n", g, p, can ? "yes" : "no (staged by the driver)");
    }
  for (int g = 0; g < count; ++g)
    for (int p = 0; p < count; ++p) {
      if (p == g) continue;
      BENCH_CHECK(cudaSetDevice(g));
      line("peer", g, p, bytes, measure(s1[g], reps, 1.0 * bytes, [&] {
             BENCH_CHECK(cudaMemcpyPeerAsync(d_b[p], p, d_a[g], g, bytes, s1[g]));
           }));
    }
  if (count >= 2) {
    BENCH_CHECK(cudaSetDevice(0));
    // 0 -> 1 on GPU 0's stream and 1 -> 0 on GPU 1's, timed together from GPU 0.
    line("peer_bidir", 0, 1, bytes,
         measure_both(
             0, s1[0], 1, s1[1], reps, 2.0 * bytes,
             [&] { BENCH_CHECK(cudaMemcpyPeerAsync(d_b[1], 1, d_a[0], 0, bytes, s1[0])); },
             [&] { BENCH_CHECK(cudaMemcpyPeerAsync(d_b[0], 0, d_a[1], 1, bytes, s1[1])); }));
  }
  for (int g = 0; g < count; ++g) {
    BENCH_CHECK(cudaSetDevice(g));
    BENCH_CHECK(cudaFree(d_a[g]));
    BENCH_CHECK(cudaFree(d_b[g]));
  }
  BENCH_CHECK(cudaFreeHost(h_in));
  BENCH_CHECK(cudaFreeHost(h_out));
  return 0;
}

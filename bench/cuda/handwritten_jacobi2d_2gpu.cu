// Baseline for the 2-GPU CUDA benchmark of the 2D 5-point Jacobi: the peer-to-peer program a
// person writes by hand around the unmodified kernel of examples/jacobi2d (blocks of 32 x 8 as
// bench/specs/jacobi2d_16384.xml; random(7) values, B a copy of A).
//
// Row split: GPU 0 owns rows [0, h), GPU 1 rows [h, ny); each holds its rows plus one ghost row
// on the side of the other. Each step, on each GPU:
//   - high-priority stream: the boundary row (a launch on a 3-row view of the buffer: pointers
//     advanced to the row above it, ny = 3), then cudaMemcpyPeerAsync of that row into the other
//     GPU's ghost row, then an event;
//   - low-priority stream, at the same time: the interior rows (a view without the boundary row);
//   - ordering by events only (no host wait in the loop): the boundary launch of step t waits for
//     this GPU's interior of step t-1 (it overwrites rows that launch read) and the other GPU's
//     copy of step t-1 (its ghost row); the interior of step t waits for this GPU's boundary and
//     copy of step t-1.
// Events alternate between two sets by step parity, so a wait always names the previous step.
//
// It also runs the 1-GPU loop over the whole grid (same kernel, same geometry), checks that
// 2 GPUs equal 1 GPU bit for bit after CHECK_STEPS steps, and prints both times and the
// parallel efficiency t1 / (2 t2). Timing: CUDA events, from a start event that both streams of
// every GPU wait for to the end of the last launch or copy, the slowest GPU; warm-up steps first.
// Usage: handwritten_jacobi2d_2gpu [NX NY STEPS REPS]   (default 16384 16384 1000 5)
#include <cstring>

#include "../../examples/jacobi2d/jacobi2d.cu"
#include "common.cuh"

namespace {

constexpr unsigned kBx = 32, kBy = 8;
constexpr long kCheckSteps = 20;

void launch(const float* a, float* b, int nx, int rows, cudaStream_t s) {
  const dim3 block(kBx, kBy);
  const dim3 grid(bench::blocks(nx, kBx), bench::blocks(rows, kBy));
  jacobi<<<grid, block, 0, s>>>(a, b, nx, rows);
}

/// One GPU's part: rows [y0, y0 + rows) of the grid in its buffers (owned rows + one ghost row).
struct Part {
  int dev = 0;
  int y0 = 0, rows = 0;  // buffer rows in the grid
  int boundary = 0;      // buffer row of the owned row the other GPU reads
  int ghost = 0;         // buffer row the other GPU's boundary row is copied into
  int other_ghost = 0;   // the other GPU's buffer row our boundary row goes to
  float* a = nullptr;
  float* b = nullptr;
  cudaStream_t hi = nullptr, lo = nullptr;
  cudaEvent_t hi_done[2] = {}, lo_done[2] = {}, start = nullptr, stop = nullptr;
};

class TwoGpus {
 public:
  TwoGpus(int nx, int ny, const std::vector<float>& init) : nx_(nx) {
    const int h = ny / 2;
    // GPU 0: rows [0, h) + ghost row h. GPU 1: ghost row h - 1 + rows [h, ny).
    p_[0].dev = 0;
    p_[0].y0 = 0;
    p_[0].rows = h + 1;
    p_[0].boundary = h - 1;
    p_[0].ghost = h;
    p_[1].dev = 1;
    p_[1].y0 = h - 1;
    p_[1].rows = ny - h + 1;
    p_[1].boundary = 1;
    p_[1].ghost = 0;
    p_[0].other_ghost = p_[1].ghost;
    p_[1].other_ghost = p_[0].ghost;
    int lo_prio = 0, hi_prio = 0;
    for (Part& p : p_) {
      BENCH_CHECK(cudaSetDevice(p.dev));
      BENCH_CHECK(cudaDeviceGetStreamPriorityRange(&lo_prio, &hi_prio));
      BENCH_CHECK(cudaStreamCreateWithPriority(&p.hi, cudaStreamNonBlocking, hi_prio));
      BENCH_CHECK(cudaStreamCreateWithPriority(&p.lo, cudaStreamNonBlocking, lo_prio));
      for (int k = 0; k < 2; ++k) {
        BENCH_CHECK(cudaEventCreateWithFlags(&p.hi_done[k], cudaEventDisableTiming));
        BENCH_CHECK(cudaEventCreateWithFlags(&p.lo_done[k], cudaEventDisableTiming));
      }
      BENCH_CHECK(cudaEventCreate(&p.start));
      BENCH_CHECK(cudaEventCreate(&p.stop));
      const std::size_t bytes = static_cast<std::size_t>(nx) * p.rows * sizeof(float);
      BENCH_CHECK(cudaMalloc(&p.a, bytes));
      BENCH_CHECK(cudaMalloc(&p.b, bytes));
    }
    int can01 = 0, can10 = 0;
    BENCH_CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    BENCH_CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    if (can01 && can10) {
      BENCH_CHECK(cudaSetDevice(0));
      BENCH_CHECK(cudaDeviceEnablePeerAccess(1, 0));
      BENCH_CHECK(cudaSetDevice(1));
      BENCH_CHECK(cudaDeviceEnablePeerAccess(0, 0));
    }
    std::printf("exchange path: %s\n",
                can01 && can10 ? "peer access (GPU to GPU)" : "no peer access (the driver stages)");
    reset(init);
  }

  void reset(const std::vector<float>& init) {
    for (Part& p : p_) {
      BENCH_CHECK(cudaSetDevice(p.dev));
      const std::size_t bytes = static_cast<std::size_t>(nx_) * p.rows * sizeof(float);
      const float* src = init.data() + static_cast<std::size_t>(nx_) * p.y0;
      BENCH_CHECK(cudaMemcpy(p.a, src, bytes, cudaMemcpyHostToDevice));
      BENCH_CHECK(cudaMemcpy(p.b, src, bytes, cudaMemcpyHostToDevice));
      BENCH_CHECK(cudaDeviceSynchronize());
    }
    step_ = 0;
  }

  /// Enqueues one step on both GPUs.
  void step() {
    const int cur = static_cast<int>(step_ & 1), prev = cur ^ 1;
    const std::size_t row = static_cast<std::size_t>(nx_);
    for (int g = 0; g < 2; ++g) {
      Part& p = p_[g];
      Part& o = p_[g ^ 1];
      BENCH_CHECK(cudaSetDevice(p.dev));
      if (step_ > 0) {
        BENCH_CHECK(cudaStreamWaitEvent(p.hi, p.lo_done[prev], 0));
        BENCH_CHECK(cudaStreamWaitEvent(p.hi, o.hi_done[prev], 0));
        BENCH_CHECK(cudaStreamWaitEvent(p.lo, p.hi_done[prev], 0));
      }
      // Boundary row first: a view of the 3 rows around it.
      launch(p.a + row * (p.boundary - 1), p.b + row * (p.boundary - 1), nx_, 3, p.hi);
      BENCH_CHECK(cudaMemcpyPeerAsync(o.b + row * p.other_ghost, o.dev, p.b + row * p.boundary,
                                      p.dev, row * sizeof(float), p.hi));
      BENCH_CHECK(cudaEventRecord(p.hi_done[cur], p.hi));
      // The interior: the buffer without the boundary row's side (GPU 0: rows [0, h - 1] as a
      // view of h rows, computing 1..h-2; GPU 1: rows [1, end), computing 2..).
      if (g == 0)
        launch(p.a, p.b, nx_, p.boundary + 1, p.lo);
      else
        launch(p.a + row, p.b + row, nx_, p.rows - 1, p.lo);
      BENCH_CHECK(cudaEventRecord(p.lo_done[cur], p.lo));
    }
    for (Part& p : p_) std::swap(p.a, p.b);
    ++step_;
  }

  /// Runs `steps` steps; returns the GPU time in ms of the slower GPU.
  double run(long steps) {
    for (Part& p : p_) {
      BENCH_CHECK(cudaSetDevice(p.dev));
      BENCH_CHECK(cudaEventRecord(p.start, p.lo));
      BENCH_CHECK(cudaStreamWaitEvent(p.hi, p.start, 0));
    }
    for (long s = 0; s < steps; ++s) step();
    BENCH_CHECK(cudaGetLastError());
    double worst = 0;
    for (Part& p : p_) {
      BENCH_CHECK(cudaSetDevice(p.dev));
      BENCH_CHECK(cudaStreamWaitEvent(p.lo, p.hi_done[(step_ - 1) & 1], 0));
      BENCH_CHECK(cudaEventRecord(p.stop, p.lo));
    }
    for (Part& p : p_) {
      BENCH_CHECK(cudaSetDevice(p.dev));
      BENCH_CHECK(cudaEventSynchronize(p.stop));
      float ms = 0;
      BENCH_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
      worst = std::max(worst, static_cast<double>(ms));
    }
    return worst;
  }

  /// The owned rows of A (the latest result) of both GPUs, as one grid.
  std::vector<float> gather(int ny) {
    std::vector<float> out(static_cast<std::size_t>(nx_) * ny);
    const std::size_t row = static_cast<std::size_t>(nx_);
    const int h = p_[0].ghost;
    BENCH_CHECK(cudaSetDevice(0));
    BENCH_CHECK(cudaMemcpy(out.data(), p_[0].a, row * h * sizeof(float), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaSetDevice(1));
    BENCH_CHECK(cudaMemcpy(out.data() + row * h, p_[1].a + row, row * (ny - h) * sizeof(float),
                           cudaMemcpyDeviceToHost));
    return out;
  }

 private:
  int nx_;
  Part p_[2];
  long step_ = 0;
};

/// The 1-GPU loop over the whole grid on GPU 0 (the efficiency's numerator).
struct OneGpu {
  OneGpu(int nx, int ny, const std::vector<float>& init) : nx(nx), ny(ny) {
    BENCH_CHECK(cudaSetDevice(0));
    a = bench::upload(init);
    b = bench::upload(init);
    BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~OneGpu() {
    cudaSetDevice(0);
    cudaFree(a);
    cudaFree(b);
    cudaStreamDestroy(stream);
  }
  void step() {
    launch(a, b, nx, ny, stream);
    std::swap(a, b);
  }
  int nx, ny;
  float* a = nullptr;
  float* b = nullptr;
  cudaStream_t stream = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "[NX NY STEPS REPS]";
  const int nx = static_cast<int>(bench::arg_or(argc, argv, 1, 16384, usage));
  const int ny = static_cast<int>(bench::arg_or(argc, argv, 2, 16384, usage));
  const long steps = bench::arg_or(argc, argv, 3, 1000, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 4, 5, usage));
  int count = 0;
  BENCH_CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::fprintf(stderr, "%s: needs 2 GPUs, %d present\n", argv[0], count);
    return 1;
  }
  if (ny < 8) {
    std::fprintf(stderr, "%s: NY must be at least 8\n", argv[0]);
    return 2;
  }
  const std::string grid = std::to_string(nx) + "x" + std::to_string(ny);
  const std::vector<float> init = bench::random_floats(static_cast<std::size_t>(nx) * ny, 7);

  double t1 = 0;
  std::vector<float> want;
  {
    OneGpu one(nx, ny, init);
    for (long s = 0; s < kCheckSteps; ++s) one.step();
    BENCH_CHECK(cudaStreamSynchronize(one.stream));
    want.resize(init.size());
    BENCH_CHECK(
        cudaMemcpy(want.data(), one.a, want.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const std::vector<double> ms =
        bench::time_loop(one.stream, steps, reps, 0, [&](long) { one.step(); });
    t1 = bench::report("handwritten_jacobi2d_p2p", 1, grid, steps, ms);
  }

  TwoGpus two(nx, ny, init);
  two.run(kCheckSteps);
  const std::vector<float> got = two.gather(ny);
  const bool exact = std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0;
  std::printf("check: 2 GPUs %s 1 GPU after %ld steps\n",
              exact ? "equal (bit for bit)" : "DIFFER FROM", kCheckSteps);
  two.run(20);  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) ms.push_back(two.run(steps) / static_cast<double>(steps));
  const double t2 = bench::report("handwritten_jacobi2d_p2p", 2, grid, steps, ms);
  std::printf(
      "EFFICIENCY name=handwritten_jacobi2d_p2p grid=%s t1=%.4f t2=%.4f efficiency=%.4f check=%s\n",
      grid.c_str(), t1, t2, t1 / (2 * t2), exact ? "bit-exact" : "DIFFERS");
  return exact ? 0 : 1;
}

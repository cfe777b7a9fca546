// Baseline for the 1-GPU CUDA benchmark of the bandwidth-efficient 2D 5-point Jacobi: the loop
// a person writes by hand around the unmodified kernel of examples/jacobi2d_fast, over the same
// grid, initial values (random(7), B a copy of A) and launch geometry as
// bench/specs/jacobi2d_fast_16384.xml (blocks of 128 x 1, each thread JACOBI_FAST_ROWS rows:
// grid ceil(nx / 128) x ceil(ny / ROWS)). A and B swap after each step. CUDA events, warm-up,
// the median of REPS repetitions. BX changes the block width (a tuning aid: the spec uses 128);
// build with -DJACOBI_FAST_ROWS=R for another number of rows per thread.
// Usage: handwritten_jacobi2d_fast [NX NY STEPS REPS BX]   (default 16384 16384 1000 5 128)
#include "../../examples/jacobi2d_fast/jacobi2d_fast.cu"
#include "common.cuh"

int main(int argc, char** argv) {
  const char* usage = "[NX NY STEPS REPS BX]";
  const int nx = static_cast<int>(bench::arg_or(argc, argv, 1, 16384, usage));
  const int ny = static_cast<int>(bench::arg_or(argc, argv, 2, 16384, usage));
  const long steps = bench::arg_or(argc, argv, 3, 1000, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 4, 5, usage));
  const unsigned bx = static_cast<unsigned>(bench::arg_or(argc, argv, 5, 128, usage));

  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  const std::vector<float> init = bench::random_floats(n, 7);
  float* a = bench::upload(init);
  float* b = bench::upload(init);  // copy(A)
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const dim3 block(bx, 1);
  const dim3 grid(bench::blocks(nx, bx), bench::blocks(ny, JACOBI_FAST_ROWS));
  auto step = [&](long) {
    jacobi_fast<<<grid, block, 0, stream>>>(a, b, nx, ny);
    std::swap(a, b);
  };
  const std::vector<double> ms = bench::time_loop(stream, steps, reps, 20, step);
  const std::string name = "handwritten_jacobi2d_fast_rows" + std::to_string(JACOBI_FAST_ROWS) +
                           "_bx" + std::to_string(bx);
  const double m = bench::report(name, 1, std::to_string(nx) + "x" + std::to_string(ny), steps, ms);
  std::printf("effective bandwidth: %.1f GB/s (8 bytes per cell)\n", 8.0 * n / (m * 1e-3) / 1e9);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  return 0;
}

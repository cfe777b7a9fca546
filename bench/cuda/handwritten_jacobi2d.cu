// Baseline for the 1-GPU CUDA benchmark of the 2D 5-point Jacobi: the loop a person writes by
// hand around the unmodified kernel of examples/jacobi2d, over the same grid, initial values
// (random(7), B a copy of A) and launch geometry as bench/specs/jacobi2d_16384.xml
// (global round_up(nx, 32) x round_up(ny, 8), blocks of 32 x 8). A and B swap after each step.
// The time loop is timed with CUDA events; warm-up steps first; the median of REPS repetitions.
// Usage: handwritten_jacobi2d [NX NY STEPS REPS BX BY]   (default 16384 16384 1000 5 32 8)
#include "../../examples/jacobi2d/jacobi2d.cu"
#include "common.cuh"

int main(int argc, char** argv) {
  const char* usage = "[NX NY STEPS REPS BX BY]";
  const int nx = static_cast<int>(bench::arg_or(argc, argv, 1, 16384, usage));
  const int ny = static_cast<int>(bench::arg_or(argc, argv, 2, 16384, usage));
  const long steps = bench::arg_or(argc, argv, 3, 1000, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 4, 5, usage));
  const unsigned bx = static_cast<unsigned>(bench::arg_or(argc, argv, 5, 32, usage));
  const unsigned by = static_cast<unsigned>(bench::arg_or(argc, argv, 6, 8, usage));

  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  const std::vector<float> init = bench::random_floats(n, 7);
  float* a = bench::upload(init);
  float* b = bench::upload(init);  // copy(A)
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const dim3 block(bx, by);
  const dim3 grid(bench::blocks(nx, bx), bench::blocks(ny, by));
  auto step = [&](long) {
    jacobi<<<grid, block, 0, stream>>>(a, b, nx, ny);
    std::swap(a, b);
  };
  const std::vector<double> ms = bench::time_loop(stream, steps, reps, 20, step);
  bench::report("handwritten_jacobi2d", 1, std::to_string(nx) + "x" + std::to_string(ny), steps,
                ms);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  return 0;
}

// Baseline for the 1-GPU CUDA benchmark of the 3D 7-point heat equation: the loop a person
// writes by hand around the unmodified kernel of examples/heat3d, over the same grid, initial
// values (random(42), V a copy of U), alpha (0.125) and launch geometry as
// bench/specs/heat3d_512.xml (blocks of 8 x 4 x 2 covering round_up(n, block) per dimension).
// U and V swap after each step. CUDA events, warm-up, the median of REPS repetitions.
// Usage: handwritten_heat3d [NX NY NZ STEPS REPS]   (default 512 512 512 200 5)
#include "../../examples/heat3d/heat3d.cu"
#include "common.cuh"

int main(int argc, char** argv) {
  const char* usage = "[NX NY NZ STEPS REPS]";
  const int nx = static_cast<int>(bench::arg_or(argc, argv, 1, 512, usage));
  const int ny = static_cast<int>(bench::arg_or(argc, argv, 2, 512, usage));
  const int nz = static_cast<int>(bench::arg_or(argc, argv, 3, 512, usage));
  const long steps = bench::arg_or(argc, argv, 4, 200, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 5, 5, usage));

  const std::size_t n = static_cast<std::size_t>(nx) * ny * nz;
  const std::vector<float> init = bench::random_floats(n, 42);
  float* u = bench::upload(init);
  float* v = bench::upload(init);  // copy(U)
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const dim3 block(8, 4, 2);
  const dim3 grid(bench::blocks(nx, 8), bench::blocks(ny, 4), bench::blocks(nz, 2));
  auto step = [&](long) {
    heat<<<grid, block, 0, stream>>>(u, v, nx, ny, nz, 0.125f);
    std::swap(u, v);
  };
  const std::vector<double> ms = bench::time_loop(stream, steps, reps, 10, step);
  bench::report("handwritten_heat3d", 1,
                std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz), steps,
                ms);
  BENCH_CHECK(cudaFree(u));
  BENCH_CHECK(cudaFree(v));
  return 0;
}

// Baseline for the 1-GPU CUDA benchmark of the 25-point acoustic wave propagator: the loop a
// person writes by hand around the unmodified kernel of examples/acoustic, over the same grid,
// initial values (p0 random(11), p1 and p2 copies of p0, vel random(5)) and launch geometry as
// bench/specs/acoustic_512.xml (blocks of 16 x 16 x 1 over round_up(nx, 16) x round_up(ny, 16)
// x nz). After each step the three pressure levels rotate (p0 <- p1 <- p2 <- old p0), as the
// spec's <rotate arrays="p0 p1 p2"/>. CUDA events, warm-up, the median of REPS repetitions.
// Usage: handwritten_acoustic [NX NY NZ STEPS REPS]   (default 512 512 512 200 5)
#include "../../examples/acoustic/acoustic.cu"
#include "common.cuh"

int main(int argc, char** argv) {
  const char* usage = "[NX NY NZ STEPS REPS]";
  const int nx = static_cast<int>(bench::arg_or(argc, argv, 1, 512, usage));
  const int ny = static_cast<int>(bench::arg_or(argc, argv, 2, 512, usage));
  const int nz = static_cast<int>(bench::arg_or(argc, argv, 3, 512, usage));
  const long steps = bench::arg_or(argc, argv, 4, 200, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 5, 5, usage));

  const std::size_t n = static_cast<std::size_t>(nx) * ny * nz;
  float* p0 = nullptr;
  float* p1 = nullptr;
  float* p2 = nullptr;
  float* vel = nullptr;
  {
    const std::vector<float> init = bench::random_floats(n, 11);
    p0 = bench::upload(init);
    p1 = bench::upload(init);  // copy(p0)
    p2 = bench::upload(init);  // copy(p0)
  }
  vel = bench::upload(bench::random_floats(n, 5));
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const dim3 block(16, 16, 1);
  const dim3 grid(bench::blocks(nx, 16), bench::blocks(ny, 16), static_cast<unsigned>(nz));
  auto step = [&](long) {
    acoustic<<<grid, block, 0, stream>>>(p0, p1, vel, p2, nx, ny, nz);
    float* old0 = p0;  // rotate p0 p1 p2
    p0 = p1;
    p1 = p2;
    p2 = old0;
  };
  const std::vector<double> ms = bench::time_loop(stream, steps, reps, 10, step);
  bench::report("handwritten_acoustic", 1,
                std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz), steps,
                ms);
  for (float* p : {p0, p1, p2, vel}) BENCH_CHECK(cudaFree(p));
  return 0;
}

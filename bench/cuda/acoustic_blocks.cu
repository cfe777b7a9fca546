// Launch geometry of the unmodified 25-point acoustic kernel (examples/acoustic/acoustic.cu) on
// one GPU, in core: the time per step for each block shape BXxBYxBZ over round_up(nx, BX) x
// round_up(ny, BY) x round_up(nz, BZ) threads, and whether the arrays after STEPS steps equal
// those of the first shape bit for bit (each cell is computed by one thread with the same
// arithmetic whatever the shape; the check makes sure of it on real data).
// Why: at 1160^3 a plane of one array is 5.4 MB, and blocks of one plane (BZ = 1) sweep the
// grid plane by plane, so the +-4 planes the stencil reads along z have left the 50 MB L2 cache
// before they are read again; blocks several planes deep keep them.
// Usage: acoustic_blocks [NX NY NZ STEPS REPS] [SHAPE...]   (default 1160^3, 24 steps, 3 reps;
// SHAPE like 32x4x8; the default list covers one-plane and deep blocks)
#include <cstring>

#include "../../examples/acoustic/acoustic.cu"
#include "common.cuh"

int main(int argc, char** argv) {
  const char* usage = "[NX NY NZ STEPS REPS] [BXxBYxBZ...]";
  const int nx = static_cast<int>(bench::arg_or(argc, argv, 1, 1160, usage));
  const int ny = static_cast<int>(bench::arg_or(argc, argv, 2, 1160, usage));
  const int nz = static_cast<int>(bench::arg_or(argc, argv, 3, 1160, usage));
  const long steps = bench::arg_or(argc, argv, 4, 24, usage);
  const int reps = static_cast<int>(bench::arg_or(argc, argv, 5, 3, usage));
  std::vector<dim3> shapes;
  for (int i = 6; i < argc; ++i) {
    unsigned x = 0, y = 0, z = 0;
    if (std::sscanf(argv[i], "%ux%ux%u", &x, &y, &z) != 3 || x * y * z == 0 || x * y * z > 1024) {
      std::fprintf(stderr, "bad shape '%s' (BXxBYxBZ, at most 1024 threads)\n", argv[i]);
      return 2;
    }
    shapes.emplace_back(x, y, z);
  }
  if (shapes.empty())
    shapes = {dim3(16, 16, 1), dim3(32, 8, 1),  dim3(32, 4, 4),  dim3(32, 4, 8), dim3(32, 8, 4),
              dim3(32, 2, 8),  dim3(32, 2, 16), dim3(32, 1, 16), dim3(64, 2, 4), dim3(64, 2, 8),
              dim3(32, 16, 2), dim3(16, 8, 8),  dim3(128, 1, 8), dim3(32, 4, 2)};

  const std::size_t n = static_cast<std::size_t>(nx) * ny * nz;
  const std::vector<float> init = bench::random_floats(n, 11);
  const std::vector<float> vinit = bench::random_floats(n, 5);
  float* buf[3] = {bench::upload(init), bench::upload(init), bench::upload(init)};
  float* vel = bench::upload(vinit);
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<float> first(n), now(n);
  std::printf("acoustic %dx%dx%d, %ld steps, median of %d\n", nx, ny, nz, steps, reps);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const dim3 block = shapes[i];
    const dim3 grid(bench::blocks(nx, block.x), bench::blocks(ny, block.y),
                    bench::blocks(nz, block.z));
    float* p[3] = {buf[0], buf[1], buf[2]};
    auto step = [&](long) {
      acoustic<<<grid, block, 0, stream>>>(p[0], p[1], vel, p[2], nx, ny, nz);
      std::swap(p[0], p[1]);  // rotate p0 p1 p2: p0 <- p1 <- p2 <- old p0
      std::swap(p[1], p[2]);
    };
    const std::vector<double> ms = bench::time_loop(stream, steps, reps, 2, step);
    // The check: from the initial values again, STEPS steps, the newest level against the first
    // shape's.
    for (float* b : buf)
      BENCH_CHECK(cudaMemcpy(b, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    p[0] = buf[0], p[1] = buf[1], p[2] = buf[2];
    for (long s = 0; s < steps; ++s) step(s);
    BENCH_CHECK(cudaStreamSynchronize(stream));
    BENCH_CHECK(
        cudaMemcpy((i == 0 ? first : now).data(), p[1], n * sizeof(float), cudaMemcpyDeviceToHost));
    const char* same =
        i == 0 ? "reference"
               : (std::memcmp(first.data(), now.data(), n * sizeof(float)) == 0 ? "bit-exact"
                                                                                : "DIFFERS");
    const std::string name = "acoustic_block_" + std::to_string(block.x) + "x" +
                             std::to_string(block.y) + "x" + std::to_string(block.z);
    bench::report(name, 1, std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz),
                  steps, ms);
    std::printf("  %s: %s\n", name.c_str(), same);
    std::fflush(stdout);
  }
  for (float* b : buf) BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(vel));
  return 0;
}

// A CPU check of examples/jacobi2d_fast/jacobi2d_fast.cu's indexing and guards where no GPU is
// present: the unmodified kernel file is compiled as C++ (blockIdx/blockDim/threadIdx are
// globals here, __global__ is empty) and run thread by thread over the spec's launch geometry
// (blocks of BX x 1, grid ceil(nx / BX) x ceil(ny / JACOBI_FAST_ROWS)) on grids of many shapes,
// including the 3-row views of multi-GPU boundary slabs. Every step must equal the serial
// 5-point sweep (examples/jacobi2d/reference.cpp's arithmetic) bit for bit, on random data,
// and cells outside the stencil's reach must keep their values.
// Build: g++ -std=c++17 -O1 -ffp-contract=off -Wno-unknown-pragmas -I runtime/include ...
// Exit status 0 when every case matches.
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"

namespace {
struct Index3 {
  unsigned x = 0, y = 0, z = 0;
};
Index3 blockIdx, blockDim, threadIdx;
}  // namespace

#define __global__
#include "../../examples/jacobi2d_fast/jacobi2d_fast.cu"

namespace {

void serial(const std::vector<float>& a, std::vector<float>& b, int nx, int ny) {
  for (int y = 1; y < ny - 1; ++y)
    for (int x = 1; x < nx - 1; ++x) {
      const int c = x + nx * y;
      b[c] = 0.25f * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx]);
    }
}

void emulate(const std::vector<float>& a, std::vector<float>& b, int nx, int ny, unsigned bx) {
  const unsigned gx = (static_cast<unsigned>(nx) + bx - 1) / bx;
  const unsigned gy = (static_cast<unsigned>(ny) + JACOBI_FAST_ROWS - 1) / JACOBI_FAST_ROWS;
  blockDim = {bx, 1, 1};
  for (blockIdx.y = 0; blockIdx.y < gy; ++blockIdx.y)
    for (blockIdx.x = 0; blockIdx.x < gx; ++blockIdx.x)
      for (threadIdx.x = 0; threadIdx.x < bx; ++threadIdx.x)
        jacobi_fast(a.data(), b.data(), nx, ny);
}

bool check(int nx, int ny, int steps, unsigned bx) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  std::vector<float> a(n), b, ea, eb;
  stepgen::rt::fill_random<float>(a.data(), n, 7, 0);
  b = a;
  ea = a;
  eb = a;
  for (int s = 0; s < steps; ++s) {
    serial(a, b, nx, ny);
    emulate(ea, eb, nx, ny, bx);
    if (std::memcmp(b.data(), eb.data(), n * sizeof(float)) != 0) {
      std::printf("FAIL: %dx%d, block %u, step %d differs\n", nx, ny, bx, s);
      return false;
    }
    std::swap(a, b);
    std::swap(ea, eb);
  }
  std::printf("ok: %dx%d, block %u x 1, %d rows per thread, %d steps\n", nx, ny, bx,
              JACOBI_FAST_ROWS, steps);
  return true;
}

}  // namespace

int main() {
  bool ok = true;
  const int shapes[][2] = {{1000, 777}, {128, 16}, {129, 17}, {130, 18}, {300, 3}, {3, 300},
                           {2, 40},     {40, 2},   {1, 1},    {257, 33}, {64, 35}, {200, 50}};
  for (const auto& s : shapes) ok = check(s[0], s[1], 3, 128) && ok;
  ok = check(1000, 777, 2, 256) && ok;
  ok = check(333, 95, 2, 32) && ok;
  return ok ? 0 : 1;
}

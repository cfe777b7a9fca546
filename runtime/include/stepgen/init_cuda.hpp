#pragma once
/// \file
/// Initial values made on a CUDA GPU (devinit): zero, value(v) and random(seed) over a box of a
/// part's buffer with the bits the host fill gives (init.hpp: rt::ArrayInit, rt::random_bits),
/// and copy(X) as a device-to-device copy of X's buffer, each enqueued on the GPU's compute
/// stream (the engine's upload then waits for that stream once, before the first step). No
/// shared memory, no warp intrinsics: the kernel also runs on the CPU emulation of the tests
/// (tests/cuda_emu). Include it from a .cu file (it defines a kernel).

#include <algorithm>
#include <cstdint>
#include <string>

#include "stepgen/box.hpp"
#include "stepgen/cuda.hpp"
#include "stepgen/init.hpp"

namespace stepgen::cuda {

namespace init_detail {

using U64 = unsigned long long;
using I64 = long long;

__host__ __device__ inline U64 splitmix64(U64 x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// rt::random_bits with splitmix64(seed) already applied (`mixed`), in 64-bit unsigned
/// arithmetic only.
__host__ __device__ inline U64 random_bits(U64 mixed, U64 index, int type) {
  const U64 bits = splitmix64(mixed ^ index);
  if (type == rt::ArrayInit::kInteger) return bits % 100ull;
  const int width = type == rt::ArrayInit::kFloat ? 24 : 53;
  const U64 m = bits >> (64 - width);
  if (m == 0) return 0;
  // The highest set bit of m: one instruction on the GPU (with a ladder of 64-bit shifts this
  // fill took 1.65 ms per GiB of floats on the H100, 1.45 with __clzll; the random values'
  // 64-bit hashing is most of the rest: bench/cuda/setup_parts.cu); the compiler's builtin on
  // the host (the CPU emulation).
  int top = 0;
#ifdef __CUDA_ARCH__
  top = 63 - __clzll(static_cast<long long>(m));
#else
  top = 63 - __builtin_clzll(m);
#endif
  if (type == rt::ArrayInit::kFloat)
    return (static_cast<U64>(top - 24 + 127) << 23) | ((m << (23 - top)) & 0x7FFFFFull);
  return (static_cast<U64>(top - 53 + 1023) << 52) | ((m << (52 - top)) & 0xFFFFFFFFFFFFFull);
}

/// The box to fill: `nx` x `ny` x `nz` cells from element `base` of the buffer (strides `sy`,
/// `sz`), its first cell at global linear index `first` of a grid `gx` x `gy` wide.
struct FillBox {
  I64 base, nx, ny, nz, sy, sz, gx, gy;
  U64 first;
};

/// Fills the box with `value` (kind zero or value) or random_bits (kind random): x across the
/// threads of the blocks of the grid's first dimension, the rows (y) and planes (z) over its
/// second and third, each a grid-stride loop. No division per cell: a 64-bit division costs a
/// GPU tens of instructions, and four of them per cell made the fill 3x slower than the memory
/// (2.6 ms for Jacobi 16384^2's 2 GiB on the H100).
template <typename E>
__global__ void stepgen_init_fill(E* buf, int kind, int type, U64 mixed, U64 value, FillBox b) {
  const I64 x0 = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x;
  const I64 dx = static_cast<I64>(gridDim.x) * blockDim.x;
  for (I64 z = blockIdx.z; z < b.nz; z += gridDim.z)
    for (I64 y = blockIdx.y; y < b.ny; y += gridDim.y) {
      E* row = buf + b.base + y * b.sy + z * b.sz;
      const U64 g = b.first + static_cast<U64>((y + z * b.gy) * b.gx);
      for (I64 x = x0; x < b.nx; x += dx) {
        U64 v = value;
        if (kind == rt::ArrayInit::kRandom) v = random_bits(mixed, g + static_cast<U64>(x), type);
        row[x] = static_cast<E>(v);
      }
    }
}

template <typename E>
void launch_fill(const Device& d, void* buf, int kind, int type, U64 mixed, U64 value,
                 const FillBox& b) {
  // Blocks of up to 256 threads along x (a warp's multiple), then one block row per row and
  // plane up to the grid's limits (65535 in y and z: the loops stride past them).
  const unsigned block = static_cast<unsigned>(std::min<I64>(256, (b.nx + 31) / 32 * 32));
  const dim3 grid(static_cast<unsigned>(std::min<I64>((b.nx + block - 1) / block, I64{1024})),
                  static_cast<unsigned>(std::min<I64>(b.ny, I64{65535})),
                  static_cast<unsigned>(std::min<I64>(b.nz, I64{65535})));
  auto* k = &stepgen_init_fill<E>;
  STEPGEN_LAUNCH(k, grid, dim3(block), d.stream())
  (static_cast<E*>(buf), kind, type, mixed, value, b);
  check(cudaGetLastError(), "stepgen_init_fill launch", d);
}

}  // namespace init_detail

/// Enqueues on `d`'s compute stream the initial values `init` (zero, value or random) of the
/// cells `sub` of a buffer holding the box `buffer`, elements of `element_bytes` (1, 2, 4, 8),
/// global linear indices over `grid` (x fastest), as the host's fill gives them.
inline void init_box(const Device& d, const Buffer& buf, const rt::Box& buffer, const rt::Box& sub,
                     const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes) {
  using namespace init_detail;
  if (sub.empty()) return;
  FillBox b{};
  b.base = ((sub.lo[2] - buffer.lo[2]) * buffer.extent(1) + (sub.lo[1] - buffer.lo[1])) *
               buffer.extent(0) +
           (sub.lo[0] - buffer.lo[0]);
  b.nx = sub.extent(0);
  b.ny = sub.extent(1);
  b.nz = sub.extent(2);
  b.sy = buffer.extent(0);
  b.sz = buffer.extent(0) * buffer.extent(1);
  b.gx = grid.extent(0);
  b.gy = grid.extent(1);
  b.first = (static_cast<U64>(sub.lo[2] - grid.lo[2]) * static_cast<U64>(grid.extent(1)) +
             static_cast<U64>(sub.lo[1] - grid.lo[1])) *
                static_cast<U64>(grid.extent(0)) +
            static_cast<U64>(sub.lo[0] - grid.lo[0]);
  const U64 mixed = splitmix64(init.seed);
  d.use();
  switch (element_bytes) {
    case 1:
      return launch_fill<unsigned char>(d, buf.get(), init.kind, init.type, mixed, init.value, b);
    case 2:
      return launch_fill<unsigned short>(d, buf.get(), init.kind, init.type, mixed, init.value, b);
    case 4:
      return launch_fill<unsigned int>(d, buf.get(), init.kind, init.type, mixed, init.value, b);
    case 8:
      return launch_fill<U64>(d, buf.get(), init.kind, init.type, mixed, init.value, b);
    default:
      throw rt::RunError("internal error: initial values of " + std::to_string(element_bytes) +
                         "-byte elements on " + d.label());
  }
}

/// Enqueues on `dst`'s GPU compute stream a copy of `bytes` from `src` (same GPU): copy(X).
inline void copy_buffer(const Device& d, const Buffer& dst, const Buffer& src, std::size_t bytes) {
  if (bytes == 0) return;
  d.use();
  check(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, d.stream()),
        "cudaMemcpyAsync(copy() initial values)", d);
}

}  // namespace stepgen::cuda

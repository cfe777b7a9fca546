#pragma once
/// \file
/// Initial values made on a CUDA GPU: zero, value(v) and random(seed) over a box of a
/// part's buffer with the bits the host fill gives (init.hpp: rt::ArrayInit, rt::random_bits),
/// and copy(X) as a device-to-device copy of X's buffer, each enqueued on the GPU's compute
/// stream (the engine's upload then waits for that stream once, before the first step). No
/// shared memory, no warp intrinsics: the kernel also runs on the CPU emulation of the tests
/// (tests/cuda_emu). Include it from a .cu file (it defines a kernel).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/cuda.hpp"
#include "stepgen/plan/box.hpp"

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

/// The value bits of a random `Type` (rt::ArrayInit::kInteger, kFloat, kDouble) made from a
/// cell's hash `bits` (rt::random_bits_from_hash): float, the top 24 bits m of the hash as
/// m * 2^-24, double, the top 53 as m * 2^-53, both exact in a conversion and a multiplication
/// by a power of two: one I2F and one FMUL on the GPU, the same bits as the integer building of
/// the exponent and mantissa that init.hpp spells out (the emulation's unit test checks every
/// float and sampled doubles).
template <int Type>
__host__ __device__ inline U64 value_bits(U64 bits) {
  if (Type == rt::ArrayInit::kInteger) return bits % 100ull;
  if (Type == rt::ArrayInit::kFloat) {
    const float f = static_cast<float>(static_cast<unsigned>(bits >> 40)) * 0x1p-24f;
    unsigned u = 0;
    memcpy(&u, &f, sizeof u);
    return u;
  }
  const double v = static_cast<double>(bits >> 11) * 0x1p-53;
  U64 u = 0;
  memcpy(&u, &v, sizeof u);
  return u;
}

/// rt::random_bits with splitmix64(seed) already applied (`mixed`), in a `Type`.
template <int Type>
__host__ __device__ inline U64 random_bits_of(U64 mixed, U64 index) {
  return value_bits<Type>(splitmix64(mixed ^ index));
}

/// The box to fill (rt::fill_geometry).
using FillBox = rt::FillGeometry;

/// Fills the box with `value` (R < 0: zero or value(v)) or with random_bits_of<R> (R the
/// element type's kind), and the same cells of `also` where it is given (a copy(X) of this
/// array made in the same pass: each value computed once, written twice): x across the threads
/// of a block's first dimension and of the grid's, rows (y) across the block's second
/// dimension and the grid's, planes (z) across the grid's third, each a grid-stride loop, so a
/// few thousand blocks each fill many rows (or one long row: rt::fill_geometry). No division
/// per cell (a 64-bit division costs a GPU tens of instructions), no branch on the kind per
/// cell. (On the H100 the kernel before, a thread per cell and a block per 256 cells of a row,
/// filled 1.45 ms per GiB of random floats, this one 0.73: bench/cuda/setup_parts.cu.)
template <typename E, int R>
__global__ void stepgen_init_fill(E* buf, E* also, U64 mixed, U64 value, FillBox b) {
  const I64 x0 = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x;
  const I64 dx = static_cast<I64>(gridDim.x) * blockDim.x;
  const I64 y0 = static_cast<I64>(blockIdx.y) * blockDim.y + threadIdx.y;
  const I64 dy = static_cast<I64>(gridDim.y) * blockDim.y;
  for (I64 z = blockIdx.z; z < b.nz; z += gridDim.z)
    for (I64 y = y0; y < b.ny; y += dy) {
      const I64 row = b.base + y * b.sy + z * b.sz;
      const U64 g = b.first + static_cast<U64>((y + z * b.gy) * b.gx);
      for (I64 x = x0; x < b.nx; x += dx) {
        E v;
        if constexpr (R < 0)
          v = static_cast<E>(value);
        else
          v = static_cast<E>(random_bits_of<R>(mixed, g + static_cast<U64>(x)));
        buf[row + x] = v;
        if (also) also[row + x] = v;
      }
    }
}

/// The launch of a fill over `b`: blocks of 256 threads, up to 256 along x (a warp's multiple)
/// and the rest along y; the blocks as rt::fill_groups lays them out.
struct FillLaunch {
  dim3 grid, block;
};
inline FillLaunch fill_launch(const FillBox& b) {
  const I64 bx = std::min<I64>(256, (b.nx + 31) / 32 * 32);
  const I64 by = std::max<I64>(1, std::min<I64>(256 / bx, b.ny));
  const rt::FillGroups g = rt::fill_groups(b, bx, by);
  FillLaunch l;
  l.grid = dim3(static_cast<unsigned>(g.x), static_cast<unsigned>(g.y), static_cast<unsigned>(g.z));
  l.block = dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by), 1);
  return l;
}

template <typename E, int R>
void launch_fill_as(const Device& d, void* buf, void* also, U64 mixed, U64 value,
                    const FillBox& b) {
  const FillLaunch l = fill_launch(b);
  auto* k = &stepgen_init_fill<E, R>;
  STEPGEN_LAUNCH(k, l.grid, l.block, d.stream())
  (static_cast<E*>(buf), static_cast<E*>(also), mixed, value, b);
  check(cudaGetLastError(), "stepgen_init_fill launch", d);
}

template <typename E>
void launch_fill(const Device& d, void* buf, void* also, int kind, int type, U64 mixed, U64 value,
                 const FillBox& b) {
  if (kind != rt::ArrayInit::kRandom) return launch_fill_as<E, -1>(d, buf, also, mixed, value, b);
  switch (type) {
    case rt::ArrayInit::kInteger:
      return launch_fill_as<E, rt::ArrayInit::kInteger>(d, buf, also, mixed, value, b);
    case rt::ArrayInit::kFloat:
      return launch_fill_as<E, rt::ArrayInit::kFloat>(d, buf, also, mixed, value, b);
    default:
      return launch_fill_as<E, rt::ArrayInit::kDouble>(d, buf, also, mixed, value, b);
  }
}

}  // namespace init_detail

/// Enqueues on `d`'s compute stream the initial values `init` (zero, value or random) of the
/// cells `sub` of a buffer holding the box `buffer`, elements of `element_bytes` (1, 2, 4, 8),
/// global indices over `grid` (x fastest), as the host's fill gives them; the same values into
/// `also` too where it is given (a buffer over the same box: copy(X) of this array). Zero bits
/// over one run of elements: cudaMemsetAsync.
inline void init_box(const Device& d, const Buffer& buf, const rt::Box& buffer, const rt::Box& sub,
                     const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes,
                     const Buffer* also = nullptr) {
  using namespace init_detail;
  if (sub.empty()) return;
  const FillBox b = rt::fill_geometry(buffer, sub, grid);
  d.use();
  if (init.kind != rt::ArrayInit::kRandom && init.value == 0 && b.ny * b.nz == 1) {
    for (const Buffer* to : {&buf, also}) {
      if (!to) continue;
      check(cudaMemsetAsync(
                static_cast<char*>(to->get()) + static_cast<std::size_t>(b.base) * element_bytes, 0,
                static_cast<std::size_t>(b.nx) * element_bytes, d.stream()),
            "cudaMemsetAsync(zero initial values)", d);
    }
    return;
  }
  const U64 mixed = splitmix64(init.seed);
  void* two = also ? also->get() : nullptr;
  switch (element_bytes) {
    case 1:
      return launch_fill<unsigned char>(d, buf.get(), two, init.kind, init.type, mixed, init.value,
                                        b);
    case 2:
      return launch_fill<unsigned short>(d, buf.get(), two, init.kind, init.type, mixed, init.value,
                                         b);
    case 4:
      return launch_fill<unsigned int>(d, buf.get(), two, init.kind, init.type, mixed, init.value,
                                       b);
    case 8:
      return launch_fill<U64>(d, buf.get(), two, init.kind, init.type, mixed, init.value, b);
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

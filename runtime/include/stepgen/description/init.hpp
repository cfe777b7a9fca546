#pragma once
/// \file
/// Initial values of arrays, defined once so that generated programs, serial references and
/// tests fill arrays identically on every machine. `random(seed)` is a counter-based generator
/// (SplitMix64 of seed and the element's global linear index), so any sub-box can be filled
/// independently and the result never depends on the partition.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// SplitMix64: a well-known 64-bit mixing function (Steele, Lea, Flood 2014).
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The value `random(seed)` gives the element at global linear index `index` (x fastest).
/// Floating types: uniform in [0, 1) from the top 24 (float) or 53 (double) bits.
/// Integer types: the low bits of the mixed value, reduced to [0, 100) so sums stay small.
template <typename T>
T random_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t bits = splitmix64(splitmix64(seed) ^ index);
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
  } else if constexpr (std::is_same_v<T, double>) {
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
  } else {
    return static_cast<T>(bits % 100u);
  }
}

/// Fills `count` consecutive elements starting at global linear index `first`.
template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, std::uint64_t first = 0) {
  for (std::size_t i = 0; i < count; ++i) data[i] = random_value<T>(seed, first + i);
}

// --- initial values made on the devices ---------------------------------------------------------

/// How an array's initial values are made, for the engines (the generated kArrayInfo's last
/// field): kHost, on the host (file(), or a spec made before this existed) then uploaded; the
/// others on each device for its own part (init_opencl.hpp, init_cuda.hpp) with the bits the
/// host fill gives (zero, value(v): the bytes of v in the array's type; random(seed):
/// random_value<T> of the global linear index; copy(X): X's buffer, once X is made), so that an
/// array nothing on the host needs has no host copy and is never uploaded.
struct ArrayInit {
  enum Kind : int { kHost = 0, kZero = 1, kValue = 2, kRandom = 3, kCopy = 4 };
  /// How random(seed) turns the mixed bits into a value: the type's family.
  enum Type : int { kInteger = 0, kFloat = 1, kDouble = 2 };
  int kind = kHost;
  int type = kInteger;
  std::uint64_t seed = 0;
  std::uint64_t value = 0;  ///< value(v): v's bytes in the array's type (the low element_bytes)
  int source = -1;          ///< copy(X): X's array id
  bool on_device() const { return kind != kHost; }
};

template <typename T>
constexpr int init_type() {
  return std::is_same_v<T, float>    ? ArrayInit::kFloat
         : std::is_same_v<T, double> ? ArrayInit::kDouble
                                     : ArrayInit::kInteger;
}
/// file(): made on the host, uploaded.
inline ArrayInit init_host() {
  return {};
}
/// zero (and no initial values: zero too).
inline ArrayInit init_zero() {
  ArrayInit i;
  i.kind = ArrayInit::kZero;
  return i;
}
/// value(v), v already in the array's type.
template <typename T>
ArrayInit init_value(T v) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "init_value: an element of at most 8 bytes");
  ArrayInit i;
  i.kind = ArrayInit::kValue;
  i.type = init_type<T>();
  std::memcpy(&i.value, &v, sizeof v);  // little-endian: the low bytes, as the devices write them
  return i;
}
/// random(seed) in type T.
template <typename T>
ArrayInit init_random(std::uint64_t seed) {
  ArrayInit i;
  i.kind = ArrayInit::kRandom;
  i.type = init_type<T>();
  i.seed = seed;
  return i;
}
/// copy(X), X's array id.
inline ArrayInit init_copy(int source) {
  ArrayInit i;
  i.kind = ArrayInit::kCopy;
  i.source = source;
  return i;
}

/// The value bits of random(seed) of `type` made from the hash `bits` of a cell: for float, the
/// top 24 bits m give m * 2^-24, exactly representable, built from its exponent and mantissa;
/// for double, the top 53 bits m give m * 2^-53 likewise; integers: (bits % 100) in the low
/// bytes. Integer arithmetic only, as the OpenCL kernels compute it (no double on a device
/// without cl_khr_fp64); init_cuda.hpp converts and scales in floating point instead, the same
/// bits (its unit test checks every float).
inline std::uint64_t random_bits_from_hash(std::uint64_t bits, int type) {
  if (type == ArrayInit::kInteger) return bits % 100u;
  const int width = type == ArrayInit::kFloat ? 24 : 53;
  const std::uint64_t m = bits >> (64 - width);
  if (m == 0) return 0;
  int top = 63;
  while (((m >> top) & 1u) == 0) --top;  // the highest set bit of m (the kernels: clz)
  if (type == ArrayInit::kFloat)
    return (static_cast<std::uint64_t>(top - 24 + 127) << 23) | ((m << (23 - top)) & 0x7FFFFFu);
  return (static_cast<std::uint64_t>(top - 53 + 1023) << 52) |
         ((m << (52 - top)) & 0xFFFFFFFFFFFFFull);
}

/// The bits of random_value<T>(seed, index) as the device kernels compute them. The kernels
/// are this function written again (init_opencl.hpp, init_cuda.hpp); the unit tests check it
/// equals random_value<T>.
inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index, int type) {
  return random_bits_from_hash(splitmix64(splitmix64(seed) ^ index), type);
}
/// Where a device fill writes (init_cuda.hpp, init_opencl.hpp): `nx` x `ny` x `nz` cells from
/// element `base` of a buffer (strides `sy`, `sz`), the first at global linear index `first` of
/// a grid `gx` x `gy` wide (x fastest).
struct FillGeometry {
  std::int64_t base, nx, ny, nz, sy, sz, gx, gy;
  std::uint64_t first;
};
/// The cells `sub` of a buffer over `buffer`, global indices over `grid`. Where they are one
/// run of consecutive elements whose global indices are consecutive too (whole rows of the
/// buffer and of the grid, and whole planes if more than one: one device, or parts split along
/// the slowest dimension) they are given as a single row, so the fill is one loop over them.
inline FillGeometry fill_geometry(const Box& buffer, const Box& sub, const Box& grid) {
  FillGeometry g{};
  g.base = ((sub.lo[2] - buffer.lo[2]) * buffer.extent(1) + (sub.lo[1] - buffer.lo[1])) *
               buffer.extent(0) +
           (sub.lo[0] - buffer.lo[0]);
  g.nx = sub.extent(0);
  g.ny = sub.extent(1);
  g.nz = sub.extent(2);
  g.sy = buffer.extent(0);
  g.sz = buffer.extent(0) * buffer.extent(1);
  g.gx = grid.extent(0);
  g.gy = grid.extent(1);
  g.first = (static_cast<std::uint64_t>(sub.lo[2] - grid.lo[2]) *
                 static_cast<std::uint64_t>(grid.extent(1)) +
             static_cast<std::uint64_t>(sub.lo[1] - grid.lo[1])) *
                static_cast<std::uint64_t>(grid.extent(0)) +
            static_cast<std::uint64_t>(sub.lo[0] - grid.lo[0]);
  const bool rows = g.nx == g.sy && g.nx == g.gx;
  const bool planes = g.nz == 1 || (g.ny * g.sy == g.sz && g.ny == g.gy);
  if (rows && planes && g.ny * g.nz > 1) {
    g.nx *= g.ny * g.nz;
    g.ny = g.nz = 1;
    g.sy = g.sz = g.gx = g.nx;
    g.gy = 1;
  }
  return g;
}

/// The groups of a device fill (CUDA blocks, OpenCL work-groups) of `bx` x `by` cells each: as
/// many along x as a row needs, up to kFillGroups, then along y, then z, at most 65535 along y
/// and z; the fill kernels' loops stride past them, so each group fills many rows. No
/// division per cell: four 64-bit divisions a cell made the fill 2-3x slower than the memory
/// on a GPU.
inline constexpr std::int64_t kFillGroups = 4096;
struct FillGroups {
  std::int64_t x, y, z;
};
inline FillGroups fill_groups(const FillGeometry& b, std::int64_t bx, std::int64_t by) {
  FillGroups g{};
  g.x = std::min<std::int64_t>((b.nx + bx - 1) / bx, kFillGroups);
  g.y = std::min<std::int64_t>(
      {(b.ny + by - 1) / by, std::max<std::int64_t>(1, kFillGroups / g.x), 65535});
  g.z = std::min<std::int64_t>({b.nz, std::max<std::int64_t>(1, kFillGroups / (g.x * g.y)), 65535});
  return g;
}

// --- end: initial values made on the devices -----------------------------------------------------

}  // namespace stepgen::rt

#pragma once
/// \file
/// Initial values of arrays, defined once so that generated programs, serial references and
/// tests fill arrays identically on every machine. `random(seed)` is a counter-based generator
/// (SplitMix64 of seed and the element's global linear index), so any sub-box can be filled
/// independently and the result never depends on the partition.

#include <cstddef>
#include <cstdint>
#include <type_traits>

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

}  // namespace stepgen::rt

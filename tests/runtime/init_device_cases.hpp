// devinit: initial values made on a device (init_opencl.hpp, init_cuda.hpp) against the host's
// (init.hpp), written once for both backends' tests. A backend gives
//   std::vector<unsigned char> fill(const rt::Box& buffer, const rt::Box& sub, const rt::Box& grid,
//                                   const rt::ArrayInit& init, std::size_t element_bytes,
//                                   unsigned char before);
// (a buffer over `buffer` whose bytes are all `before`, init_box over `sub`, read back) and
//   std::vector<unsigned char> copy(const std::vector<unsigned char>& src);
// (copy_buffer of a buffer holding `src` into another, read back).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "stepgen/box.hpp"
#include "stepgen/init.hpp"

namespace init_cases {

using namespace stepgen;

inline rt::Box make_box(rt::Vec3 lo, rt::Vec3 hi) {
  rt::Box b = rt::Box::from_extent(3, {1, 1, 1});
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// The cells of `sub` in a buffer over `buffer` hold `want(global index)`; the others `before`.
template <typename T, class Backend, class Want>
void check_box(Backend& backend, const rt::ArrayInit& init, Want want) {
  const rt::Box grid = make_box({0, 0, 0}, {23, 9, 6});
  const rt::Box buffer = make_box({4, 1, 1}, {19, 8, 5});  // a part's ghost box
  const rt::Box sub = make_box({5, 2, 2}, {17, 8, 5});     // non-zero origin, to the buffer's edge
  const unsigned char before = 0xAB;
  const std::vector<unsigned char> got = backend.fill(buffer, sub, grid, init, sizeof(T), before);
  REQUIRE(got.size() == static_cast<std::size_t>(buffer.volume()) * sizeof(T));
  std::size_t wrong = 0, at = 0;
  for (rt::Index z = buffer.lo[2]; z < buffer.hi[2]; ++z)
    for (rt::Index y = buffer.lo[1]; y < buffer.hi[1]; ++y)
      for (rt::Index x = buffer.lo[0]; x < buffer.hi[0]; ++x, at += sizeof(T)) {
        unsigned char expect[sizeof(T)];
        if (sub.contains_point({x, y, z})) {
          const auto index =
              static_cast<std::uint64_t>((z * grid.extent(1) + y) * grid.extent(0) + x);
          const T v = want(index);
          std::memcpy(expect, &v, sizeof(T));
        } else {
          std::memset(expect, before, sizeof(T));
        }
        if (std::memcmp(expect, got.data() + at, sizeof(T)) != 0) ++wrong;
      }
  CHECK(wrong == 0);
}

/// random(seed) equals random_value<T> cell by cell, for float, double, int and the other
/// integer widths; value(v) and zero likewise; copy(X) copies the bytes.
template <class Backend>
void every_init(Backend& backend) {
  for (std::uint64_t seed :
       {std::uint64_t{0}, std::uint64_t{42}, std::uint64_t{0xFFFFFFFFFFFFull}}) {
    check_box<float>(backend, rt::init_random<float>(seed),
                     [&](std::uint64_t i) { return rt::random_value<float>(seed, i); });
    check_box<double>(backend, rt::init_random<double>(seed),
                      [&](std::uint64_t i) { return rt::random_value<double>(seed, i); });
    check_box<std::int32_t>(backend, rt::init_random<std::int32_t>(seed), [&](std::uint64_t i) {
      return rt::random_value<std::int32_t>(seed, i);
    });
  }
  check_box<std::uint8_t>(backend, rt::init_random<std::uint8_t>(7),
                          [](std::uint64_t i) { return rt::random_value<std::uint8_t>(7, i); });
  check_box<std::int16_t>(backend, rt::init_random<std::int16_t>(7),
                          [](std::uint64_t i) { return rt::random_value<std::int16_t>(7, i); });
  check_box<std::uint64_t>(backend, rt::init_random<std::uint64_t>(7),
                           [](std::uint64_t i) { return rt::random_value<std::uint64_t>(7, i); });
  check_box<float>(backend, rt::init_value<float>(0.1f), [](std::uint64_t) { return 0.1f; });
  check_box<double>(backend, rt::init_value<double>(-2.5e-300),
                    [](std::uint64_t) { return -2.5e-300; });
  check_box<std::int32_t>(backend, rt::init_value<std::int32_t>(-7),
                          [](std::uint64_t) { return std::int32_t{-7}; });
  check_box<float>(backend, rt::init_zero(), [](std::uint64_t) { return 0.0f; });
  std::vector<unsigned char> src(1000);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  CHECK(backend.copy(src) == src);
}

}  // namespace init_cases

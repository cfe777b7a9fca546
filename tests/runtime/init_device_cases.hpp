// devinit: initial values made on a device (init_opencl.hpp, init_cuda.hpp) against the host's
// (init.hpp), written once for both backends' tests. A backend gives
//   std::vector<unsigned char> fill(const rt::Box& buffer, const rt::Box& sub, const rt::Box& grid,
//                                   const rt::ArrayInit& init, std::size_t element_bytes,
//                                   unsigned char before, bool twice);
// (a buffer over `buffer` whose bytes are all `before`, init_box over `sub`, read back; with
// `twice`, a second such buffer given to init_box as `also`, the two read back one after the
// other) and
//   std::vector<unsigned char> copy(const std::vector<unsigned char>& src);
// (copy_buffer of a buffer holding `src` into another, read back).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/plan/box.hpp"

namespace init_cases {

using namespace stepgen;

inline rt::Box make_box(rt::Vec3 lo, rt::Vec3 hi) {
  rt::Box b = rt::Box::from_extent(3, {1, 1, 1});
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// A grid, a part's ghost box in it and the sub-box to fill.
struct Boxes {
  rt::Box grid, buffer, sub;
};
/// Small: a sub-box with a non-zero origin, to the buffer's edge.
inline Boxes small_boxes() {
  return {make_box({0, 0, 0}, {23, 9, 6}), make_box({4, 1, 1}, {19, 8, 5}),
          make_box({5, 2, 2}, {17, 8, 5})};
}
/// More rows and planes than a fill launches threads for (the kernels' loops stride over them:
/// init_cuda.hpp caps a launch at 4096 blocks, 2 of them per 300-cell row here).
inline Boxes many_rows() {
  return {make_box({0, 0, 0}, {303, 2600, 4}), make_box({1, 0, 0}, {303, 2600, 4}),
          make_box({2, 50, 0}, {302, 2600, 4})};
}

/// Planes 3-7 of a part's buffer over planes 2-8 of the grid: whole rows and planes, one run of
/// consecutive cells (rt::fill_geometry makes it one row; zero is a memset there).
inline Boxes planes() {
  return {make_box({0, 0, 0}, {37, 11, 10}), make_box({0, 0, 2}, {37, 11, 9}),
          make_box({0, 0, 3}, {37, 11, 8})};
}

/// The cells of `sub` in a buffer over `buffer` hold `want(global index)`; the others `before`
/// (with `twice`, in both buffers: init_box's `also`).
template <typename T, class Backend, class Want>
void check_box(Backend& backend, const rt::ArrayInit& init, Want want,
               const Boxes& boxes = small_boxes(), bool twice = false) {
  const rt::Box& grid = boxes.grid;
  const rt::Box& buffer = boxes.buffer;
  const rt::Box& sub = boxes.sub;
  const unsigned char before = 0xAB;
  const std::vector<unsigned char> got =
      backend.fill(buffer, sub, grid, init, sizeof(T), before, twice);
  const std::size_t bytes = static_cast<std::size_t>(buffer.volume()) * sizeof(T);
  REQUIRE(got.size() == (twice ? 2 : 1) * bytes);
  std::size_t wrong = 0, at = 0;
  for (int copy = 0; copy < (twice ? 2 : 1); ++copy)
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
  check_box<float>(
      backend, rt::init_random<float>(5),
      [](std::uint64_t i) { return rt::random_value<float>(5, i); }, many_rows());
  check_box<double>(
      backend, rt::init_value<double>(3.25), [](std::uint64_t) { return 3.25; }, many_rows());
  // One run of cells: a single long row (random), a memset (zero).
  check_box<float>(
      backend, rt::init_random<float>(11),
      [](std::uint64_t i) { return rt::random_value<float>(11, i); }, planes());
  check_box<std::int16_t>(
      backend, rt::init_zero(), [](std::uint64_t) { return std::int16_t{0}; }, planes());
  check_box<std::int32_t>(
      backend, rt::init_value<std::int32_t>(9), [](std::uint64_t) { return std::int32_t{9}; },
      planes());
  // Written twice (a copy(X) made by X's fill): every path.
  check_box<double>(
      backend, rt::init_random<double>(3),
      [](std::uint64_t i) { return rt::random_value<double>(3, i); }, small_boxes(), true);
  check_box<float>(
      backend, rt::init_random<float>(4),
      [](std::uint64_t i) { return rt::random_value<float>(4, i); }, planes(), true);
  check_box<float>(
      backend, rt::init_zero(), [](std::uint64_t) { return 0.0f; }, planes(), true);
  check_box<std::uint8_t>(
      backend, rt::init_value<std::uint8_t>(200), [](std::uint64_t) { return std::uint8_t{200}; },
      small_boxes(), true);
  std::vector<unsigned char> src(1000);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  CHECK(backend.copy(src) == src);
}

}  // namespace init_cases

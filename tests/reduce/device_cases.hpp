// The cases both device-reduction tests run (tests/opencl_runtime/reduce_opencl_test.cpp on
// PoCL, tests/cuda_emu/reduce_cuda_test.cpp on the CUDA emulation): every data type and every
// operation, on random data with and without NaN, infinities, subnormals and signed zeros, over
// sub-boxes of larger buffers, with and without `minus`, an empty box and a box of one cell.
// The device's result must be the same bits as rt::Reduction adding the same values on the host
// (for sum and l2, the same exact accumulator words).
//
// A Backend gives: `template <typename T> Buf upload(const std::vector<T>&)` (a device buffer
// holding the values) and `template <typename T> void reduce(const Buf& a, const Buf* minus,
// const rt::Box& buffer, const rt::Box& box, rt::Reduction& into)`.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "stepgen/description/reduce.hpp"
#include "stepgen/plan/box.hpp"

namespace reduce_cases {

namespace rt = stepgen::rt;

/// What the random values hold besides ordinary numbers.
enum class Mix { kFinite, kInfinities, kNan, kSmall, kZeros };

inline const char* mix_name(Mix m) {
  switch (m) {
    case Mix::kFinite:
      return "finite (wide exponents, subnormals, signed zeros)";
    case Mix::kInfinities:
      return "with +inf and -inf";
    case Mix::kNan:
      return "with NaN";
    case Mix::kSmall:
      return "values near 1";
    case Mix::kZeros:
      return "+0 and -0 only";
  }
  return "";
}

template <typename T>
T random_value(std::mt19937_64& rng, Mix mix) {
  std::uniform_int_distribution<int> pick(0, 99);
  const int p = pick(rng);
  if constexpr (std::is_floating_point_v<T>) {
    using L = std::numeric_limits<T>;
    std::uniform_real_distribution<T> unit(T(-1), T(1));
    if (mix == Mix::kInfinities && p < 2) return p == 0 ? L::infinity() : -L::infinity();
    if (mix == Mix::kNan && p < 1) return L::quiet_NaN();
    if (mix == Mix::kSmall) return T(1) + unit(rng) / T(8);
    if (mix == Mix::kZeros) return p < 50 ? T(0) : -T(0);
    if (p < 5) return p < 3 ? T(0) : -T(0);
    if (p < 10) return std::ldexp(unit(rng), L::min_exponent - L::digits + 5);  // subnormal
    if (p < 40) {
      std::uniform_int_distribution<int> e(L::min_exponent - 2, L::max_exponent - 2);
      return std::ldexp(unit(rng), e(rng));
    }
    if (p < 45) return L::max() * unit(rng);  // squares overflow (double) or are huge (float)
    return unit(rng) * T(1000);
  } else {
    std::uniform_int_distribution<T> any(std::numeric_limits<T>::min() / 2,
                                         std::numeric_limits<T>::max() / 2);
    std::uniform_int_distribution<int> small(-1000, 1000);
    if (p < 5) return std::numeric_limits<T>::min();
    if (p < 10) return std::numeric_limits<T>::max();
    if (p < 50) return any(rng);
    return static_cast<T>(small(rng));
  }
}

inline std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

inline rt::Box box3(rt::Vec3 lo, rt::Vec3 hi) {
  rt::Box b;
  b.dims = 3;
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// The host's reduction of the same cells (row-major buffer `buffer`, x fastest).
template <typename T>
rt::Reduction host_reduction(rt::ReduceOp op, const std::vector<T>& a, const std::vector<T>* m,
                             const rt::Box& buffer, const rt::Box& box) {
  rt::Reduction r(op);
  if (box.empty()) return r;
  for (rt::Index z = box.lo[2]; z < box.hi[2]; ++z)
    for (rt::Index y = box.lo[1]; y < box.hi[1]; ++y)
      for (rt::Index x = box.lo[0]; x < box.hi[0]; ++x) {
        const auto i = static_cast<std::size_t>(
            (x - buffer.lo[0]) +
            buffer.extent(0) * ((y - buffer.lo[1]) + buffer.extent(1) * (z - buffer.lo[2])));
        if (m) {
          // The subtraction in T (unsigned wrap-around for integers, as a device computes it).
          using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>;
          if constexpr (std::is_integral_v<T>)
            r.add(static_cast<T>(static_cast<U>(a[i]) - static_cast<U>((*m)[i])));
          else
            r.add(static_cast<T>(a[i] - (*m)[i]));
        } else {
          r.add(a[i]);
        }
      }
  return r;
}

inline const char* op_name(rt::ReduceOp op) {
  switch (op) {
    case rt::ReduceOp::kSum:
      return "sum";
    case rt::ReduceOp::kL2:
      return "l2";
    case rt::ReduceOp::kMin:
      return "min";
    case rt::ReduceOp::kMax:
      return "max";
    case rt::ReduceOp::kLinf:
      return "linf";
  }
  return "";
}

constexpr rt::ReduceOp kOps[] = {rt::ReduceOp::kSum, rt::ReduceOp::kL2, rt::ReduceOp::kMin,
                                 rt::ReduceOp::kMax, rt::ReduceOp::kLinf};

/// One comparison: the device's and the host's reductions of `box`, bit for bit.
template <typename T, typename Backend, typename Buf>
void compare(Backend& backend, rt::ReduceOp op, const Buf& da, const Buf* dm,
             const std::vector<T>& a, const std::vector<T>* m, const rt::Box& buffer,
             const rt::Box& box, const std::string& what) {
  const rt::Reduction want = host_reduction(op, a, m, buffer, box);
  rt::Reduction got(op);
  backend.template reduce<T>(da, dm, buffer, box, got);
  const std::string where = what + ", op " + op_name(op) + (m ? ", minus" : "") + ", box " +
                            box.str() + ": host " + std::to_string(want.value()) + ", device " +
                            std::to_string(got.value());
  INFO(where);
  CHECK(bits(got.value()) == bits(want.value()));
  if (op == rt::ReduceOp::kSum || op == rt::ReduceOp::kL2)
    CHECK(got.exact().words() == want.exact().words());
}

/// Every op, with and without minus, on the boxes of one buffer of random T values.
template <typename T, typename Backend>
void all_ops(Backend& backend, Mix mix, std::uint64_t seed, const rt::Box& buffer,
             const std::vector<rt::Box>& boxes, const std::string& type) {
  std::mt19937_64 rng(seed);
  const auto n = static_cast<std::size_t>(buffer.volume());
  std::vector<T> a(n), m(n);
  for (auto& v : a) v = random_value<T>(rng, mix);
  for (auto& v : m) v = random_value<T>(rng, mix);
  const auto da = backend.template upload<T>(a);
  const auto dm = backend.template upload<T>(m);
  for (const rt::Box& box : boxes)
    for (rt::ReduceOp op : kOps) {
      const std::string what = type + ", " + mix_name(mix);
      compare<T>(backend, op, da, static_cast<decltype(&da)>(nullptr), a, nullptr, buffer, box,
                 what);
      compare<T>(backend, op, da, &dm, a, &m, buffer, box, what);
    }
}

/// The boxes every type is tested on: a buffer with a negative origin (a part's ghost frame),
/// its interior, a box at its corner, a row, a column, one cell, an empty box, the whole.
inline void standard_boxes(rt::Box& buffer, std::vector<rt::Box>& boxes) {
  buffer = box3({-2, -3, -1}, {71, 37, 6});
  boxes = {box3({0, 0, 0}, {69, 34, 5}),   box3({-2, -3, -1}, {71, 37, 6}),
           box3({5, 7, 2}, {6, 8, 3}),     box3({-2, 30, 4}, {71, 31, 5}),
           box3({40, -3, 0}, {41, 37, 3}), box3({3, 3, 3}, {3, 9, 5}),
           box3({60, 0, 0}, {71, 37, 6})};
}

template <typename T, typename Backend>
void every_mix(Backend& backend, const std::string& type) {
  rt::Box buffer;
  std::vector<rt::Box> boxes;
  standard_boxes(buffer, boxes);
  std::uint64_t seed = 1;
  if constexpr (std::is_floating_point_v<T>) {
    for (Mix mix : {Mix::kFinite, Mix::kInfinities, Mix::kNan, Mix::kSmall, Mix::kZeros})
      all_ops<T>(backend, mix, seed++, buffer, boxes, type);
  } else {
    all_ops<T>(backend, Mix::kFinite, seed, buffer, boxes, type);
  }
}

/// Every type.
template <typename Backend>
void every_type(Backend& backend) {
  every_mix<float>(backend, "float");
  every_mix<double>(backend, "double");
  every_mix<std::int32_t>(backend, "int32");
  every_mix<std::int64_t>(backend, "int64");
  every_mix<std::uint32_t>(backend, "uint32");
}

/// Values whose exact sum needs every limb a type can touch: the largest and smallest
/// magnitudes, cancelling pairs, a sum whose rounding is a tie (float data; the device's and
/// the host's accumulators must agree to the last limb).
template <typename Backend>
void hard_floats(Backend& backend) {
  const rt::Box buffer = box3({0, 0, 0}, {16, 4, 1});
  std::vector<float> a(64, 0.0f);
  const float big = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float vals[] = {big,      big,      -big,      tiny, tiny, -tiny, 1.0f,
                        0x1p-24f, -0.0f,    0x1p-149f, 3.0f, -big, big,   0x1.fffffep+127f,
                        -1.0f,    0x1p-126f};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = vals[i % 16] * (i % 3 == 0 ? 1.0f : -1.0f);
  const auto da = backend.template upload<float>(a);
  for (rt::ReduceOp op : kOps)
    compare<float>(backend, op, da, static_cast<decltype(&da)>(nullptr), a, nullptr, buffer, buffer,
                   "float extremes");
}

/// Many large values per work-item (a backend made with max_items 64: each of its 64 work-items
/// adds about 2^17 values, four at a time): the float kernels' 64-bit accumulators overflow
/// unless they carry into 32-bit digits as they go (sum: 2^15 payloads of 2^48, l2: 2^17 of
/// 2^46 at the class's top).
template <typename Backend>
void many_per_item(Backend& backend) {
  const rt::Box buffer = box3({0, 0, 0}, {256, 33000, 1});
  std::vector<float> a(static_cast<std::size_t>(buffer.volume()), 0x1.fffffep125f);
  for (std::size_t i = 0; i < a.size(); i += 1001) a[i] = 1.0f;
  const auto da = backend.template upload<float>(a);
  for (rt::ReduceOp op : {rt::ReduceOp::kSum, rt::ReduceOp::kL2})
    compare<float>(backend, op, da, static_cast<decltype(&da)>(nullptr), a, nullptr, buffer, buffer,
                   "float, many large values per work-item");
}

/// Long rows for few work-items (a backend made with max_items 64: 64 lanes): each work-item
/// reads four cells of a row at a time, then the rest one by one.
template <typename Backend>
void long_rows(Backend& backend) {
  const rt::Box buffer = box3({-1, 0, 0}, {300, 9, 2});
  const std::vector<rt::Box> boxes = {buffer, box3({2, 1, 0}, {290, 8, 2}),
                                      box3({0, 4, 1}, {257, 5, 2})};
  all_ops<float>(backend, Mix::kFinite, 21, buffer, boxes, "float");
  all_ops<double>(backend, Mix::kFinite, 22, buffer, boxes, "double");
  all_ops<double>(backend, Mix::kZeros, 23, buffer, boxes, "double");
  all_ops<std::int32_t>(backend, Mix::kFinite, 24, buffer, boxes, "int32");
}

}  // namespace reduce_cases

#pragma once
/// \file
/// What the device reductions of both backends share (stepgen/exec/reduce_opencl.hpp,
/// stepgen/exec/reduce_cuda.hpp): the work split, the limbs each type and operation can touch, and
/// the host side that merges the device's partial results into an rt::Reduction.
///
/// How a device reduces the cells of a box, exactly (the same bits as rt::Reduction adding the
/// same values on the host, whatever the device and the number of work-items):
///  1. `items` work-items (kItemsPerUnit per compute unit, fewer for small boxes) each take
///     the columns x = lane, lane + lanes, ... of the rows row, row + rows_step, ... of the box
///     (consecutive work-items read consecutive cells: coalesced). For `sum` and `l2` each keeps
///     a private exact accumulator over the limbs its type and operation can touch (the 32-bit
///     limbs of rt::ExactSum, from 2^-1074, held in 64-bit words; float sum: 10 limbs, float
///     l2: 19, double: 66), adds each value's significand at its place (2 or 3 limb additions,
///     integer only), counts NaN and infinities apart, and at the end carries its limbs into
///     32-bit digits and writes them, one column per limb, to scratch. Float sum and l2 (and
///     only those: the hot paths) keep each limb in a register instead of an array indexed by
///     each value's exponent, which a GPU keeps in (slow) local memory: a value's payload goes
///     to its exponent class (sum: 9 classes one limb wide, l2: 9 two limbs wide) through a
///     fully unrolled compare over the classes, and the limbs are carried into 32-bit digits
///     every 64 (l2: 256) values to keep room in 64 bits. Most values skip that compare: sum
///     adds a value of the work-item's hot class to one accumulator, l2 sums the squares of the
///     values within 32 binary orders below the largest recent one exactly in 128 bits
///     (cuda::reduce_detail::FloatAcc, reduce_opencl.hpp's FLOAT_MODE). OpenCL on a CPU
///     computes float l2 with the indexed array, cheaper there (cl::Reducer::FloatL2). For `min`,
///     `max` and `linf` each keeps the smallest and the largest value (-0 before +0) and whether it
///     saw a NaN.
///  2. A column kernel sums the columns (int64: no overflow for 2^31 rows of 32-bit digits)
///     down to at most kHostRows rows, in one or two levels; the extremes are merged alike.
///  3. The host reads those rows and merges them into the rt::Reduction: the limbs as an
///     rt::ExactSum (Reduction::merge_exact), the extremes through Reduction::add, which is
///     what the host would have done with the values themselves.
/// Integer sums and integer additions are associative, so the split changes nothing.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "stepgen/description/reduce.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt::device_reduce {

/// Work-items per compute unit (CUDA: per SM) on a GPU: enough resident threads to read at the
/// memory's speed; each keeps a few limbs in private memory.
constexpr Index kItemsPerUnit = 1024;
/// Work-items per compute unit on a CPU device (PoCL): one work-group of them per core.
constexpr Index kItemsPerCpuUnit = 64;
/// Work-group (block) size of the first kernel; lanes are a multiple of it.
constexpr Index kGroup = 64;
/// Rows the host reads (per column) after the column kernels.
constexpr Index kHostRows = 32;
/// Rows after the first column level when there are more than kTwoLevels items.
constexpr Index kMiddleRows = 2048;
constexpr Index kTwoLevels = 4096;

/// The data types a device reduces.
enum class Kind { kFloat, kDouble, kInt32, kInt64, kUint32 };

template <typename T>
constexpr Kind kind_of() {
  if constexpr (std::is_same_v<T, float>)
    return Kind::kFloat;
  else if constexpr (std::is_same_v<T, double>)
    return Kind::kDouble;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return Kind::kInt32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return Kind::kInt64;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return Kind::kUint32;
  else
    static_assert(sizeof(T) == 0, "device reductions take float, double, int32, int64, uint32");
}

/// The limbs [lo, hi] of rt::ExactSum that `sum` (square = false) or `l2` (square = true) of
/// one type can touch, each value's significand being added at its place (3 limbs from its
/// lowest one for doubles, 2 for float sums, 3 for float squares). Float: value mant * 2^(e -
/// 150), its bit 0 at position e + 924 from 2^-1074 (e in 1..254); its square's at 2e + 774.
/// Integers: their double (and its rounded square) is 1 <= |v| <= 2^63 (2^126 squared).
struct Limbs {
  int lo = 0, hi = 0;
  constexpr int count() const { return hi - lo + 1; }
};
constexpr Limbs limbs(Kind kind, bool square) {
  switch (kind) {
    case Kind::kFloat:
      return square ? Limbs{(2 + 774) >> 5, ((2 * 254 + 774) >> 5) + 2}
                    : Limbs{(1 + 924) >> 5, ((254 + 924) >> 5) + 1};
    case Kind::kDouble:
      return {0, (2045 >> 5) + 2};
    case Kind::kInt32:  // |v| <= 2^31, squares <= 2^62
      return {1022 >> 5, (((square ? 62 : 31) + 1022) >> 5) + 2};
    case Kind::kUint32:  // v < 2^32, squares < 2^64
      return {1022 >> 5, (((square ? 63 : 31) + 1022) >> 5) + 2};
    case Kind::kInt64:  // |v| <= 2^63, squares <= 2^126
      return {1022 >> 5, (((square ? 126 : 63) + 1022) >> 5) + 2};
  }
  return {0, ExactSum::kLimbs - 1};
}

/// Columns of the exact kernels' output: the limbs, then the NaN, +inf and -inf counts.
constexpr int columns(Kind kind, bool square) {
  return limbs(kind, square).count() + 3;
}

/// How the work-items cover a box of a buffer (x fastest): `lanes` work-items across x (a
/// multiple of kGroup), `row_items` along the rows (y and z flattened).
struct Geometry {
  Index nx = 0, ny = 0, rows = 0;  ///< the box: x extent, y extent, rows (y times z)
  Index base = 0;                  ///< the box's first cell in the buffer, in elements
  Index sy = 0, sz = 0;            ///< the buffer's row and slice pitch, in elements
  Index lanes = 0, row_items = 0;
  Index items() const { return lanes * row_items; }
};

/// The geometry of a reduction over `box` of a buffer holding `buffer`, with at most about
/// `max_items` work-items. Throws std::invalid_argument when the buffer does not hold the box.
inline Geometry geometry(const Box& buffer, const Box& box, Index max_items) {
  if (!buffer.contains(box))
    throw std::invalid_argument("device reduction over " + box.str() +
                                " of a buffer holding only " + buffer.str());
  Geometry g;
  g.nx = box.extent(0);
  g.ny = box.extent(1);
  g.rows = box.extent(1) * box.extent(2);
  g.sy = buffer.extent(0);
  g.sz = buffer.extent(0) * buffer.extent(1);
  g.base = (box.lo[0] - buffer.lo[0]) + (box.lo[1] - buffer.lo[1]) * g.sy +
           (box.lo[2] - buffer.lo[2]) * g.sz;
  const Index cap = std::max(kGroup, std::min<Index>(1024, max_items / kGroup * kGroup));
  g.lanes = std::min((g.nx + kGroup - 1) / kGroup * kGroup, cap);
  g.row_items = std::max<Index>(1, std::min(g.rows, max_items / g.lanes));
  return g;
}

/// The row counts of the column levels after the first kernel's `items` rows: one or two
/// levels, the last one at most kHostRows rows (none when items <= kHostRows).
inline std::vector<Index> levels(Index items) {
  std::vector<Index> v;
  if (items > kTwoLevels) v.push_back(kMiddleRows);
  if (items > kHostRows) v.push_back(kHostRows);
  return v;
}

/// Merges the host's copy of the last column level (`rows` rows of columns(kind, square)
/// columns, column-major: column c of row r at c * rows + r) into `into`.
inline void merge_limbs(Kind kind, bool square, const std::int64_t* cols, Index rows,
                        Reduction& into) {
  const Limbs l = limbs(kind, square);
  ExactSum::Words w{};
  for (int c = 0; c < l.count() + 3; ++c) {
    std::int64_t s = 0;
    for (Index r = 0; r < rows; ++r) s += cols[c * rows + r];
    const int word = c < l.count() ? l.lo + c : ExactSum::kLimbs + (c - l.count());
    w[static_cast<std::size_t>(word)] = s;
  }
  into.merge_exact(ExactSum::from_words(w));
}

/// Flags of the extreme kernels: a value (not NaN) was seen, a NaN was seen.
constexpr std::int32_t kSeen = 1, kNan = 2;

/// Merges the host's copy of the last extreme level (`rows` smallest, largest values, flags)
/// into `into` (op min, max or linf): each candidate goes through Reduction::add as a value
/// would, so the result is what the host gives over the cells themselves.
template <typename T>
void merge_extremes(const T* min, const T* max, const std::int32_t* flags, Index rows,
                    Reduction& into) {
  for (Index r = 0; r < rows; ++r) {
    if (flags[r] & kNan) into.add(std::numeric_limits<double>::quiet_NaN());
    if (!(flags[r] & kSeen)) continue;
    if (into.op() != ReduceOp::kMax) into.add(min[r]);  // min; linf takes |min| and |max|
    if (into.op() != ReduceOp::kMin) into.add(max[r]);
  }
}

/// True for the operations the exact kernels compute (the others: the extreme kernels).
inline bool is_exact(ReduceOp op) {
  return op == ReduceOp::kSum || op == ReduceOp::kL2;
}

}  // namespace stepgen::rt::device_reduce

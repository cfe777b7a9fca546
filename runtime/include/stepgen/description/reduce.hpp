#pragma once
/// \file
/// Reductions whose value does not depend on how the cells were split: over any number of
/// devices, ranks or chunks, in any order, the result is the same bits.
///
/// `sum` and `l2` go through an exact accumulator (a fixed-point integer wide enough for every
/// double, in 32-bit limbs held in 64-bit words so that additions need no carry for 2^30
/// terms): adding is exact and associative, merging two accumulators is adding their limbs, and
/// value() rounds the exact sum once, to nearest with ties to even, as Python's math.fsum
/// does. The square of a float is exact in double, so `l2` of float data is the square root of
/// the correctly rounded exact sum of squares. `min`, `max` and `linf` are exact anyway.
/// Standard library only; a merged accumulator travels between MPI ranks as kLimbs int64 words
/// (Words), summed element-wise (MPI_SUM) after normalize().

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace stepgen::rt {

/// The exact sum of doubles, rounded once at the end (ties to even).
class ExactSum {
 public:
  /// Bit 0 of limb 0 weighs 2^-1074 (the smallest subnormal); a double's 53-bit significand
  /// shifted into place spans at most three limbs; the top limbs take the carries of 2^31 sums
  /// of the largest doubles.
  static constexpr int kLimbs = 68;
  static constexpr int kLowExponent = -1074;
  using Words = std::array<std::int64_t, kLimbs + 3>;  ///< limbs, then NaN, +inf, -inf counts

  /// Adds x exactly (NaN and infinities are counted apart: value() gives NaN or +-inf).
  void add(double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
    const bool negative = (bits >> 63) != 0;
    if (biased == 0x7ff) {
      if (mant != 0)
        ++nan_;
      else
        ++(negative ? neg_inf_ : pos_inf_);
      return;
    }
    if (biased != 0) mant |= std::uint64_t{1} << 52;
    if (mant == 0) return;
    // x = mant * 2^(max(biased, 1) - 1075): bit position from 2^-1074.
    const int position = (biased == 0 ? 1 : biased) - 1;
    const int limb = position >> 5;
    const unsigned shift = static_cast<unsigned>(position & 31);
    const unsigned __int128 v = static_cast<unsigned __int128>(mant) << shift;
    const auto w0 = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) & 0xffffffffu);
    const auto w1 = static_cast<std::int64_t>(static_cast<std::uint64_t>(v >> 32) & 0xffffffffu);
    const auto w2 = static_cast<std::int64_t>(static_cast<std::uint64_t>(v >> 64));
    const auto l = static_cast<std::size_t>(limb);
    if (negative) {
      limbs_[l] -= w0;
      limbs_[l + 1] -= w1;
      limbs_[l + 2] -= w2;
    } else {
      limbs_[l] += w0;
      limbs_[l + 1] += w1;
      limbs_[l + 2] += w2;
    }
    if (++pending_ == kMaxPending) normalize();
  }

  /// Adds every term of another accumulator (exact: the result is as if this one had seen them).
  void merge(const ExactSum& other) {
    ExactSum o = other;
    o.normalize();
    normalize();
    for (int i = 0; i < kLimbs; ++i) limbs_[static_cast<std::size_t>(i)] += o.limbs_[i];
    nan_ += o.nan_;
    pos_inf_ += o.pos_inf_;
    neg_inf_ += o.neg_inf_;
    normalize();
  }

  /// Propagates carries: limbs 0..kLimbs-2 in [0, 2^32), the top limb signed.
  void normalize() {
    for (int i = 0; i + 1 < kLimbs; ++i) {
      const std::int64_t carry = limbs_[static_cast<std::size_t>(i)] >> 32;  // floor division
      limbs_[static_cast<std::size_t>(i)] -= carry * (std::int64_t{1} << 32);
      limbs_[static_cast<std::size_t>(i) + 1] += carry;
    }
    pending_ = 0;
  }

  /// The exact sum rounded to the nearest double, ties to even (an exact zero is +0.0; NaN if
  /// a term was NaN or both infinities occurred; +-inf if one did or the sum overflows).
  double value() const {
    if (nan_ > 0 || (pos_inf_ > 0 && neg_inf_ > 0)) return std::numeric_limits<double>::quiet_NaN();
    if (pos_inf_ > 0) return std::numeric_limits<double>::infinity();
    if (neg_inf_ > 0) return -std::numeric_limits<double>::infinity();
    ExactSum m = *this;
    m.normalize();
    const bool negative = m.limbs_[kLimbs - 1] < 0;
    if (negative) {
      for (auto& l : m.limbs_) l = -l;
      m.normalize();
    }
    int top = kLimbs - 1;
    while (top >= 0 && m.limbs_[static_cast<std::size_t>(top)] == 0) --top;
    if (top < 0) return 0.0;
    // The top four limbs (or limbs 0-3) as one 128-bit integer, the rest as a sticky bit.
    const int base = top < 3 ? 0 : top - 3;
    unsigned __int128 hi = 0;
    for (int i = base + 3; i >= base; --i)
      hi = (hi << 32) | static_cast<std::uint64_t>(m.limbs_[static_cast<std::size_t>(i)]);
    bool sticky = false;
    for (int i = 0; i < base; ++i) sticky = sticky || m.limbs_[static_cast<std::size_t>(i)] != 0;
    int bits = 0;
    for (unsigned __int128 v = hi; v != 0; v >>= 1) ++bits;
    const int hi_exponent = 32 * base + kLowExponent;   // weight of hi's bit 0
    const int lead = hi_exponent + bits - 1;            // weight of the leading bit
    const int ulp = std::max(lead - 52, kLowExponent);  // of the rounded result
    const int drop = ulp - hi_exponent;                 // bits of hi below the ulp
    unsigned __int128 q = drop > 0 ? hi >> drop : hi;
    if (drop > 0) {
      const unsigned __int128 rest = hi & ((static_cast<unsigned __int128>(1) << drop) - 1);
      const unsigned __int128 half = static_cast<unsigned __int128>(1) << (drop - 1);
      if (rest > half || (rest == half && (sticky || (q & 1) != 0))) ++q;
    }
    const double r = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(q)), ulp);
    return negative ? -r : r;
  }

  /// The accumulator as words (normalized first): what ranks sum element-wise.
  Words words() const {
    ExactSum m = *this;
    m.normalize();
    Words w{};
    for (int i = 0; i < kLimbs; ++i)
      w[static_cast<std::size_t>(i)] = m.limbs_[static_cast<std::size_t>(i)];
    w[kLimbs] = m.nan_;
    w[kLimbs + 1] = m.pos_inf_;
    w[kLimbs + 2] = m.neg_inf_;
    return w;
  }
  static ExactSum from_words(const Words& w) {
    ExactSum s;
    for (int i = 0; i < kLimbs; ++i)
      s.limbs_[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(i)];
    s.nan_ = w[kLimbs];
    s.pos_inf_ = w[kLimbs + 1];
    s.neg_inf_ = w[kLimbs + 2];
    s.normalize();
    return s;
  }

 private:
  static constexpr std::int64_t kMaxPending = std::int64_t{1} << 30;
  std::array<std::int64_t, kLimbs> limbs_{};
  std::int64_t pending_ = 0;
  std::int64_t nan_ = 0, pos_inf_ = 0, neg_inf_ = 0;
};

/// The reductions a spec names.
enum class ReduceOp { kSum, kMin, kMax, kL2, kLinf };

inline ReduceOp parse_reduce_op(const std::string& s) {
  if (s == "sum") return ReduceOp::kSum;
  if (s == "min") return ReduceOp::kMin;
  if (s == "max") return ReduceOp::kMax;
  if (s == "l2") return ReduceOp::kL2;
  if (s == "linf") return ReduceOp::kLinf;
  throw std::invalid_argument("unknown reduction '" + s + "' (sum, min, max, l2 or linf)");
}

/// One reduction in progress: add the cells of every part (any order, any split), merge the
/// partial reductions of other devices or ranks, read value().
class Reduction {
 public:
  explicit Reduction(ReduceOp op) : op_(op) {}

  /// One cell's value (for `minus`, the difference computed in the arrays' type first).
  template <typename T>
  void add(T x) {
    switch (op_) {
      case ReduceOp::kSum:
        sum_.add(static_cast<double>(x));
        break;
      case ReduceOp::kL2: {
        const double d = static_cast<double>(x);
        sum_.add(d * d);  // exact for float (and narrower) data
        break;
      }
      case ReduceOp::kMin:
        extreme(static_cast<double>(x), true);
        break;
      case ReduceOp::kMax:
        extreme(static_cast<double>(x), false);
        break;
      case ReduceOp::kLinf:
        extreme(std::fabs(static_cast<double>(x)), false);
        break;
    }
  }

  template <typename T>
  void add(const T* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) add(values[i]);
  }

  void merge(const Reduction& o) {
    sum_.merge(o.sum_);
    if (o.seen_) {
      if (o.nan_) nan_ = true;
      if (!seen_) {
        extreme_ = o.extreme_;
      } else if (op_ == ReduceOp::kMin ? before(o.extreme_, extreme_)
                                       : before(extreme_, o.extreme_)) {
        extreme_ = o.extreme_;
      }
      seen_ = true;
    }
  }

  /// The result; min/max/linf of no cell: NaN (a reduction over nothing has no value).
  double value() const {
    switch (op_) {
      case ReduceOp::kSum:
        return sum_.value();
      case ReduceOp::kL2:
        return std::sqrt(sum_.value());
      default:
        if (!seen_ || nan_) return std::numeric_limits<double>::quiet_NaN();
        return extreme_;
    }
  }

  ReduceOp op() const { return op_; }
  const ExactSum& exact() const { return sum_; }

  /// Adds the terms an exact accumulator summed elsewhere (a device's partial sum of `sum` or
  /// `l2`: the terms already squared), as if add() had seen each of them.
  void merge_exact(const ExactSum& partial) { sum_.merge(partial); }
  /// What travels between MPI ranks (mpi.hpp): the exact sum's words, the extreme and whether
  /// a cell was seen and whether one was NaN. from_parts(op, parts()) is the same reduction.
  struct Parts {
    ExactSum::Words words;
    double extreme;
    std::int64_t seen, nan;
  };
  Parts parts() const { return {sum_.words(), extreme_, seen_ ? 1 : 0, nan_ ? 1 : 0}; }
  static Reduction from_parts(ReduceOp op, const Parts& p) {
    Reduction r(op);
    r.sum_ = ExactSum::from_words(p.words);
    r.extreme_ = p.extreme;
    r.seen_ = p.seen != 0;
    r.nan_ = p.nan != 0;
    return r;
  }

 private:
  /// a < b, with -0.0 before +0.0: which zero wins must not depend on the order of the cells.
  static bool before(double a, double b) {
    return a < b || (a == b && std::signbit(a) && !std::signbit(b));
  }
  void extreme(double x, bool min) {
    if (std::isnan(x)) {
      nan_ = true;
      seen_ = true;
      return;
    }
    if (!seen_ || (min ? before(x, extreme_) : before(extreme_, x))) extreme_ = x;
    seen_ = true;
  }

  ReduceOp op_;
  ExactSum sum_;
  double extreme_ = 0;
  bool seen_ = false, nan_ = false;
};

}  // namespace stepgen::rt

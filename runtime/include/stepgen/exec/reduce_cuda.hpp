#pragma once
/// \file
/// Exact reductions on a CUDA GPU (see stepgen/exec/reduce_device.hpp for the method): the same
/// bits as rt::Reduction adding the same values on the host, for float, double, int32, int64
/// and uint32 data, ops sum, l2, min, max and linf, over a box of a device buffer (of
/// `a - minus` when minus is given, the subtraction in the data's type). No shared memory,
/// no atomics, no warp intrinsics: the kernels also run on the CPU emulation of the tests
/// (tests/cuda_emu). One cuda::Reducer per GPU holds its scratch buffers. Include it from a
/// .cu file (it defines kernels).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "stepgen/description/reduce.hpp"
#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/reduce_device.hpp"

/// A loop nvcc must not unroll (host compilers, the CPU emulation's, have no such pragma).
#if defined(__CUDACC__)
#define STEPGEN_REDUCE_NO_UNROLL _Pragma("unroll 1")
#else
#define STEPGEN_REDUCE_NO_UNROLL
#endif
/// A loop nvcc must unroll fully (its array indices become constants: registers, not local
/// memory).
#if defined(__CUDACC__)
#define STEPGEN_REDUCE_UNROLL _Pragma("unroll")
#else
#define STEPGEN_REDUCE_UNROLL
#endif

namespace stepgen::cuda {

namespace reduce_detail {

using I64 = long long;
using U64 = unsigned long long;

__device__ __forceinline__ std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

__device__ __forceinline__ U64 double_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<U64>(__double_as_longlong(x));
#else
  U64 b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

/// A double added as rt::ExactSum::add does: three limbs from its lowest one.
template <int Lo>
__device__ __forceinline__ void add_double(I64* acc, I64* cnt, double x) {
  const U64 b = double_bits(x);
  int e = static_cast<int>((b >> 52) & 0x7ffu);
  U64 mant = b & 0xfffffffffffffull;
  if (e == 0x7ff) {
    if (mant != 0u)
      cnt[0] += 1;
    else if ((b >> 63) == 0u)
      cnt[1] += 1;
    else
      cnt[2] += 1;
    return;
  }
  if (e != 0)
    mant |= 0x10000000000000ull;
  else
    e = 1;
  if (mant == 0u) return;
  const int p = e - 1;
  const int s = p & 31, l = (p >> 5) - Lo;
  const U64 v = mant << s;
  const I64 w0 = static_cast<I64>(v & 0xffffffffull), w1 = static_cast<I64>(v >> 32);
  const I64 w2 = s != 0 ? static_cast<I64>(mant >> (64 - s)) : 0;
  if ((b >> 63) != 0u) {
    acc[l] -= w0;
    acc[l + 1] -= w1;
    acc[l + 2] -= w2;
  } else {
    acc[l] += w0;
    acc[l + 1] += w1;
    acc[l + 2] += w2;
  }
}

template <bool Square, int Lo, typename T>
__device__ __forceinline__ void add_value(I64* acc, I64* cnt, T v) {
  static_assert(!std::is_same_v<T, float>, "floats: FloatAcc");
  const double d = static_cast<double>(v);  // round to nearest (int64)
  add_double<Lo>(acc, cnt, Square ? __dmul_rn(d, d) : d);
}

/// a[i] - m[i] in T (integers: wrapping, as the hardware subtracts).
template <typename T>
__device__ __forceinline__ T value(const T* a, const T* m, int has_minus, I64 i) {
  if (!has_minus) return a[i];
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a[i]) - static_cast<U>(m[i]));
  } else {
    return a[i] - m[i];
  }
}

template <typename T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_same_v<T, float>)
    return (float_bits(v) & 0x7fffffffu) > 0x7f800000u;
  else if constexpr (std::is_same_v<T, double>)
    return (double_bits(v) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
  else
    return false;
}

/// x before y: x < y, and -0 before +0 (which zero wins must not depend on the cells' order).
template <typename T>
__device__ __forceinline__ bool before(T x, T y) {
  if constexpr (std::is_same_v<T, float>)
    return x < y || (x == y && (float_bits(x) >> 31) != 0u && (float_bits(y) >> 31) == 0u);
  else if constexpr (std::is_same_v<T, double>)
    return x < y || (x == y && (double_bits(x) >> 63) != 0u && (double_bits(y) >> 63) == 0u);
  else
    return x < y;
}

/// The cells of one work-item: lanes across x, row items along the rows.
struct Cells {
  I64 base, nx, ny, rows, sy, sz, lanes, row_items;
};

/// f(v) for each value of work-item g's cells, then after(k) after each group of k values.
/// Four loads (eight with minus) are issued before their values are added: enough bytes in
/// flight per thread to read at the memory's speed.
template <typename T, typename F, typename A>
__device__ __forceinline__ void for_cells_after(const T* a, const T* m, int has_minus,
                                                const Cells& c, I64 g, F&& f, A&& after) {
  const I64 lane = g % c.lanes;
  for (I64 r = g / c.lanes; r < c.rows; r += c.row_items) {
    const I64 start = c.base + (r % c.ny) * c.sy + (r / c.ny) * c.sz;
    I64 x = lane;
    for (; x + 3 * c.lanes < c.nx; x += 4 * c.lanes) {
      const T v0 = value(a, m, has_minus, start + x);
      const T v1 = value(a, m, has_minus, start + x + c.lanes);
      const T v2 = value(a, m, has_minus, start + x + 2 * c.lanes);
      const T v3 = value(a, m, has_minus, start + x + 3 * c.lanes);
      f(v0);
      f(v1);
      f(v2);
      f(v3);
      after(4);
    }
    for (; x < c.nx; x += c.lanes) {
      f(value(a, m, has_minus, start + x));
      after(1);
    }
  }
}

/// f(v) for each value of work-item g's cells.
template <typename T, typename F>
__device__ __forceinline__ void for_cells(const T* a, const T* m, int has_minus, const Cells& c,
                                          I64 g, F&& f) {
  for_cells_after(a, m, has_minus, c, g, f, [](int) {});
}

/// Whether any thread of the warp has `miss`: the branch of the misses is then uniform, and a
/// real branch the warp skips (a condition of one thread may be turned into predicated
/// instructions run by every value). The CPU emulation runs one thread: `miss` itself.
__device__ __forceinline__ bool warp_any(bool miss) {
#if defined(__CUDA_ARCH__)
  return __any_sync(__activemask(), miss) != 0;
#else
  return miss;
#endif
}

/// acc += w when c == j. On the GPU one compare and a predicated 64-bit addition (2
/// instructions): written in C, nvcc selects w or 0 first (2 more per limb, on every limb of
/// every value of the float kernels).
__device__ __forceinline__ void add_if(I64& acc, int c, int j, I64 w) {
#if defined(__CUDA_ARCH__)
  asm("{\n\t.reg .pred p;\n\tsetp.eq.s32 p, %1, %2;\n\t@p add.s64 %0, %0, %3;\n\t}"
      : "+l"(acc)
      : "r"(c), "r"(j), "l"(w));
#else
  if (c == j) acc += w;
#endif
}

/// a0 += w0, a1 += w1, a2 += w2 when c == j (one compare, three predicated additions).
__device__ __forceinline__ void add3_if(I64& a0, I64& a1, I64& a2, int c, int j, I64 w0, I64 w1,
                                        I64 w2) {
#if defined(__CUDA_ARCH__)
  asm("{\n\t.reg .pred p;\n\tsetp.eq.s32 p, %3, %4;\n\t@p add.s64 %0, %0, %5;\n\t"
      "@p add.s64 %1, %1, %6;\n\t@p add.s64 %2, %2, %7;\n\t}"
      : "+l"(a0), "+l"(a1), "+l"(a2)
      : "r"(c), "r"(j), "l"(w0), "l"(w1), "l"(w2));
#else
  if (c == j) {
    a0 += w0;
    a1 += w1;
    a2 += w2;
  }
#endif
}

/// The float sum (Square false) and l2 of one thread, the hot paths: one accumulator per limb
/// [kLo, kLo + kN), indexed only by constants (fully unrolled loops: registers, never an array
/// indexed by each value's exponent, which a GPU keeps in local memory). A value's payload goes
/// to the accumulator of its class, the limb of its lowest bit, through a compare over the
/// classes:
///   sum: x = mant * 2^(e - 150), its bit 0 at p = e + 924 from 2^-1074: class (p >> 5) - kLo
///        (0..8), payload +-mant << (p & 31) (|payload| < 2^55);
///   l2:  x^2 = mant^2 * 2^(2e - 300), at p = 2e + 774: class (p >> 6) - kLo / 2 (0..8), two
///        limbs wide, payload mant^2 << (p & 63) < 2^112 in three pieces: bits 0..31, 32..63
///        (limbs kLo + 2 class, + 1) and the rest, < 2^47 (limb kLo + 2 class + 2).
/// How a float value reaches its class (STEPGEN_REDUCE_FLOAT; the benchmark `bench/run.sh
/// reduce` builds each): 0 the compare over the classes for every value; 1 the hot class first,
/// the compare over the classes for the others; 3 (the default) sum as 1, l2 through an
/// exponent window (FloatAcc::wlo). (A mode 2, the misses at a computed index of limbs in local
/// memory, was 2.5x slower on an H100 and is gone: bench/results/2026-11-24-reduce-h100.md.)
#ifndef STEPGEN_REDUCE_FLOAT
#define STEPGEN_REDUCE_FLOAT 3
#endif

/// The compare over the classes costs a predicated addition per class and limb for every value;
/// most values of real data share one class (a class spans 32 binary orders of magnitude of the
/// value), so a value of the thread's `hot` class (and a zero, whose payload is 0) goes to the
/// hot accumulators h0..h2 through one compare, and only the others (a branch a warp skips
/// when all its threads hit) go to the limbs of their class. carry() first adds the hot
/// accumulators to their class's limbs, and moves `hot` to the class of the last miss when more
/// than a quarter of the values since the last carry missed. Which accumulator a value goes
/// through changes no bit: the limbs receive the same integers.
/// Every kEvery values carry() turns the limbs into 32-bit digits (the top one signed), which
/// leaves room in 64 bits for the next values (a group of 4 may overshoot by 3: sum,
/// 2^32 + 67 * 2^55 < 2^63; l2, 2^32 + 259 * 2^47; the hot accumulators hold part of the same
/// values, so the bound holds after they are added); the last carry gives the digits the
/// generic path writes (the same integer, the same digits).
template <bool Square, int Mode = STEPGEN_REDUCE_FLOAT>
struct FloatAcc {
  static constexpr rt::device_reduce::Limbs kLimbs =
      rt::device_reduce::limbs(rt::device_reduce::Kind::kFloat, Square);
  static constexpr int kLo = kLimbs.lo, kN = kLimbs.count();
  static constexpr int kClasses = 9;
  static constexpr int kEvery = Square ? 256 : 64;
  static constexpr int kMode = Mode == 3 && !Square ? 1 : Mode;
  static_assert(kMode == 0 || kMode == 1 || kMode == 3, "STEPGEN_REDUCE_FLOAT: 0, 1 or 3");
  static_assert(kN == (Square ? 2 * kClasses + 1 : kClasses + 1) && kLo % 2 == 0,
                "float limbs: 10 for sum, 19 for l2 from an even limb");
  /// The class of 1.0 (sum: p = 1051, l2: p = 1028): where the hot class starts.
  static constexpr int kFirstHot = Square ? (1028 >> 6) - kLo / 2 : (1051 >> 5) - kLo;
  I64 acc[kN];
  I64 cnt[3];
  I64 h0 = 0, h1 = 0, h2 = 0;  ///< the hot class's payloads (sum: h0 only)
  int hot = kFirstHot;
  int misses = 0, last_miss = kFirstHot;
  /// l2's exponent window (mode 3): the squares of the values whose exponent e lies in
  /// [base, base + 32) are summed exactly in 128 bits (whi, wlo) in units of 2^(2 base - 300):
  /// x^2 (exact in double) times `scale` = 2^(300 - 2 base) is an integer below 2^110, split in
  /// double into its high and low 64 bits (both exact) and converted to integers; the others go
  /// through the compare over the classes. carry() adds the window's sum (below 2^118) to the
  /// limbs (at bit 2 base + 774 from 2^-1074: five 32-bit pieces from limb l0 <= 14, base
  /// being kept in [1, 236]) and moves the window's top to the largest exponent of the values
  /// since the last carry (emax): only values 2^32 times smaller than those miss. The double
  /// arithmetic only scales and splits exact values: no rounding anywhere.
  U64 wlo = 0, whi = 0;
  int base = 103;  // values 2^-24 .. 2^8
  double scale = 0x1p94;
  int emax = 0;

  __device__ __forceinline__ FloatAcc() {
    STEPGEN_REDUCE_UNROLL
    for (int i = 0; i < kN; ++i) acc[i] = 0;
    cnt[0] = cnt[1] = cnt[2] = 0;
  }

  /// The payload (w0, w1, w2; sum: w0) of class c added to its limbs.
  __device__ __forceinline__ void to_class(int c, I64 w0, I64 w1, I64 w2) {
    STEPGEN_REDUCE_UNROLL
    for (int j = 0; j < kClasses; ++j) {
      if constexpr (Square)
        add3_if(acc[2 * j], acc[2 * j + 1], acc[2 * j + 2], c, j, w0, w1, w2);
      else
        add_if(acc[j], c, j, w0);
    }
  }

  /// A payload of class c (k: c, or the hot class for a zero).
  __device__ __forceinline__ void add_payload(int c, int k, I64 w0, I64 w1, I64 w2) {
    if constexpr (kMode == 0) {
      to_class(c, w0, w1, w2);
    } else {
      if constexpr (Square)
        add3_if(h0, h1, h2, k, hot, w0, w1, w2);
      else
        add_if(h0, k, hot, w0);
      if (warp_any(k != hot) && k != hot) {
        to_class(c, w0, w1, w2);
        ++misses;
        last_miss = c;
      }
    }
  }

  __device__ __forceinline__ void add(float x) {
    const std::uint32_t b = float_bits(x);
    const int eb = static_cast<int>((b >> 23) & 0xffu);
    const std::uint32_t f = b & 0x7fffffu;
    if (eb == 0xff) {
      if (f != 0u)
        cnt[0] += 1;
      else if (Square || (b >> 31) == 0u)
        cnt[1] += 1;
      else
        cnt[2] += 1;
      return;
    }
    const int e = eb != 0 ? eb : 1;
    const std::uint32_t mant = eb != 0 ? (f | 0x800000u) : f;
    if constexpr (Square && kMode == 3) {
      const bool in = static_cast<unsigned>(e - base) < 32u;
      emax = max_(emax, mant != 0u ? e : 0);
      const double v = in ? static_cast<double>(x) * static_cast<double>(x) * scale : 0.0;
      const double hi = floor_(v * 0x1p-64);
      add128(static_cast<U64>(v - hi * 0x1p64), static_cast<U64>(hi));
      const bool miss = !in && mant != 0u;
      if (warp_any(miss) && miss) {
        const U64 sq = static_cast<U64>(mant) * mant;
        const int p = 2 * e + 774;
        const int c = (p >> 6) - kLo / 2, s = p & 63;
        const U64 low = sq << s;
        const I64 w0 = static_cast<I64>(low & 0xffffffffull), w1 = static_cast<I64>(low >> 32);
        const I64 w2 = static_cast<I64>((sq >> 1) >> (63 - s));
        to_class(c, w0, w1, w2);
      }
    } else if constexpr (Square) {
      const int p = 2 * e + 774;
      const int c = (p >> 6) - kLo / 2, s = p & 63;
      const U64 sq = static_cast<U64>(mant) * mant;
      const U64 low = sq << s;
      const I64 w0 = static_cast<I64>(low & 0xffffffffull), w1 = static_cast<I64>(low >> 32);
      const I64 w2 = static_cast<I64>((sq >> 1) >> (63 - s));
      add_payload(c, mant != 0u ? c : hot, w0, w1, w2);
    } else {
      const int p = e + 924;
      const int c = (p >> 5) - kLo;
      const I64 v = static_cast<I64>(static_cast<U64>(mant) << (p & 31));
      add_payload(c, mant != 0u ? c : hot, (b >> 31) != 0u ? -v : v, 0, 0);
    }
  }

  __device__ __forceinline__ static double floor_(double v) {
#if defined(__CUDA_ARCH__)
    return ::floor(v);
#else
    return std::floor(v);
#endif
  }

  /// (whi, wlo) += (hi, lo).
  __device__ __forceinline__ void add128(U64 lo, U64 hi) {
#if defined(__CUDA_ARCH__)
    asm("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, %3;" : "+l"(wlo), "+l"(whi) : "l"(lo), "l"(hi));
#else
    wlo += lo;
    whi += hi + (wlo < lo ? 1u : 0u);
#endif
  }

  /// The window's sum to the limbs (see wlo); the window moved where the misses are.
  __device__ __forceinline__ void flush_window() {
    const int p0 = 2 * base + 774;
    const int l0 = (p0 >> 5) - kLo, s0 = p0 & 31;
    const U64 n0 = wlo << s0;
    const U64 n1 = (whi << s0) | (s0 != 0 ? wlo >> (64 - s0) : 0ull);
    const U64 n2 = s0 != 0 ? whi >> (64 - s0) : 0ull;
    const auto q0 = static_cast<I64>(n0 & 0xffffffffull), q1 = static_cast<I64>(n0 >> 32);
    const auto q2 = static_cast<I64>(n1 & 0xffffffffull), q3 = static_cast<I64>(n1 >> 32);
    const auto q4 = static_cast<I64>(n2);
    STEPGEN_REDUCE_UNROLL
    for (int j = 0; j + 4 < kN; ++j) {
      add_if(acc[j], l0, j, q0);
      add_if(acc[j + 1], l0, j, q1);
      add_if(acc[j + 2], l0, j, q2);
      add_if(acc[j + 3], l0, j, q3);
      add_if(acc[j + 4], l0, j, q4);
    }
    wlo = whi = 0;
    if (emax > 0) {
      base = emax - 31 < 1 ? 1 : emax - 31 > 236 ? 236 : emax - 31;
      const U64 bits = static_cast<U64>(1023 + 300 - 2 * base) << 52;
#if defined(__CUDA_ARCH__)
      scale = __longlong_as_double(static_cast<long long>(bits));
#else
      std::memcpy(&scale, &bits, sizeof scale);
#endif
    }
    emax = 0;
  }

  __device__ __forceinline__ static int max_(int a, int b) {
    return a > b ? a : b;
  }

  /// Every kEvery values, and once at the end.
  __device__ __forceinline__ void carry() {
    if constexpr (Square && kMode == 3) {
      flush_window();
    } else if constexpr (kMode != 0) {
      // The hot accumulators to their class's limbs; the hot class where the misses go.
      to_class(hot, h0, h1, h2);
      h0 = h1 = h2 = 0;
      if (misses > kEvery / 4) hot = last_miss;
      misses = 0;
    }
    STEPGEN_REDUCE_UNROLL
    for (int i = 0; i + 1 < kN; ++i) {
      acc[i + 1] += acc[i] >> 32;  // floor: arithmetic shift
      acc[i] &= 0xffffffffll;
    }
  }
};

/// sum (Square false) or l2: each thread's exact accumulator over limbs [Lo, Lo + N), carried
/// into 32-bit digits, written as column c of row g (out[c * items + g]), then the counts.
/// Blocks of 64 threads per multiprocessor the exact kernels are compiled for (registers per
/// thread: 65536 / (64 * this)): 16, and 10 for float l2 (its 19 limbs, the window and the
/// loads in flight need about 93 registers: with 64 they spill, and it runs 2.3x slower on an
/// H100). STEPGEN_REDUCE_BLOCKS_PER_SM sets it for every kernel (the benchmark).
template <typename T, bool Square>
constexpr int reduce_blocks_per_sm() {
#ifdef STEPGEN_REDUCE_BLOCKS_PER_SM
  return STEPGEN_REDUCE_BLOCKS_PER_SM;
#else
  return std::is_same_v<T, float> && Square ? 10 : 16;
#endif
}

template <typename T, int Lo, int N, bool Square>
__global__ void __launch_bounds__(64, (reduce_blocks_per_sm<T, Square>()))
    stepgen_reduce_exact(const T* a, const T* m, int has_minus, Cells c, I64* out) {
  const I64 g = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x;
  const I64 items = c.lanes * c.row_items;
  if (g >= items) return;
  if constexpr (std::is_same_v<T, float>) {
    using Acc = FloatAcc<Square>;
    static_assert(Lo == Acc::kLo && N == Acc::kN, "float limbs");
    Acc s;
    int since = 0;
    for_cells_after(
        a, m, has_minus, c, g, [&](float v) { s.add(v); },
        [&](int k) {
          since += k;
          if (since >= Acc::kEvery) {
            since = 0;
            s.carry();
          }
        });
    s.carry();
    STEPGEN_REDUCE_UNROLL
    for (int i = 0; i < N; ++i) out[i * items + g] = s.acc[i];
    for (int i = 0; i < 3; ++i) out[(N + i) * items + g] = s.cnt[i];
  } else {
    I64 acc[N];
    I64 cnt[3] = {0, 0, 0};
    // The limb loops stay loops (acc lives in local memory, indexed by each value's exponent):
    // unrolled, they would take registers from the loads.
    STEPGEN_REDUCE_NO_UNROLL
    for (int i = 0; i < N; ++i) acc[i] = 0;
    for_cells(a, m, has_minus, c, g, [&](T v) { add_value<Square, Lo>(acc, cnt, v); });
    STEPGEN_REDUCE_NO_UNROLL
    for (int i = 0; i + 1 < N; ++i) {
      const I64 carry = acc[i] >> 32;  // floor: arithmetic shift
      acc[i] &= 0xffffffffll;
      acc[i + 1] += carry;
    }
    STEPGEN_REDUCE_NO_UNROLL
    for (int i = 0; i < N; ++i) out[i * items + g] = acc[i];
    for (int i = 0; i < 3; ++i) out[(N + i) * items + g] = cnt[i];
  }
}

/// Column c's rows r, r + dst_rows, ... of src (src_rows rows) summed into row r of dst (`I`:
/// I64; a template, as this header's other kernels, so that every translation unit that
/// includes it may hold it).
template <typename I>
__global__ void stepgen_reduce_columns(const I* src, I src_rows, I* dst, I dst_rows, I cols) {
  const I g = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= cols * dst_rows) return;
  const I col = g / dst_rows, r = g % dst_rows;
  I s = 0;
  for (I j = r; j < src_rows; j += dst_rows) s += src[col * src_rows + j];
  dst[g] = s;
}

/// Flags: bit 0 a value (not NaN) was seen, bit 1 a NaN was.
template <typename T>
__device__ __forceinline__ void take(T vmin, T vmax, T& lo, T& hi, int& flags) {
  if ((flags & 1) == 0) {
    lo = vmin;
    hi = vmax;
  } else {
    if (before(vmin, lo)) lo = vmin;
    if (before(hi, vmax)) hi = vmax;
  }
  flags |= 1;
}

template <typename T>
__global__ void stepgen_reduce_extremes(const T* a, const T* m, int has_minus, Cells c, T* out_min,
                                        T* out_max, int* out_flags) {
  const I64 g = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= c.lanes * c.row_items) return;
  T lo = T(0), hi = T(0);
  int flags = 0;
  for_cells(a, m, has_minus, c, g, [&](T v) {
    if (is_nan(v))
      flags |= 2;
    else
      take(v, v, lo, hi, flags);
  });
  out_min[g] = lo;
  out_max[g] = hi;
  out_flags[g] = flags;
}

/// Entries r, r + dst_rows, ... of src (src_rows entries) merged into entry r of dst.
template <typename T>
__global__ void stepgen_reduce_merge_extremes(const T* src_min, const T* src_max,
                                              const int* src_flags, I64 src_rows, T* dst_min,
                                              T* dst_max, int* dst_flags, I64 dst_rows) {
  const I64 r = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= dst_rows) return;
  T lo = T(0), hi = T(0);
  int flags = 0;
  for (I64 j = r; j < src_rows; j += dst_rows) {
    const int f = src_flags[j];
    flags |= f & 2;
    if ((f & 1) != 0) take(src_min[j], src_max[j], lo, hi, flags);
  }
  dst_min[r] = lo;
  dst_max[r] = hi;
  dst_flags[r] = flags;
}

/// Device memory owned (cudaFree on its GPU when it goes).
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { reset(); }
  void reset() {
    if (ptr_) {
      cudaSetDevice(ordinal_);
      cudaFree(ptr_);
    }
    ptr_ = nullptr;
    bytes_ = 0;
  }
  /// At least `bytes` on `d` (contents lost when it grows).
  void ensure(const Device& d, std::size_t bytes) {
    if (bytes <= bytes_ && ptr_) return;
    reset();
    d.use();
    check(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 8)),
          "cudaMalloc(reduction scratch, " + rt::human_bytes(static_cast<double>(bytes)) + ")", d);
    ordinal_ = d.ordinal;
    bytes_ = bytes;
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int ordinal_ = 0;
};

}  // namespace reduce_detail

/// The exact reductions of one GPU: scratch buffers grown as needed. Runs on the GPU's compute
/// stream, after what is enqueued there, and waits for its result. Not thread-safe (one per
/// GPU, used by the thread that drives it).
class Reducer {
 public:
  /// `max_items`: at most that many threads in the first kernel (0: kItemsPerUnit per SM).
  explicit Reducer(const Device& d, rt::Index max_items = 0) : d_(&d) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d.ordinal), "cudaGetDeviceProperties", d);
    max_items_ = static_cast<rt::Index>(std::max(prop.multiProcessorCount, 1)) *
                 rt::device_reduce::kItemsPerUnit;
    if (max_items > 0) max_items_ = max_items;
  }

  /// Adds op (into.op()) over the cells `box` of `a` (device memory holding the box `buffer`,
  /// x fastest), of a - *minus (the subtraction in T) when minus is not null, into `into`.
  template <typename T>
  void reduce_box(const Buffer& a, const Buffer* minus, const rt::Box& buffer, const rt::Box& box,
                  rt::Reduction& into) {
    reduce<T>(static_cast<const T*>(a.get()),
              minus != nullptr ? static_cast<const T*>(minus->get()) : nullptr, buffer, box, into);
  }

  /// The same over raw device pointers.
  template <typename T>
  void reduce(const T* a, const T* minus, const rt::Box& buffer, const rt::Box& box,
              rt::Reduction& into) {
    namespace dr = rt::device_reduce;
    using reduce_detail::I64;
    if (box.empty()) return;
    const Device& d = *d_;
    d.use();
    const dr::Geometry geo = dr::geometry(buffer, box, max_items_);
    const I64 items = geo.items();
    const reduce_detail::Cells cells{geo.base, geo.nx, geo.ny,    geo.rows,
                                     geo.sy,   geo.sz, geo.lanes, geo.row_items};
    const int has_minus = minus != nullptr ? 1 : 0;
    const T* m = minus != nullptr ? minus : a;
    cudaStream_t stream = d.stream();
    const dim3 block(static_cast<unsigned>(dr::kGroup));
    const dim3 grid(static_cast<unsigned>(items / dr::kGroup));
    const std::vector<rt::Index> levels = dr::levels(items);
    const I64 rows = levels.empty() ? items : levels.back();
    const auto n = static_cast<std::size_t>(rows);

    if (dr::is_exact(into.op())) {
      const bool square = into.op() == rt::ReduceOp::kL2;
      const I64 cols = dr::columns(dr::kind_of<T>(), square);
      first_.ensure(d, static_cast<std::size_t>(cols * items) * sizeof(I64));
      second_.ensure(d, static_cast<std::size_t>(cols * dr::kMiddleRows) * sizeof(I64));
      if (square)
        launch_exact<T, true>(a, m, has_minus, cells, grid, block, stream);
      else
        launch_exact<T, false>(a, m, has_minus, cells, grid, block, stream);
      check(cudaGetLastError(), "stepgen_reduce_exact launch", d);
      I64 src_rows = items;
      reduce_detail::Scratch* src = &first_;
      reduce_detail::Scratch* dst = &second_;
      for (rt::Index next : levels) {
        auto* k = &reduce_detail::stepgen_reduce_columns<I64>;
        const dim3 g2(static_cast<unsigned>((cols * next + 255) / 256));
        STEPGEN_LAUNCH(k, g2, dim3(256), stream)
        (src->as<I64>(), src_rows, dst->as<I64>(), next, cols);
        check(cudaGetLastError(), "stepgen_reduce_columns launch", d);
        src_rows = next;
        std::swap(src, dst);
      }
      std::vector<I64> host(n * static_cast<std::size_t>(cols));
      read(host.data(), src->as<I64>(), host.size() * sizeof(I64));
      dr::merge_limbs(dr::kind_of<T>(), square, reinterpret_cast<const std::int64_t*>(host.data()),
                      rows, into);
      return;
    }

    // min, max, linf: per level, the minimums, maximums and flags one after the other.
    const std::size_t per = 2 * sizeof(T) + sizeof(int);
    first_.ensure(d, static_cast<std::size_t>(items) * per);
    second_.ensure(d, static_cast<std::size_t>(dr::kMiddleRows) * per);
    auto parts = [](reduce_detail::Scratch& s, I64 count, T*& lo, T*& hi, int*& flags) {
      lo = s.as<T>();
      hi = lo + count;
      flags = reinterpret_cast<int*>(hi + count);
    };
    T *lo = nullptr, *hi = nullptr;
    int* flags = nullptr;
    parts(first_, items, lo, hi, flags);
    auto* k1 = &reduce_detail::stepgen_reduce_extremes<T>;
    STEPGEN_LAUNCH(k1, grid, block, stream)(a, m, has_minus, cells, lo, hi, flags);
    check(cudaGetLastError(), "stepgen_reduce_extremes launch", d);
    I64 src_rows = items;
    reduce_detail::Scratch* src = &first_;
    reduce_detail::Scratch* dst = &second_;
    for (rt::Index next : levels) {
      T *slo, *shi, *dlo, *dhi;
      int *sf, *df;
      parts(*src, src_rows, slo, shi, sf);
      parts(*dst, next, dlo, dhi, df);
      auto* k = &reduce_detail::stepgen_reduce_merge_extremes<T>;
      const dim3 g2(static_cast<unsigned>((next + 255) / 256));
      STEPGEN_LAUNCH(k, g2, dim3(256), stream)(slo, shi, sf, src_rows, dlo, dhi, df, next);
      check(cudaGetLastError(), "stepgen_reduce_merge_extremes launch", d);
      src_rows = next;
      std::swap(src, dst);
    }
    parts(*src, rows, lo, hi, flags);
    std::vector<T> hlo(n), hhi(n);
    std::vector<int> hflags(n);
    read(hlo.data(), lo, n * sizeof(T));
    read(hhi.data(), hi, n * sizeof(T));
    read(hflags.data(), flags, n * sizeof(int));
    std::vector<std::int32_t> f32(hflags.begin(), hflags.end());
    dr::merge_extremes(hlo.data(), hhi.data(), f32.data(), rows, into);
  }

  rt::Index max_items() const { return max_items_; }
  /// Points at `d` again (a Device moved to another place, the same GPU).
  void rebind(const Device& d) { d_ = &d; }

 private:
  template <typename T, bool Square>
  void launch_exact(const T* a, const T* m, int has_minus, const reduce_detail::Cells& cells,
                    dim3 grid, dim3 block, cudaStream_t stream) {
    namespace dr = rt::device_reduce;
    constexpr dr::Limbs l = dr::limbs(dr::kind_of<T>(), Square);
    auto* k = &reduce_detail::stepgen_reduce_exact<T, l.lo, l.count(), Square>;
    STEPGEN_LAUNCH(k, grid, block, stream)(a, m, has_minus, cells, first_.as<reduce_detail::I64>());
  }

  void read(void* to, const void* from, std::size_t bytes) {
    check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, d_->stream()),
          "cudaMemcpyAsync(reduction)", *d_);
    check(cudaStreamSynchronize(d_->stream()), "cudaStreamSynchronize(reduction)", *d_);
  }

  const Device* d_;
  rt::Index max_items_ = 0;
  reduce_detail::Scratch first_, second_;
};

/// The Reducer of a GPU, made on first use and kept for the rest of the process. What an
/// engine's reduce_box calls:
///   cuda::reducer_for(d).reduce_box<T>(a, minus, buffer, box, into);
/// Safe to call from several threads at once for different GPUs.
inline Reducer& reducer_for(const Device& d) {
  static std::mutex lock;
  // Never destroyed: cudaFree after the CUDA runtime's own exit handlers fails.
  static auto* made = new std::map<int, std::unique_ptr<Reducer>>();
  std::lock_guard<std::mutex> hold(lock);
  std::unique_ptr<Reducer>& r = (*made)[d.ordinal];
  if (!r) r = std::make_unique<Reducer>(d);
  r->rebind(d);
  return *r;
}

}  // namespace stepgen::cuda

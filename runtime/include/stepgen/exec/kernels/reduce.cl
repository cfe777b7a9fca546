/* Exact reductions on the device (stepgen/exec/reduce_opencl.hpp, cl::Reducer): T, KIND, SUM_LO..,
   L2_LO.., L2_CLASSES, FLOAT_MODE and PTX_ASM come as -D options. Embedded into the program at
   build time (cmake/embed_kernels.cmake). */
#pragma OPENCL FP_CONTRACT OFF
#if KIND != 0
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#elif defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define HAS_FP64 1
#endif

#define MASK32 0xffffffffL

#if KIND != 0
/* A double added as rt::ExactSum::add does: three limbs from its lowest one. */
void add_double(long* acc, long* cnt, double x, int lo) {
  const ulong b = as_ulong(x);
  int e = (int)((b >> 52) & 0x7ffUL);
  ulong mant = b & 0xfffffffffffffUL;
  if (e == 0x7ff) {
    if (mant != 0UL) cnt[0] += 1;
    else if ((b >> 63) == 0UL) cnt[1] += 1;
    else cnt[2] += 1;
    return;
  }
  if (e != 0) mant |= 0x10000000000000UL; else e = 1;
  if (mant == 0UL) return;
  const int p = e - 1;
  const int s = p & 31, l = (p >> 5) - lo;
  const ulong v = mant << s;
  const long w0 = (long)(v & 0xffffffffUL), w1 = (long)(v >> 32);
  const long w2 = s != 0 ? (long)(mant >> (64 - s)) : 0L;
  if ((b >> 63) != 0UL) {
    acc[l] -= w0;
    acc[l + 1] -= w1;
    acc[l + 2] -= w2;
  } else {
    acc[l] += w0;
    acc[l + 1] += w1;
    acc[l + 2] += w2;
  }
}
#endif

#if KIND == 2
#define TO_DOUBLE(x) convert_double_rte(x)
#endif

/* One value of the box: a[i] (minus m[i], in T). */
#define VALUE(i) (has_minus ? (T)(a[i] - m[i]) : a[i])

/* The loop of one work-item over its cells; BODY(v) for each value v, then AFTER(k) after each
   group of k values (FOR_CELLS: nothing). Four loads (eight with minus) are issued before their
   values are added: enough bytes in flight per work-item for a GPU to read at its memory's
   speed. */
#define FOR_CELLS_AFTER(BODY, AFTER)                                        \
  const long g = (long)get_global_id(0);                                    \
  const long lane = g % lanes, row0 = g / lanes;                            \
  for (long r = row0; r < rows; r += row_items) {                           \
    const long start = base + (r % ny) * sy + (r / ny) * sz;                \
    long x = lane;                                                          \
    for (; x + 3 * lanes < nx; x += 4 * lanes) {                            \
      const T v0 = VALUE(start + x);                                        \
      const T v1 = VALUE(start + x + lanes);                                \
      const T v2 = VALUE(start + x + 2 * lanes);                            \
      const T v3 = VALUE(start + x + 3 * lanes);                            \
      BODY(v0) BODY(v1) BODY(v2) BODY(v3)                                   \
      AFTER(4)                                                              \
    }                                                                       \
    for (; x < nx; x += lanes) {                                            \
      const T v = VALUE(start + x);                                         \
      BODY(v)                                                               \
      AFTER(1)                                                              \
    }                                                                       \
  }

#define NO_AFTER(k)
#define FOR_CELLS(BODY) FOR_CELLS_AFTER(BODY, NO_AFTER)

/* Carries the limbs into 32-bit digits (the top one signed) and writes the columns. */
#define WRITE_LIMBS(N)                                                      \
  for (int i = 0; i + 1 < (N); ++i) {                                       \
    const long carry = acc[i] >> 32;                                        \
    acc[i] &= MASK32;                                                       \
    acc[i + 1] += carry;                                                    \
  }                                                                         \
  const long items = lanes * row_items;                                     \
  for (int i = 0; i < (N); ++i) out[i * items + g] = acc[i];                \
  for (int i = 0; i < 3; ++i) out[((N) + i) * items + g] = cnt[i];

#define ARGS                                                                \
  __global const T* a, __global const T* m, const int has_minus,            \
      const long base, const long nx, const long ny, const long rows,       \
      const long sy, const long sz, const long lanes, const long row_items

#define SUM_N (SUM_HI - SUM_LO + 1)
#define L2_N (L2_HI - L2_LO + 1)

#if KIND == 1
#define ADD_SUM(v) add_double(acc, cnt, v, SUM_LO);
#define ADD_L2(v) add_double(acc, cnt, v * v, L2_LO);
#elif KIND == 2
#define ADD_SUM(v) add_double(acc, cnt, TO_DOUBLE(v), SUM_LO);
#define ADD_L2(v) { const double d = TO_DOUBLE(v); add_double(acc, cnt, d * d, L2_LO); }
#endif

#if KIND == 0
/* Float sum and l2, the hot paths: one accumulator per limb in a named variable (acc0, acc1,
   ...), never an array indexed by each value's exponent (a GPU would keep it in local memory).
   A value's payload goes to the accumulator of its class, the limb of its lowest bit, through a
   fully unrolled compare over the classes (constant indices: registers only):
     sum: x = mant * 2^(e - 150), its bit 0 at p = e + 924 from 2^-1074: class (p >> 5) - SUM_LO
          (0..8), payload +-mant << (p & 31) (|payload| < 2^55), limb SUM_LO + class;
     l2:  x^2 = mant^2 * 2^(2e - 300), at p = 2e + 774: class (p >> 6) - L2_LO / 2 (0..8), two
          limbs wide, payload mant^2 << (p & 63) < 2^112 in three pieces: bits 0..31, 32..63
          (limbs L2_LO + 2 class, + 1) and the rest, < 2^47 (limb L2_LO + 2 class + 2).
   Every SUM_EVERY (L2_EVERY) values the limbs are carried into 32-bit digits (the top one
   signed), which leaves room in 64 bits for the next ones (a group of 4 may overshoot by 3:
   sum, 2^32 + 67 * 2^55 < 2^63; l2, 2^32 + 259 * 2^47). The
   last carry gives the digits the generic kernels write (the same integer, the same digits). */
#if SUM_N != 10 || L2_N != 19 || (L2_LO & 1) != 0
#error "float limbs: 10 for sum, 19 for l2 from an even limb (rt::device_reduce::limbs)"
#endif
#define SUM_EVERY 64
#define L2_EVERY 256

#define CARRY(j, k)                                                         \
  acc##k += acc##j >> 32; /* floor: arithmetic shift */                     \
  acc##j &= MASK32;
#define SUM_CARRIES                                                         \
  CARRY(0, 1) CARRY(1, 2) CARRY(2, 3) CARRY(3, 4) CARRY(4, 5) CARRY(5, 6)   \
  CARRY(6, 7) CARRY(7, 8) CARRY(8, 9)
#define L2_CARRIES                                                          \
  SUM_CARRIES CARRY(9, 10) CARRY(10, 11) CARRY(11, 12) CARRY(12, 13)        \
  CARRY(13, 14) CARRY(14, 15) CARRY(15, 16) CARRY(16, 17) CARRY(17, 18)

#define DECL(j) long acc##j = 0;
#define SUM_DECLS                                                           \
  DECL(0) DECL(1) DECL(2) DECL(3) DECL(4) DECL(5) DECL(6) DECL(7) DECL(8) DECL(9)
#define L2_DECLS                                                            \
  SUM_DECLS DECL(10) DECL(11) DECL(12) DECL(13) DECL(14) DECL(15) DECL(16)  \
  DECL(17) DECL(18)

#define WRITE(j) out[j * items + g] = acc##j;
#define SUM_WRITES                                                          \
  WRITE(0) WRITE(1) WRITE(2) WRITE(3) WRITE(4) WRITE(5) WRITE(6) WRITE(7)   \
  WRITE(8) WRITE(9)
#define L2_WRITES                                                           \
  SUM_WRITES WRITE(10) WRITE(11) WRITE(12) WRITE(13) WRITE(14) WRITE(15)    \
  WRITE(16) WRITE(17) WRITE(18)

/* The class compare: on NVIDIA's OpenCL (PTX_ASM 1) one setp and predicated 64-bit additions
   (2 instructions each); in C the compiler selects w or 0 first (2 more per limb). */
#if PTX_ASM
#define SUM_TO(j)                                                           \
  __asm__("{\n\t.reg .pred p;\n\tsetp.eq.s32 p, %1, %2;\n\t@p add.s64 %0, %0, %3;\n\t}" \
      : "+l"(acc##j)                                                        \
      : "r"(c), "r"(j), "l"(w));
#define L2_TO(j, k, l, m)                                                   \
  __asm__("{\n\t.reg .pred p;\n\tsetp.eq.s32 p, %3, %4;\n\t@p add.s64 %0, %0, %5;\n\t" \
      "@p add.s64 %1, %1, %6;\n\t@p add.s64 %2, %2, %7;\n\t}"               \
      : "+l"(acc##k), "+l"(acc##l), "+l"(acc##m)                            \
      : "r"(c), "r"(j), "l"(w0), "l"(w1), "l"(w2));
#else
#define SUM_TO(j) if (c == j) acc##j += w;
#define L2_TO(j, k, l, m)                                                   \
  if (c == j) {                                                             \
    acc##k += w0;                                                           \
    acc##l += w1;                                                           \
    acc##m += w2;                                                           \
  }
#endif

/* NaN and infinities counted apart (e == 255); else e (1 for subnormals) and mant. */
#define FLOAT_PARTS(x, square, ON_FINITE)                                   \
  {                                                                         \
    const uint b = as_uint(x);                                              \
    const int eb = (int)((b >> 23) & 0xffu);                                \
    const uint f = b & 0x7fffffu;                                           \
    if (eb == 0xff) {                                                       \
      if (f != 0u) cnt[0] += 1;                                             \
      else if ((square) || (b >> 31) == 0u) cnt[1] += 1;                    \
      else cnt[2] += 1;                                                     \
    } else {                                                                \
      const int e = eb != 0 ? eb : 1;                                       \
      const uint mant = eb != 0 ? (f | 0x800000u) : f;                      \
      ON_FINITE                                                             \
    }                                                                       \
  }

#define SUM_FINITE                                                          \
  const int p = e + 924;                                                    \
  const int c = (p >> 5) - SUM_LO;                                          \
  const long v = (long)((ulong)mant << (p & 31));                           \
  const long w = (b >> 31) != 0u ? -v : v;                                  \
  SUM_TO(0) SUM_TO(1) SUM_TO(2) SUM_TO(3) SUM_TO(4) SUM_TO(5) SUM_TO(6)     \
  SUM_TO(7) SUM_TO(8)

#define L2_FINITE                                                           \
  const int p = 2 * e + 774;                                                \
  const int c = (p >> 6) - (L2_LO >> 1), s = p & 63;                        \
  const ulong sq = (ulong)mant * (ulong)mant;                               \
  const ulong low = sq << s;                                                \
  const long w0 = (long)(low & 0xffffffffUL), w1 = (long)(low >> 32);       \
  const long w2 = (long)((sq >> 1) >> (63 - s));                            \
  L2_TO(0, 0, 1, 2) L2_TO(1, 2, 3, 4) L2_TO(2, 4, 5, 6) L2_TO(3, 6, 7, 8)   \
  L2_TO(4, 8, 9, 10) L2_TO(5, 10, 11, 12) L2_TO(6, 12, 13, 14)              \
  L2_TO(7, 14, 15, 16) L2_TO(8, 16, 17, 18)

#define SUM_VALUE(x) FLOAT_PARTS(x, 0, SUM_FINITE)
#define L2_VALUE(x) FLOAT_PARTS(x, 1, L2_FINITE)
#define SUM_AFTER(k)                                                        \
  since += (k);                                                             \
  if (since >= SUM_EVERY) {                                                 \
    since = 0;                                                              \
    SUM_CARRIES                                                             \
  }
#define L2_AFTER(k)                                                         \
  since += (k);                                                             \
  if (since >= L2_EVERY) {                                                  \
    since = 0;                                                              \
    L2_CARRIES                                                              \
  }

#define WRITE_COUNTS(N)                                                     \
  const long items = lanes * row_items;                                     \
  for (int i = 0; i < 3; ++i) out[((N) + i) * items + g] = cnt[i];

/* The hot class (FLOAT_MODE 1 and 3, see cl::Reducer): most values of real data share one
   class (a class spans 32 binary orders of magnitude of the value), so a value of the
   work-item's hot class (or a zero, whose payload is 0) is added to the hot accumulators
   h0..h2 through one compare, and only the others (a branch a warp skips when all its items
   hit) go to their class's limbs: mode 1 through the compare over the classes (named
   accumulators), mode 2 at a computed index of a private array (in local memory on a GPU,
   touched only on a miss). Before each carry the hot accumulators go to their class's limbs
   and the hot class moves to the last miss's when more than a quarter of the values since the
   last carry missed. Which accumulator a value goes through changes no bit. The class of 1.0
   (sum: p = 1051, l2: p = 1028) starts as the hot one. */
/* Whether any work-item of the warp has `miss` (NVIDIA: a vote; elsewhere the item's own):
   the branch of the misses is then uniform, a real branch the warp skips, not predicated
   instructions run for every value. */
#if PTX_ASM
int warp_any(int miss) {
  int r;
  __asm__("{\n\t.reg .pred p, q;\n\t.reg .b32 m;\n\tactivemask.b32 m;\n\t"
          "setp.ne.s32 p, %1, 0;\n\tvote.sync.any.pred q, p, m;\n\tselp.s32 %0, 1, 0, q;\n\t}"
          : "=r"(r)
          : "r"(miss));
  return r;
}
#else
#define warp_any(miss) (miss)
#endif
#define SUM_FIRST_HOT ((1051 >> 5) - SUM_LO)
#define L2_FIRST_HOT ((1028 >> 6) - (L2_LO >> 1))
#if PTX_ASM
#define HOT_ADD(k, w)                                                       \
  __asm__("{\n\t.reg .pred p;\n\tsetp.eq.s32 p, %1, %2;\n\t@p add.s64 %0, %0, %3;\n\t}" \
      : "+l"(h0)                                                            \
      : "r"(k), "r"(hot), "l"(w));
#define HOT_ADD3(k, w0, w1, w2)                                             \
  __asm__("{\n\t.reg .pred p;\n\tsetp.eq.s32 p, %3, %4;\n\t@p add.s64 %0, %0, %5;\n\t" \
      "@p add.s64 %1, %1, %6;\n\t@p add.s64 %2, %2, %7;\n\t}"               \
      : "+l"(h0), "+l"(h1), "+l"(h2)                                        \
      : "r"(k), "r"(hot), "l"(w0), "l"(w1), "l"(w2));
#else
#define HOT_ADD(k, w) if ((k) == hot) h0 += (w);
#define HOT_ADD3(k, w0, w1, w2)                                             \
  if ((k) == hot) {                                                         \
    h0 += (w0);                                                             \
    h1 += (w1);                                                             \
    h2 += (w2);                                                             \
  }
#endif
#define HOT_DECLS(first)                                                    \
  long h0 = 0, h1 = 0, h2 = 0;                                              \
  int hot = (first), misses = 0, last_miss = (first);
#define HOT_MOVE(every)                                                     \
  h0 = h1 = h2 = 0;                                                         \
  if (misses > (every) / 4) hot = last_miss;                                \
  misses = 0;

/* The modes of the sum and l2 kernels: FLOAT_MODE 0 or 1 both, 3 sum 1 and l2 through an
   exponent window (below). */
#if FLOAT_MODE == 3 && defined(HAS_FP64)
#define SUM_MODE 1
#define L2_MODE 3
#elif FLOAT_MODE == 3
#define SUM_MODE 1
#define L2_MODE 0
#else
#define SUM_MODE FLOAT_MODE
#define L2_MODE FLOAT_MODE
#endif

/* Mode 1: the misses through the compare over the classes (SUM_TO, L2_TO read c, w*). */
#define SUM_HOT_FINITE                                                      \
  const int p = e + 924;                                                    \
  const int c = (p >> 5) - SUM_LO;                                          \
  const long v = (long)((ulong)mant << (p & 31));                           \
  const long w = (b >> 31) != 0u ? -v : v;                                  \
  const int k = mant != 0u ? c : hot;                                       \
  HOT_ADD(k, w)                                                             \
  if (warp_any(k != hot) && k != hot) {                                     \
    SUM_TO(0) SUM_TO(1) SUM_TO(2) SUM_TO(3) SUM_TO(4) SUM_TO(5) SUM_TO(6)   \
    SUM_TO(7) SUM_TO(8)                                                     \
    ++misses;                                                               \
    last_miss = c;                                                          \
  }
#define SUM_FLUSH                                                           \
  {                                                                         \
    const int c = hot;                                                      \
    const long w = h0;                                                      \
    SUM_TO(0) SUM_TO(1) SUM_TO(2) SUM_TO(3) SUM_TO(4) SUM_TO(5) SUM_TO(6)   \
    SUM_TO(7) SUM_TO(8)                                                     \
  }                                                                         \
  HOT_MOVE(SUM_EVERY)
#define L2_TO_ALL                                                           \
  L2_TO(0, 0, 1, 2) L2_TO(1, 2, 3, 4) L2_TO(2, 4, 5, 6) L2_TO(3, 6, 7, 8)   \
  L2_TO(4, 8, 9, 10) L2_TO(5, 10, 11, 12) L2_TO(6, 12, 13, 14)              \
  L2_TO(7, 14, 15, 16) L2_TO(8, 16, 17, 18)
#define L2_HOT_FINITE                                                       \
  const int p = 2 * e + 774;                                                \
  const int c = (p >> 6) - (L2_LO >> 1), s = p & 63;                        \
  const ulong sq = (ulong)mant * (ulong)mant;                               \
  const ulong low = sq << s;                                                \
  const long w0 = (long)(low & 0xffffffffUL), w1 = (long)(low >> 32);       \
  const long w2 = (long)((sq >> 1) >> (63 - s));                            \
  const int k = mant != 0u ? c : hot;                                       \
  HOT_ADD3(k, w0, w1, w2)                                                   \
  if (warp_any(k != hot) && k != hot) {                                     \
    L2_TO_ALL                                                               \
    ++misses;                                                               \
    last_miss = c;                                                          \
  }
#define L2_FLUSH                                                            \
  {                                                                         \
    const int c = hot;                                                      \
    const long w0 = h0, w1 = h1, w2 = h2;                                   \
    L2_TO_ALL                                                               \
  }                                                                         \
  HOT_MOVE(L2_EVERY)
#define SUM_HOT_VALUE(x) FLOAT_PARTS(x, 0, SUM_HOT_FINITE)
#define L2_HOT_VALUE(x) FLOAT_PARTS(x, 1, L2_HOT_FINITE)
#define SUM_HOT_AFTER(k)                                                    \
  since += (k);                                                             \
  if (since >= SUM_EVERY) {                                                 \
    since = 0;                                                              \
    SUM_FLUSH                                                               \
    SUM_CARRIES                                                             \
  }
#define L2_HOT_AFTER(k)                                                     \
  since += (k);                                                             \
  if (since >= L2_EVERY) {                                                  \
    since = 0;                                                              \
    L2_FLUSH                                                                \
    L2_CARRIES                                                              \
  }

__kernel void stepgen_reduce_sum(ARGS, __global long* out) {
  SUM_DECLS
  long cnt[3] = {0, 0, 0};
  int since = 0;
#if SUM_MODE == 1
  HOT_DECLS(SUM_FIRST_HOT)
  FOR_CELLS_AFTER(SUM_HOT_VALUE, SUM_HOT_AFTER)
  SUM_FLUSH
#else
  FOR_CELLS_AFTER(SUM_VALUE, SUM_AFTER)
#endif
  SUM_CARRIES
  WRITE_COUNTS(SUM_N)
  SUM_WRITES
}

/* l2's exponent window (L2_MODE 3, devices with doubles): the squares of the values whose
   exponent e lies in [wbase, wbase + 32) are summed exactly in 128 bits (whi, wlo) in units of
   2^(2 wbase - 300): x^2 (exact in double) times wscale = 2^(300 - 2 wbase) is an integer
   below 2^110, split in double into its high and low 64 bits (both exact) and converted; the
   others go through the compare over the classes. Before each carry the window's sum (below
   2^118) goes to the limbs (at bit 2 wbase + 774 from 2^-1074: five 32-bit pieces from limb
   l0 <= 14, wbase being kept in [1, 236]) and the window's top moves to the largest exponent
   of the values since the last carry (emax): only values 2^32 times smaller than those miss.
   No rounding anywhere. */
#if L2_MODE == 3
#if PTX_ASM
#define ADD128(lo, hi)                                                      \
  __asm__("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, %3;"                 \
          : "+l"(wlo), "+l"(whi)                                            \
          : "l"(lo), "l"(hi));
#else
#define ADD128(lo, hi)                                                      \
  wlo += (lo);                                                              \
  whi += (hi) + (wlo < (lo) ? 1UL : 0UL);
#endif
#define WIN_FINITE                                                          \
  const int in = (uint)(e - wbase) < 32u;                                   \
  emax = max(emax, mant != 0u ? e : 0);                                     \
  const double xd = (double)as_float(b);                                    \
  const double v = in ? xd * xd * wscale : 0.0;                             \
  const double vh = floor(v * 0x1p-64);                                     \
  const ulong tlo = convert_ulong(v - vh * 0x1p64);                         \
  const ulong thi = convert_ulong(vh);                                      \
  ADD128(tlo, thi)                                                          \
  const int miss = !in && mant != 0u;                                       \
  if (warp_any(miss) && miss) {                                             \
    const ulong sq = (ulong)mant * (ulong)mant;                             \
    const int p = 2 * e + 774;                                              \
    const int c = (p >> 6) - (L2_LO >> 1), s = p & 63;                      \
    const ulong low = sq << s;                                              \
    const long w0 = (long)(low & 0xffffffffUL), w1 = (long)(low >> 32);     \
    const long w2 = (long)((sq >> 1) >> (63 - s));                          \
    L2_TO_ALL                                                               \
  }
#define WIN_TO(j, a, b, c, d, f)                                            \
  if (l0 == j) {                                                            \
    acc##a += q0;                                                           \
    acc##b += q1;                                                           \
    acc##c += q2;                                                           \
    acc##d += q3;                                                           \
    acc##f += q4;                                                           \
  }
#define WIN_FLUSH                                                           \
  {                                                                         \
    const int p0 = 2 * wbase + 774;                                         \
    const int l0 = (p0 >> 5) - L2_LO, s0 = p0 & 31;                         \
    const ulong n0 = wlo << s0;                                             \
    const ulong n1 = (whi << s0) | (s0 != 0 ? wlo >> (64 - s0) : 0UL);      \
    const ulong n2 = s0 != 0 ? whi >> (64 - s0) : 0UL;                      \
    const long q0 = (long)(n0 & 0xffffffffUL), q1 = (long)(n0 >> 32);       \
    const long q2 = (long)(n1 & 0xffffffffUL), q3 = (long)(n1 >> 32);       \
    const long q4 = (long)n2;                                               \
    WIN_TO(0, 0, 1, 2, 3, 4) WIN_TO(1, 1, 2, 3, 4, 5)                       \
    WIN_TO(2, 2, 3, 4, 5, 6) WIN_TO(3, 3, 4, 5, 6, 7)                       \
    WIN_TO(4, 4, 5, 6, 7, 8) WIN_TO(5, 5, 6, 7, 8, 9)                       \
    WIN_TO(6, 6, 7, 8, 9, 10) WIN_TO(7, 7, 8, 9, 10, 11)                    \
    WIN_TO(8, 8, 9, 10, 11, 12) WIN_TO(9, 9, 10, 11, 12, 13)                \
    WIN_TO(10, 10, 11, 12, 13, 14) WIN_TO(11, 11, 12, 13, 14, 15)           \
    WIN_TO(12, 12, 13, 14, 15, 16) WIN_TO(13, 13, 14, 15, 16, 17)           \
    WIN_TO(14, 14, 15, 16, 17, 18)                                          \
  }                                                                         \
  wlo = whi = 0;                                                            \
  if (emax > 0) {                                                           \
    wbase = clamp(emax - 31, 1, 236);                                       \
    wscale = as_double((ulong)(1023 + 300 - 2 * wbase) << 52);              \
  }                                                                         \
  emax = 0;
#define L2_WIN_VALUE(x) FLOAT_PARTS(x, 1, WIN_FINITE)
#define L2_WIN_AFTER(k)                                                     \
  since += (k);                                                             \
  if (since >= L2_EVERY) {                                                  \
    since = 0;                                                              \
    WIN_FLUSH                                                               \
    L2_CARRIES                                                              \
  }
#endif

#if L2_CLASSES && L2_MODE == 3
__kernel void stepgen_reduce_l2(ARGS, __global long* out) {
  L2_DECLS
  long cnt[3] = {0, 0, 0};
  int since = 0;
  ulong wlo = 0, whi = 0;
  int wbase = 103, emax = 0;
  double wscale = 0x1p94;
  FOR_CELLS_AFTER(L2_WIN_VALUE, L2_WIN_AFTER)
  WIN_FLUSH
  L2_CARRIES
  WRITE_COUNTS(L2_N)
  L2_WRITES
}
#elif L2_CLASSES
__kernel void stepgen_reduce_l2(ARGS, __global long* out) {
  L2_DECLS
  long cnt[3] = {0, 0, 0};
  int since = 0;
#if L2_MODE == 1
  HOT_DECLS(L2_FIRST_HOT)
  FOR_CELLS_AFTER(L2_HOT_VALUE, L2_HOT_AFTER)
  L2_FLUSH
#else
  FOR_CELLS_AFTER(L2_VALUE, L2_AFTER)
#endif
  L2_CARRIES
  WRITE_COUNTS(L2_N)
  L2_WRITES
}
#else
/* A CPU's float l2 (L2_CLASSES 0): the square's three limbs added at a computed index of a
   private array, which a CPU keeps in its cache: cheaper there than the compare over the
   classes (PoCL: about 30% less time). */
void add_float_square(long* acc, long* cnt, float x) {
  const uint b = as_uint(x);
  int e = (int)((b >> 23) & 0xffu);
  uint mant = b & 0x7fffffu;
  if (e == 0xff) {
    if (mant != 0u) cnt[0] += 1;
    else cnt[1] += 1;
    return;
  }
  if (e != 0) mant |= 0x800000u; else e = 1;
  const int p = 2 * e + 774;
  const int s = p & 31, l = (p >> 5) - L2_LO;
  const ulong sq = (ulong)mant * (ulong)mant;
  const ulong v = sq << s;
  acc[l] += (long)(v & 0xffffffffUL);
  acc[l + 1] += (long)(v >> 32);
  acc[l + 2] += s != 0 ? (long)(sq >> (64 - s)) : 0L;
}

#define ADD_FLOAT_SQUARE(v) add_float_square(acc, cnt, v);

__kernel void stepgen_reduce_l2(ARGS, __global long* out) {
  long acc[L2_N];
  long cnt[3] = {0, 0, 0};
  for (int i = 0; i < L2_N; ++i) acc[i] = 0;
  FOR_CELLS(ADD_FLOAT_SQUARE)
  WRITE_LIMBS(L2_N)
}
#endif
#else
__kernel void stepgen_reduce_sum(ARGS, __global long* out) {
  long acc[SUM_N];
  long cnt[3] = {0, 0, 0};
  for (int i = 0; i < SUM_N; ++i) acc[i] = 0;
  FOR_CELLS(ADD_SUM)
  WRITE_LIMBS(SUM_N)
}

__kernel void stepgen_reduce_l2(ARGS, __global long* out) {
  long acc[L2_N];
  long cnt[3] = {0, 0, 0};
  for (int i = 0; i < L2_N; ++i) acc[i] = 0;
  FOR_CELLS(ADD_L2)
  WRITE_LIMBS(L2_N)
}

#endif

/* Sums column c's rows r, r + dst_rows, ... of src (src_rows rows) into row r of dst. */
__kernel void stepgen_reduce_columns(__global const long* src, const long src_rows,
                                     __global long* dst, const long dst_rows, const long cols) {
  const long g = (long)get_global_id(0);
  if (g >= cols * dst_rows) return;
  const long c = g / dst_rows, r = g % dst_rows;
  long s = 0;
  for (long j = r; j < src_rows; j += dst_rows) s += src[c * src_rows + j];
  dst[g] = s;
}

/* min/max with -0 before +0 (which zero wins must not depend on the order of the cells). */
#if KIND == 2
#define IS_NAN(v) 0
#define BEFORE(x, y) ((x) < (y))
#else
#define IS_NAN(v) isnan(v)
#define BEFORE(x, y) ((x) < (y) || ((x) == (y) && signbit(x) && !signbit(y)))
#endif

#define TAKE(v, vmin, vmax, f)                                              \
  if ((f & 1) == 0) {                                                       \
    lo = vmin;                                                              \
    hi = vmax;                                                              \
  } else {                                                                  \
    if (BEFORE(vmin, lo)) lo = vmin;                                        \
    if (BEFORE(hi, vmax)) hi = vmax;                                        \
  }                                                                         \
  flags |= 1;

#define ADD_EXTREME(v)                                                      \
  if (IS_NAN(v)) {                                                          \
    flags |= 2;                                                             \
  } else {                                                                  \
    TAKE(v, v, v, flags)                                                    \
  }

__kernel void stepgen_reduce_extremes(ARGS, __global T* out_min, __global T* out_max,
                                      __global int* out_flags) {
  T lo = (T)0, hi = (T)0;
  int flags = 0;
  FOR_CELLS(ADD_EXTREME)
  out_min[g] = lo;
  out_max[g] = hi;
  out_flags[g] = flags;
}

/* Merges entries r, r + dst_rows, ... of src (src_rows entries) into entry r of dst. */
__kernel void stepgen_reduce_merge_extremes(__global const T* src_min, __global const T* src_max,
                                            __global const int* src_flags, const long src_rows,
                                            __global T* dst_min, __global T* dst_max,
                                            __global int* dst_flags, const long dst_rows) {
  const long r = (long)get_global_id(0);
  if (r >= dst_rows) return;
  T lo = (T)0, hi = (T)0;
  int flags = 0;
  for (long j = r; j < src_rows; j += dst_rows) {
    const int f = src_flags[j];
    flags |= f & 2;
    if ((f & 1) != 0) {
      TAKE(0, src_min[j], src_max[j], flags)
    }
  }
  dst_min[r] = lo;
  dst_max[r] = hi;
  dst_flags[r] = flags;
}

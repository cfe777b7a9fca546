#pragma once
/// \file
/// Initial values made on an OpenCL device (devinit): zero, value(v) and random(seed) over a
/// box of a part's buffer with the bits the host fill gives (init.hpp: rt::ArrayInit,
/// rt::random_bits, written again below in OpenCL C: the hash in 64-bit integers, floats by an
/// exact conversion, doubles built in integers, so no cl_khr_fp64 is needed for double arrays),
/// and copy(X) as a copy of X's buffer, each enqueued on the device's compute queue. One
/// program per context, built on first use.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "stepgen/box.hpp"
#include "stepgen/init.hpp"
#include "stepgen/opencl.hpp"

namespace stepgen::cl {

namespace init_detail {

inline const char* init_source() {
  return R"CLC(
ulong stepgen_splitmix64(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}

/* rt::random_bits_from_hash (init.hpp) for double: the top 53 bits m of the hash as m * 2^-53,
   built from its exponent and mantissa in integer arithmetic (no cl_khr_fp64 needed). */
ulong stepgen_double_bits(ulong bits) {
  const ulong m = bits >> 11;
  if (m == 0UL) return 0UL;
  const int top = 63 - (int)clz(m);
  return ((ulong)(top - 53 + 1023) << 52) | ((m << (52 - top)) & 0xFFFFFFFFFFFFFUL);
}

/* The box: nx x ny x nz cells from element `base` (strides sy, sz), its first cell at global
   linear index `first` of a grid gx x gy wide (rt::fill_geometry), each cell given VALUE (of
   `h`, the cell's hash splitmix64(mixed ^ index), for the random kernels), and the same cells of
   `also` where it is not null (a copy(X) of this array made in the same pass). Grid-stride loops
   over the cells, x fastest, so a few thousand work-groups each fill many rows (or one long
   row); one kernel per kind and type: no branch per cell. */
#define STEPGEN_INIT_FILL(NAME, E, VALUE)                                                 \
  __kernel void NAME(__global E* buf, __global E* also, const ulong mixed,                \
                     const ulong value, const long base, const long nx, const long ny,    \
                     const long nz, const long sy, const long sz, const long gx,          \
                     const long gy, const ulong first) {                                  \
    for (long z = (long)get_global_id(2); z < nz; z += (long)get_global_size(2))          \
      for (long y = (long)get_global_id(1); y < ny; y += (long)get_global_size(1)) {      \
        const long row = base + y * sy + z * sz;                                          \
        const ulong g = first + (ulong)((y + z * gy) * gx);                               \
        for (long x = (long)get_global_id(0); x < nx; x += (long)get_global_size(0)) {    \
          const ulong h = stepgen_splitmix64(mixed ^ (g + (ulong)x));                     \
          const E v = (E)(VALUE);                                                         \
          buf[row + x] = v;                                                               \
          if (also) also[row + x] = v;                                                    \
        }                                                                                 \
      }                                                                                   \
  }

/* zero and value(v): the value's low bytes (the hash is not used: the compiler drops it) */
STEPGEN_INIT_FILL(stepgen_init_value1, uchar, value)
STEPGEN_INIT_FILL(stepgen_init_value2, ushort, value)
STEPGEN_INIT_FILL(stepgen_init_value4, uint, value)
STEPGEN_INIT_FILL(stepgen_init_value8, ulong, value)
/* random integers: (hash % 100) */
STEPGEN_INIT_FILL(stepgen_init_random_int1, uchar, h % 100UL)
STEPGEN_INIT_FILL(stepgen_init_random_int2, ushort, h % 100UL)
STEPGEN_INIT_FILL(stepgen_init_random_int4, uint, h % 100UL)
STEPGEN_INIT_FILL(stepgen_init_random_int8, ulong, h % 100UL)
/* random floats: the top 24 bits m as m * 2^-24, exact in a conversion and a multiplication by
   a power of two (the same bits as init.hpp's integer building) */
STEPGEN_INIT_FILL(stepgen_init_random_float, uint,
                  as_uint(convert_float((uint)(h >> 40)) * 0x1p-24f))
/* random doubles */
STEPGEN_INIT_FILL(stepgen_init_random_double, ulong, stepgen_double_bits(h))
)CLC";
}

/// The program of one context and its kernels: zero and value(v) by element size, random
/// integers by element size, random floats, random doubles.
struct Filler {
  Program program;
  Kernel value[4], random_int[4], random_float, random_double;
};

inline int slot_of(std::size_t element_bytes) {
  switch (element_bytes) {
    case 1:
      return 0;
    case 2:
      return 1;
    case 4:
      return 2;
    case 8:
      return 3;
    default:
      return -1;
  }
}

/// The lock around the fillers' use: a kernel's arguments are the kernel's own state.
inline std::mutex& filler_lock() {
  static std::mutex lock;
  return lock;
}

/// The fill program and kernels of `d`'s context, built at the first call (the caller holds
/// filler_lock()). Kept for the process: released OpenCL objects after the platform's exit
/// handlers can crash.
inline const Filler* filler_for(const Device& d) {
  static auto* made = new std::map<cl_context, std::unique_ptr<Filler>>();
  std::unique_ptr<Filler>& f = (*made)[d.context.get()];
  if (!f) {
    auto built = std::make_unique<Filler>();
    built->program = build_program(d, init_source(), "");
    for (int i = 0; i < 4; ++i) {
      const std::string bytes = std::to_string(1 << i);
      built->value[i] = create_kernel(d, built->program, ("stepgen_init_value" + bytes).c_str());
      built->random_int[i] =
          create_kernel(d, built->program, ("stepgen_init_random_int" + bytes).c_str());
    }
    built->random_float = create_kernel(d, built->program, "stepgen_init_random_float");
    built->random_double = create_kernel(d, built->program, "stepgen_init_random_double");
    f = std::move(built);
  }
  return f.get();
}

}  // namespace init_detail

/// Builds `d`'s fill program now (init_box builds it at its first use otherwise): the engine
/// calls it before the run is timed, as it builds the spec's kernels, so that a short run's
/// time does not include a program build (NVIDIA's, from its disk cache, and PoCL's).
inline void prepare_init(const Device& d) {
  std::lock_guard<std::mutex> hold(init_detail::filler_lock());
  init_detail::filler_for(d);
}

/// Enqueues on `d`'s compute queue the initial values `init` (zero, value or random) of the
/// cells `sub` of a buffer holding the box `buffer`, elements of `element_bytes` (1, 2, 4, 8),
/// global linear indices over `grid` (x fastest), as the host's fill gives them; the same
/// values into `also` too where it is given (a buffer over the same box: copy(X) of this
/// array). Zero bits over one run of elements: clEnqueueFillBuffer. The program is built once
/// per context (kept for the process: released OpenCL objects after the platform's exit
/// handlers can crash); safe from several threads.
inline void init_box(const Device& d, const Mem& m, const rt::Box& buffer, const rt::Box& sub,
                     const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes,
                     const Mem* also = nullptr) {
  if (sub.empty()) return;
  const int slot = init_detail::slot_of(element_bytes);
  if (slot < 0)
    throw rt::RunError("internal error: initial values of " + std::to_string(element_bytes) +
                       "-byte elements on " + d.label());
  const rt::FillGeometry b = rt::fill_geometry(buffer, sub, grid);
  if (init.kind != rt::ArrayInit::kRandom && init.value == 0 && b.ny * b.nz == 1) {
    const std::uint64_t zero = 0;
    for (const Mem* to : {&m, also}) {
      if (!to) continue;
      check(
          clEnqueueFillBuffer(d.queue.get(), to->get(), &zero, element_bytes,
                              static_cast<std::size_t>(b.base) * element_bytes,
                              static_cast<std::size_t>(b.nx) * element_bytes, 0, nullptr, nullptr),
          "clEnqueueFillBuffer(zero initial values)", d.label());
    }
    return;
  }
  std::lock_guard<std::mutex> hold(init_detail::filler_lock());
  const init_detail::Filler* f = init_detail::filler_for(d);
  const bool random = init.kind == rt::ArrayInit::kRandom;
  const bool real = init.type != rt::ArrayInit::kInteger;
  if (random && real && element_bytes != (init.type == rt::ArrayInit::kFloat ? 4u : 8u))
    throw rt::RunError("internal error: random floating-point initial values of " +
                       std::to_string(element_bytes) + "-byte elements on " + d.label());
  const Kernel& k = !random                              ? f->value[slot]
                    : !real                              ? f->random_int[slot]
                    : init.type == rt::ArrayInit::kFloat ? f->random_float
                                                         : f->random_double;
  const char* name = "stepgen_init_fill";
  cl_uint i = 0;
  set_arg(d, k, i++, m, name);
  set_arg(d, k, i++, also ? also->get() : cl_mem{nullptr}, name);
  set_arg(d, k, i++, static_cast<cl_ulong>(rt::splitmix64(init.seed)), name);
  set_arg(d, k, i++, static_cast<cl_ulong>(init.value), name);
  for (std::int64_t v : {b.base, b.nx, b.ny, b.nz, b.sy, b.sz, b.gx, b.gy})
    set_arg(d, k, i++, static_cast<cl_long>(v), name);
  set_arg(d, k, i++, static_cast<cl_ulong>(b.first), name);
  // Work-groups of up to 128 items along x, laid out by rt::fill_groups.
  std::size_t most = 0;
  check(clGetKernelWorkGroupInfo(k.get(), d.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                 nullptr),
        "clGetKernelWorkGroupInfo(stepgen_init_fill)", d.label());
  const auto lx = static_cast<std::size_t>(std::max<std::int64_t>(
      1, std::min<std::int64_t>({128, static_cast<std::int64_t>(most), b.nx})));
  const rt::FillGroups g = rt::fill_groups(b, static_cast<std::int64_t>(lx), 1);
  const size_t global[3] = {static_cast<std::size_t>(g.x) * lx, static_cast<std::size_t>(g.y),
                            static_cast<std::size_t>(g.z)};
  const size_t local[3] = {lx, 1, 1};
  launch(d, k, name, 3, global, local);
}

/// Enqueues on `d`'s compute queue a copy of `bytes` from `src` to `dst`: copy(X).
inline void copy_buffer(const Device& d, const Mem& dst, const Mem& src, std::size_t bytes) {
  if (bytes == 0) return;
  check(clEnqueueCopyBuffer(d.queue.get(), src.get(), dst.get(), 0, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer(copy() initial values)", d.label());
}

}  // namespace stepgen::cl

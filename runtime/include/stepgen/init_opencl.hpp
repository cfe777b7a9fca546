#pragma once
/// \file
/// Initial values made on an OpenCL device (devinit): zero, value(v) and random(seed) over a
/// box of a part's buffer with the bits the host fill gives (init.hpp: rt::ArrayInit,
/// rt::random_bits, written again below in OpenCL C, integer arithmetic only: no cl_khr_fp64
/// needed for double arrays), and copy(X) as a copy of X's buffer, each enqueued on the
/// device's compute queue. One program per context, built on first use.

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

/* rt::random_bits (init.hpp), splitmix64(seed) given as `mixed`; type 0 integer, 1 float,
   2 double. */
ulong stepgen_random_bits(ulong mixed, ulong index, int type) {
  const ulong bits = stepgen_splitmix64(mixed ^ index);
  if (type == 0) return bits % 100UL;
  const int width = type == 1 ? 24 : 53;
  const ulong m = bits >> (64 - width);
  if (m == 0UL) return 0UL;
  const int top = 63 - (int)clz(m);
  if (type == 1) return ((ulong)(top - 24 + 127) << 23) | ((m << (23 - top)) & 0x7FFFFFUL);
  return ((ulong)(top - 53 + 1023) << 52) | ((m << (52 - top)) & 0xFFFFFFFFFFFFFUL);
}

/* The box: nx x ny x nz cells from element `base` (strides sy, sz), its first cell at global
   linear index `first` of a grid gx x gy wide; kind 3: random, else `value`. A grid-stride
   loop over the cells, x fastest. */
#define STEPGEN_INIT_FILL(NAME, E)                                                        \
  __kernel void NAME(__global E* buf, const int kind, const int type, const ulong mixed,  \
                     const ulong value, const long base, const long nx, const long ny,    \
                     const long nz, const long sy, const long sz, const long gx,          \
                     const long gy, const ulong first) {                                  \
    for (long z = (long)get_global_id(2); z < nz; z += (long)get_global_size(2))          \
      for (long y = (long)get_global_id(1); y < ny; y += (long)get_global_size(1)) {      \
        const long row = base + y * sy + z * sz;                                          \
        const ulong g = first + (ulong)((y + z * gy) * gx);                               \
        for (long x = (long)get_global_id(0); x < nx; x += (long)get_global_size(0)) {    \
          ulong v = value;                                                                \
          if (kind == 3) v = stepgen_random_bits(mixed, g + (ulong)x, type);              \
          buf[row + x] = (E)v;                                                            \
        }                                                                                 \
      }                                                                                   \
  }

STEPGEN_INIT_FILL(stepgen_init_fill1, uchar)
STEPGEN_INIT_FILL(stepgen_init_fill2, ushort)
STEPGEN_INIT_FILL(stepgen_init_fill4, uint)
STEPGEN_INIT_FILL(stepgen_init_fill8, ulong)
)CLC";
}

/// The program of one context and its four kernels (by element size).
struct Filler {
  Program program;
  Kernel fill[4];
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

}  // namespace init_detail

/// Enqueues on `d`'s compute queue the initial values `init` (zero, value or random) of the
/// cells `sub` of a buffer holding the box `buffer`, elements of `element_bytes` (1, 2, 4, 8),
/// global linear indices over `grid` (x fastest), as the host's fill gives them. The program
/// is built once per context (kept for the process: released OpenCL objects after the
/// platform's exit handlers can crash); safe from several threads.
inline void init_box(const Device& d, const Mem& m, const rt::Box& buffer, const rt::Box& sub,
                     const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes) {
  using init_detail::Filler;
  if (sub.empty()) return;
  const int slot = init_detail::slot_of(element_bytes);
  if (slot < 0)
    throw rt::RunError("internal error: initial values of " + std::to_string(element_bytes) +
                       "-byte elements on " + d.label());
  static std::mutex lock;
  static auto* made = new std::map<cl_context, std::unique_ptr<Filler>>();
  std::lock_guard<std::mutex> hold(lock);
  std::unique_ptr<Filler>& f = (*made)[d.context.get()];
  if (!f) {
    auto built = std::make_unique<Filler>();
    built->program = build_program(d, init_detail::init_source(), "");
    const char* names[4] = {"stepgen_init_fill1", "stepgen_init_fill2", "stepgen_init_fill4",
                            "stepgen_init_fill8"};
    for (int i = 0; i < 4; ++i) built->fill[i] = create_kernel(d, built->program, names[i]);
    f = std::move(built);
  }
  const Kernel& k = f->fill[slot];
  const char* name = "stepgen_init_fill";
  const cl_long base =
      ((sub.lo[2] - buffer.lo[2]) * buffer.extent(1) + (sub.lo[1] - buffer.lo[1])) *
          buffer.extent(0) +
      (sub.lo[0] - buffer.lo[0]);
  const cl_ulong first =
      (static_cast<cl_ulong>(sub.lo[2] - grid.lo[2]) * static_cast<cl_ulong>(grid.extent(1)) +
       static_cast<cl_ulong>(sub.lo[1] - grid.lo[1])) *
          static_cast<cl_ulong>(grid.extent(0)) +
      static_cast<cl_ulong>(sub.lo[0] - grid.lo[0]);
  cl_uint i = 0;
  set_arg(d, k, i++, m, name);
  set_arg(d, k, i++, static_cast<cl_int>(init.kind), name);
  set_arg(d, k, i++, static_cast<cl_int>(init.type), name);
  set_arg(d, k, i++, static_cast<cl_ulong>(rt::splitmix64(init.seed)), name);
  set_arg(d, k, i++, static_cast<cl_ulong>(init.value), name);
  set_arg(d, k, i++, base, name);
  for (rt::Index v : {sub.extent(0), sub.extent(1), sub.extent(2), buffer.extent(0),
                      buffer.extent(0) * buffer.extent(1), grid.extent(0), grid.extent(1)})
    set_arg(d, k, i++, static_cast<cl_long>(v), name);
  set_arg(d, k, i++, first, name);
  // x across work-groups of up to 128 items, one row of them per row and plane (up to 65535
  // each: the kernel's loops stride past them): no division per cell (four 64-bit divisions a
  // cell made the fill 2-3x slower than the memory on a GPU).
  std::size_t most = 0;
  check(clGetKernelWorkGroupInfo(k.get(), d.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                 nullptr),
        "clGetKernelWorkGroupInfo(stepgen_init_fill)", d.label());
  const auto nx = static_cast<std::size_t>(sub.extent(0));
  const std::size_t lx = std::max<std::size_t>(1, std::min<std::size_t>({128, most, nx}));
  const size_t global[3] = {std::min<std::size_t>((nx + lx - 1) / lx, 1024) * lx,
                            std::min<std::size_t>(static_cast<std::size_t>(sub.extent(1)), 65535),
                            std::min<std::size_t>(static_cast<std::size_t>(sub.extent(2)), 65535)};
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

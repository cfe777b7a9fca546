#pragma once
/// \file
/// Initial values made on an OpenCL device: zero, value(v) and random(seed) over a
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

#include "stepgen/description/init.hpp"
#include "stepgen/exec/kernels/init_cl.hpp"  // built from kernels/init.cl
#include "stepgen/exec/opencl.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::cl {

namespace init_detail {

inline const char* init_source() {
  return stepgen_runtime_kernel_init;  // kernels/init.cl, embedded at build time
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

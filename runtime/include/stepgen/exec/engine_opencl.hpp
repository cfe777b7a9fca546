#pragma once
/// \file
/// The OpenCL backend of the in-core engine (engine.hpp): buffers and rectangular copies of
/// opencl.hpp, and the exchanges through host staging (a page-locked buffer per box). A
/// device's kernels run in order on its compute queue; when a launch overlaps its exchange, its
/// boundary slabs run first, the halo reads follow on the boundary queue while the interior
/// computes, and the writes to the receivers go on their boundary queues.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/exchange_opencl.hpp"
#include "stepgen/exec/init_opencl.hpp"
#include "stepgen/exec/kernels/frames_cl.hpp"  // built from kernels/frames.cl
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/ooc_opencl.hpp"
#include "stepgen/exec/opencl.hpp"
#include "stepgen/exec/reduce_opencl.hpp"

namespace stepgen::cl {

// --- Boundary frames within one device in one launch (copy_boxes) ------------------------
/// Boundary frames within one OpenCL device in one launch (Backend::copy_boxes): a
/// small runtime program, built once per device and context, whose kernel copies up to
/// FrameBoxes::kMax boxes of one source buffer into one destination buffer (the same buffer
/// for periodic/mirror/copy frames), the boxes' descriptors passed by value. Like CUDA's
/// stepgen_frame_copies (engine_cuda.hpp): a frame of many narrow boxes (the columns of an x
/// frame, the corners) costs one launch, not one clEnqueueCopyBufferRect each.
/// STEPGEN_FRAMES=rect forces the rectangular copies (for comparison); a device whose build
/// fails copies by rectangles too.

/// The kernel's argument: up to kMax boxes, offsets and pitches in elements (cl_long only: the
/// same layout on the host and the device).
struct FrameBoxes {
  static constexpr int kMax = 8;  ///< 8 * 9 * 8 + 8 bytes: under the 1024 bytes every device takes
  struct Box {
    cl_long src, dst;            ///< the first element of the box in the buffers
    cl_long ex, ey, ez;          ///< extents
    cl_long src_row, src_slice;  ///< pitches of the source
    cl_long dst_row, dst_slice;  ///< pitches of the destination
  };
  Box b[kMax];
  cl_long count;
};

inline const char* frames_program_source() {
  return stepgen_runtime_kernel_frames;  // kernels/frames.cl, embedded at build time
}

/// A device's frame kernels (one per element size 1, 2, 4, 8).
struct FrameKernels {
  Program program;
  Kernel k[4];
  /// The kernel for `element_bytes`, nullptr for other sizes.
  const Kernel* of(std::size_t element_bytes) const {
    switch (element_bytes) {
      case 1:
        return &k[0];
      case 2:
        return &k[1];
      case 4:
        return &k[2];
      case 8:
        return &k[3];
      default:
        return nullptr;
    }
  }
};

/// Whether STEPGEN_FRAMES=rect asks for the rectangular copies.
inline bool frames_by_rect() {
  return rt::env_settings().frames_by_rect;
}

/// The frame kernels of `d`, built on first use and kept for the process (never destroyed:
/// releasing OpenCL objects after the platform's exit handlers can crash); nullptr when
/// STEPGEN_FRAMES=rect or the build failed (then the caller copies by rectangles). Safe to call
/// from several threads for different devices (a device's kernels are used by one thread).
inline const FrameKernels* frame_kernels_for(const Device& d) {
  if (frames_by_rect()) return nullptr;
  static std::mutex lock;
  static auto* made =
      new std::map<std::pair<cl_context, cl_device_id>, std::unique_ptr<FrameKernels>>();
  std::lock_guard<std::mutex> hold(lock);
  const auto key = std::make_pair(d.context.get(), d.id);
  auto it = made->find(key);
  if (it != made->end()) return it->second.get();
  std::unique_ptr<FrameKernels> f;
  try {
    auto made_now = std::make_unique<FrameKernels>();
    made_now->program = build_program(d, frames_program_source(), "");
    const char* names[4] = {"stepgen_frame_copies_1", "stepgen_frame_copies_2",
                            "stepgen_frame_copies_4", "stepgen_frame_copies_8"};
    for (int i = 0; i < 4; ++i) made_now->k[i] = create_kernel(d, made_now->program, names[i]);
    f = std::move(made_now);
  } catch (const std::exception&) {
    f.reset();  // the rectangular copies instead
  }
  const FrameKernels* out = f.get();
  (*made)[key] = std::move(f);
  return out;
}

/// Enqueues one launch of `k` on `queue` copying the boxes of `b` from `src` into `dst`;
/// `most`: the most elements of one box.
inline void launch_frame_boxes(const Device& d, cl_command_queue queue, const Kernel& k,
                               const Mem& src, const Mem& dst, const FrameBoxes& b, cl_long most) {
  set_arg(d, k, 0, src, "frame source");
  set_arg(d, k, 1, dst, "frame destination");
  set_arg(d, k, 2, b, "frame boxes");
  const size_t group = 64;
  size_t items =
      static_cast<size_t>((most + static_cast<cl_long>(group) - 1) / static_cast<cl_long>(group)) *
      group;
  if (items > (size_t{1} << 20)) items = size_t{1} << 20;  // the kernel loops over the rest
  const size_t global[2] = {items, static_cast<size_t>(b.count)};
  check(clEnqueueNDRangeKernel(queue, k.get(), 2, nullptr, global, nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel(stepgen_frame_copies)", d.label());
}

// --- end of the frame kernels -----------------------------------------------------------------

/// A device's built kernels: the generated program's `Kernels`, as its build_kernels() made
/// them. The backend holds them without their type (one engine for every program, its code
/// the same whatever the kernels); the program's launch functions read them with kernels<K>().
using BuiltKernels = std::shared_ptr<const void>;

/// What a launch function receives: the part it runs on and which of its work-items run
/// (`slab`: a range of them along the slowest dimension, for overlap; nullptr: all).
struct Launch {
  const Device& d;
  const BuiltKernels& k;  ///< the device's built kernels: kernels<Kernels>()
  const std::vector<Mem>& buf;
  const rt::Part& part;
  std::int64_t step;
  const Slab* slab;
  /// The device's kernels as the program's build_kernels() made them (`K`: its Kernels).
  template <class K>
  const K& kernels() const {
    return *static_cast<const K*>(k.get());
  }
};

/// The engine's OpenCL backend (a device's built kernels held as BuiltKernels).
struct Backend {
  using Device = cl::Device;
  using Buffer = Mem;
  using Kernels = BuiltKernels;
  using Launch = cl::Launch;
  /// Kernels run on slabs of work-items (global offsets), never on views of their buffers:
  /// the probe's view rims do not decide overlap.
  static constexpr bool kViewsFromProbe = false;
  /// What the main program (main.hpp) prints after the report (nullptr: nothing).
  static constexpr const char* kTimingNote = nullptr;

  // The main program's backend parts (main.hpp).
  static std::vector<Device> discover(const rt::Options& opt) { return cl::discover(opt); }
  static std::vector<Device> part_devices(std::vector<Device> d, const rt::Partition& partition) {
    return cl::part_devices(std::move(d), partition);
  }
  static void print_usage_note(std::FILE*) {}
  static rt::Index auto_device_memory(const std::vector<Device>& devices) {
    return cl::auto_device_memory(devices);
  }
  /// The host arrays' memory: page-locked when `pinned` (cl::pinned_allocator), in core (the
  /// uploads and downloads at the link's speed) and out of core (the chunks copied straight
  /// from and to it).
  static rt::HostAllocator host_allocator(const std::vector<Device>& devices, bool pinned,
                                          bool /*out_of_core*/) {
    return pinned ? cl::pinned_allocator(devices[0]) : rt::HostAllocator{};
  }

  static Mem create_buffer(const Device& d, const rt::Box& box, std::size_t element_bytes,
                           const char* name) {
    return cl::create_buffer(d, box, element_bytes, name);
  }
  static void write_box(const Device& d, const Mem& m, const rt::Box& buffer,
                        const rt::HostArray& host, const rt::Box& sub) {
    host.require("a copy to the device");  // only arrays with a host copy upload
    cl::write_box(d, m, buffer, host, sub, nullptr);
  }
  static void read_box(const Device& d, const Mem& m, const rt::Box& buffer, rt::HostArray& host,
                       const rt::Box& sub) {
    host.require("a copy from the device");  // and download
    cl::read_box(d, m, buffer, host, sub, nullptr);
  }
  static void finish(const Device& d) { cl::finish(d); }
  /// Boundary frames on the devices (engine.hpp: fill_frames_on_devices): copies `from` of a
  /// buffer holding `src_box` into `to` (same extents) of a buffer holding `dst_box`. On one
  /// device (`same`): clEnqueueCopyBufferRect on its compute queue, no wait. Between devices:
  /// through the host, read then write, waited (the engine has finished both devices first).
  static void copy_box(const Device& sd, const Mem& sm, const rt::Box& src_box, const rt::Box& from,
                       const Device& dd, const Mem& dm, const rt::Box& dst_box, const rt::Box& to,
                       std::size_t element_bytes, const char* name, bool same) {
    if (to.empty()) return;
    if (same) {
      const rt::RectCopy s = rt::rect_of(from, src_box, element_bytes);
      const rt::RectCopy d = rt::rect_of(to, dst_box, element_bytes);
      check(clEnqueueCopyBufferRect(dd.on(On::kCompute), sm.get(), dm.get(), s.origin.data(),
                                    d.origin.data(), d.region.data(), s.row_pitch, s.slice_pitch,
                                    d.row_pitch, d.slice_pitch, 0, nullptr, nullptr),
            (std::string("clEnqueueCopyBufferRect(frame of ") + name + ")").c_str(), dd.label());
      return;
    }
    rt::HostArray stage(name, element_bytes, from);
    cl::read_box(sd, sm, src_box, stage, from, nullptr);
    cl::finish(sd);
    stage.box = to;
    cl::write_box(dd, dm, dst_box, stage, to, nullptr);
    cl::finish(dd);
  }
  /// Builds the fill program of `d` (init_opencl.hpp) before the run is timed.
  static void prepare_init(const Device& d) { cl::prepare_init(d); }
  /// Builds the frame-copy program of `d` (frame_kernels_for) before the run is timed: the
  /// first refill of a boundary frame on the devices would build it inside a step.
  static void prepare_frames(const Device& d) { frame_kernels_for(d); }
  /// Initial values made on the device (init_opencl.hpp), on its compute queue.
  static void init_box(const Device& d, const Mem& m, const rt::Box& buffer, const rt::Box& sub,
                       const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes,
                       const Mem* also = nullptr) {
    cl::init_box(d, m, buffer, sub, grid, init, element_bytes, also);
  }
  static void copy_buffer(const Device& d, const Mem& dst, const Mem& src, std::size_t bytes) {
    cl::copy_buffer(d, dst, src, bytes);
  }
  // --- Boundary frames within one device in one launch (FrameBoxes above) -----------------
  /// Every copy of `list` (each within `d`) on its compute queue, where copy_box enqueued them
  /// (after the launch and exchange that wrote the sources, before the next launch): per source
  /// buffer, destination buffer and element size (1, 2, 4, 8), one launch of
  /// stepgen_frame_copies_<size> per FrameBoxes::kMax boxes (a periodic frame of one array in
  /// 2D: one launch, not 8 rectangular copies). The copies of one refresh are independent
  /// (boundary.hpp: FrameCopy), so they may run in any order. Other element sizes, and every
  /// copy when the kernels are not there (STEPGEN_FRAMES=rect, build failed): copy_box.
  static void copy_boxes(const Device& d, const std::vector<rt::DeviceFrameCopy<Buffer>>& list) {
    const FrameKernels* fk = frame_kernels_for(d);
    std::vector<bool> done(list.size(), false);
    if (fk != nullptr) {
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (done[i]) continue;
        const rt::DeviceFrameCopy<Buffer>& first = list[i];
        const Kernel* k = fk->of(first.element_bytes);
        if (k == nullptr) continue;
        const auto eb = static_cast<cl_long>(first.element_bytes);
        FrameBoxes b{};
        cl_long most = 0;
        auto flush = [&] {
          if (b.count == 0) return;
          launch_frame_boxes(d, d.on(On::kCompute), *k, *first.src, *first.dst, b, most);
          b.count = 0;
          most = 0;
        };
        for (std::size_t j = i; j < list.size(); ++j) {
          const rt::DeviceFrameCopy<Buffer>& c = list[j];
          if (done[j] || c.src->get() != first.src->get() || c.dst->get() != first.dst->get() ||
              c.element_bytes != first.element_bytes)
            continue;
          done[j] = true;
          if (c.to.empty()) continue;
          const rt::RectCopy s = rt::rect_of(c.from, c.src_box, c.element_bytes);
          const rt::RectCopy t = rt::rect_of(c.to, c.dst_box, c.element_bytes);
          FrameBoxes::Box& x = b.b[b.count++];
          x.src = static_cast<cl_long>(s.offset()) / eb;
          x.dst = static_cast<cl_long>(t.offset()) / eb;
          x.ex = c.to.extent(0);
          x.ey = c.to.extent(1);
          x.ez = c.to.extent(2);
          x.src_row = static_cast<cl_long>(s.row_pitch) / eb;
          x.src_slice = static_cast<cl_long>(s.slice_pitch) / eb;
          x.dst_row = static_cast<cl_long>(t.row_pitch) / eb;
          x.dst_slice = static_cast<cl_long>(t.slice_pitch) / eb;
          most = std::max(most, static_cast<cl_long>(c.to.volume()));
          if (b.count == FrameBoxes::kMax) flush();
        }
        flush();
      }
    }
    for (std::size_t i = 0; i < list.size(); ++i)  // the rest: rectangle by rectangle
      if (!done[i]) {
        const rt::DeviceFrameCopy<Buffer>& c = list[i];
        copy_box(d, *c.src, c.src_box, c.from, d, *c.dst, c.dst_box, c.to, c.element_bytes, c.name,
                 true);
      }
  }
  /// Waits for everything enqueued on the device (both queues): before a source or receiver
  /// (engine.hpp: InCore::inject/record) touches a cell an exchange may write.
  static void fence(const Device& d) {
    cl::finish(d, On::kCompute);
    cl::finish(d, On::kBoundary);
  }
  // --- Reductions (monitor.hpp) ---------------------------------------------------------
  /// Adds `op` over the cells `box` of `a` (a buffer holding `buffer`), of a - minus (computed
  /// in T, as the kernel would) when `minus` is not null, into `into`: on the device, exactly
  /// (cl::Reducer, reduce_opencl.hpp), after everything enqueued on it (the launch that wrote
  /// the cells may have run on either queue or stream); the one place that touches the data.
  template <typename T>
  static void reduce_box(const Device& d, const Kernels& /*k*/, const Mem& a, const Mem* minus,
                         const rt::Box& buffer, const rt::Box& box, rt::Reduction& into) {
    if (box.empty()) return;
    fence(d);
    cl::reducer_for(d).reduce_box<T>(a, minus, buffer, box, into);
  }
  static void check_fits(const Device& d, std::size_t bytes) { cl::check_fits(d, bytes); }
  static Launch whole(const Device& d, const Kernels& k, const std::vector<Mem>& buf,
                      const rt::Part& part, std::int64_t step) {
    return {d, k, buf, part, step, nullptr};
  }

  // Out of core (main.hpp's run_in_or_out_of_core, ooc_opencl.hpp's runner).
  using OocStep = cl::OocStep;
  using OocRunner = cl::OocRunner;
  /// Whether the trapezoid can run (its launches run on slabs of work-items: always); says
  /// why not unless `quiet`.
  static bool ooc_trapezoid_ok(const rt::Probed&, const std::vector<rt::ProbeLaunch>&, int, bool) {
    return true;
  }
  /// The host arrays stay page-locked for the run: host_allocator allocated them so.
  struct OocPinned {};
  static OocPinned ooc_pin(std::vector<rt::HostArray>&, const rt::ooc::Options&, rt::ooc::Stats&) {
    return {};
  }
  /// Runs `schedule` over the host arrays, `step` computing one step of a chunk.
  static void ooc_run(std::vector<Device>& devices, const rt::ooc::Schedule& schedule,
                      std::vector<rt::HostArray>& host, const OocStep& step,
                      const rt::ooc::Options& ooc, std::int64_t steps, rt::ooc::Stats& report,
                      rt::ooc::Share share = {}) {
    OocRunner runner(devices, schedule, host, step, ooc.overlap, std::move(share),
                     report.pinned ? cl::pinned_allocator(devices[0]) : rt::HostAllocator{});
    runner.run(steps, report);
  }
  /// A launch on a chunk (rt::ChunkRun): over the work-items of the planes still read
  /// (ooc_slab), all of them when `remaining` is negative.
  static void chunk_launch(void (*fn)(const Launch&), const rt::ProbeLaunch& at,
                           const rt::ChunkRule& rule, const Device& d, const Kernels& k,
                           const std::vector<Mem>& buf, const rt::Part& chunk, std::int64_t step,
                           std::int64_t remaining) {
    if (remaining < 0) return fn({d, k, buf, chunk, step, nullptr});
    const auto a = static_cast<std::size_t>(rule.dims - 1);
    const Slab slab = ooc_slab(chunk, rule.dims - 1, remaining, rule.shrink_lo, rule.shrink_hi,
                               at.after_lo[a], at.after_hi[a], at.group);
    fn({d, k, buf, chunk, step, &slab});
  }

  /// Exchanges wait on the host: the report splits kernel and exchange time by host timers.
  /// The exchanges between this process's parts (exchange_opencl.hpp), no messages.
  using State = ExchangeState<rt::NoMessages>;
};

}  // namespace stepgen::cl

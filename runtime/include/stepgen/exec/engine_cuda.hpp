#pragma once
/// \file
/// The CUDA backend of the in-core engine (engine.hpp): buffers, rectangular copies, peer
/// access and the exchange of cuda.hpp. Launches and exchanges are enqueued on the GPUs'
/// streams without host waits, ordered across GPUs by the events of a cuda::Timeline; the host
/// waits once, after the last step. A launch that overlaps its exchange runs its boundary views
/// on the high-priority stream first (cuda::launch_and_exchange).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/cuda_exchange.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/exchange_cuda.hpp"
#include "stepgen/exec/init_cuda.hpp"
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/ooc_cuda.hpp"
#include "stepgen/exec/reduce_cuda.hpp"

namespace stepgen::cuda {

/// Nothing to build per GPU: nvcc compiles the kernels with the program.
struct NoKernels {};

/// What a launch function receives: the part it runs on; the kernel is given `view`, the
/// part's whole buffer or a slab of it along the slowest dimension (overlap), on a stream.
struct Launch {
  const Device& d;
  const std::vector<Buffer>& buf;
  const rt::Part& part;
  const rt::Box& view;
  On on;
  std::int64_t step;
  template <typename T>
  ElementPtr<T> ptr(int id) const {
    return {view_pointer<T>(buf[static_cast<std::size_t>(id)], part.ghost, view)};
  }
};

/// Frame copies within one GPU, up to 32 a launch (stepgen_frame_copies): each box's first
/// cell on both sides, its extents in cells, the row and slice pitches in bytes.
struct FrameCell {
  const unsigned char* src;
  unsigned char* dst;
  long long ex, ey, ez;
  long long src_row, src_slice, dst_row, dst_slice;
};
struct FrameBatch {
  static constexpr int kMax = 32;
  FrameCell c[kMax];
};

/// Copies the boxes of `b` (blockIdx.y: the box; blockIdx.x * blockDim.x + threadIdx.x: the
/// cell), elements of type E (of the arrays' size): bytes moved as they are.
template <typename E>
__global__ void stepgen_frame_copies(FrameBatch b) {
  const FrameCell& k = b.c[blockIdx.y];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= k.ex * k.ey * k.ez) return;
  const long long x = i % k.ex, r = i / k.ex, y = r % k.ey, z = r / k.ey;
  const long long e = static_cast<long long>(sizeof(E));
  *reinterpret_cast<E*>(k.dst + z * k.dst_slice + y * k.dst_row + x * e) =
      *reinterpret_cast<const E*>(k.src + z * k.src_slice + y * k.src_row + x * e);
}

/// The engine's CUDA backend.
struct Backend {
  using Device = cuda::Device;
  using Buffer = cuda::Buffer;
  using Kernels = NoKernels;
  using Launch = cuda::Launch;
  /// Kernels run on views of their buffers: the probe's rims decide whether they can.
  static constexpr bool kViewsFromProbe = true;
  /// What the main program (main.hpp) prints after the report.
  static constexpr const char* kTimingNote =
      "timing: kernels and exchange are GPU time of the busiest GPU (CUDA events)";

  // The main program's backend parts (main.hpp).
  static std::vector<Device> discover(const rt::Options& opt) { return cuda::discover(opt); }
  static std::vector<Device> part_devices(std::vector<Device> d, const rt::Partition& partition) {
    return cuda::part_devices(std::move(d), partition);
  }
  static void print_usage_note(std::FILE* out) {
    std::fprintf(out,
                 "\nCUDA backend: runs on the CUDA GPUs only. --device-type all and gpu both mean "
                 "them\n(cpu is an error); --platform must be part of '%s'.\n",
                 cuda::platform_name());
  }
  static rt::Index auto_device_memory(const std::vector<Device>& devices) {
    return cuda::auto_device_memory(devices);
  }
  /// The host arrays' memory: in core and `pinned`, page-locked (cuda::pinned_allocator); out
  /// of core, heap memory that the CUDA driver page-locks where it is (cuda::pin_host_arrays).
  static rt::HostAllocator host_allocator(const std::vector<Device>&, bool pinned,
                                          bool out_of_core) {
    return pinned && !out_of_core ? cuda::pinned_allocator() : rt::HostAllocator{};
  }

  static Buffer create_buffer(const Device& d, const rt::Box& box, std::size_t element_bytes,
                              const char* name) {
    return Buffer(d, box, element_bytes, name);
  }
  static void write_box(const Device& d, const Buffer& b, const rt::Box& buffer,
                        const rt::HostArray& host, const rt::Box& sub) {
    host.require("a copy to the device");  // only arrays with a host copy upload
    cuda::write_box(d, b, buffer, host, sub);
  }
  static void read_box(const Device& d, const Buffer& b, const rt::Box& buffer, rt::HostArray& host,
                       const rt::Box& sub) {
    host.require("a copy from the device");  // and download
    cuda::read_box(d, b, buffer, host, sub);
  }
  static void finish(const Device& d) { cuda::finish(d); }
  /// Boundary frames on the GPUs (engine.hpp: fill_frames_on_devices): enqueues a copy of
  /// `from` of a buffer holding `src_box` into `to` (same extents) of a buffer holding
  /// `dst_box`, on the receiver's kernel stream: cudaMemcpyAsync / cudaMemcpy3DAsync on one GPU
  /// (`same`), cudaMemcpyPeerAsync / cudaMemcpy3DPeerAsync between two (the State orders it
  /// with events: State::fill_frames).
  static void copy_box(const Device& sd, const Buffer& sb, const rt::Box& src_box,
                       const rt::Box& from, const Device& dd, const Buffer& db,
                       const rt::Box& dst_box, const rt::Box& to, std::size_t element_bytes,
                       const char* name, bool same) {
    const rt::RectCopy s = rt::rect_of(from, src_box, element_bytes);
    const rt::RectCopy d = rt::rect_of(to, dst_box, element_bytes);
    if (d.bytes() == 0) return;
    if (same)
      return detail::rect_copy(dd, db.get(), d, sb.get(), s, cudaMemcpyDeviceToDevice,
                               std::string("frame of ") + name, On::kCompute);
    cuda::peer_box(sd, sb, src_box, from, dd, db, dst_box, to, element_bytes,
                   std::string("frame of ") + name, On::kCompute);
  }
  /// Boundary frames within one GPU (engine.hpp: fill_frames_on_devices): every copy of
  /// `list` (each within `d`) by one kernel per element size and 32 boxes
  /// (stepgen_frame_copies), on its kernel stream: a frame of many narrow boxes (the columns of
  /// an x frame, the corners) costs one launch, not one copy each.
  static void copy_boxes(const Device& d, const std::vector<rt::DeviceFrameCopy<Buffer>>& list) {
    for (std::size_t eb : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
      FrameBatch b{};
      unsigned count = 0;
      long long most = 0;
      auto flush = [&] {
        if (count == 0) return;
        d.use();
        const dim3 grid(static_cast<unsigned>((most + 255) / 256), count), block(256);
        const cudaStream_t stream = d.stream(On::kCompute);
        if (eb == 1) STEPGEN_LAUNCH(stepgen_frame_copies<unsigned char>, grid, block, stream)(b);
        if (eb == 2) STEPGEN_LAUNCH(stepgen_frame_copies<unsigned short>, grid, block, stream)(b);
        if (eb == 4) STEPGEN_LAUNCH(stepgen_frame_copies<unsigned int>, grid, block, stream)(b);
        if (eb == 8)
          STEPGEN_LAUNCH(stepgen_frame_copies<unsigned long long>, grid, block, stream)(b);
        check_launch(d, "stepgen_frame_copies", grid, block);
        count = 0;
        most = 0;
      };
      for (const rt::DeviceFrameCopy<Buffer>& c : list) {
        if (c.element_bytes != eb || c.to.empty()) continue;
        const rt::RectCopy s = rt::rect_of(c.from, c.src_box, eb);
        const rt::RectCopy t = rt::rect_of(c.to, c.dst_box, eb);
        FrameCell& k = b.c[count++];
        k.src = static_cast<const unsigned char*>(c.src->get()) + s.offset();
        k.dst = static_cast<unsigned char*>(c.dst->get()) + t.offset();
        k.ex = c.to.extent(0);
        k.ey = c.to.extent(1);
        k.ez = c.to.extent(2);
        k.src_row = static_cast<long long>(s.row_pitch);
        k.src_slice = static_cast<long long>(s.slice_pitch);
        k.dst_row = static_cast<long long>(t.row_pitch);
        k.dst_slice = static_cast<long long>(t.slice_pitch);
        most = std::max(most, static_cast<long long>(c.to.volume()));
        if (count == FrameBatch::kMax) flush();
      }
      flush();
    }
    for (const rt::DeviceFrameCopy<Buffer>& c : list)  // other element sizes: copy by copy
      if (c.element_bytes != 1 && c.element_bytes != 2 && c.element_bytes != 4 &&
          c.element_bytes != 8)
        copy_box(d, *c.src, c.src_box, c.from, d, *c.dst, c.dst_box, c.to, c.element_bytes, c.name,
                 true);
  }
  /// Nothing to make before the run: the fill kernels (init_cuda.hpp) are compiled
  /// into the program (loaded at their first launch, about 0.1 ms on the H100 with
  /// CUDA_MODULE_LOADING=LAZY, bench/phases/setupcost.sh's EAGER column).
  static void prepare_init(const Device&) {}
  /// Nothing to make: the frame copies are compiled into the program.
  static void prepare_frames(const Device&) {}
  /// Initial values made on the GPU (init_cuda.hpp), on its compute stream.
  static void init_box(const Device& d, const Buffer& b, const rt::Box& buffer, const rt::Box& sub,
                       const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes,
                       const Buffer* also = nullptr) {
    cuda::init_box(d, b, buffer, sub, grid, init, element_bytes, also);
  }
  static void copy_buffer(const Device& d, const Buffer& dst, const Buffer& src,
                          std::size_t bytes) {
    cuda::copy_buffer(d, dst, src, bytes);
  }
  /// Waits for everything enqueued on the GPU (every stream, peer copies into it included):
  /// before a source or receiver (engine.hpp: InCore::inject/record) touches a cell an
  /// exchange may write.
  static void fence(const Device& d) {
    d.use();
    cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", d);
  }
  // --- Reductions (monitor.hpp) ---------------------------------------------------------
  /// Adds `op` over the cells `box` of `a` (a buffer holding `buffer`), of a - minus (computed
  /// in T, as the kernel would) when `minus` is not null, into `into`: on the device, exactly
  /// (cuda::Reducer, reduce_cuda.hpp), after everything enqueued on it (the launch that wrote
  /// the cells may have run on either queue or stream); the one place that touches the data.
  template <typename T>
  static void reduce_box(const Device& d, const Kernels& /*k*/, const Buffer& a,
                         const Buffer* minus, const rt::Box& buffer, const rt::Box& box,
                         rt::Reduction& into) {
    if (box.empty()) return;
    fence(d);
    cuda::reducer_for(d).reduce_box<T>(a, minus, buffer, box, into);
  }
  static void check_fits(const Device& d, std::size_t bytes) { cuda::check_fits(d, bytes); }
  /// A launch over part p's whole buffer, on its kernel stream.
  static Launch whole(const Device& d, const NoKernels&, const std::vector<Buffer>& buf,
                      const rt::Part& part, std::int64_t step) {
    return {d, buf, part, part.ghost, On::kCompute, step};
  }

  // Out of core (main.hpp's run_in_or_out_of_core, ooc_cuda.hpp's runner).
  using OocStep = cuda::OocStep;
  using OocRunner = cuda::OocRunner;
  /// Whether the trapezoid can run: it runs every launch on views, so not where the probe found
  /// a kernel unsafe there (said unless `quiet`).
  static bool ooc_trapezoid_ok(const rt::Probed& probed,
                               const std::vector<rt::ProbeLaunch>& launches, int dims, bool quiet) {
    const std::string no_views = probed.no_views(launches, dims - 1);
    if (!no_views.empty() && !quiet) std::printf("trapezoid: off (%s)\n", no_views.c_str());
    return no_views.empty();
  }
  /// Direct mapping: the CUDA driver page-locks the host arrays where they are for the run
  /// (`ooc.pinned`); the chunks move straight between them and the GPU.
  static std::vector<PinnedHost> ooc_pin(std::vector<rt::HostArray>& host,
                                         const rt::ooc::Options& ooc, rt::ooc::Stats& report) {
    report.pinned = ooc.pinned;
    if (!ooc.pinned) return {};
    return pin_host_arrays(host);
  }
  /// Runs `schedule` over the host arrays, `step` computing one step of a chunk.
  static void ooc_run(std::vector<Device>& devices, const rt::ooc::Schedule& schedule,
                      std::vector<rt::HostArray>& host, const OocStep& step,
                      const rt::ooc::Options& ooc, std::int64_t steps, rt::ooc::Stats& report,
                      rt::ooc::Share share = {}) {
    OocRunner runner(devices, schedule, host, step, ooc.overlap, std::move(share));
    runner.run(steps, report);
  }
  /// A launch on a chunk (rt::ChunkRun): on the view of the planes still read, grown by the
  /// rim the kernel leaves at its buffer's edge (the probe's; without it, its read halo); the
  /// whole buffer when `remaining` is negative or the kernel is unsafe on views.
  static void chunk_launch(void (*fn)(const Launch&), const rt::ProbeLaunch& at,
                           const rt::ChunkRule& rule, const Device& d, const NoKernels&,
                           const std::vector<Buffer>& buf, const rt::Part& chunk, std::int64_t step,
                           std::int64_t remaining) {
    rt::Box view = chunk.ghost;
    if (remaining >= 0) {
      const auto a = static_cast<std::size_t>(rule.dims - 1);
      const rt::ViewRim rim = rule.probed->view(at.kernel, rule.dims - 1, at.reach_lo, at.reach_hi);
      if (rim.safe)
        view = rt::ooc::view(chunk, rule.dims - 1, remaining, rule.shrink_lo[a], rule.shrink_hi[a],
                             at.after_lo[a], at.after_hi[a], rim.lo, rim.hi);
    }
    fn({d, buf, chunk, view, On::kCompute, step});
  }

  /// The exchanges between this process's GPUs (exchange_cuda.hpp's executor, no messages),
  /// the report's exchange paths and the boundary frames ordered between the GPUs.
  class State : public ExchangeState<rt::NoMessages> {
   public:
    using ExchangeState<rt::NoMessages>::ExchangeState;
    using Engine = rt::InCore<Backend, State>;

    /// One line per pair of devices that exchange ghost cells: GPU to GPU or through the host.
    void print_exchange_paths(const Engine& e) const {
      if (e.parts() < 2) return;
      std::vector<const std::vector<rt::Transfer>*> plans;
      for (int id = 0; id < e.problem().array_count; ++id)
        if (e.problem().arrays[id].exchanged()) plans.push_back(&e.plan(id));
      cuda::print_exchange_paths(e.devices(), peers(), plans, stdout);
    }

    /// Boundary frames on the GPUs (engine.hpp: fill_frames_on_devices), after the launch and
    /// exchange enqueued so far and before the next launch, no host wait: each GPU marks the
    /// end of its work; each receiver's kernel stream waits for the marks of the GPUs it copies
    /// from (`pair[src][dst]`), then `copies_into(dst)` enqueues its copies there (on its own
    /// GPU, in stream order); each sender's kernel stream then waits for its receivers' marks,
    /// so that no later kernel overwrites a cell before it is copied. The timeline counts the
    /// copies as exchange.
    void fill_frames(Engine& e, const std::vector<std::vector<bool>>& pair,
                     const std::function<void(std::size_t)>& copies_into) {
      const std::size_t n = e.parts();
      Timeline& t = timeline();
      t.poll();
      std::vector<cudaEvent_t> computed(n), received(n);
      for (std::size_t p = 0; p < n; ++p) computed[p] = t.mark(p, Timeline::kKernels);
      for (std::size_t d = 0; d < n; ++d) {
        for (std::size_t s = 0; s < n; ++s)
          if (s != d && pair[s][d]) t.wait(d, computed[s]);
        copies_into(d);
      }
      for (std::size_t p = 0; p < n; ++p) received[p] = t.mark(p, Timeline::kExchange);
      for (std::size_t s = 0; s < n; ++s) {
        bool waited = false;
        for (std::size_t d = 0; d < n; ++d)
          if (d != s && pair[s][d]) {
            t.wait(s, received[d]);
            waited = true;
          }
        if (waited) t.mark(s, Timeline::kExchange);
      }
    }
  };
};

}  // namespace stepgen::cuda

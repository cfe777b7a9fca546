#pragma once
/// \file
/// Out-of-core execution on OpenCL devices: runs the commands of rt::ooc::ops (ooc.hpp) with a
/// copy-in queue, the device's own queue for kernels (the generated launch functions enqueue
/// there) and a copy-out queue per device, ordered by events only. Chunks move directly
/// between the host arrays and the chunk buffers (rectangular copies, no staging buffers; the
/// generated program page-locks the host arrays with cl::pinned_allocator, opencl.hpp);
/// region sharing copies planes between chunk buffers with clEnqueueCopyBufferRect.

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/ooc.hpp"
#include "stepgen/opencl.hpp"

namespace stepgen::cl {

/// One time step of the body on a chunk: the generated program's launches over the chunk's
/// buffers (by array id) as if the chunk were a part whose ghost box is `chunk.ghost`, and
/// its swap/rotate as renamings of these buffers. Enqueues on the device's queue. `remaining`:
/// the steps of this pass after this one, so that a launch may compute only the planes still
/// read (ooc_slab); negative: compute the whole buffer.
using OocStep =
    std::function<void(const Device& d, std::size_t part, std::vector<Mem>& buffers,
                       const rt::Part& chunk, std::int64_t step, std::int64_t remaining)>;

/// The slab of work-items along the slowest dimension a launch computes on a chunk: the
/// planes rt::ooc::needed_planes says are still read, on the device's kernel queue.
inline Slab ooc_slab(const rt::Part& chunk, int axis, std::int64_t remaining,
                     const rt::Vec3& shrink_lo, const rt::Vec3& shrink_hi, rt::Index after_lo,
                     rt::Index after_hi, std::size_t group) {
  const auto a = static_cast<std::size_t>(axis);
  const auto [begin, end] =
      rt::ooc::needed_planes(chunk, axis, remaining, shrink_lo[a], shrink_hi[a], after_lo, after_hi,
                             static_cast<rt::Index>(group));
  return Slab{axis, static_cast<size_t>(begin), static_cast<size_t>(end)};
}

namespace detail {
/// Copies the cells `src` describes in buffer `from` to those `dst` describes in buffer `to`
/// (the same region) on the device, on queue `q`: one clEnqueueCopyBuffer when both are one
/// contiguous range (whole planes: bands, shared planes of one part), else a rectangular copy.
/// `what` names the copy in errors.
inline void device_rect(cl_command_queue q, const Device& d, const Mem& from,
                        const rt::RectCopy& src, const Mem& to, const rt::RectCopy& dst,
                        const std::string& what) {
  if (src.contiguous() && dst.contiguous()) {
    check(clEnqueueCopyBuffer(q, from.get(), to.get(), src.offset(), dst.offset(), src.bytes(), 0,
                              nullptr, nullptr),
          ("clEnqueueCopyBuffer(" + what + ")").c_str(), d.label());
    return;
  }
  check(clEnqueueCopyBufferRect(q, from.get(), to.get(), src.origin.data(), dst.origin.data(),
                                src.region.data(), src.row_pitch, src.slice_pitch, dst.row_pitch,
                                dst.slice_pitch, 0, nullptr, nullptr),
        ("clEnqueueCopyBufferRect(" + what + ")").c_str(), d.label());
}

inline void wait_on(cl_command_queue q, const std::vector<cl_event>& events, const Device& d) {
  if (events.empty()) return;
  check(
      clEnqueueBarrierWithWaitList(q, static_cast<cl_uint>(events.size()), events.data(), nullptr),
      "clEnqueueBarrierWithWaitList", d.label());
}
inline Event marker(cl_command_queue q, const Device& d) {
  cl_event ev = nullptr;
  check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &ev), "clEnqueueMarkerWithWaitList", d.label());
  return Event(ev);
}
inline Queue make_queue(const Device& d) {
  cl_int err = CL_SUCCESS;
  Queue q(clCreateCommandQueue(d.context.get(), d.id, 0, &err));
  check(err, "clCreateCommandQueue", d.label());
  return q;
}
/// `sub` of a host array (whose own box may be any box) to or from a buffer holding `buffer`.
/// `read_events` (reads only): receives the read command's own event, whose completion says
/// the cells are in the host array.
inline void host_rect(cl_command_queue q, const Device& d, const Mem& mem, const rt::Box& buffer,
                      const rt::HostArray& host, const rt::Box& sub, bool to_device,
                      std::vector<Event>* read_events = nullptr) {
  if (sub.empty()) return;
  rt::RectCopy dev = rt::rect_of(sub, buffer, host.element_bytes);
  rt::RectCopy hst = rt::rect_of(sub, host.box, host.element_bytes);
  auto* data = const_cast<unsigned char*>(host.bytes.data());
  if (to_device)
    check(clEnqueueWriteBufferRect(q, mem.get(), CL_FALSE, dev.origin.data(), hst.origin.data(),
                                   dev.region.data(), dev.row_pitch, dev.slice_pitch, hst.row_pitch,
                                   hst.slice_pitch, data, 0, nullptr, nullptr),
          ("clEnqueueWriteBufferRect(" + host.name + ")").c_str(), d.label());
  else {
    cl_event ev = nullptr;
    check(clEnqueueReadBufferRect(q, mem.get(), CL_FALSE, dev.origin.data(), hst.origin.data(),
                                  dev.region.data(), dev.row_pitch, dev.slice_pitch, hst.row_pitch,
                                  hst.slice_pitch, data, 0, nullptr, read_events ? &ev : nullptr),
          ("clEnqueueReadBufferRect(" + host.name + ")").c_str(), d.label());
    if (read_events) read_events->emplace_back(ev);
  }
}
}  // namespace detail

/// Copies the cells of a box between host arrays (rt::ooc::copy_host_box: threads for large
/// copies).
using rt::ooc::copy_host_box;

/// What one MPI rank runs of a schedule: its one part, on its one device. The other parts run
/// on other ranks; at every pass boundary, once this part's stores are done, `exchange` fills
/// the host arrays' cells of this part's foreign boxes with their owners' results (the
/// messages of rt::ooc::foreign_plan), and the part's snapshots are taken from there.
struct OocShare {
  int part = -1;  ///< the part run here; -1: every part, on devices[part] (one process)
  std::function<void()> exchange;
};

/// Runs a stencil out of core on every part's device (or on one part's, see OocShare).
class OocRunner {
 public:
  /// `snapshot_alloc` gives the memory of the snapshots of other parts' cells (page-locked
  /// when the host arrays are: cl::pinned_allocator); empty: heap memory.
  OocRunner(std::vector<Device>& devices, const rt::ooc::Schedule& schedule,
            std::vector<rt::HostArray>& host, OocStep step, bool overlap, OocShare share = {},
            const rt::HostAllocator& snapshot_alloc = {})
      : devices_(devices),
        sc_(schedule),
        host_(host),
        step_(std::move(step)),
        overlap_(overlap),
        share_(std::move(share)) {
    for (std::size_t p = 0; p < sc_.parts.size(); ++p) {
      if (!runs_here(p)) continue;
      const Device& d = device(p);
      PartState st;
      if (overlap_) {
        st.in = detail::make_queue(d);
        st.out = detail::make_queue(d);
      }
      st.slots.resize(static_cast<std::size_t>(sc_.buffers));
      for (auto& slot : st.slots)
        for (const rt::ooc::Array& a : sc_.arrays)
          slot.push_back(
              create_buffer(d, rt::Box::from_extent(1, {sc_.parts[p].buffer_cells, 1, 1}),
                            static_cast<size_t>(a.element_bytes), a.name + " (chunk buffer)"));
      // Band sharing: each array's bands, all k of them, one after the other.
      if (sc_.band_cells > 0)
        for (const rt::ooc::Array& a : sc_.arrays)
          st.bands.push_back(create_buffer(d, rt::Box::from_extent(1, {sc_.band_cells, 1, 1}),
                                           static_cast<size_t>(a.element_bytes),
                                           a.name + " (band store)"));
      // The cells read from other parts, per written array, refreshed at each pass boundary.
      st.snapshots.resize(sc_.arrays.size());
      for (std::size_t a = 0; a < sc_.arrays.size(); ++a)
        if (sc_.arrays[a].written && sc_.parts.size() > 1)
          for (const rt::Box& f : sc_.parts[p].foreign)
            st.snapshots[a].emplace_back(sc_.arrays[a].name,
                                         static_cast<std::size_t>(sc_.arrays[a].element_bytes), f,
                                         snapshot_alloc);
      parts_.push_back(std::move(st));
    }
  }

  /// Runs `steps` steps; fills the byte counts and the measured time of `stats`.
  void run(std::int64_t steps, rt::ooc::Stats& stats) {
    rt::Stopwatch clock;
    clock.start();
    snapshot();
    for (const rt::ooc::Op& op : rt::ooc::ops(sc_, steps))
      if (op.kind == rt::ooc::Op::Kind::kBarrier || runs_here(static_cast<std::size_t>(op.part)))
        execute(op, stats);
    finish_all();
    stats.measured_s = clock.stop();
    stats.passes = rt::ooc::passes(steps, sc_.steps_per_pass);
    stats.steps = steps;
    stats.parts = sc_.parts.size();
  }

  /// The cells `calibrate` sends: the first planes of the first part's reach, at most
  /// `probe_bytes` over all arrays (at least one plane). The host arrays must hold them.
  static rt::Box probe_box(const rt::ooc::Schedule& sc, rt::Index probe_bytes) {
    rt::Index cell_bytes = 0;
    for (const rt::ooc::Array& a : sc.arrays) cell_bytes += a.element_bytes;
    return rt::ooc::probe_planes(sc.parts[0].reach, sc.dims, cell_bytes, probe_bytes);
  }

  /// Measures the link and the kernels on the first device: the probe_box() is sent,
  /// received, sent and received at once, and stepped once. With several devices (one
  /// process), the link again with every device streaming the first planes of its own part at
  /// once (the *_all figures): devices often share the host's memory and PCIe root. The host
  /// arrays are left as they were (only their own bytes are written back, before any kernel
  /// ran; the parts' probes do not overlap).
  static rt::ooc::Link calibrate(std::vector<Device>& devices, const rt::ooc::Schedule& sc,
                                 std::vector<rt::HostArray>& host, const OocStep& step,
                                 rt::Index probe_bytes) {
    // One probe per device taking part: a box, its buffers and two copy queues.
    struct Probe {
      const Device* d;
      rt::Box box;
      std::vector<Mem> bufs;
      Queue in, out;
    };
    auto make = [&](std::size_t p, const rt::Box& box) {
      Probe pr{
          &devices[p], box, {}, detail::make_queue(devices[p]), detail::make_queue(devices[p])};
      for (const rt::ooc::Array& a : sc.arrays)
        pr.bufs.push_back(create_buffer(devices[p], box, static_cast<size_t>(a.element_bytes),
                                        a.name + " (probe)"));
      return pr;
    };
    auto copy = [&](Probe& pr, bool to_device) {
      for (std::size_t a = 0; a < pr.bufs.size(); ++a)
        detail::host_rect(to_device ? pr.in.get() : pr.out.get(), *pr.d, pr.bufs[a], pr.box,
                          host[a], pr.box, to_device);
    };
    auto wait = [](Probe& pr) {
      check(clFinish(pr.in.get()), "clFinish", pr.d->label());
      check(clFinish(pr.out.get()), "clFinish", pr.d->label());
    };
    rt::ooc::Link link;
    Probe pr =
        rt::ooc::measure_link<Probe>(sc, devices.size(), probe_bytes, make, copy, wait, link);
    const Device& d = devices[0];
    const rt::Box probe = pr.box;
    std::vector<Mem>& bufs = pr.bufs;
    rt::Part chunk;
    chunk.owned = chunk.ghost = probe;
    rt::ooc::measure_device(
        sc, probe,
        [&] {
          step(d, 0, bufs, chunk, 0, -1);
          finish(d);
        },
        [&](std::size_t a, const rt::RectCopy& from, const rt::RectCopy& to) {
          detail::device_rect(pr.in.get(), d, bufs[a], from, bufs[a], to,
                              "probe copy " + sc.arrays[a].name);
        },
        [&] { check(clFinish(pr.in.get()), "clFinish", d.label()); }, link);
    link.measured = true;
    return link;
  }

 private:
  struct PartState {
    Queue in, out;                                      ///< copy queues (null without overlap)
    std::vector<std::vector<Mem>> slots;                ///< [slot][array]
    std::vector<Mem> bands;                             ///< [array]: the band store
    std::vector<std::vector<rt::HostArray>> snapshots;  ///< [array][foreign box]
    std::map<std::pair<rt::Index, int>, Event> events;  ///< (t, kind) -> its completion
    std::map<rt::Index, std::vector<Event>> reads;      ///< t -> its store's reads
  };

  bool runs_here(std::size_t p) const {
    return share_.part < 0 || p == static_cast<std::size_t>(share_.part);
  }
  /// Where part p's device and state are (p runs here).
  std::size_t local(std::size_t p) const { return share_.part < 0 ? p : 0; }
  const Device& device(std::size_t p) const { return devices_[local(p)]; }

  cl_command_queue queue(std::size_t p, rt::ooc::Op::Kind kind) const {
    const Device& d = device(p);
    const PartState& st = parts_[local(p)];
    if (!overlap_ || kind == rt::ooc::Op::Kind::kCompute) return d.queue.get();
    return kind == rt::ooc::Op::Kind::kLoad ? st.in.get() : st.out.get();
  }

  void execute(const rt::ooc::Op& op, rt::ooc::Stats& stats) {
    using K = rt::ooc::Op::Kind;
    if (op.kind == K::kBarrier) {
      finish_all();
      if (share_.exchange) share_.exchange();
      snapshot();
      return;
    }
    const auto p = static_cast<std::size_t>(op.part);
    const Device& d = device(p);
    PartState& st = parts_[local(p)];
    std::vector<Mem>& bufs = st.slots[static_cast<std::size_t>(op.slot)];
    cl_command_queue q = queue(p, op.kind);
    std::vector<cl_event> waits, reads;
    for (const auto& w : op.waits) {
      auto it = st.events.find({w.second, static_cast<int>(w.first)});
      if (it == st.events.end()) throw rt::RunError("out-of-core: internal error: missing event");
      waits.push_back(it->second.get());
      if (op.kind == rt::ooc::Op::Kind::kLoad && w.first == rt::ooc::Op::Kind::kStore)
        for (const Event& r : st.reads[w.second]) reads.push_back(r.get());
    }
    // A load reads host cells that earlier stores wrote: the host waits for those stores' reads
    // (their own events: complete means the cells are in the host array) before it enqueues the
    // load. The queue's wait alone is what OpenCL promises to order them, but on NVIDIA's OpenCL,
    // with small copies (1D chunks) and mostly pageable host memory, loads saw old values now
    // and then on the H100 (PoCL, and CUDA, whose pageable copies are synchronous, were exact).
    if (!reads.empty())
      check(clWaitForEvents(static_cast<cl_uint>(reads.size()), reads.data()),
            "clWaitForEvents (the stores a load reads after)", d.label());
    detail::wait_on(q, waits, d);
    // Its copies and kernels, laid out by rt::ooc::execute, on this op's queue.
    std::vector<Mem>& next = st.slots[static_cast<std::size_t>((op.t + 1) % sc_.buffers)];
    rt::ooc::execute(
        sc_, op, bufs, next, st.bands, host_, st.snapshots, stats,
        [&](const Mem& buf, const rt::Box& load, const rt::HostArray& h, const rt::Box& sub,
            bool to_device) {
          detail::host_rect(q, d, buf, load, h, sub, to_device,
                            to_device ? nullptr : &st.reads[op.t]);
        },
        [&](Mem& from, const rt::RectCopy& src, Mem& to, const rt::RectCopy& dst,
            const std::string& what) { detail::device_rect(q, d, from, src, to, dst, what); },
        [&](const rt::Part& chunk, std::int64_t step, std::int64_t remaining) {
          step_(d, p, bufs, chunk, step, remaining);
        });
    st.events[{op.t, static_cast<int>(op.kind)}] = detail::marker(q, d);
    // Events far behind can no longer be waited for.
    const rt::Index keep = sc_.chunks + sc_.buffers + 2;
    while (!st.events.empty() && st.events.begin()->first.first + keep < op.t)
      st.events.erase(st.events.begin());
    while (!st.reads.empty() && st.reads.begin()->first + keep < op.t)
      st.reads.erase(st.reads.begin());
    // Flush so that the three queues start working now, not at the next blocking call.
    check(clFlush(q), "clFlush", d.label());
  }

  void finish_all() {
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      finish(devices_[i]);
      if (overlap_) {
        check(clFinish(parts_[i].in.get()), "clFinish", devices_[i].label());
        check(clFinish(parts_[i].out.get()), "clFinish", devices_[i].label());
      }
    }
  }

  /// Copies the cells each part reads from the others out of the host arrays (all parts have
  /// stored their results): the exchange between parts, at pass boundaries.
  void snapshot() {
    for (PartState& st : parts_)
      for (std::size_t a = 0; a < st.snapshots.size(); ++a)
        for (rt::HostArray& f : st.snapshots[a]) copy_host_box(host_[a], f, f.box);
  }

  std::vector<Device>& devices_;
  const rt::ooc::Schedule& sc_;
  std::vector<rt::HostArray>& host_;
  OocStep step_;
  bool overlap_;
  OocShare share_;
  std::vector<PartState> parts_;  ///< of the parts run here, in part order
};

/// Swap/rotate inside a chunk: each name takes the next one's buffer, the last the first's.
inline void rename_buffers(std::vector<Mem>& buffers, std::initializer_list<int> ids) {
  std::vector<int> order(ids);
  for (std::size_t i = 0; i + 1 < order.size(); ++i)
    swap(buffers[static_cast<std::size_t>(order[i])],
         buffers[static_cast<std::size_t>(order[i + 1])]);
}

/// The smallest global memory of the devices: what `device_memory="auto"` takes a share of
/// (OpenCL has no portable query of free memory).
inline rt::Index auto_device_memory(const std::vector<Device>& devices) {
  cl_ulong m = devices.empty() ? 0 : devices[0].global_mem;
  for (const Device& d : devices) m = std::min(m, d.global_mem);
  return static_cast<rt::Index>(static_cast<double>(m) * rt::ooc::kAutoMemoryShare);
}

}  // namespace stepgen::cl

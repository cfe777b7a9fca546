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

#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/opencl.hpp"

namespace stepgen::cl {

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
  // Profiling on: the runner times each command by markers around it.
  Queue q(clCreateCommandQueue(d.context.get(), d.id, CL_QUEUE_PROFILING_ENABLE, &err));
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

/// The OpenCL operations the out-of-core runner (rt::ooc::Runner) runs on: buffers, a copy-in
/// and a copy-out queue per device besides its own, rectangular and contiguous copies, events
/// (a marker after each command; a store's reads keep their own events too).
struct OocOps {
  using Device = cl::Device;
  using Buffer = Mem;
  using Queue = cl::Queue;
  using Event = cl::Event;
  using Handle = cl_command_queue;
  struct Pinned {};  ///< snapshots are page-locked by their allocator (cl::pinned_allocator)

  static Mem buffer(const Device& d, const rt::Box& box, std::size_t element_bytes,
                    const std::string& name) {
    return create_buffer(d, box, element_bytes, name);
  }
  static Queue queue(const Device& d) { return detail::make_queue(d); }
  static Handle compute_queue(const Device& d) { return d.queue.get(); }
  static void use(const Device&) {}
  static void host_copy(Handle q, const Device& d, const Mem& buf, const rt::Box& box,
                        const rt::HostArray& host, const rt::Box& sub, bool to_device,
                        std::vector<Event>* reads) {
    detail::host_rect(q, d, buf, box, host, sub, to_device, reads);
  }
  static void device_copy(Handle q, const Device& d, const Mem& from, const rt::RectCopy& src,
                          const Mem& to, const rt::RectCopy& dst, const std::string& what) {
    detail::device_rect(q, d, from, src, to, dst, what);
  }
  static void wait(Handle q, const Device& d, const std::vector<const Event*>& events) {
    std::vector<cl_event> list;
    for (const Event* e : events) list.push_back(e->get());
    detail::wait_on(q, list, d);
  }
  static void host_wait(const Device& d, const std::vector<const Event*>& events) {
    std::vector<cl_event> list;
    for (const Event* e : events) list.push_back(e->get());
    check(clWaitForEvents(static_cast<cl_uint>(list.size()), list.data()),
          "clWaitForEvents (the stores a load reads after)", d.label());
  }
  static Event record(Handle q, const Device& d) { return detail::marker(q, d); }
  static void flush(Handle q, const Device& d) { check(clFlush(q), "clFlush", d.label()); }
  static void finish(const Device& d) { cl::finish(d); }
  static void finish(Handle q, const Device& d) { check(clFinish(q), "clFinish", d.label()); }
  static Pinned pin(const Device&, rt::HostArray&) { return {}; }

  // --- the kernel/copy split (rt::ooc::HasTimer) ------------
  /// The device's own queue (where the generated launches go) made a profiling one, once its
  /// work is done; the copy queues are made with profiling (make_queue).
  static void timing(Device& d) {
    cl_command_queue_properties props = 0;
    check(clGetCommandQueueInfo(d.queue.get(), CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr),
          "clGetCommandQueueInfo", d.label());
    if (props & CL_QUEUE_PROFILING_ENABLE) return;
    check(clFinish(d.queue.get()), "clFinish", d.label());
    cl_int err = CL_SUCCESS;
    Queue q(clCreateCommandQueue(d.context.get(), d.id, props | CL_QUEUE_PROFILING_ENABLE, &err));
    check(err, "clCreateCommandQueue(profiling)", d.label());
    d.queue = std::move(q);
  }
  /// A marker: complete when the queue's commands before it are.
  static Event timer(Handle q, const Device& d) { return detail::marker(q, d); }
  /// Seconds between the ends of two markers of one queue; negative while `b` is not
  /// complete; 0 where the queue has no profiling.
  static double elapsed(const Device&, const Event& a, const Event& b) {
    cl_int status = CL_COMPLETE;
    if (clGetEventInfo(b.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                       nullptr) != CL_SUCCESS)
      return 0;
    if (status > CL_COMPLETE) return -1;  // queued, submitted or running
    cl_ulong ta = 0, tb = 0;
    if (clGetEventProfilingInfo(a.get(), CL_PROFILING_COMMAND_END, sizeof ta, &ta, nullptr) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(b.get(), CL_PROFILING_COMMAND_END, sizeof tb, &tb, nullptr) !=
            CL_SUCCESS)
      return 0;
    return tb > ta ? static_cast<double>(tb - ta) * 1e-9 : 0.0;
  }
  // --- end: the kernel/copy split (rt::ooc::HasTimer) ---
};

/// What one MPI rank runs of a schedule (rt::ooc::Share): its part, and the exchange at every
/// pass boundary.
using OocShare = rt::ooc::Share;

/// Runs a stencil out of core on every part's device (or on one part's, see OocShare).
using OocRunner = rt::ooc::Runner<OocOps>;

/// One time step of the body on a chunk (rt::ooc::Runner::Step): enqueues on the device's
/// queue; a launch may compute only the planes still read (ooc_slab).
using OocStep = OocRunner::Step;

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

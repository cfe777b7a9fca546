#pragma once
/// \file
/// Out-of-core execution on CUDA GPUs: runs the commands of rt::ooc::ops (ooc.hpp) on three
/// streams per GPU — a copy-in stream, the device's own stream for kernels (the generated
/// launch functions use it) and a copy-out stream — ordered by events only
/// (cudaStreamWaitEvent), so host-to-device copies, kernels and device-to-host copies of
/// different chunks run at once. Direct mapping: the host arrays are page-locked in place
/// (cudaHostRegister) and chunks move between them and the chunk buffers with
/// cudaMemcpy3DAsync, without staging buffers; region sharing copies planes between chunk
/// buffers on the GPU.

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/cuda_exchange.hpp"
#include "stepgen/exec/ooc.hpp"

namespace stepgen::cuda {

namespace detail {
/// A stream of one GPU, destroyed when it goes.
class OwnedStream {
 public:
  OwnedStream() = default;
  explicit OwnedStream(const Device& d) : ordinal_(d.ordinal) {
    d.use();
    check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", d);
  }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  OwnedStream(OwnedStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)), ordinal_(o.ordinal_) {}
  OwnedStream& operator=(OwnedStream&& o) noexcept {
    std::swap(s_, o.s_);
    std::swap(ordinal_, o.ordinal_);
    return *this;
  }
  ~OwnedStream() {
    if (s_) {
      cudaSetDevice(ordinal_);
      cudaStreamDestroy(s_);
    }
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
  int ordinal_ = 0;
};

/// An event without timing (cheaper to record), destroyed when it goes.
class OwnedEvent {
 public:
  OwnedEvent() = default;
  /// `flags`: cudaEventDefault for an event with timing (rt::ooc::HasTimer).
  OwnedEvent(const Device& d, cudaStream_t s, unsigned flags = cudaEventDisableTiming)
      : ordinal_(d.ordinal) {
    d.use();
    check(cudaEventCreateWithFlags(&e_, flags), "cudaEventCreateWithFlags", d);
    check(cudaEventRecord(e_, s), "cudaEventRecord", d);
  }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  OwnedEvent(OwnedEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)), ordinal_(o.ordinal_) {}
  OwnedEvent& operator=(OwnedEvent&& o) noexcept {
    std::swap(e_, o.e_);
    std::swap(ordinal_, o.ordinal_);
    return *this;
  }
  ~OwnedEvent() {
    if (e_) {
      cudaSetDevice(ordinal_);
      cudaEventDestroy(e_);
    }
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
  int ordinal_ = 0;
};

/// Copies the cells `src` describes in buffer `from` to those `dst` describes in buffer `to`
/// (the same region) on the GPU, on stream `s`: one cudaMemcpyAsync when both are one
/// contiguous range (whole planes: bands, shared planes of one part), else cudaMemcpy3DAsync.
/// `what` names the copy in errors.
inline void device_rect(cudaStream_t s, const Device& d, const Buffer& from,
                        const rt::RectCopy& src, Buffer& to, const rt::RectCopy& dst,
                        const std::string& what) {
  if (src.contiguous() && dst.contiguous()) {
    check(cudaMemcpyAsync(static_cast<char*>(to.get()) + dst.offset(),
                          static_cast<const char*>(from.get()) + src.offset(), src.bytes(),
                          cudaMemcpyDeviceToDevice, s),
          "cudaMemcpyAsync(" + what + ")", d);
    return;
  }
  cudaMemcpy3DParms p{};
  p.srcPtr = pitched(from.get(), src);
  p.srcPos = pos(src);
  p.dstPtr = pitched(to.get(), dst);
  p.dstPos = pos(dst);
  p.extent = extent(dst);
  p.kind = cudaMemcpyDeviceToDevice;
  check(cudaMemcpy3DAsync(&p, s), "cudaMemcpy3DAsync(" + what + ")", d);
}

/// Copies the cells of `sub` between a host array (whose own box may be any box) and a buffer
/// holding `buffer`, on stream `s`: to the device when `to_device`, else back.
inline void host_rect(cudaStream_t s, const Device& d, const Buffer& buf, const rt::Box& buffer,
                      const rt::HostArray& host, const rt::Box& sub, bool to_device) {
  if (sub.empty()) return;
  const rt::RectCopy dev = rt::rect_of(sub, buffer, host.element_bytes);
  const rt::RectCopy hst = rt::rect_of(sub, host.box, host.element_bytes);
  cudaMemcpy3DParms p{};
  if (to_device) {
    p.srcPtr = pitched(host.bytes.data(), hst);
    p.srcPos = pos(hst);
    p.dstPtr = pitched(buf.get(), dev);
    p.dstPos = pos(dev);
    p.kind = cudaMemcpyHostToDevice;
  } else {
    p.srcPtr = pitched(buf.get(), dev);
    p.srcPos = pos(dev);
    p.dstPtr = pitched(host.bytes.data(), hst);
    p.dstPos = pos(hst);
    p.kind = cudaMemcpyDeviceToHost;
  }
  p.extent = extent(dev);
  check(cudaMemcpy3DAsync(&p, s),
        std::string("cudaMemcpy3DAsync(") + (to_device ? "write " : "read ") + host.name + ")", d);
}
}  // namespace detail

/// Copies the cells of a box between host arrays (rt::ooc::copy_host_box: threads for large
/// copies).
using rt::ooc::copy_host_box;

/// The CUDA operations the out-of-core runner (rt::ooc::Runner) runs on: buffers, a copy-in
/// and a copy-out stream per GPU besides its own, cudaMemcpy3DAsync and cudaMemcpyAsync,
/// events without timing (cudaStreamWaitEvent). A stream orders its copies, so a store's reads
/// need no events of their own.
struct OocOps {
  using Device = cuda::Device;
  using Buffer = cuda::Buffer;
  using Queue = detail::OwnedStream;
  using Event = detail::OwnedEvent;
  using Handle = cudaStream_t;
  using Pinned = PinnedHost;  ///< snapshots are page-locked in place

  static Buffer buffer(const Device& d, const rt::Box& box, std::size_t element_bytes,
                       const std::string& name) {
    return Buffer(d, box, element_bytes, name);
  }
  static Queue queue(const Device& d) { return detail::OwnedStream(d); }
  static Handle compute_queue(const Device& d) { return d.stream(); }
  static void use(const Device& d) { d.use(); }
  static void host_copy(Handle s, const Device& d, const Buffer& buf, const rt::Box& box,
                        const rt::HostArray& host, const rt::Box& sub, bool to_device,
                        std::vector<Event>* /*reads: ordered by the stream*/) {
    detail::host_rect(s, d, buf, box, host, sub, to_device);
  }
  static void device_copy(Handle s, const Device& d, const Buffer& from, const rt::RectCopy& src,
                          Buffer& to, const rt::RectCopy& dst, const std::string& what) {
    detail::device_rect(s, d, from, src, to, dst, what);
  }
  static void wait(Handle s, const Device& d, const std::vector<const Event*>& events) {
    for (const Event* e : events)
      check(cudaStreamWaitEvent(s, e->get(), 0), "cudaStreamWaitEvent", d);
  }
  static void host_wait(const Device& d, const std::vector<const Event*>& events) {
    for (const Event* e : events) check(cudaEventSynchronize(e->get()), "cudaEventSynchronize", d);
  }
  static Event record(Handle s, const Device& d) { return detail::OwnedEvent(d, s); }
  static void flush(Handle, const Device&) {}
  static void finish(const Device& d) { cuda::finish(d); }
  static void finish(Handle s, const Device& d) {
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize", d);
  }
  static Pinned pin(const Device&, rt::HostArray& a) { return PinnedHost(a); }

  // --- the kernel/copy split (rt::ooc::HasTimer) ------------
  /// An event with timing, recorded on the stream.
  static Event timer(Handle s, const Device& d) {
    return detail::OwnedEvent(d, s, cudaEventDefault);
  }
  /// Seconds between two events with timing; negative while `b` is not complete (nothing
  /// waits).
  static double elapsed(const Device& d, const Event& a, const Event& b) {
    d.use();
    const cudaError_t q = cudaEventQuery(b.get());
    if (q == cudaErrorNotReady) {
      // Not an error; cleared where a runtime keeps it as the last error (nothing else is).
      if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
      return -1;
    }
    check(q, "cudaEventQuery", d);
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a.get(), b.get()), "cudaEventElapsedTime", d);
    return ms > 0 ? static_cast<double>(ms) * 1e-3 : 0.0;
  }
  // --- end: the kernel/copy split (rt::ooc::HasTimer) ---
};

/// What one MPI rank runs of a schedule (rt::ooc::Share): its part, on its one GPU, and the
/// exchange at every pass boundary, after the stores and before the next pass's loads.
using OocShare = rt::ooc::Share;

/// Runs a stencil out of core on every part's GPU (or on one part's, see OocShare).
using OocRunner = rt::ooc::Runner<OocOps>;

/// One time step of the body on a chunk (rt::ooc::Runner::Step): the generated launches on
/// the GPU's own stream; a launch may compute only the planes still read (rt::ooc::view).
using OocStep = OocRunner::Step;

/// Swap/rotate inside a chunk: each name takes the next one's buffer, the last the first's.
inline void rename_buffers(std::vector<Buffer>& buffers, std::initializer_list<int> ids) {
  std::vector<int> order(ids);
  for (std::size_t i = 0; i + 1 < order.size(); ++i)
    swap(buffers[static_cast<std::size_t>(order[i])],
         buffers[static_cast<std::size_t>(order[i + 1])]);
}

/// `device_memory="auto"`: a share of the smallest free memory of the GPUs (cudaMemGetInfo).
inline rt::Index auto_device_memory(const std::vector<Device>& devices) {
  std::size_t least = 0;
  for (const Device& d : devices) {
    std::size_t free = 0, total = 0;
    d.use();
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo", d);
    least = least == 0 ? free : std::min(least, free);
  }
  return static_cast<rt::Index>(static_cast<double>(least) * rt::ooc::kAutoMemoryShare);
}

/// Page-locks every host array in place (direct mapping: chunks copy straight from them).
/// Throws RunError naming the array and its size when the system refuses.
inline std::vector<PinnedHost> pin_host_arrays(std::vector<rt::HostArray>& host) {
  std::vector<PinnedHost> pinned;
  pinned.reserve(host.size());
  for (rt::HostArray& a : host) pinned.emplace_back(a);
  return pinned;
}

}  // namespace stepgen::cuda

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

#include "stepgen/cuda.hpp"
#include "stepgen/ooc.hpp"

namespace stepgen::cuda {

/// One time step of the body on a chunk: the generated launches over the chunk's buffers (by
/// array id), the chunk seen as a part whose ghost box is `chunk.ghost`, and its swap/rotate
/// as renamings of these buffers. Enqueues on the device's stream. `remaining`: the steps of
/// this pass after this one, so that a launch may compute only the planes still read
/// (rt::ooc::view); negative: compute the whole buffer.
using OocStep =
    std::function<void(const Device& d, std::size_t part, std::vector<Buffer>& buffers,
                       const rt::Part& chunk, std::int64_t step, std::int64_t remaining)>;

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
  OwnedEvent(const Device& d, cudaStream_t s) : ordinal_(d.ordinal) {
    d.use();
    check(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), "cudaEventCreateWithFlags", d);
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

/// Runs a stencil out of core on every part's GPU.
class OocRunner {
 public:
  OocRunner(std::vector<Device>& devices, const rt::ooc::Schedule& schedule,
            std::vector<rt::HostArray>& host, OocStep step, bool overlap)
      : devices_(devices), sc_(schedule), host_(host), step_(std::move(step)), overlap_(overlap) {
    for (std::size_t p = 0; p < sc_.parts.size(); ++p) {
      const Device& d = devices_[p];
      PartState st;
      if (overlap_) {
        st.in = detail::OwnedStream(d);
        st.out = detail::OwnedStream(d);
      }
      st.slots.resize(static_cast<std::size_t>(sc_.buffers));
      const rt::Box cells = rt::Box::from_extent(1, {sc_.parts[p].buffer_cells, 1, 1});
      for (auto& slot : st.slots)
        for (const rt::ooc::Array& a : sc_.arrays)
          slot.emplace_back(d, cells, static_cast<std::size_t>(a.element_bytes),
                            a.name + " (chunk buffer)");
      // Band sharing: each array's bands, all k of them, one after the other.
      if (sc_.band_cells > 0)
        for (const rt::ooc::Array& a : sc_.arrays)
          st.bands.emplace_back(d, rt::Box::from_extent(1, {sc_.band_cells, 1, 1}),
                                static_cast<std::size_t>(a.element_bytes),
                                a.name + " (band store)");
      st.snapshots.resize(sc_.arrays.size());
      for (std::size_t a = 0; a < sc_.arrays.size(); ++a)
        if (sc_.arrays[a].written && sc_.parts.size() > 1)
          for (const rt::Box& f : sc_.parts[p].foreign)
            st.snapshots[a].emplace_back(sc_.arrays[a].name,
                                         static_cast<std::size_t>(sc_.arrays[a].element_bytes), f);
      // Page-locked like the host arrays, so that loads of foreign cells are DMA copies that do
      // not hold up the host thread issuing every GPU's work.
      for (std::vector<rt::HostArray>& boxes : st.snapshots)
        for (rt::HostArray& f : boxes) st.pinned.emplace_back(f);
      parts_.push_back(std::move(st));
    }
  }

  /// Runs `steps` steps; fills the byte counts and the measured time of `stats`.
  void run(std::int64_t steps, rt::ooc::Stats& stats) {
    rt::Stopwatch clock;
    clock.start();
    snapshot();
    for (const rt::ooc::Op& op : rt::ooc::ops(sc_, steps)) execute(op, stats);
    finish_all();
    stats.measured_s = clock.stop();
    stats.passes = rt::ooc::passes(steps, sc_.steps_per_pass);
    stats.steps = steps;
    stats.parts = sc_.parts.size();
  }

  /// Measures the link and the kernels on the first part's GPU with a probe of the first
  /// planes of its reach (at most `probe_bytes` over all arrays): sent, received, both at once
  /// (two streams), then stepped once. With several GPUs, the link again with every GPU
  /// streaming the first planes of its own part at once (the *_all figures): GPUs often share
  /// the host's memory and PCIe root. The host arrays keep their values (only the bytes just
  /// sent are written back, before any kernel ran; the parts' probes do not overlap).
  static rt::ooc::Link calibrate(std::vector<Device>& devices, const rt::ooc::Schedule& sc,
                                 std::vector<rt::HostArray>& host, const OocStep& step,
                                 rt::Index probe_bytes) {
    // One probe per GPU taking part: a box, its buffers and two copy streams.
    struct Probe {
      const Device* d;
      rt::Box box;
      std::vector<Buffer> bufs;
      detail::OwnedStream in, out;
    };
    auto make = [&](std::size_t p, const rt::Box& box) {
      Probe pr{
          &devices[p], box, {}, detail::OwnedStream(devices[p]), detail::OwnedStream(devices[p])};
      for (const rt::ooc::Array& a : sc.arrays)
        pr.bufs.emplace_back(devices[p], box, static_cast<std::size_t>(a.element_bytes),
                             a.name + " (probe)");
      return pr;
    };
    auto copy = [&](Probe& pr, bool to_device) {
      for (std::size_t a = 0; a < pr.bufs.size(); ++a)
        detail::host_rect(to_device ? pr.in.get() : pr.out.get(), *pr.d, pr.bufs[a], pr.box,
                          host[a], pr.box, to_device);
    };
    auto wait = [](Probe& pr) {
      check(cudaStreamSynchronize(pr.in.get()), "cudaStreamSynchronize", *pr.d);
      check(cudaStreamSynchronize(pr.out.get()), "cudaStreamSynchronize", *pr.d);
    };
    rt::ooc::Link link;
    Probe pr =
        rt::ooc::measure_link<Probe>(sc, devices.size(), probe_bytes, make, copy, wait, link);
    const Device& d = devices[0];
    const rt::Box probe = pr.box;
    std::vector<Buffer>& bufs = pr.bufs;
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
        [&] { check(cudaStreamSynchronize(pr.in.get()), "cudaStreamSynchronize", d); }, link);
    link.measured = true;
    return link;
  }

 private:
  struct PartState {
    detail::OwnedStream in, out;                        ///< copy streams (none without overlap)
    std::vector<std::vector<Buffer>> slots;             ///< [slot][array]
    std::vector<Buffer> bands;                          ///< [array]: the band store
    std::vector<std::vector<rt::HostArray>> snapshots;  ///< [array][foreign box]
    std::vector<PinnedHost> pinned;                     ///< of the snapshots (destroyed first)
    std::map<std::pair<rt::Index, int>, detail::OwnedEvent> events;  ///< (t, kind) -> done
  };

  cudaStream_t stream(std::size_t p, rt::ooc::Op::Kind kind) const {
    if (!overlap_ || kind == rt::ooc::Op::Kind::kCompute) return devices_[p].stream();
    return kind == rt::ooc::Op::Kind::kLoad ? parts_[p].in.get() : parts_[p].out.get();
  }

  void execute(const rt::ooc::Op& op, rt::ooc::Stats& stats) {
    using K = rt::ooc::Op::Kind;
    if (op.kind == K::kBarrier) {
      finish_all();
      snapshot();
      return;
    }
    const auto p = static_cast<std::size_t>(op.part);
    const Device& d = devices_[p];
    PartState& st = parts_[p];
    std::vector<Buffer>& bufs = st.slots[static_cast<std::size_t>(op.slot)];
    cudaStream_t s = stream(p, op.kind);
    d.use();
    for (const auto& w : op.waits) {
      auto it = st.events.find({w.second, static_cast<int>(w.first)});
      if (it == st.events.end()) throw rt::RunError("out-of-core: internal error: missing event");
      check(cudaStreamWaitEvent(s, it->second.get(), 0), "cudaStreamWaitEvent", d);
    }
    // Its copies and kernels, laid out by rt::ooc::execute, on this op's stream.
    std::vector<Buffer>& next = st.slots[static_cast<std::size_t>((op.t + 1) % sc_.buffers)];
    rt::ooc::execute(
        sc_, op, bufs, next, st.bands, host_, st.snapshots, stats,
        [&](const Buffer& buf, const rt::Box& load, const rt::HostArray& h, const rt::Box& sub,
            bool to_device) { detail::host_rect(s, d, buf, load, h, sub, to_device); },
        [&](Buffer& from, const rt::RectCopy& src, Buffer& to, const rt::RectCopy& dst,
            const std::string& what) { detail::device_rect(s, d, from, src, to, dst, what); },
        [&](const rt::Part& chunk, std::int64_t step, std::int64_t remaining) {
          step_(d, p, bufs, chunk, step, remaining);
        });
    st.events[{op.t, static_cast<int>(op.kind)}] = detail::OwnedEvent(d, s);
    const rt::Index keep = sc_.chunks + sc_.buffers + 2;
    while (!st.events.empty() && st.events.begin()->first.first + keep < op.t)
      st.events.erase(st.events.begin());
  }

  void finish_all() {
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const Device& d = devices_[p];
      finish(d);
      if (overlap_) {
        check(cudaStreamSynchronize(parts_[p].in.get()), "cudaStreamSynchronize", d);
        check(cudaStreamSynchronize(parts_[p].out.get()), "cudaStreamSynchronize", d);
      }
    }
  }

  /// The cells each part reads from the others, out of the host arrays (all parts stored their
  /// results): the exchange between parts, at pass boundaries.
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
  std::vector<PartState> parts_;
};

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

#pragma once
/// \file
/// CUDA exchanges between the parts of one process: peer access (enable_peers; parts of one GPU
/// copy within it), the report's exchange paths, events, the per-GPU timeline whose marks order
/// the copies across streams, the exchange and the launch whose exchange overlaps the interior.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/box.hpp"
#include "stepgen/cuda.hpp"
#include "stepgen/exchange.hpp"
#include "stepgen/program.hpp"

namespace stepgen::cuda {

/// peer[src][dst]: parts on these GPUs copy directly (cudaMemcpy3DPeerAsync).
using PeerMatrix = std::vector<std::vector<bool>>;

/// Enables peer access between every pair of GPUs that can (cudaDeviceCanAccessPeer both ways,
/// then cudaDeviceEnablePeerAccess both ways) and says which pairs copy directly. With the
/// environment variable STEPGEN_CUDA_PEER=off no pair does: every exchange goes through pinned
/// host memory (to test or compare that path on GPUs that have peer access).
inline PeerMatrix enable_peers(const std::vector<Device>& devices) {
  const std::size_t n = devices.size();
  const char* knob = std::getenv("STEPGEN_CUDA_PEER");
  if (knob && std::string(knob) == "off") return PeerMatrix(n, std::vector<bool>(n, false));
  PeerMatrix can(n, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      if (devices[a].ordinal == devices[b].ordinal) {  // parts of one GPU (--parts)
        can[a][b] = true;
        continue;
      }
      int yes = 0;
      check(cudaDeviceCanAccessPeer(&yes, devices[a].ordinal, devices[b].ordinal),
            "cudaDeviceCanAccessPeer(" + devices[b].label() + ")", devices[a]);
      can[a][b] = yes != 0;
    }
  PeerMatrix peer(n, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b || !can[a][b] || !can[b][a]) continue;
      if (devices[a].ordinal == devices[b].ordinal) {
        peer[a][b] = true;  // one GPU: copies within its memory, nothing to enable
        continue;
      }
      devices[a].use();
      cudaError_t e = cudaDeviceEnablePeerAccess(devices[b].ordinal, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();  // enabled by an earlier run of this process: not an error
        e = cudaSuccess;
      }
      check(e, "cudaDeviceEnablePeerAccess(" + devices[b].label() + ")", devices[a]);
      peer[a][b] = true;
    }
  return peer;
}

/// One line per ordered pair of parts that exchange ghost cells, saying which path it uses.
inline void print_exchange_paths(const std::vector<Device>& devices, const PeerMatrix& peer,
                                 const std::vector<const std::vector<rt::Transfer>*>& plans,
                                 std::FILE* out) {
  const std::size_t n = peer.size();
  std::vector<std::vector<bool>> used(n, std::vector<bool>(n, false));
  for (const auto* plan : plans)
    for (const rt::Transfer& t : *plan)
      used[static_cast<std::size_t>(t.src)][static_cast<std::size_t>(t.dst)] = true;
  // Pairs of parts of one GPU (--parts): one line per GPU, after the others.
  std::map<int, std::pair<std::string, bool>> within;  // device index -> its name, staged
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (!used[s][d]) continue;
      if (devices[s].ordinal == devices[d].ordinal) {
        const std::string name = devices[s].device_label();
        auto& w = within.emplace(devices[s].index, std::make_pair(name, false)).first->second;
        w.second = w.second || !peer[s][d];
        continue;
      }
      std::fprintf(
          out, "  exchange %s -> %s: %s\n", devices[s].label().c_str(), devices[d].label().c_str(),
          peer[s][d] ? "GPU to GPU (peer access, cudaMemcpy3DPeerAsync)"
                     : "through pinned host memory (no peer access, or STEPGEN_CUDA_PEER=off)");
    }
  for (const auto& [index, w] : within)
    std::fprintf(out, "  exchange between the parts of %s: %s\n", w.first.c_str(),
                 w.second ? "through pinned host memory (STEPGEN_CUDA_PEER=off)"
                          : "on the GPU (cudaMemcpy3DPeerAsync within its memory)");
}

/// A CUDA event (timing enabled) of one GPU; destroyed when it goes.
class Event {
 public:
  Event() = default;
  /// An event for timing, or (`timing` false) only for ordering streams, which is cheaper.
  explicit Event(const Device& d, bool timing = true) : ordinal_(d.ordinal) {
    d.use();
    check(cudaEventCreateWithFlags(&ev_, timing ? cudaEventDefault : cudaEventDisableTiming),
          "cudaEventCreateWithFlags", d);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : ev_(std::exchange(o.ev_, nullptr)), ordinal_(o.ordinal_) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      reset();
      ev_ = std::exchange(o.ev_, nullptr);
      ordinal_ = o.ordinal_;
    }
    return *this;
  }
  ~Event() { reset(); }
  cudaEvent_t get() const { return ev_; }

 private:
  void reset() {
    if (ev_) {
      cudaSetDevice(ordinal_);
      cudaEventDestroy(ev_);
    }
    ev_ = nullptr;
  }
  cudaEvent_t ev_ = nullptr;
  int ordinal_ = 0;
};

/// The timeline of each GPU's stream, cut by events into spans of kernels and spans of exchange.
/// Its marks also order the exchange across GPUs (cudaStreamWaitEvent). Elapsed times are read
/// (cudaEventElapsedTime) once both ends have completed: while the run goes on (poll()) only
/// when a mark is already done (cudaEventQuery, no wait) or when very many are pending; all at
/// finish().
class Timeline {
 public:
  enum Span { kKernels, kExchange };

  explicit Timeline(const std::vector<Device>& devices, std::size_t parts) {
    for (std::size_t p = 0; p < parts; ++p) lanes_.emplace_back(devices[p]);
  }

  /// Starts the first span of kernels on every GPU.
  void begin() {
    for (std::size_t p = 0; p < lanes_.size(); ++p) mark(p, kKernels);
  }

  /// Ends the current span of GPU `p` (it was of kind `ended`) here on its stream; returns the
  /// mark's event, which other GPUs' streams may wait for.
  cudaEvent_t mark(std::size_t p, Span ended) {
    Lane& l = lanes_[p];
    Event ev = l.spare.empty() ? Event(*l.d) : take(l.spare);
    l.d->use();
    check(cudaEventRecord(ev.get(), l.d->stream()), "cudaEventRecord", *l.d);
    const cudaEvent_t raw = ev.get();
    l.marks.push_back(std::move(ev));
    l.ended.push_back(ended);
    return raw;
  }

  /// Accounts the spans that have completed, without waiting (unless very many are pending).
  /// Marks are recycled here, so call it only where no wait on them is still to be issued.
  void poll() {
    for (Lane& l : lanes_) collect(l, false);
  }

  /// Makes a stream of GPU `p` wait (on the GPU) until `event` (of any GPU) has happened.
  void wait(std::size_t p, cudaEvent_t event, On on = On::kCompute) {
    const Device& d = *lanes_[p].d;
    d.use();
    check(cudaStreamWaitEvent(d.stream(on), event, 0), "cudaStreamWaitEvent", d);
  }

  /// Records an event (no timing) here on a stream of GPU `p`, for other streams to wait on.
  /// Events are reused in turn: every wait on one must be enqueued before it comes round again
  /// (kSignals later), as the overlapped exchange does within one call.
  cudaEvent_t signal(std::size_t p, On on) {
    Lane& l = lanes_[p];
    if (l.signals.size() < kSignals) l.signals.emplace_back(*l.d, false);
    const cudaEvent_t ev = l.signals[l.next_signal++ % kSignals].get();
    l.d->use();
    check(cudaEventRecord(ev, l.d->stream(on)), "cudaEventRecord", *l.d);
    return ev;
  }

  /// Ends the last span of kernels on every GPU, waits for them all and adds up the spans.
  void finish() {
    for (std::size_t p = 0; p < lanes_.size(); ++p) mark(p, kKernels);
    for (Lane& l : lanes_) collect(l, true);
  }

  /// Seconds of kernels and of exchange of the busiest GPU (the longest timeline).
  std::pair<double, double> busiest() const {
    std::pair<double, double> best{0, 0};
    for (const Lane& l : lanes_)
      if (l.kernels_s + l.exchange_s > best.first + best.second) best = {l.kernels_s, l.exchange_s};
    return best;
  }

 private:
  struct Lane {
    explicit Lane(const Device& dev) : d(&dev) {}
    const Device* d;
    std::deque<Event> marks;  ///< recorded, not yet accounted; front() opened the current span
    std::deque<Span> ended;   ///< per mark, the kind of span it ended
    std::vector<Event> spare;
    std::vector<Event> signals;  ///< ordering-only events, reused in turn
    std::size_t next_signal = 0;
    double kernels_s = 0, exchange_s = 0;
  };
  static constexpr std::size_t kSignals = 8;
  static Event take(std::vector<Event>& v) {
    Event e = std::move(v.back());
    v.pop_back();
    return e;
  }
  /// Accounts the spans whose end has completed; all of them when `all` (host waits), else
  /// without waiting unless too many marks are pending.
  static void collect(Lane& l, bool all) {
    constexpr std::size_t kMaxPending = 512;
    while (l.marks.size() > 1) {
      cudaEvent_t end = l.marks[1].get();
      if (all || l.marks.size() > kMaxPending) {
        check(cudaEventSynchronize(end), "cudaEventSynchronize", *l.d);
      } else {
        cudaError_t s = cudaEventQuery(end);
        if (s == cudaErrorNotReady) return;
        check(s, "cudaEventQuery", *l.d);
      }
      float ms = 0;
      check(cudaEventElapsedTime(&ms, l.marks[0].get(), end), "cudaEventElapsedTime", *l.d);
      (l.ended[1] == kKernels ? l.kernels_s : l.exchange_s) += ms / 1e3;
      l.spare.push_back(std::move(l.marks.front()));
      l.marks.pop_front();
      l.ended.pop_front();
    }
  }
  std::deque<Lane> lanes_;  // a deque: lanes never move (they hold events)
};

/// One array's halo exchange between GPUs.
struct ExchangeArray {
  rt::HostArray* host = nullptr;       ///< its name and element size (its host copy may be absent)
  std::vector<const Buffer*> buffers;  ///< per part: the array's current buffer
  const std::vector<rt::Transfer>* plan = nullptr;
  /// Per transfer of `plan`, per box: the staging of pairs without peer access, a page-locked
  /// host buffer over exactly that box (rt::InCore::staging, made once at set-up, reused by
  /// every exchange; empty for a transfer GPU to GPU).
  std::vector<std::vector<rt::HostArray>>* staging = nullptr;
};

/// Enqueues one exchange of `arrays` after the kernels enqueued so far, with no host wait:
///  1. each GPU marks the end of its kernels;
///  2. senders without peer access to a receiver read the boxes it needs into their staging
///     (a page-locked buffer per box), on the sender's stream, and mark that;
///  3. each receiver's stream waits for its senders' marks, then copies the boxes in: GPU to
///     GPU (cudaMemcpy3DPeerAsync) or from their staging; and marks that;
///  4. each sender's stream waits for its receivers' marks before going on, so that no later
///     kernel overwrites cells a receiver has not copied yet.
/// Returns the bytes moved (each box counted once).
inline std::size_t exchange(const std::vector<Device>& devices, const rt::Partition& partition,
                            const std::vector<ExchangeArray>& arrays, const PeerMatrix& peer,
                            Timeline& timeline) {
  const std::size_t n = partition.parts.size();
  std::vector<std::vector<bool>> pair(n, std::vector<bool>(n, false));
  std::vector<bool> sends_staged(n, false);
  for (const ExchangeArray& a : arrays)
    for (const rt::Transfer& t : *a.plan) {
      const auto s = static_cast<std::size_t>(t.src), d = static_cast<std::size_t>(t.dst);
      pair[s][d] = true;
      if (!peer[s][d]) sends_staged[s] = true;
    }
  timeline.poll();  // before any mark: the marks below stay in place until the next exchange
  std::vector<cudaEvent_t> computed(n), staged(n), received(n);
  for (std::size_t p = 0; p < n; ++p) computed[p] = timeline.mark(p, Timeline::kKernels);

  std::size_t bytes = 0;
  for (const ExchangeArray& a : arrays)
    for (std::size_t i = 0; i < a.plan->size(); ++i) {
      const rt::Transfer& t = (*a.plan)[i];
      const auto s = static_cast<std::size_t>(t.src), d = static_cast<std::size_t>(t.dst);
      for (std::size_t k = 0; k < t.boxes.size(); ++k) {
        if (!peer[s][d])
          read_box(devices[s], *a.buffers[s], partition.parts[s].ghost, (*a.staging)[i][k],
                   t.boxes[k]);
        bytes += static_cast<std::size_t>(t.boxes[k].volume()) * a.host->element_bytes;
      }
    }
  for (std::size_t p = 0; p < n; ++p)
    if (sends_staged[p]) staged[p] = timeline.mark(p, Timeline::kExchange);

  for (std::size_t d = 0; d < n; ++d) {
    for (std::size_t s = 0; s < n; ++s)
      if (pair[s][d]) timeline.wait(d, peer[s][d] ? computed[s] : staged[s]);
    for (const ExchangeArray& a : arrays)
      for (std::size_t i = 0; i < a.plan->size(); ++i) {
        const rt::Transfer& t = (*a.plan)[i];
        if (static_cast<std::size_t>(t.dst) != d) continue;
        const auto s = static_cast<std::size_t>(t.src);
        for (std::size_t k = 0; k < t.boxes.size(); ++k) {
          const rt::Box& box = t.boxes[k];
          if (peer[s][d])
            peer_box(devices[s], *a.buffers[s], partition.parts[s].ghost, devices[d], *a.buffers[d],
                     partition.parts[d].ghost, box, a.host->element_bytes, a.host->name);
          else
            write_box(devices[d], *a.buffers[d], partition.parts[d].ghost, (*a.staging)[i][k], box);
        }
      }
  }
  for (std::size_t p = 0; p < n; ++p) received[p] = timeline.mark(p, Timeline::kExchange);

  for (std::size_t s = 0; s < n; ++s) {
    bool waited = false;
    for (std::size_t d = 0; d < n; ++d)
      if (pair[s][d]) {
        timeline.wait(s, received[d]);
        waited = true;
      }
    if (waited) timeline.mark(s, Timeline::kExchange);
  }
  return bytes;
}

/// One launch whose written `arrays` are then exchanged, the exchange overlapping the
/// interior's computation. `views[p]` (rt::overlap_views) cut part p's launch; `launch(p,
/// view, on)` enqueues the kernel over `view` on a stream of part p's GPU. No host waits:
///  1. each boundary stream waits for what its compute stream has enqueued so far, runs the
///     boundary views (high priority) and, for receivers without peer access, reads the boxes
///     sent into their staging (a page-locked buffer per box); a signal marks that;
///  2. the interior runs on the compute stream meanwhile;
///  3. each receiver's boundary stream waits for its senders' signals and copies the boxes in
///     (GPU to GPU, or from their staging); a signal marks that;
///  4. each boundary stream waits for its receivers' copies, so that no later kernel overwrites
///     a cell before it is copied, and each compute stream waits for its boundary stream (a
///     wait on its own GPU). The timeline counts this wait as exchange: the part of the
///     exchange not hidden behind the interior.
/// Returns the bytes moved (each box counted once).
template <typename Launch>
std::size_t launch_and_exchange(const std::vector<Device>& devices, const rt::Partition& partition,
                                const std::vector<rt::OverlapViews>& views,
                                const std::vector<ExchangeArray>& arrays, const PeerMatrix& peer,
                                Timeline& timeline, Launch launch) {
  const std::size_t n = partition.parts.size();
  std::vector<std::vector<bool>> pair(n, std::vector<bool>(n, false));
  for (const ExchangeArray& a : arrays)
    for (const rt::Transfer& t : *a.plan)
      pair[static_cast<std::size_t>(t.src)][static_cast<std::size_t>(t.dst)] = true;
  timeline.poll();
  std::vector<cudaEvent_t> sent(n), received(n);
  std::size_t bytes = 0;
  for (std::size_t p = 0; p < n; ++p) {
    timeline.wait(p, timeline.signal(p, On::kCompute), On::kBoundary);
    for (const rt::Box& view : views[p].boundary) launch(p, view, On::kBoundary);
    for (const ExchangeArray& a : arrays)
      for (std::size_t i = 0; i < a.plan->size(); ++i) {
        const rt::Transfer& t = (*a.plan)[i];
        if (static_cast<std::size_t>(t.src) != p) continue;
        for (std::size_t k = 0; k < t.boxes.size(); ++k) {
          if (!peer[p][static_cast<std::size_t>(t.dst)])
            read_box(devices[p], *a.buffers[p], partition.parts[p].ghost, (*a.staging)[i][k],
                     t.boxes[k], On::kBoundary);
          bytes += static_cast<std::size_t>(t.boxes[k].volume()) * a.host->element_bytes;
        }
      }
    sent[p] = timeline.signal(p, On::kBoundary);
  }
  for (std::size_t p = 0; p < n; ++p)
    if (views[p].split) launch(p, views[p].interior, On::kCompute);
  for (std::size_t d = 0; d < n; ++d) {
    for (std::size_t s = 0; s < n; ++s)
      if (pair[s][d]) timeline.wait(d, sent[s], On::kBoundary);
    for (const ExchangeArray& a : arrays)
      for (std::size_t i = 0; i < a.plan->size(); ++i) {
        const rt::Transfer& t = (*a.plan)[i];
        if (static_cast<std::size_t>(t.dst) != d) continue;
        const auto s = static_cast<std::size_t>(t.src);
        for (std::size_t k = 0; k < t.boxes.size(); ++k) {
          const rt::Box& box = t.boxes[k];
          if (peer[s][d])
            peer_box(devices[s], *a.buffers[s], partition.parts[s].ghost, devices[d], *a.buffers[d],
                     partition.parts[d].ghost, box, a.host->element_bytes, a.host->name,
                     On::kBoundary);
          else
            write_box(devices[d], *a.buffers[d], partition.parts[d].ghost, (*a.staging)[i][k], box,
                      On::kBoundary);
        }
      }
    received[d] = timeline.signal(d, On::kBoundary);
  }
  // The waits on other GPUs' copies go on the boundary stream, which reaches them early (the
  // copies are short); the compute stream then waits on its own GPU's boundary stream only, so
  // that no wait across GPUs sits between one step's interior and the next.
  std::vector<cudaEvent_t> done(n);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t d = 0; d < n; ++d)
      if (pair[p][d]) timeline.wait(p, received[d], On::kBoundary);
    done[p] = timeline.signal(p, On::kBoundary);
  }
  for (std::size_t p = 0; p < n; ++p) {
    timeline.mark(p, Timeline::kKernels);
    timeline.wait(p, done[p]);
    timeline.mark(p, Timeline::kExchange);
  }
  return bytes;
}

}  // namespace stepgen::cuda

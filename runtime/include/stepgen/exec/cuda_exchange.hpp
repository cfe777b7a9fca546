#pragma once
/// \file
/// What CUDA's exchange executor (exchange_cuda.hpp) stands on: peer access (enable_peers; parts
/// of one GPU copy within it), the report's exchange paths, events, and the per-GPU timeline
/// whose marks order the copies across streams and time kernels and exchanges.

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

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

namespace stepgen::cuda {

/// peer[src][dst]: parts on these GPUs copy directly (cudaMemcpy3DPeerAsync).
using PeerMatrix = std::vector<std::vector<bool>>;

/// Enables peer access between every pair of GPUs that can (cudaDeviceCanAccessPeer both ways,
/// then cudaDeviceEnablePeerAccess both ways) and says which pairs copy directly. With the
/// environment variable STEPGEN_CUDA_PEER=off no pair does: every exchange goes through pinned
/// host memory (to test or compare that path on GPUs that have peer access).
inline PeerMatrix enable_peers(const std::vector<Device>& devices) {
  const std::size_t n = devices.size();
  if (rt::env_settings().cuda_peer_off) return PeerMatrix(n, std::vector<bool>(n, false));
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

}  // namespace stepgen::cuda

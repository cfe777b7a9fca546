#pragma once
/// \file
/// The CUDA backend's one exchange executor (ExchangeState), for every distribution: the parts
/// of one process, an MPI rank's one GPU, a rank's several GPUs or parts. Each exchanged
/// array's plan, as this process sees it (rt::RankPlan), has local entries (copies between two
/// of its parts: GPU to GPU where peer access allows or within one GPU, else through a
/// page-locked host buffer per box) and remote ones (boxes sent to and received from other
/// ranks through the Messenger `M`: rt::NoMessages alone, mpi::MpiMessenger between ranks),
/// packed into page-locked host buffers or, for a CUDA-aware MPI, device buffers. The local
/// copies are ordered on the GPUs by the timeline's events (no host wait); the messages wait on
/// the host for their packing and for their arrival, the GPUs computing meanwhile.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/cuda_exchange.hpp"
#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/problem.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/rank_parts.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

namespace stepgen::cuda {

/// One message's packed box: contiguous, exactly its bytes, in device memory (a CUDA-aware
/// MPI sends from it) or in page-locked host memory.
struct MessageBox {
  rt::Box box;
  std::size_t element_bytes = 0;
  std::string what;       ///< "A to rank 2"
  Buffer on_device;       ///< a CUDA-aware MPI's
  rt::HostBytes on_host;  ///< otherwise (cuda::pinned_allocator)
  void* data() { return on_device.get() ? on_device.get() : on_host.data(); }
  std::size_t bytes() const { return static_cast<std::size_t>(box.volume()) * element_bytes; }
  cudaMemcpyKind kind(bool to_device) const {
    if (on_device.get()) return cudaMemcpyDeviceToDevice;
    return to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  }
};

/// The exchange state of the engine (rt::InCore's `S`) on CUDA GPUs, over the messages `M`.
/// Its members take the engine as a template argument `E` (rt::InCore<Backend, S>).
template <class M>
class ExchangeState {
 public:
  using Ids = std::initializer_list<int>;
  /// The messages' settings, and whether they go from device memory (a CUDA-aware MPI).
  struct Config {
    typename M::Config messages{};
    bool device_messages = false;
  };
  static constexpr const char* kOne = M::kRanks ? "one rank" : "one device";
  static constexpr const char* kOverlapOn =
      M::kRanks ? "boundary slabs first, on a high-priority stream, packed and sent while the "
                  "interior computes; exchange time = the part not hidden behind the interior"
                : "boundary slabs first, on a high-priority stream; exchange time = the part not "
                  "hidden behind the interior";

  ExchangeState(const rt::StateArgs<Device>& args, const Config& config)
      : timeline_(args.devices, args.parts),
        messages_(config.messages),
        device_messages_(config.device_messages),
        first_(args.first),
        count_(static_cast<int>(args.parts)) {
    for (std::size_t p = 0; p < args.parts; ++p) unpacked_.emplace_back(args.devices[p], false);
  }
  static void check_fits(const Device& d, std::size_t bytes) { cuda::check_fits(d, bytes); }

  /// Peer access between the GPUs, each exchanged array's plan as this process sees it, the
  /// staging of copies between GPUs without peer access (a page-locked buffer per box:
  /// rt::ExchangeStaging) and a packed box per message.
  template <class E>
  void prepare(E& e) {
    if (e.parts() > 1)
      peer_ = enable_peers(e.devices());
    else
      peer_.assign(1, std::vector<bool>(1, true));
    auto local = [this](int part) { return part >= first_ && part < first_ + count_; };
    rt::stage_exchanges(e, staging_, [&](const rt::Transfer& t) {
      return local(t.src) && local(t.dst) &&
             !peer_[static_cast<std::size_t>(t.src - first_)]
                   [static_cast<std::size_t>(t.dst - first_)];
    });
    arrays_ = rt::plan_buffers<MessageBox>(
        e, first_, count_,
        [&](const rt::RankPlan::Message& m, const auto& info, const char* direction) {
          return message(e, m, info, direction);
        });
  }

  template <class E>
  void begin(E&) {
    timeline_.begin();
  }
  template <class E>
  void end(E&) {
    timeline_.finish();
  }
  void times(rt::RunStats& stats) const {
    std::tie(stats.kernel_s, stats.exchange_s) = timeline_.busiest();
  }

  /// Enqueues the refresh of the ghost cells of `ids` after the kernels enqueued so far:
  ///  1. each GPU marks the end of its kernels;
  ///  2. the boxes that leave a GPU are read into their staging (copies between GPUs without
  ///     peer access) or packed into their messages, on the sender's stream, which marks that;
  ///  3. each receiver's stream waits for its senders' marks, then copies the boxes in: GPU to
  ///     GPU (cudaMemcpy3DPeerAsync) or from their staging;
  ///  4. the host sends the packed boxes once packed and writes the received ones in;
  ///  5. each sender's stream waits for its receivers' marks before going on, so that no later
  ///     kernel overwrites cells a receiver has not copied yet.
  template <class E>
  void exchange(E& e, Ids ids) {
    if (!moves(ids)) return;
    const std::size_t n = e.parts();
    const Pairs pairs = pairs_of(n, ids);
    timeline_.poll();  // before any mark: the marks below stay in place until the next exchange
    std::vector<cudaEvent_t> computed(n), left(n), received(n);
    for (std::size_t p = 0; p < n; ++p) computed[p] = timeline_.mark(p, Timeline::kKernels);
    post_receives(ids);
    e.stats().exchange_bytes += read_leaving(e, ids, On::kCompute);
    for (std::size_t p = 0; p < n; ++p)
      if (pairs.leaves[p]) left[p] = timeline_.mark(p, Timeline::kExchange);
    send_packed(e, ids, On::kCompute);
    copy_in(e, ids, pairs, On::kCompute,
            [&](std::size_t s, std::size_t d) { return peer_[s][d] ? computed[s] : left[s]; });
    receive_written(e, ids, pairs, On::kCompute);
    for (std::size_t p = 0; p < n; ++p) received[p] = timeline_.mark(p, Timeline::kExchange);
    for (std::size_t s = 0; s < n; ++s) {
      bool waited = false;
      for (std::size_t d = 0; d < n; ++d)
        if (pairs.copies[s][d]) {
          timeline_.wait(s, received[d]);
          waited = true;
        }
      if (waited) timeline_.mark(s, Timeline::kExchange);
    }
  }

  /// One launch whose written arrays `ids` are then exchanged, the exchange overlapping the
  /// interior's computation (rt::overlap_views cut each part's launch; the views grow by the
  /// rim the probe measured, rt::ViewRim). No host wait but for the messages:
  ///  1. each boundary stream waits for what its compute stream has enqueued so far, runs the
  ///     boundary views (high priority), reads the boxes that leave the GPU into their staging
  ///     or messages; a signal marks that;
  ///  2. the interior runs on the compute stream meanwhile;
  ///  3. each receiver's boundary stream waits for its senders' signals and copies the boxes in
  ///     (GPU to GPU, or from their staging); the host sends the packed boxes, receives the
  ///     others and writes them in on the boundary streams; a signal marks that;
  ///  4. each boundary stream waits for its receivers' copies, so that no later kernel
  ///     overwrites a cell before it is copied, and each compute stream waits for its boundary
  ///     stream (a wait on its own GPU). The timeline counts this wait as exchange: the part of
  ///     the exchange not hidden behind the interior.
  /// Compute then exchange when overlap is off or the kernel cannot run on views (the probe).
  template <class E, class L>
  void launch_and_exchange(E& e, void (*launch)(const L&), int kernel, rt::Index reach_lo,
                           rt::Index reach_hi, std::size_t /*group*/, Ids ids, std::int64_t step) {
    const int axis = e.problem().dims - 1;
    const rt::ViewRim rim = e.probed().view(kernel, axis, reach_lo, reach_hi);
    if (!e.overlap() || !rim.safe || !moves(ids)) {
      for (std::size_t p = 0; p < e.parts(); ++p) launch(e.whole(p, step));
      exchange(e, ids);
      return;
    }
    const std::size_t n = e.parts();
    std::vector<const std::vector<rt::Transfer>*> plans;
    for (int id : ids) plans.push_back(&e.plan(id));
    const Pairs pairs = pairs_of(n, ids);
    timeline_.poll();
    post_receives(ids);
    std::vector<cudaEvent_t> sent(n), received(n);
    std::vector<rt::OverlapViews> views;
    for (std::size_t p = 0; p < n; ++p) {
      const rt::Part& part = e.part(p);
      views.push_back(rt::overlap_views(part, axis, reach_lo, reach_hi, plans, rim.lo, rim.hi));
      timeline_.wait(p, timeline_.signal(p, On::kCompute), On::kBoundary);
      for (const rt::Box& view : views[p].boundary)
        launch({e.devices()[p], e.buffers(p), part, view, On::kBoundary, step});
    }
    e.stats().exchange_bytes += read_leaving(e, ids, On::kBoundary);
    for (std::size_t p = 0; p < n; ++p) sent[p] = timeline_.signal(p, On::kBoundary);
    for (std::size_t p = 0; p < n; ++p)
      if (views[p].split)
        launch({e.devices()[p], e.buffers(p), e.part(p), views[p].interior, On::kCompute, step});
    send_packed(e, ids, On::kBoundary);
    copy_in(e, ids, pairs, On::kBoundary, [&](std::size_t s, std::size_t) { return sent[s]; });
    receive_written(e, ids, pairs, On::kBoundary);
    for (std::size_t d = 0; d < n; ++d) received[d] = timeline_.signal(d, On::kBoundary);
    // The waits on other GPUs' copies go on the boundary stream, which reaches them early (the
    // copies are short); the compute stream then waits on its own GPU's boundary stream only, so
    // that no wait across GPUs sits between one step's interior and the next.
    std::vector<cudaEvent_t> done(n);
    for (std::size_t p = 0; p < n; ++p) {
      for (std::size_t d = 0; d < n; ++d)
        if (pairs.copies[p][d]) timeline_.wait(p, received[d], On::kBoundary);
      done[p] = timeline_.signal(p, On::kBoundary);
    }
    for (std::size_t p = 0; p < n; ++p) {
      timeline_.mark(p, Timeline::kKernels);
      timeline_.wait(p, done[p]);
      timeline_.mark(p, Timeline::kExchange);
    }
  }

 protected:
  Timeline& timeline() { return timeline_; }
  const PeerMatrix& peers() const { return peer_; }
  M& messages() { return messages_; }
  int count() const { return count_; }

 private:
  using Array = rt::PlanBuffers<MessageBox>;  ///< a packed box per message
  /// Which local parts copy to which (copies[src][dst]), which read boxes off their GPU
  /// (leaves: staged copies or messages), which receive messages.
  struct Pairs {
    std::vector<std::vector<bool>> copies;
    std::vector<bool> leaves, receives;
  };

  template <class E, class Info>
  MessageBox message(E& e, const rt::RankPlan::Message& m, const Info& info, const char* dir) {
    MessageBox b;
    b.box = m.box;
    b.element_bytes = info.element_bytes;
    b.what = std::string(info.name) + dir + std::to_string(m.peer);
    if (device_messages_)
      b.on_device = Buffer(e.devices()[m.part], m.box, info.element_bytes, b.what + " (halo)");
    else
      b.on_host = pinned_allocator()(b.bytes(), b.what + " (halo)");
    return b;
  }

  bool moves(Ids ids) const { return rt::moves(arrays_, ids); }
  Array& at(int id) { return arrays_[static_cast<std::size_t>(id)]; }

  Pairs pairs_of(std::size_t n, Ids ids) {
    Pairs out{std::vector<std::vector<bool>>(n, std::vector<bool>(n, false)),
              std::vector<bool>(n, false), std::vector<bool>(n, false)};
    for (int id : ids) {
      for (const rt::RankPlan::Copy& c : at(id).plan.copies) {
        out.copies[c.src][c.dst] = true;
        if (!peer_[c.src][c.dst]) out.leaves[c.src] = true;
      }
      for (const rt::RankPlan::Message& m : at(id).plan.sends) out.leaves[m.part] = true;
      for (const rt::RankPlan::Message& m : at(id).plan.receives) out.receives[m.part] = true;
    }
    return out;
  }

  /// The receive buffers are free again once the last exchange's writes from them have run.
  void post_receives(Ids ids) {
    for (std::size_t p = 0; p < unpacked_.size(); ++p)
      if (unpacked_used_.size() > p && unpacked_used_[p])
        check(cudaEventSynchronize(unpacked_[p].get()), "cudaEventSynchronize(unpacked halos)",
              "host");
    for (int id : ids)
      for (std::size_t i = 0; i < at(id).plan.receives.size(); ++i) {
        MessageBox& b = at(id).received[i];
        messages_.post_receive(at(id).plan.receives[i].peer, id, b.data(), b.bytes(), b.what);
      }
  }

  /// Enqueues on streams `on` the reads of the boxes that leave their GPU: the staged copies'
  /// and the messages'. Returns the bytes exchanged (copies and sends, each box once).
  template <class E>
  std::size_t read_leaving(E& e, Ids ids, On on) {
    std::size_t bytes = 0;
    for (int id : ids) {
      Array& a = at(id);
      const std::size_t eb = e.problem().arrays[id].element_bytes;
      for (const rt::RankPlan::Copy& c : a.plan.copies) {
        if (!peer_[c.src][c.dst])
          read_box(e.devices()[c.src], e.buffers(c.src)[static_cast<std::size_t>(id)],
                   e.part(c.src).ghost, staging_.of(id)[c.transfer][c.index], c.box, on);
        bytes += static_cast<std::size_t>(c.box.volume()) * eb;
      }
      for (std::size_t i = 0; i < a.plan.sends.size(); ++i) {
        const rt::RankPlan::Message& m = a.plan.sends[i];
        MessageBox& b = a.sent[i];
        detail::rect_copy(e.devices()[m.part], b.data(), rt::rect_of(b.box, b.box, eb),
                          e.buffers(m.part)[static_cast<std::size_t>(id)].get(),
                          rt::rect_of(b.box, e.part(m.part).ghost, eb), b.kind(false),
                          "pack " + b.what, on);
        bytes += b.bytes();
      }
    }
    return bytes;
  }

  /// Each receiver's stream `on` waits for its senders (`ready(src, dst)`: the event after
  /// which the boxes can be copied), then copies them in.
  template <class E, class Ready>
  void copy_in(E& e, Ids ids, const Pairs& pairs, On on, Ready&& ready) {
    const std::size_t n = e.parts();
    for (std::size_t d = 0; d < n; ++d) {
      for (std::size_t s = 0; s < n; ++s)
        if (pairs.copies[s][d]) timeline_.wait(d, ready(s, d), on);
      for (int id : ids) {
        const auto& info = e.problem().arrays[id];
        const auto u = static_cast<std::size_t>(id);
        for (const rt::RankPlan::Copy& c : at(id).plan.copies) {
          if (c.dst != d) continue;
          if (peer_[c.src][d])
            peer_box(e.devices()[c.src], e.buffers(c.src)[u], e.part(c.src).ghost, e.devices()[d],
                     e.buffers(d)[u], e.part(d).ghost, c.box, info.element_bytes, info.name, on);
          else
            write_box(e.devices()[d], e.buffers(d)[u], e.part(d).ghost,
                      staging_.of(id)[c.transfer][c.index], c.box, on);
        }
      }
    }
  }

  /// The host waits for the packing of the boxes sent (streams `on`), then sends them.
  template <class E>
  void send_packed(E& e, Ids ids, On on) {
    for (std::size_t p = 0; p < e.parts(); ++p) {
      bool sends = false;
      for (int id : ids)
        for (const rt::RankPlan::Message& m : at(id).plan.sends) sends = sends || m.part == p;
      if (!sends) continue;
      const Device& d = e.devices()[p];
      d.use();
      check(cudaStreamSynchronize(d.stream(on)), "cudaStreamSynchronize(packed halos)", d);
    }
    for (int id : ids)
      for (std::size_t i = 0; i < at(id).plan.sends.size(); ++i) {
        MessageBox& b = at(id).sent[i];
        messages_.send(at(id).plan.sends[i].peer, id, b.data(), b.bytes(), b.what);
      }
  }

  /// The host waits for every message, then enqueues on `on` the writes of the received boxes.
  template <class E>
  void receive_written(E& e, Ids ids, const Pairs& pairs, On on) {
    bool any = false;
    for (int id : ids) any = any || !at(id).plan.sends.empty() || !at(id).plan.receives.empty();
    if (!any) return;
    messages_.wait();
    for (int id : ids) {
      const std::size_t eb = e.problem().arrays[id].element_bytes;
      for (std::size_t i = 0; i < at(id).plan.receives.size(); ++i) {
        const rt::RankPlan::Message& m = at(id).plan.receives[i];
        MessageBox& b = at(id).received[i];
        detail::rect_copy(e.devices()[m.part],
                          e.buffers(m.part)[static_cast<std::size_t>(id)].get(),
                          rt::rect_of(b.box, e.part(m.part).ghost, eb), b.data(),
                          rt::rect_of(b.box, b.box, eb), b.kind(true), "unpack " + b.what, on);
      }
    }
    unpacked_used_.assign(unpacked_.size(), false);
    for (std::size_t p = 0; p < e.parts(); ++p)
      if (pairs.receives[p]) {
        const Device& d = e.devices()[p];
        d.use();
        check(cudaEventRecord(unpacked_[p].get(), d.stream(on)), "cudaEventRecord(unpacked halos)",
              d);
        unpacked_used_[p] = true;
      }
  }

  rt::ExchangeStaging staging_;  ///< first: the copies, events and streams below go before it
  Timeline timeline_;
  M messages_;
  bool device_messages_ = false;
  int first_ = 0, count_ = 1;    ///< this process's parts
  PeerMatrix peer_;              ///< peer_[src][dst]: GPU-to-GPU copies (local parts)
  std::vector<Array> arrays_;    ///< by array id
  std::vector<Event> unpacked_;  ///< per part: recorded after its last unpacking (ordering only)
  std::vector<bool> unpacked_used_;
};

}  // namespace stepgen::cuda

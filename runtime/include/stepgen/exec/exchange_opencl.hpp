#pragma once
/// \file
/// The OpenCL backend's one exchange executor (ExchangeState), for every distribution: the
/// parts of one process, an MPI rank's one part, a rank's several parts. Each exchanged
/// array's plan, as this process sees it (rt::RankPlan), has local entries (copies between
/// two of its parts: a rectangular copy on one device; through a page-locked host buffer
/// between devices) and remote ones (boxes sent to and received from other ranks through the
/// Messenger `M`: rt::NoMessages alone, mpi::MpiMessenger between ranks). One order for all of
/// them: the receives posted, the boxes that leave a device read into host buffers, the interior
/// launched meanwhile when the launch overlaps its exchange, the sends made, the copies and the
/// staged writes enqueued, the received boxes written once they arrive.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/opencl.hpp"
#include "stepgen/exec/problem.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/rank_parts.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

namespace stepgen::cl {

/// The three slabs of work-items of a launch that overlaps its exchange, along the slowest
/// dimension `axis`: the boundary slabs below and above (first, their halos read when they are
/// done) and the interior between them (rt::overlap_views; work-items along the slowest
/// dimension are cells, the interior shrunk to whole work-groups of `group`; empty when none
/// is left, then `below` covers everything).
struct OverlapSlabs {
  Slab below, above, interior;
};
inline OverlapSlabs overlap_slabs(const rt::Part& part, int axis, rt::Index reach_lo,
                                  rt::Index reach_hi, std::size_t group,
                                  const std::vector<const std::vector<rt::Transfer>*>& plans) {
  const auto a = static_cast<std::size_t>(axis);
  const rt::OverlapViews v = rt::overlap_views(part, axis, reach_lo, reach_hi, plans);
  // The interior's cells, in the buffer's coordinates, shrunk to whole work-groups.
  size_t i0 = 0, i1 = 0;
  if (v.split) {
    i0 = static_cast<size_t>(rt::round_up(v.interior.lo[a] + reach_lo - part.ghost.lo[a],
                                          static_cast<rt::Index>(group)));
    i1 = static_cast<size_t>(v.interior.hi[a] - reach_hi - part.ghost.lo[a]) / group * group;
  }
  if (i0 >= i1) i0 = i1 = 0;
  return {Slab{axis, 0, i0 < i1 ? i0 : SIZE_MAX}, Slab{axis, i1, i0 < i1 ? SIZE_MAX : 0},
          Slab{axis, i0, i1}};
}

/// The exchange state of the engine (rt::InCore's `S`) on OpenCL devices, over the messages
/// `M`. Its members take the engine as a template argument `E` (rt::InCore<Backend, S>).
template <class M>
class ExchangeState {
 public:
  using Ids = std::initializer_list<int>;
  using Config = typename M::Config;
  static constexpr const char* kOne = M::kRanks ? "one rank" : "one device";
  static constexpr const char* kOverlapOn =
      M::kRanks ? "boundary slabs first, their halos copied on a second queue; halo messages in "
                  "flight while the interior computes; exchange time = the part not hidden "
                  "behind the interior"
                : "boundary slabs first, their halos copied on a second queue beside the "
                  "interior; exchange time = the part not hidden behind the interior";

  ExchangeState(const rt::StateArgs<Device>& args, const Config& config)
      : messages_(config), first_(args.first), count_(static_cast<int>(args.parts)) {}
  static void check_fits(const Device& d, std::size_t bytes) { cl::check_fits(d, bytes); }

  /// Each exchanged array's plan as this process sees it; the copies between devices stage
  /// through a page-locked buffer per box made once here (rt::ExchangeStaging), the
  /// messages through a host buffer each.
  template <class E>
  void prepare(E& e) {
    const std::vector<Device>& d = e.devices();
    auto local = [this](int part) { return part >= first_ && part < first_ + count_; };
    rt::stage_exchanges(e, staging_, [&](const rt::Transfer& t) {
      return local(t.src) && local(t.dst) &&
             !d[static_cast<std::size_t>(t.src - first_)].same_device(
                 d[static_cast<std::size_t>(t.dst - first_)]);
    });
    arrays_ = rt::plan_buffers<rt::HostArray>(e, first_, count_, rt::HostMessage{});
    for (const Array& a : arrays_) moves_ = moves_ || !a.plan.empty();
  }
  template <class E>
  void print_exchange_paths(const E&) const {}
  template <class E>
  void begin(E&) {
    loop_timer_.start();
  }
  template <class E>
  void end(E& e) {
    kernel_timer_.start();
    for (std::size_t p = 0; p < e.parts(); ++p) cl::finish(e.devices()[p]);
    kernel_timer_.stop();
    loop_timer_.stop();
  }
  /// The kernels' time is the host's wait for them before each exchange and at the end. With
  /// nothing to exchange no wait happens: the launches queue up and the host meets them only at
  /// reductions, outputs and the end, so the time loop's whole time is theirs (a run of 0.19 s
  /// reported `kernels: 0.000005 s` before).
  void times(rt::RunStats& stats) const {
    stats.kernel_s = moves_ ? kernel_timer_.total() : loop_timer_.total();
    stats.exchange_s = exchange_timer_.total();
  }

  /// Refreshes the ghost cells of `ids` on every part once their kernels are done.
  template <class E>
  void exchange(E& e, Ids ids) {
    if (!moves(ids)) return;
    kernel_timer_.start();
    for (std::size_t p = 0; p < e.parts(); ++p) cl::finish(e.devices()[p]);
    kernel_timer_.stop();
    exchange_timer_.start();
    move(e, ids, On::kCompute, [] {});
    // Waiting here keeps the report's split between kernels and exchange exact; the writes
    // read the host buffers, which the next exchange reuses.
    wait_all(pending_writes_, "exchange");
    exchange_timer_.stop();
  }

  /// On each device, the boundary slabs (rt::overlap_views; work-items along the slowest
  /// dimension are cells, cut at multiples of the work-group size `group`) run first, then the
  /// boundary queue reads the boxes that leave the device into their host buffers; the interior
  /// runs meanwhile on the kernel queue while the messages are sent and received; the boxes are
  /// then written to their receivers on their boundary queues (parts of one device: copied on
  /// it, after the barrier that follows the last of its parts' boundary slabs). Compute then
  /// exchange when overlap is off.
  template <class E, class L>
  void launch_and_exchange(E& e, void (*launch)(const L&), int /*kernel*/, rt::Index reach_lo,
                           rt::Index reach_hi, std::size_t group, Ids ids, std::int64_t step) {
    if (!e.overlap() || !moves(ids)) {
      for (std::size_t p = 0; p < e.parts(); ++p) launch(e.whole(p, step));
      exchange(e, ids);
      return;
    }
    const int axis = e.problem().dims - 1;
    std::vector<Device>& devices = e.devices();
    kernel_timer_.start();
    std::vector<const std::vector<rt::Transfer>*> plans;
    for (int id : ids) plans.push_back(&e.plan(id));
    std::vector<Slab> interior(e.parts());
    for (std::size_t p = 0; p < e.parts(); ++p) {
      const rt::Part& part = e.part(p);
      const OverlapSlabs slabs = overlap_slabs(part, axis, reach_lo, reach_hi, group, plans);
      // A device's kernels run in order on its compute queue (see cl::On); the halo reads on
      // the boundary queue start when the boundary slabs are done, beside the interior.
      launch({devices[p], e.kernels(p), e.buffers(p), part, step, &slabs.below});
      launch({devices[p], e.kernels(p), e.buffers(p), part, step, &slabs.above});
      boundary_after_compute(devices[p]);
      interior[p] = slabs.interior;
    }
    move(e, ids, On::kBoundary, [&] {
      for (std::size_t p = 0; p < e.parts(); ++p) {
        launch({devices[p], e.kernels(p), e.buffers(p), e.part(p), step, &interior[p]});
        flush(devices[p]);
      }
    });
    for (std::size_t p = 0; p < e.parts(); ++p) cl::finish(devices[p]);
    kernel_timer_.stop();
    // What is left of the exchange once the interior is done: the part not hidden.
    exchange_timer_.start();
    wait_all(pending_writes_, "exchange");
    exchange_timer_.stop();
  }

 protected:
  M& messages() { return messages_; }
  int count() const { return count_; }

 private:
  using Array = rt::PlanBuffers<rt::HostArray>;  ///< a host box per message
  bool moves(Ids ids) const { return rt::moves(arrays_, ids); }

  /// One exchange of `ids` on the queues `on`: receives posted; the boxes leaving a device read
  /// into host buffers; `meanwhile()` (the interior's launches); sends; copies and staged writes;
  /// the received boxes written. The writes stay in flight (pending_writes_).
  template <class E, class Meanwhile>
  void move(E& e, Ids ids, On on, Meanwhile&& meanwhile) {
    std::vector<Device>& d = e.devices();
    auto buffer = [&e](std::size_t p, int id) -> Mem& {
      return e.buffers(p)[static_cast<std::size_t>(id)];
    };
    for (int id : ids)
      for (std::size_t i = 0; i < at(id).plan.receives.size(); ++i) {
        const rt::RankPlan::Message& m = at(id).plan.receives[i];
        rt::HostArray& h = at(id).received[i];
        messages_.post_receive(m.peer, id, h.bytes.data(), h.bytes.size(),
                               h.name + " from rank " + std::to_string(m.peer));
      }
    std::vector<Event> reads;
    for (int id : ids) {
      Array& a = at(id);
      for (const rt::RankPlan::Copy& c : a.plan.copies)
        if (!d[c.src].same_device(d[c.dst]))
          read_box(d[c.src], buffer(c.src, id), e.part(c.src).ghost, staged(id, c), c.box, &reads,
                   on);
      for (std::size_t i = 0; i < a.plan.sends.size(); ++i) {
        const rt::RankPlan::Message& m = a.plan.sends[i];
        read_box(d[m.part], buffer(m.part, id), e.part(m.part).ghost, a.sent[i], m.box, &reads, on);
      }
    }
    meanwhile();
    wait_all(reads, "exchange");
    std::size_t bytes = 0;
    for (int id : ids) {
      Array& a = at(id);
      for (std::size_t i = 0; i < a.plan.sends.size(); ++i) {
        messages_.send(a.plan.sends[i].peer, id, a.sent[i].bytes.data(), a.sent[i].bytes.size(),
                       a.sent[i].name + " to rank " + std::to_string(a.plan.sends[i].peer));
        bytes += a.sent[i].bytes.size();
      }
      const auto& info = e.problem().arrays[id];
      for (const rt::RankPlan::Copy& c : a.plan.copies) {
        if (d[c.src].same_device(d[c.dst]))
          copy_rect(d[c.dst], buffer(c.src, id), e.part(c.src).ghost, buffer(c.dst, id),
                    e.part(c.dst).ghost, c.box, info.element_bytes, info.name, &pending_writes_,
                    on);
        else
          write_box(d[c.dst], buffer(c.dst, id), e.part(c.dst).ghost, staged(id, c), c.box,
                    &pending_writes_, on);
        bytes += static_cast<std::size_t>(c.box.volume()) * info.element_bytes;
      }
    }
    messages_.wait();
    for (int id : ids) {
      Array& a = at(id);
      for (std::size_t i = 0; i < a.plan.receives.size(); ++i) {
        const rt::RankPlan::Message& m = a.plan.receives[i];
        write_box(d[m.part], buffer(m.part, id), e.part(m.part).ghost, a.received[i], m.box,
                  &pending_writes_, on);
      }
      for (std::size_t p = 0; p < e.parts(); ++p) flush(d[p]);
    }
    e.stats().exchange_bytes += bytes;
  }

  rt::HostArray& staged(int id, const rt::RankPlan::Copy& c) {
    return staging_.of(id)[c.transfer][c.index];  // this box's staging
  }
  Array& at(int id) { return arrays_[static_cast<std::size_t>(id)]; }

  rt::ExchangeStaging staging_;  ///< first: the copies, events and streams below go before it
  M messages_;
  int first_ = 0, count_ = 1;  ///< this process's parts
  std::vector<Array> arrays_;  ///< by array id
  bool moves_ = false;         ///< some array has something to exchange
  std::vector<Event> pending_writes_;
  rt::Stopwatch kernel_timer_, exchange_timer_, loop_timer_;
};

}  // namespace stepgen::cl

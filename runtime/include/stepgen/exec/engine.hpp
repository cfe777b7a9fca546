#pragma once
/// \file
/// The in-core engine: one run of a spec's time loop on the devices of one process, written
/// once for every backend. The grid is split by the partitioner (partition.hpp); each device
/// holds its part's ghost box of every array; after a launch only the ghost cells other parts
/// read move (exchange.hpp), overlapping the interior's computation where the kernels allow.
///
/// The generated program gives the engine its problem (rt::Problem: the arrays, their halos,
/// why overlap is impossible) and one time step's body as plain code, one call per spec action,
/// the launches described by the launch table (rt::ProbeLaunch):
///
///     template <class Run>
///     void time_step(Run& run, std::int64_t step) {
///       run.launch_and_exchange(launch_jacobi, kLaunches[0], {array::B}, step);
///       run.swap({array::A, array::B});
///     }
///
/// Both engines run that body: InCore on every part of the process, each launch with the
/// exchange of what it wrote; out of core, ChunkRun on one chunk of one part (the launches over
/// the planes still read, exchanges nothing: a chunk's window holds its neighbours' cells).
///
/// A backend `B` (engine_opencl.hpp, engine_cuda.hpp) gives the types and the few operations
/// that differ: `Device`, `Buffer`, `Kernels` (what a device needs to launch: built programs in
/// OpenCL, nothing in CUDA), `Launch` (what a generated launch function receives), buffers and
/// rectangular copies between a buffer and a host array, `whole()` (a launch over a part's whole
/// buffer), and a `State` that orders the exchanges across devices (events, queues, streams),
/// overlaps a launch with its exchange and times kernels and exchanges. An MPI rank runs the
/// same engine over its own part with a rank State (engine_mpi_*.hpp) whose exchange is MPI
/// messages packed and unpacked by the backend's copies.
///
/// A new time-loop action is one method of InCore and one of ChunkRun here (and, where the
/// backends differ, one in each State or Backend) and one line in
/// templates/common/time_loop.mustache.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/chunk_run.hpp"
#include "stepgen/exec/engine_frames.hpp"
#include "stepgen/exec/engine_init.hpp"
#include "stepgen/exec/engine_traces.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/problem.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// One run in core: the buffers of every local part, the time-loop actions, the report's
/// figures. `S`: how the parts exchange ghost cells (B::State between the devices of one
/// process; an MPI rank's state, engine_mpi_opencl.hpp and engine_mpi_cuda.hpp, with MPI
/// messages between ranks).
template <class B, class S>
class InCore {
  friend class EngineFrames<B, S>;

 public:
  using Backend = B;
  using Device = typename B::Device;
  using Buffer = typename B::Buffer;
  using Launch = typename B::Launch;
  using LaunchFn = void (*)(const Launch&);
  using Ids = std::initializer_list<int>;

  InCore(const Problem<B>& problem, std::vector<Device>& devices, const Partition& partition,
         std::vector<HostArray>& host, const Probed& probed, Local local = {},
         const typename S::Config& config = {})
      : problem_(problem),
        devices_(devices),
        partition_(partition),
        host_(host),
        probed_(probed),
        first_(static_cast<std::size_t>(local.first)),
        count_(local.count < 0 ? partition.parts.size() : static_cast<std::size_t>(local.count)),
        plans_(static_cast<std::size_t>(problem.array_count)),
        state_(StateArgs<Device>{devices, count_, local.first, problem.array_count}, config) {
    for (std::size_t p = 0; p < parts(); ++p)
      kernels_.push_back(problem_.build_kernels ? problem_.build_kernels(devices_[p])
                                                : typename B::Kernels{});
    // The fill's and the frames' programs too (OpenCL builds them at their first use), so
    // that run() times no program build.
    bool fills = false;
    for (int id = 0; id < problem_.array_count; ++id) {
      const auto kind = problem_.arrays[id].init.kind;
      fills = fills || (!host_[static_cast<std::size_t>(id)].held && kind != ArrayInit::kCopy);
    }
    for (std::size_t p = 0; p < parts(); ++p) {
      if (fills) B::prepare_init(devices_[p]);
      if (problem_.boundary_count > 0) B::prepare_frames(devices_[p]);
    }
    for (int id = 0; id < problem_.array_count; ++id)
      if (problem_.arrays[id].exchanged())
        plans_[static_cast<std::size_t>(id)] =
            exchange_plan(partition_, problem_.array_halo(id), problem_.exchange_every);
    state_.prepare(*this);
    overlap_ = why_no_overlap().empty();
  }

  /// Why exchanges do not overlap computation in this run; empty when they do.
  std::string why_no_overlap() const {
    if (*problem_.no_overlap) return problem_.no_overlap;
    if (partition_.parts.size() < 2) return S::kOne;
    if (env_settings().overlap_off) return "STEPGEN_OVERLAP=off";
    if (B::kViewsFromProbe && problem_.launches) {
      // A kernel the probe found unsafe on views runs whole; the exchanges of the other
      // launches then do not overlap either (one ordering of copies and launches for the run).
      const std::string no_views = probed_.no_views(*problem_.launches, problem_.dims - 1);
      if (!no_views.empty()) return no_views;
    }
    for (int d = 0; d + 1 < problem_.dims; ++d)
      if (partition_.grid[static_cast<std::size_t>(d)] > 1)
        return "the partition splits dimension " + std::to_string(d) + ", not only the slowest";
    return {};
  }

  /// The report's line on overlap.
  void print_overlap() const {
    const std::string why = why_no_overlap();
    if (why.empty())
      std::printf("overlap: on (%s)\n", S::kOverlapOn);
    else
      std::printf("overlap: off (%s): compute then exchange\n", why.c_str());
  }

  /// The report's lines on how the devices exchange (the backend's: peer copies or staging).
  void print_exchange_paths() const { state_.print_exchange_paths(*this); }

  /// Uploads the arrays, runs `loop(*this, steps)` (the generated time loop) and gathers the
  /// written arrays back into the host arrays.
  /// The reductions, until and monitor of the run (nullptr: none; the time loop's
  /// end_of_step then always goes on), reduction i's cells added by `reduce_boxes[i]`.
  void set_monitor(Monitor* monitor, const ReduceBox<B>* reduce_boxes) {
    monitor_ = monitor;
    reduce_boxes_ = reduce_boxes;
    warm_up_reductions(*this, monitor_, reduce_boxes_);
  }

  /// The arrays gather() copies back at the end of the run, `want[id]` (main.hpp's
  /// gathered_arrays: those --save and --verify read after it); empty (the default): every
  /// written array with a host copy.
  void set_gathered(std::vector<bool> want) { gathered_ = std::move(want); }

  template <class Loop>
  RunStats run(std::int64_t steps, Loop&& loop) {
    Stopwatch total;
    total.start();
    upload();
    state_.begin(*this);
    if (monitor_) monitor_->start(first_step_);
    loop(*this, steps);
    state_.end(*this);
    if (before_gather_) before_gather_();
    gather();
    total.stop();
    stats_.total_s = total.total();
    state_.times(stats_);
    stats_.exchange_s += frames_.seconds();
    // The steps this run made: from the first (a restart's checkpoint step) to the last.
    stats_.steps = (monitor_ ? monitor_->steps_run(steps) : steps) - std::min(first_step_, steps);
    return stats_;
  }

  // --- The time-loop actions ---------------------------------------------------------------

  /// Launches a kernel (its launch function `fn`, its entry `at` in the step's launch table) on
  /// every part over its whole buffer.
  void launch(LaunchFn fn, const ProbeLaunch& /*at*/, std::int64_t step) {
    for (std::size_t p = 0; p < parts(); ++p) fn(whole(p, step));
  }

  /// Refreshes the ghost cells of the arrays `ids` on every part.
  void exchange(Ids ids) {
    state_.exchange(*this, ids);
    frames_.fill(*this, ids);
  }

  /// Launches a kernel (its launch function `fn`, its entry `at` in the step's launch table:
  /// the kernel, how far it reads along the slowest dimension, its work-group size there) on
  /// every part and refreshes the ghost cells of the arrays `ids` it wrote, the exchange
  /// overlapping the interior's computation (the backend's State::launch_and_exchange); compute
  /// then exchange when overlap is off.
  void launch_and_exchange(LaunchFn fn, const ProbeLaunch& at, Ids ids, std::int64_t step) {
    state_.launch_and_exchange(*this, fn, at.kernel, at.reach_lo, at.reach_hi, at.group, ids, step);
    frames_.fill(*this, ids);
  }

  /// swap(a, b) or rotate(a, b, c, ...): each name takes the next one's buffer, the last takes
  /// the first's. Host arrays follow so that names keep meaning the same data.
  void swap(Ids ids) {
    const std::vector<int> order(ids);
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      const auto a = static_cast<std::size_t>(order[i]);
      const auto b = static_cast<std::size_t>(order[i + 1]);
      for (std::size_t p = 0; p < parts(); ++p) {
        using std::swap;
        swap(buffers_[p][a], buffers_[p][b]);
      }
      // Arrays without a host copy have no bytes to follow their names.
      if (host_[a].held && host_[b].held) std::swap(host_[a].bytes, host_[b].bytes);
    }
  }

  // --- Sources and receivers (<inject>, <record>: traces.hpp) -------------------------------

  /// Adds `in.value(step)` to its cell wherever a local part holds a copy of it (inject_source,
  /// engine_traces.hpp).
  void inject(const Inject& in, std::int64_t step) { inject_source(*this, in, step); }
  /// Samples the record's points that local parts own (record_points, engine_traces.hpp).
  void record(Record& r, std::int64_t step) { record_points(*this, r, step); }
  /// Reduction i of the spec over every local part's owned cells, at the steps where it is
  /// computed (reduce_parts, engine_init.hpp).
  void reduce(int i, std::int64_t step) { reduce_parts(*this, monitor_, reduce_boxes_, i, step); }

  // --- io: the first step and the end of a step (output, checkpoint; docs/io.md) ----------

  /// The step the time loop starts at (0, or a checkpoint's when restarting).
  std::int64_t first_step() const { return first_step_; }
  /// After step `step` (the time loop's last line, after its swaps): the reductions read,
  /// `until` tested, the monitor's line, then the end-of-step hook when one is set (outputs,
  /// checkpoints: their lines follow the step's monitor line, as out of core, where they are
  /// written at the pass's end). Returns false when the run must stop after this step.
  bool end_of_step(std::int64_t step) {
    const bool go_on = monitor_ ? monitor_->end_of_step(step) : true;
    if (end_of_step_) end_of_step_(*this, step);
    return go_on;
  }
  /// Sets the first step and the end-of-step hook (main.hpp: outputs and checkpoints).
  void set_steps(std::int64_t first, std::function<void(InCore&, std::int64_t)> hook) {
    first_step_ = first;
    end_of_step_ = std::move(hook);
  }
  /// Runs `hook` after the time loop, before the gather (main.hpp: the snapshot writers done
  /// with the host copies the gather overwrites).
  void set_before_gather(std::function<void()> hook) { before_gather_ = std::move(hook); }
  /// Copies each part's owned box of the arrays `want[id]` into the host arrays, the devices'
  /// work so far finished first; the host arrays then hold the current values of those arrays.
  void fetch(const std::vector<bool>& want) {
    state_.end(*this);
    Stopwatch t;
    t.start();
    for (std::size_t p = 0; p < parts(); ++p)
      for (int id = 0; id < problem_.array_count; ++id) {
        const auto u = static_cast<std::size_t>(id);
        if (!want[u] || !problem_.arrays[id].stored_back())
          continue;  // unwritten: the host's are current
        // Outputs and checkpoints have host copies (host_copies).
        host_[u].require("an output or checkpoint");
        const Part& mine = part(p);
        B::read_box(devices_[p], buffers_[p][u], mine.ghost, host_[u], mine.owned);
        stats_.host_device_bytes +=
            static_cast<std::size_t>(mine.owned.volume()) * problem_.arrays[id].element_bytes;
      }
    for (std::size_t p = 0; p < parts(); ++p) B::finish(devices_[p]);
    stats_.host_device_s += t.stop();
    state_.begin(*this);
  }
  // --- end io ------------------------------------------------------------------------------

  // --- What the backend's State reads ------------------------------------------------------

  /// The parts this process runs (all of them, or an MPI rank's own).
  std::size_t parts() const { return count_; }
  /// Local part p (on device p).
  const Part& part(std::size_t p) const { return partition_.parts[first_ + p]; }
  const Problem<B>& problem() const { return problem_; }
  std::vector<Device>& devices() const { return devices_; }
  const Partition& partition() const { return partition_; }
  std::vector<HostArray>& host() const { return host_; }
  const Probed& probed() const { return probed_; }
  bool overlap() const { return overlap_; }
  std::vector<Buffer>& buffers(std::size_t p) { return buffers_[p]; }
  const typename B::Kernels& kernels(std::size_t p) const { return kernels_[p]; }
  const std::vector<Transfer>& plan(int id) const { return plans_[static_cast<std::size_t>(id)]; }
  RunStats& stats() { return stats_; }

  /// A launch over part p's whole buffer.
  Launch whole(std::size_t p, std::int64_t step) const {
    return B::whole(devices_[p], kernels_[p], buffers_[p], part(p), step);
  }

 private:
  /// Creates every part's buffers and fills them with the part's ghost box of each array:
  /// the buffers first, then every copy of every part and array enqueued at once (B::write_box
  /// does not wait), then one wait per device. From page-locked host arrays
  /// (rt::OneProcess::place) the copies run at the link's speed, the devices' side by side.
  void upload() {
    Stopwatch setup;  // the set-up's parts (the report's set-up line)
    setup.start();
    buffers_.resize(parts());
    for (std::size_t p = 0; p < parts(); ++p) {
      const Device& d = devices_[p];
      const Box& ghost = part(p).ghost;
      std::size_t bytes = problem_.table_bytes;  // each part's kernels hold the tables
      for (int id = 0; id < problem_.array_count; ++id)
        bytes += static_cast<std::size_t>(ghost.volume()) * problem_.arrays[id].element_bytes;
      S::check_fits(d, bytes);
      for (int id = 0; id < problem_.array_count; ++id) {
        const ArrayInfo& a = problem_.arrays[id];
        buffers_[p].push_back(B::create_buffer(d, ghost, a.element_bytes, a.name));
      }
    }
    stats_.setup_buffers_s = setup.stop();
    Stopwatch t;  // the copies only: their rate is compared with the link's (rt::measure_link)
    t.start();
    for (std::size_t p = 0; p < parts(); ++p) {
      const Box& ghost = part(p).ghost;
      // The host arrays hold the grid: a boundary frame (past its edge) is filled below.
      const Box inside = intersect(ghost, partition_.domain);
      for (int id = 0; id < problem_.array_count; ++id) {
        const auto u = static_cast<std::size_t>(id);
        if (!host_[u].held) continue;  // made on the device (make_on_devices)
        B::write_box(devices_[p], buffers_[p][u], ghost, host_[u], inside);
        stats_.host_device_bytes +=
            static_cast<std::size_t>(inside.volume()) * problem_.arrays[id].element_bytes;
      }
    }
    for (std::size_t p = 0; p < parts(); ++p) B::finish(devices_[p]);
    stats_.host_device_s += t.stop();
    setup.start();
    make_on_devices();  // the other arrays' initial values (it waits for the devices)
    stats_.setup_init_s = setup.stop();
    // Every array's frame once: boundary arrays by their rules (read-only inputs included),
    // the others zero (no kernel result depends on them: validation, validate_boundary.cpp).
    setup.start();
    std::vector<int> all;
    for (int id = 0; id < problem_.array_count; ++id) all.push_back(id);
    frames_.fill(*this, all, true);
    frames_.setup_on_devices(*this);
    if (problem_.boundary_count > 0)
      for (std::size_t p = 0; p < parts(); ++p) B::finish(devices_[p]);
    stats_.setup_frames_s = setup.stop();
    stats_.setup_known = true;
  }

  // --- initial values made on the devices ----------------------------------------------------

  /// Makes the arrays without a host copy on every part (make_on_devices, engine_init.hpp).
  void make_on_devices() { stepgen::rt::make_on_devices(*this); }
  // --- end: initial values made on the devices -----------------------------------------------

  /// Whether gather() copies array `id` back: a written array set_gathered named (it
  /// must have a host copy: an internal error otherwise), or, when none was set, a written
  /// array with a host copy. Unwritten arrays never: their host copies hold their values.
  bool gathers(int id) const {
    const auto u = static_cast<std::size_t>(id);
    if (!problem_.arrays[id].result()) return false;
    if (gathered_.empty()) return host_[u].held;  // nothing reads the others
    if (!gathered_[u]) return false;
    host_[u].require("gathering it at the end of the run");
    return true;
  }

  /// Copies each part's owned box of the written arrays something reads after the run
  /// (set_gathered; by default every written array with a host copy) back into the host arrays:
  /// every copy enqueued at once (B::read_box does not wait), then one wait per device.
  void gather() {
    Stopwatch t;
    t.start();
    // The arrays gathered, for the report.
    stats_.gathered.clear();
    for (int id = 0; id < problem_.array_count; ++id)
      if (gathers(id))
        stats_.gathered +=
            (stats_.gathered.empty() ? "" : ", ") + std::string(problem_.arrays[id].name);
    for (std::size_t p = 0; p < parts(); ++p)
      for (int id = 0; id < problem_.array_count; ++id) {
        const ArrayInfo& a = problem_.arrays[id];
        if (!gathers(id)) continue;
        const Part& mine = part(p);
        B::read_box(devices_[p], buffers_[p][static_cast<std::size_t>(id)], mine.ghost,
                    host_[static_cast<std::size_t>(id)], mine.owned);
        stats_.host_device_bytes += static_cast<std::size_t>(mine.owned.volume()) * a.element_bytes;
      }
    for (std::size_t p = 0; p < parts(); ++p) B::finish(devices_[p]);
    stats_.host_device_s += t.stop();
  }

  const Problem<B>& problem_;
  std::vector<Device>& devices_;
  const Partition& partition_;
  std::vector<HostArray>& host_;
  const Probed& probed_;       ///< what the kernel probe measured (rims: how kernels run on views)
  std::size_t first_, count_;  ///< the local parts: count_ from first_
  std::vector<typename B::Kernels> kernels_;
  std::vector<std::vector<Buffer>> buffers_;
  std::vector<std::vector<Transfer>> plans_;
  EngineFrames<B, S> frames_;  ///< the <boundary> frames (engine_frames.hpp)
  S state_;                    ///< after the buffers: its events, staging and messages go first
  bool overlap_ = false;       ///< launches followed by an exchange overlap the two
  RunStats stats_;
  std::vector<bool> gathered_;  ///< what gather() copies back (empty: the default)
  Monitor* monitor_ = nullptr;
  const ReduceBox<B>* reduce_boxes_ = nullptr;
  std::int64_t first_step_ = 0;                             ///< io
  std::function<void(InCore&, std::int64_t)> end_of_step_;  ///< io
  std::function<void()> before_gather_;  ///< io: the writers done with the host copies
};

/// The host link of a run in core, measured at start-up for the report: what upload and
/// gather reach between page-locked host memory and the devices.
struct LinkSpeed {
  double h2d = 0;  ///< host to devices, bytes per second summed over the devices
  double d2h = 0;  ///< devices to host
};

/// Measures the host link as upload and gather use it: `bytes` to and from each of the first
/// `count` devices at once (B::write_box, B::read_box, one wait per device), between host
/// memory from `alloc` (page-locked: rt::OneProcess::place) and a buffer on each device; the best
/// of three after a warm-up each way (one timing of a few milliseconds is at the mercy of whatever
/// else the host does then).
template <class B>
LinkSpeed measure_link(std::vector<typename B::Device>& devices, std::size_t count,
                       const HostAllocator& alloc, std::size_t bytes) {
  constexpr std::size_t kElement = 4;
  const Index cells = static_cast<Index>(std::max<std::size_t>(bytes / kElement, 1));
  const Box box = Box::from_extent(1, {cells, 1, 1});
  count = std::min(count, devices.size());
  std::vector<HostArray> host;
  std::vector<typename B::Buffer> buffers;
  for (std::size_t p = 0; p < count; ++p) {
    host.emplace_back("link probe", kElement, box, alloc);
    buffers.push_back(B::create_buffer(devices[p], box, kElement, "link probe"));
  }
  auto timed = [&](bool to_device) {
    Stopwatch t;
    t.start();
    for (std::size_t p = 0; p < count; ++p)
      if (to_device)
        B::write_box(devices[p], buffers[p], box, host[p], box);
      else
        B::read_box(devices[p], buffers[p], box, host[p], box);
    for (std::size_t p = 0; p < count; ++p) B::finish(devices[p]);
    return static_cast<double>(count * static_cast<std::size_t>(cells) * kElement) /
           std::max(t.stop(), 1e-9);
  };
  LinkSpeed link;
  timed(true);  // warm-up
  timed(false);
  for (int i = 0; i < 3; ++i) {
    link.h2d = std::max(link.h2d, timed(true));
    link.d2h = std::max(link.d2h, timed(false));
  }
  return link;
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// Out of core, the runner, written once for the backends: Runner<Ops> runs the commands of
/// ops() over a backend's operations `Ops` (ooc_opencl.hpp: cl::OocOps, ooc_cuda.hpp:
/// cuda::OocOps), what one command moves and runs being execute(). Standard library only.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/exec/ooc/calibrate.hpp"
#include "stepgen/exec/ooc/foreign.hpp"
#include "stepgen/exec/ooc/frames.hpp"
#include "stepgen/exec/ooc/report.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/pipeline.hpp"
#include "stepgen/plan/ooc/retune.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt::ooc {

/// What one load, compute or store op (`op`, on chunk buffers `bufs`) moves and runs, whatever
/// the backend; the runners give their copies and the step, on the op's queue or stream, after
/// its waits. Load: every array's host window (ch.h2d) from its host array or, with several
/// parts, the part's own cells from it and the other parts' from their snapshots
/// (`snapshots[a]`, the boxes they held at the pass's start). Compute: compute(), its
/// Buffer kNext and kStore being `next` (the next chunk's slot) and `bands` (the band
/// store). Store: each written array's own planes back to the host. Counts the bytes in
/// `stats`. `host_copy(buf, load, host, sub, to_device)` copies `sub` between buffer `buf`
/// (holding box `load`) and `host`; `device_copy(from, src, to, dst, what)` copies on the
/// device; `step(chunk, step, remaining)` as in compute().
template <class Buf, class HostCopy, class DeviceCopy, class Step>
void execute(const Schedule& sc, const Op& op, std::vector<Buf>& bufs, std::vector<Buf>& next,
             std::vector<Buf>& bands, const std::vector<HostArray>& host,
             const std::vector<std::vector<HostArray>>& snapshots, Stats& stats,
             HostCopy&& host_copy, DeviceCopy&& device_copy, Step&& step) {
  using K = Op::Kind;
  const Part& part = sc.parts[static_cast<std::size_t>(op.part)];
  const Chunk& ch = part.chunks[static_cast<std::size_t>(op.chunk)];
  if (op.kind == K::kLoad) {
    for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
      if (snapshots[a].empty()) {
        host_copy(bufs[a], ch.load, host[a], ch.h2d, true);
      } else {
        // The cells the host array holds for this part: its owned cells (a written array of a
        // several-part run), or the grid (<boundary> frames: the snapshots hold the rest).
        const bool own = sc.arrays[a].written && sc.parts.size() > 1;
        host_copy(bufs[a], ch.load, host[a], intersect(ch.h2d, own ? part.owned : sc.grid), true);
        for (const HostArray& f : snapshots[a])
          host_copy(bufs[a], ch.load, f, intersect(ch.h2d, f.box), true);
      }
      stats.h2d_bytes += static_cast<std::size_t>(ch.h2d.volume()) * host[a].element_bytes;
    }
  } else if (op.kind == K::kCompute) {
    auto buffer = [&](Buffer b, std::size_t a) -> Buf& {
      return b == Buffer::kChunk ? bufs[a] : b == Buffer::kNext ? next[a] : bands[a];
    };
    compute(
        sc, op, stats.d2d_bytes,
        [&](std::size_t a, Buffer from, const RectCopy& src, Buffer into,
            const RectCopy& dst) {  // region and band sharing
          const bool band = from == Buffer::kStore || into == Buffer::kStore;
          device_copy(buffer(from, a), src, buffer(into, a), dst,
                      (band ? "band of " : "share ") + host[a].name);
        },
        step);
  } else if (op.kind == K::kStore) {
    for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
      if (!sc.arrays[a].written) continue;
      host_copy(bufs[a], ch.load, host[a], ch.own, false);
      stats.d2h_bytes += static_cast<std::size_t>(ch.own.volume()) * host[a].element_bytes;
    }
  }
}

// --- the kernel/copy split (events around each command) ------------
/// Whether a backend's operations time their commands: `Ops::timer(q, d)` enqueues a timing
/// event (an Event: an OpenCL marker on a profiling queue, a CUDA event with timing) and
/// `Ops::elapsed(d, a, b)` gives the seconds between two, once `b` is complete (without
/// waiting: negative while it is not). Backends without
/// them (the tests' fakes) run untimed.
template <class O, class = void>
struct HasTimer : std::false_type {};
template <class O>
struct HasTimer<O, std::void_t<decltype(O::timer(std::declval<typename O::Handle>(),
                                                 std::declval<const typename O::Device&>()))>>
    : std::true_type {};
/// Whether they need to turn timing on for a device first (`Ops::timing(d)`: OpenCL makes the
/// device's own queue a profiling one).
template <class O, class = void>
struct HasTimingSetup : std::false_type {};
template <class O>
struct HasTimingSetup<O, std::void_t<decltype(O::timing(std::declval<typename O::Device&>()))>>
    : std::true_type {};
// --- end: the kernel/copy split (events around each command) ---

/// What one MPI rank runs of a schedule: its one part, on its one device. The other parts run
/// on other ranks; at every pass boundary, once this part's stores are done and before the next
/// pass's loads, `exchange` fills the host arrays' cells of this part's foreign boxes with
/// their owners' results (the messages of foreign_plan), and the part's snapshots are taken
/// from there.
struct Share {
  int part = -1;  ///< the part run here; -1: every part, on devices[part] (one process)
  std::function<void()> exchange;
  /// The end of the steps first..last of a pass (reductions, until, monitor: monitor.hpp),
  /// once every part's stores are done (Schedule::pass_barriers). False: stop after `last`.
  std::function<bool(std::int64_t first, std::int64_t last)> pass_end;
  /// The <boundary> rules (ooc/frames.hpp) when the schedule has frames (Schedule::has_frame).
  FrameRules frames;
  /// An MPI rank's host arrays hold its reach only: `fill_frame(array, box)` composes the cells
  /// of `box` (all past the grid's edge) from the grid's edge slabs gathered from every rank
  /// (ranks.hpp); empty: from the host arrays (fill_framed).
  std::function<void(std::size_t array, HostArray& box)> fill_frame;
  /// The launch shapes retuned on the chunks (ooc/retune.hpp; nullptr or inactive: none). It
  /// outlives the runner: a run in segments (io) goes on tuning where the last one stopped.
  Retuner* retune = nullptr;
};

/// Runs a stencil out of core on every part's device (or on one part's, see Share): the
/// commands of ops() in issue order, a load on a copy-in queue, a compute command on the
/// device's own queue (where the generated launches go), a store on a copy-out queue (all on
/// the device's own queue without `overlap`), ordered by the events of their waits only.
///
/// The backend's operations `Ops` (static members; a "queue" is an OpenCL command queue or a
/// CUDA stream):
/// - types: Device, Buffer (a device buffer), Queue (an owned queue; `get()` its handle),
///   Event (an owned event; `get()` its handle), Handle (a queue's handle), Pinned (what
///   page-locks a host array while it lives);
/// - `buffer(d, box, element_bytes, name)`: a buffer of box's cells; `queue(d)`: a new queue;
///   `compute_queue(d)`: the device's own; `use(d)`: makes d current before its commands;
/// - `host_copy(q, d, buf, box, host, sub, to_device, reads)`: cells `sub` between `buf`
///   (holding `box`) and host array `host`, asynchronously; a read may add to `reads` events
///   whose completion says the cells are in the host array (none: ordered by the queue);
/// - `device_copy(q, d, from, src, to, dst, what)`: a copy on the device;
/// - `wait(q, d, events)`: q's later commands wait for `events`; `host_wait(d, events)`: the
///   host waits for them; `record(q, d)`: an event of q's commands so far; `flush(q, d)`:
///   starts q's commands now;
/// - `finish(d)`: waits for the device's own queue; `finish(q, d)`: for q;
/// - `pin(d, host)`: page-locks a snapshot (a no-op where its allocator did it).
template <class Ops>
class Runner {
 public:
  using Device = typename Ops::Device;
  using Buffer = typename Ops::Buffer;
  /// One time step of the body on a chunk: the generated program's launches over the chunk's
  /// buffers (by array id) as if the chunk were a part whose ghost box is `chunk.ghost`, and
  /// its swap/rotate as renamings of these buffers, on the device's own queue. `remaining`:
  /// the steps of this pass after this one, so that a launch may compute only the planes still
  /// read (needed_planes); negative: compute the whole buffer.
  using Step =
      std::function<void(const Device& d, std::size_t part, std::vector<Buffer>& buffers,
                         const rt::Part& chunk, std::int64_t step, std::int64_t remaining)>;
  /// Host arrays over a box for calibrate's probes (Sample in main.hpp).
  using Sample = std::function<std::shared_ptr<std::vector<HostArray>>(const Box& box)>;

  /// `snapshot_alloc` gives the memory of the snapshots of other parts' cells (page-locked
  /// when the host arrays are); empty: heap memory, which Ops::pin page-locks where it does.
  Runner(std::vector<Device>& devices, const Schedule& schedule, std::vector<HostArray>& host,
         Step step, bool overlap, Share share = {}, const HostAllocator& snapshot_alloc = {})
      : devices_(devices),
        sc_(schedule),
        host_(host),
        step_(std::move(step)),
        overlap_(overlap),
        share_(std::move(share)) {
    for (std::size_t p = 0; p < sc_.parts.size(); ++p) {
      if (!runs_here(p)) continue;
      const Device& d = device(p);
      if constexpr (HasTimingSetup<Ops>::value) Ops::timing(devices_[local(p)]);  // timed commands
      PartState st;
      if (overlap_) {
        st.in = Ops::queue(d);
        st.out = Ops::queue(d);
      }
      st.slots.resize(static_cast<std::size_t>(sc_.buffers));
      const Box cells = Box::from_extent(1, {sc_.parts[p].buffer_cells, 1, 1});
      for (auto& slot : st.slots)
        for (const Array& a : sc_.arrays)
          slot.push_back(Ops::buffer(d, cells, static_cast<std::size_t>(a.element_bytes),
                                     a.name + " (chunk buffer)"));
      // Band sharing: each array's bands, all k of them, one after the other.
      if (sc_.band_cells > 0)
        for (const Array& a : sc_.arrays)
          st.bands.push_back(Ops::buffer(d, Box::from_extent(1, {sc_.band_cells, 1, 1}),
                                         static_cast<std::size_t>(a.element_bytes),
                                         a.name + " (band store)"));
      // The cells read from other parts, per written array, refreshed at each pass boundary.
      st.snapshots.resize(sc_.arrays.size());
      for (std::size_t a = 0; a < sc_.arrays.size(); ++a)
        if (sc_.arrays[a].written && sc_.parts.size() > 1)
          for (const Box& f : sc_.parts[p].foreign)
            st.snapshots[a].emplace_back(sc_.arrays[a].name,
                                         static_cast<std::size_t>(sc_.arrays[a].element_bytes), f,
                                         snapshot_alloc);
        else if (sc_.has_frame)  // <boundary> frames: the cells past the grid's edge
          for (const Box& f : past_the_edge(sc_.parts[p].foreign, sc_.grid))
            st.snapshots[a].emplace_back(sc_.arrays[a].name,
                                         static_cast<std::size_t>(sc_.arrays[a].element_bytes), f,
                                         snapshot_alloc);
      if (sc_.has_frame && share_.part >= 0 && !share_.fill_frame)
        throw RunError(
            "out-of-core: <boundary> frames are not supported in an MPI program's "
            "out-of-core run yet");
      // Page-locked like the host arrays, so that loads of foreign cells are DMA copies that do
      // not hold up the host thread issuing every device's work.
      for (std::vector<HostArray>& boxes : st.snapshots)
        for (HostArray& f : boxes) st.pinned.push_back(Ops::pin(d, f));
      parts_.push_back(std::move(st));
    }
  }

  /// Runs `steps` steps; fills the byte counts and the measured time of `stats`.
  void run(std::int64_t steps, Stats& stats) {
    Stopwatch clock;
    clock.start();
    snapshot();
    const Index k = sc_.steps_per_pass;
    std::int64_t done = steps;  // the steps run: fewer when pass_end stops the run
    for (const Op& op : ops(sc_, steps)) {
      if (op.kind == Op::Kind::kBarrier && share_.pass_end) {
        finish_all();
        const Index pass = op.t / sc_.chunks;  // the pass this barrier begins
        if (!share_.pass_end((pass - 1) * k, pass * k - 1)) {
          done = pass * k;
          break;
        }
      }
      if (op.kind == Op::Kind::kBarrier) {
        execute(op, stats);
      } else if (runs_here(static_cast<std::size_t>(op.part))) {
        Stopwatch issue;  // the host's time issuing the op (the report's split)
        issue.start();
        execute(op, stats);
        stats.issue_s += issue.stop();
      }
    }
    finish_all();
    if (done == steps && share_.pass_end && steps > 0)
      share_.pass_end((passes(steps, sc_.steps_per_pass) - 1) * k, steps - 1);
    stats.measured_s = clock.stop();
    // The commands' times, summed (over segments too: += ).
    stats.load_s += timed_[0];  // by Op::Kind: loads, computes, stores
    stats.kernel_s += timed_[1];
    stats.store_s += timed_[2];
    stats.timed = stats.timed || HasTimer<Ops>::value;
    timed_[0] = timed_[1] = timed_[2] = 0;
    stats.passes = passes(done, sc_.steps_per_pass);
    stats.steps = done;
    stats.parts = sc_.parts.size();
  }

  /// The cells `calibrate` sends: the first planes of the first part's reach, at most
  /// `probe_bytes` over all arrays (at least one plane). The host arrays must hold them.
  static Box probe_box(const Schedule& sc, Index probe_bytes) {
    Index cell_bytes = 0;
    for (const Array& a : sc.arrays) cell_bytes += a.element_bytes;
    return probe_planes(sc.parts[0].reach, sc.dims, cell_bytes, probe_bytes);
  }

  /// Measures the link and the kernels on the first device: the probe_box() is sent,
  /// received, sent and received at once (two queues), and stepped once. With several devices
  /// (one process), the link again with every device streaming the first planes of its own
  /// part at once (the *_all figures): devices often share the host's memory and PCIe root.
  /// The host arrays are left as they were (only their own bytes are written back, before any
  /// kernel ran; the parts' probes do not overlap).
  /// `sample` (`--out-of-core auto` deciding, before the run's host arrays exist):
  /// each probe's own host arrays over its box, held as the run's would be; `host` is then
  /// not read.
  /// `meet` (MPI): the ranks' meeting at a pass boundary (messages to and from the
  /// neighbours); given, Link::boundary is measured with it (measure_boundary, after the
  /// kernels: a round is a step of the probe, its first plane stored, and a meeting). The
  /// stores overwrite that plane of the host arrays: with `meet`, `host` must be scratch (an
  /// MPI rank's calibration passes its sample, ranks.hpp).
  static Link calibrate(std::vector<Device>& devices, const Schedule& sc,
                        std::vector<HostArray>& host, const Step& step, Index probe_bytes,
                        const Sample& sample = {}, const std::function<void()>& meet = {}) {
    // One probe per device taking part: a box, its buffers, two copy queues, and its own host
    // arrays when sampled (shared: a probe is moved).
    struct Probe {
      const Device* d;
      Box box;
      std::vector<Buffer> bufs;
      typename Ops::Queue in, out;
      std::shared_ptr<std::vector<HostArray>> own;
    };
    auto arrays = [&host](Probe& pr) -> std::vector<HostArray>& { return pr.own ? *pr.own : host; };
    auto make = [&](std::size_t p, const Box& box) {
      Probe pr{&devices[p],
               box,
               {},
               Ops::queue(devices[p]),
               Ops::queue(devices[p]),
               sample ? sample(box) : nullptr};
      for (const Array& a : sc.arrays)
        pr.bufs.push_back(Ops::buffer(devices[p], box, static_cast<std::size_t>(a.element_bytes),
                                      a.name + " (probe)"));
      return pr;
    };
    auto copy = [&](Probe& pr, bool to_device) {
      std::vector<HostArray>& h = arrays(pr);
      for (std::size_t a = 0; a < pr.bufs.size(); ++a)
        Ops::host_copy(to_device ? pr.in.get() : pr.out.get(), *pr.d, pr.bufs[a], pr.box, h[a],
                       pr.box, to_device, nullptr);
    };
    auto wait = [](Probe& pr) {
      Ops::finish(pr.in.get(), *pr.d);
      Ops::finish(pr.out.get(), *pr.d);
    };
    const Device& d = devices[0];
    // The per-command latency, one cell of the first array sent and waited for.
    auto one_cell = [](const Probe& pr) {
      Box cell = pr.box;
      for (std::size_t i = 0; i < 3; ++i) cell.hi[i] = std::min(cell.hi[i], cell.lo[i] + 1);
      return cell;
    };
    auto latency = [&](Probe& pr) {
      const Box cell = one_cell(pr);
      return measure_latency([&] {
        Ops::host_copy(pr.in.get(), d, pr.bufs[0], pr.box, arrays(pr)[0], cell, true, nullptr);
        Ops::finish(pr.in.get(), d);
      });
    };
    Link link;
    Probe pr =
        measure_link<Probe>(sc, devices.size(), probe_bytes, make, copy, wait, latency, link);
    // The host's time to issue an op and each of its copies, as execute() issues them:
    // the waits, the timing events, the copies, the completion event, and the events of ops
    // three back released (execute() keeps a window of them; its timers go in batches).
    {
      const Box cell = one_cell(pr);
      std::deque<Event> done, timers;
      measure_issue(
          [&](int copies) {
            Ops::use(d);
            std::vector<const Event*> after;
            if (!done.empty()) after.push_back(&done.back());
            Ops::wait(pr.in.get(), d, after);
            if constexpr (HasTimer<Ops>::value) timers.push_back(Ops::timer(pr.in.get(), d));
            for (int i = 0; i < copies; ++i)
              Ops::host_copy(pr.in.get(), d, pr.bufs[0], pr.box, arrays(pr)[0], cell, true,
                             nullptr);
            if constexpr (HasTimer<Ops>::value) timers.push_back(Ops::timer(pr.in.get(), d));
            done.push_back(Ops::record(pr.in.get(), d));
            while (done.size() > 3) done.pop_front();
            while (timers.size() > 6) timers.pop_front();
            Ops::flush(pr.in.get(), d);
          },
          [&] {
            Ops::finish(pr.in.get(), d);
            done.clear();
            timers.clear();
          },
          link);
    }
    const Box probe = pr.box;
    std::vector<Buffer>& bufs = pr.bufs;
    rt::Part chunk;
    chunk.owned = chunk.ghost = probe;
    measure_device(
        sc, probe,
        [&] {
          step(d, 0, bufs, chunk, 0, -1);
          Ops::finish(d);
        },
        [&](std::size_t a, const RectCopy& from, const RectCopy& to) {
          Ops::device_copy(pr.in.get(), d, bufs[a], from, bufs[a], to,
                           "probe copy " + sc.arrays[a].name);
        },
        [&] { Ops::finish(pr.in.get(), d); }, link);
    time_issue(devices, sc, arrays(pr), step, link);
    if (meet) {
      // A round's work ends as a pass does: a step, then the probe's first plane of every
      // array stored, so that the meeting packs cells the device has just written, as a
      // boundary packs what the pass's last stores brought (not cells in the CPU's caches).
      Box plane = probe;
      const auto axis = static_cast<std::size_t>(sc.dims - 1);
      plane.hi[axis] = std::min(plane.hi[axis], plane.lo[axis] + 1);
      link.boundary = measure_boundary(
          [&] {
            step(d, 0, bufs, chunk, 0, -1);
            Ops::finish(d);
            for (std::size_t a = 0; a < bufs.size(); ++a)
              Ops::host_copy(pr.out.get(), d, bufs[a], probe, arrays(pr)[a], plane, false, nullptr);
            Ops::finish(pr.out.get(), d);
          },
          meet);
    }
    link.measured = true;
    return as_printed(link);  // the figures the report prints (stepgen plan reads them back)
  }

 private:
  /// The runner's own issue path timed. measure_issue emulates an op's calls; the
  /// runner does more for each (its chunk's boxes, rectangular copies, the generated step's
  /// launches with their arguments): wave2k 37x29x41's host took 100 us a chunk visit where
  /// the emulated figures gave 63 (H100, CUDA). So this runner runs 4 steps (k = 1, 2-4
  /// chunks of a few planes: part 0's first owned ones, away from the grid's edges only as the
  /// part is), a warm-up and five times, and the emulated figures are scaled to the five runs'
  /// median (scale_issue). With the faster of two runs, the same small runs' predictions
  /// moved by up to 1.35x between two calls on the H100. The
  /// cells it stores are put back. Skipped (the emulated figures kept) with <boundary> frames,
  /// arrays without a host copy or too few planes for two chunks in the host arrays (an MPI
  /// rank's calibration has a sample of its probe's planes only).
  static void time_issue(std::vector<Device>& devices, const Schedule& sc,
                         std::vector<HostArray>& host, const Step& step, Link& link) {
    if (sc.has_frame || sc.parts.empty() || !(link.issue_op + link.issue_command > 0)) return;
    for (const HostArray& h : host)
      if (!h.held) return;
    const auto s = static_cast<std::size_t>(sc.dims - 1);
    // Part 0's owned cells whose reach (a step's shrink around them, clipped at the grid) the
    // host arrays hold: all of them in one process; an MPI rank's are a sample of the probe's.
    Box cells = sc.parts[0].owned;
    for (const HostArray& h : host) {
      for (std::size_t d = 0; d < static_cast<std::size_t>(sc.dims); ++d) {
        cells.lo[d] = std::max(cells.lo[d],
                               h.box.lo[d] + (h.box.lo[d] > sc.grid.lo[d] ? sc.shrink_lo[d] : 0));
        cells.hi[d] = std::min(cells.hi[d],
                               h.box.hi[d] - (h.box.hi[d] < sc.grid.hi[d] ? sc.shrink_hi[d] : 0));
      }
    }
    for (std::size_t d = 0; d < static_cast<std::size_t>(sc.dims); ++d)
      if (cells.hi[d] <= cells.lo[d]) return;
    const Index chunk_planes = 2 * std::max<Index>({sc.shrink_lo[s], sc.shrink_hi[s], 1});
    const Index chunks = std::min<Index>(4, cells.extent(s) / chunk_planes);
    if (chunks < 2) return;
    Request r;
    r.grid = sc.grid;
    cells.hi[s] = cells.lo[s] + chunks * chunk_planes;
    r.owned = {cells};
    r.shrink_lo = sc.shrink_lo;
    r.shrink_hi = sc.shrink_hi;
    r.arrays = sc.arrays;
    r.chunks = static_cast<int>(chunks);
    r.region_sharing = sc.region_sharing;
    r.buffers = sc.buffers;
    r.launches = sc.launches;
    r.trapezoid = sc.trapezoid;
    Schedule tiny;
    try {
      tiny = schedule(r);
    } catch (const PlanError&) {
      return;
    }
    // The written arrays' cells there, put back after the runs (loads only read the host).
    std::vector<std::pair<std::size_t, HostArray>> kept;
    for (std::size_t a = 0; a < sc.arrays.size(); ++a)
      if (sc.arrays[a].written) {
        kept.emplace_back(a, HostArray(host[a].name, host[a].element_bytes, cells));
        copy_host_box(host[a], kept.back().second, cells);
      }
    auto put_back = [&] {
      for (const auto& [a, cells_of] : kept) copy_host_box(cells_of, host[a], cells);
    };
    constexpr std::int64_t kSteps = 4;
    std::vector<double> issued;  // a warm-up run, then five: their median
    try {
      for (int run = 0; run < 6; ++run) {
        Runner runner(devices, tiny, host, step, true);
        Stats stats;
        runner.run(kSteps, stats);
        if (run > 0) issued.push_back(stats.issue_s);
      }
    } catch (...) {
      put_back();
      throw;
    }
    put_back();
    std::sort(issued.begin(), issued.end());
    scale_issue(tiny, kSteps, issued[issued.size() / 2], link);
  }

  using Event = typename Ops::Event;
  using Handle = typename Ops::Handle;
  struct PartState {
    typename Ops::Queue in, out;                    ///< copy queues (none without overlap)
    std::vector<std::vector<Buffer>> slots;         ///< [slot][array]
    std::vector<Buffer> bands;                      ///< [array]: the band store
    std::vector<std::vector<HostArray>> snapshots;  ///< [array][foreign box]
    std::vector<typename Ops::Pinned> pinned;       ///< of the snapshots (released first)
    std::map<std::pair<Index, int>, Event> events;  ///< (t, kind) -> its completion
    std::map<Index, std::vector<Event>> reads;      ///< t -> its store's reads (Ops::host_copy)
    /// The timing events around each command since the last finish_all: (kind,
    /// before, after, retune's trial id or -1); read and dropped there (every command is done
    /// then) or, as they complete, by drain().
    std::vector<std::tuple<int, Event, Event, int>> timers;
  };

  bool runs_here(std::size_t p) const {
    return share_.part < 0 || p == static_cast<std::size_t>(share_.part);
  }
  /// Where part p's device and state are (p runs here).
  std::size_t local(std::size_t p) const { return share_.part < 0 ? p : 0; }
  const Device& device(std::size_t p) const { return devices_[local(p)]; }

  Handle queue(std::size_t p, Op::Kind kind) const {
    const PartState& st = parts_[local(p)];
    if (!overlap_ || kind == Op::Kind::kCompute) return Ops::compute_queue(device(p));
    return kind == Op::Kind::kLoad ? st.in.get() : st.out.get();
  }

  void execute(const Op& op, Stats& stats) {
    using K = Op::Kind;
    if (op.kind == K::kBarrier) {
      finish_all();
      if (share_.exchange) share_.exchange();
      snapshot();
      return;
    }
    const auto p = static_cast<std::size_t>(op.part);
    const Device& d = device(p);
    PartState& st = parts_[local(p)];
    std::vector<Buffer>& bufs = st.slots[static_cast<std::size_t>(op.slot)];
    const Handle q = queue(p, op.kind);
    Ops::use(d);
    std::vector<const Event*> waits, reads;
    for (const auto& w : op.waits) {
      auto it = st.events.find({w.second, static_cast<int>(w.first)});
      if (it == st.events.end()) throw RunError("out-of-core: internal error: missing event");
      waits.push_back(&it->second);
      if (op.kind == K::kLoad && w.first == K::kStore)
        for (const Event& r : st.reads[w.second]) reads.push_back(&r);
    }
    // A load reads host cells that earlier stores wrote: where a backend's reads have events
    // of their own (OpenCL), the host waits for those stores' reads (complete: the cells are in
    // the host array) before it enqueues the load. The queue's wait alone is what OpenCL
    // promises to order them, but on NVIDIA's OpenCL, with small copies (1D chunks) and mostly
    // pageable host memory, loads saw old values now and then on the H100.
    if (!reads.empty()) Ops::host_wait(d, reads);
    Ops::wait(q, d, waits);
    // A timing event once the waits are over, another after the command's work.
    [[maybe_unused]] Event before;
    [[maybe_unused]] int trial = -1;
    if constexpr (HasTimer<Ops>::value) {
      // Retuning: the trials done so far reach the tuner, which sets the shapes this compute
      // command launches with (a trial of a candidate, or the fastest known).
      if (op.kind == K::kCompute && share_.retune && share_.retune->active()) {
        drain(st, d);
        trial = share_.retune->before(sc_, op, share_.part < 0 ? 0 : share_.part);
      }
      before = Ops::timer(q, d);
    }
    // Its copies and kernels, laid out by ooc::execute, on this op's queue.
    std::vector<Buffer>& next = st.slots[static_cast<std::size_t>((op.t + 1) % sc_.buffers)];
    ooc::execute(
        sc_, op, bufs, next, st.bands, host_, st.snapshots, stats,
        [&](const Buffer& buf, const Box& load, const HostArray& h, const Box& sub,
            bool to_device) {
          Ops::host_copy(q, d, buf, load, h, sub, to_device, to_device ? nullptr : &st.reads[op.t]);
        },
        [&](Buffer& from, const RectCopy& src, Buffer& to, const RectCopy& dst,
            const std::string& what) { Ops::device_copy(q, d, from, src, to, dst, what); },
        [&](const rt::Part& chunk, std::int64_t step, std::int64_t remaining) {
          step_(d, p, bufs, chunk, step, remaining);
        });
    if constexpr (HasTimer<Ops>::value) {  // the kernel/copy split: events around each command
      st.timers.emplace_back(static_cast<int>(op.kind), std::move(before), Ops::timer(q, d), trial);
      // A run of one part has no pass barriers: the commands already done are read as it goes
      // (Ops::elapsed is negative for one not done yet; nothing waits).
      if (st.timers.size() > 256) drain(st, d);
    }
    st.events[{op.t, static_cast<int>(op.kind)}] = Ops::record(q, d);
    // Events far behind can no longer be waited for.
    const Index keep = sc_.chunks + sc_.buffers + 2;
    while (!st.events.empty() && st.events.begin()->first.first + keep < op.t)
      st.events.erase(st.events.begin());
    while (!st.reads.empty() && st.reads.begin()->first + keep < op.t)
      st.reads.erase(st.reads.begin());
    // Start the queue's work now, not at the next blocking call.
    Ops::flush(q, d);
  }

  void finish_all() {
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      Ops::finish(devices_[i]);
      if (overlap_) {
        Ops::finish(parts_[i].in.get(), devices_[i]);
        Ops::finish(parts_[i].out.get(), devices_[i]);
      }
    }
    // Every command is done: its time read from its events (no wait on the way).
    if constexpr (HasTimer<Ops>::value)
      for (std::size_t i = 0; i < parts_.size(); ++i) {
        for (const auto& [kind, before, after, trial] : parts_[i].timers) {
          const double s = std::max(Ops::elapsed(devices_[i], before, after), 0.0);
          timed_[kind] += s;
          if (trial >= 0 && share_.retune) share_.retune->measured(trial, s);
        }
        parts_[i].timers.clear();
      }
  }

  /// The times of the commands done so far (a prefix of `st.timers`: Ops::elapsed is
  /// negative for one not done yet; nothing waits), summed and, for retune's trials, passed on.
  void drain(PartState& st, const Device& d) {
    std::size_t n = 0;
    for (; n < st.timers.size(); ++n) {
      const auto& [kind, b, a, trial] = st.timers[n];
      const double s = Ops::elapsed(d, b, a);
      if (s < 0) break;
      timed_[kind] += s;
      if (trial >= 0 && share_.retune) share_.retune->measured(trial, s);
    }
    st.timers.erase(st.timers.begin(), st.timers.begin() + static_cast<std::ptrdiff_t>(n));
  }

  /// Copies the cells each part reads from the others out of the host arrays (all parts have
  /// stored their results): the exchange between parts, at pass boundaries.
  void snapshot() {
    for (PartState& st : parts_)
      for (std::size_t a = 0; a < st.snapshots.size(); ++a)
        for (HostArray& f : st.snapshots[a]) {
          // <boundary> frames: an array no kernel writes keeps its first snapshot.
          if (snapped_ && !sc_.arrays[a].written) continue;
          if (sc_.has_frame && share_.fill_frame) {  // an MPI rank: the frame from every rank's
            copy_host_box(host_[a], f, intersect(f.box, sc_.grid));  // edge slabs
            for (const Box& b : past_the_edge({f.box}, sc_.grid)) {
              HostArray cells(f.name, f.element_bytes, b);
              share_.fill_frame(a, cells);
              copy_host_box(cells, f, b);
            }
            continue;
          }
          refresh_snapshot(host_[a], f, sc_.grid, sc_.has_frame ? share_.frames : FrameRules{},
                           static_cast<int>(a));
        }
    snapped_ = true;
  }

  std::vector<Device>& devices_;
  const Schedule& sc_;
  std::vector<HostArray>& host_;
  Step step_;
  bool overlap_;
  Share share_;
  std::vector<PartState> parts_;  ///< of the parts run here, in part order
  bool snapped_ = false;          ///< the snapshots were taken once (<boundary> frames)
  double timed_[3] = {0, 0, 0};   ///< seconds of loads, computes, stores since run()
};

}  // namespace stepgen::rt::ooc

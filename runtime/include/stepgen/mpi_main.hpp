#pragma once
/// \file
/// The main program of a generated MPI program, written once for both backends: every rank
/// runs it with the same options; rank r drives the device of its node numbered by its place
/// among the node's ranks and computes part r of the split. Options and the split (errors
/// reported once, by rank 0), this rank's device, the kernel probe, the partition with the rank,
/// node and device of every part, this rank's arrays (initial values of its box; --load by
/// MPI-IO), its run in core (the engine over its own part, halos by MPI messages) or out of core
/// (the runner with the cells other ranks own refreshed at every pass boundary), the report of
/// the slowest rank, --verify (rank 0 reruns the whole grid on its device), --save by MPI-IO.
///
/// The generated file fills the same rt::Program as the one-process program (main.hpp) and
/// calls rt::run_mpi_main<Backend, Rank> with its time loop over the rank's engine. What
/// differs between backends comes from `M`, the backend's rank (cl::MpiRank in
/// engine_mpi_opencl.hpp, cuda::MpiRank in engine_mpi_cuda.hpp): the rank State of the engine,
/// how a rank picks its device and names it, the help and report lines, and whether (and how)
/// it runs out of core (`M::kOutOfCore`).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "stepgen/engine.hpp"
#include "stepgen/io/checkpoint_mpi.hpp"
#include "stepgen/main.hpp"
#include "stepgen/mpi.hpp"
#include "stepgen/mpi_halo.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/program.hpp"
#include "stepgen/traces_mpi.hpp"
#include "stepgen/tune.hpp"

namespace stepgen::rt {

/// One rank's in-core run: the engine over the rank's own part with the backend's rank State.
template <class B, class M>
using RankRun = InCore<B, typename M::State>;

/// The split over `ranks` ranks (one part each) with the options' weights and strategy and
/// the ghost widths `ghost_lo`, `ghost_hi` when given; an error when the grid gives fewer parts.
template <class B>
Partition rank_partition(const Program<B>& p, int ranks, const Options& opt,
                         const PartitionRequest* widened = nullptr) {
  PartitionRequest request = widened ? *widened : p.partition_request(ranks, opt.weights);
  if (!widened && !opt.strategy.empty()) request.strategy = parse_strategy(opt.strategy);
  Partition partition = stepgen::rt::partition(request);
  if (partition.parts.size() != static_cast<std::size_t>(ranks))
    throw RunError(
        std::string(widened ? "with the ghost widths the kernels' rims need (" +
                                  probe_sides(p.problem->dims, request.ghost_lo, request.ghost_hi) +
                                  "), the grid"
                            : "the grid") +
        " can be split into only " + std::to_string(partition.parts.size()) + " parts (" +
        partition.rationale + "), one per rank: run with at most that many ranks");
  return partition;
}

/// Rank 0 prints the split with the rank, node and device of every part (`device`: this rank's
/// device as M names it).
inline void print_rank_partition(const mpi::Session& session, const std::string& device,
                                 const char* unit, const Partition& partition) {
  std::vector<std::string> where =
      mpi::gather_strings(MPI_COMM_WORLD, "rank " + std::to_string(session.rank()) + " on " +
                                              session.host() + ", " + device);
  if (session.rank() != 0) return;
  std::printf("%zu rank(s) on %d node(s), one %s each, grid %dx%dx%d (%s)\n",
              partition.parts.size(), session.nodes(), unit, partition.grid[0], partition.grid[1],
              partition.grid[2], partition.rationale.c_str());
  for (const Part& part : partition.parts)
    std::printf("  part %d on %s: owned %s, buffer %s\n", part.id,
                where[static_cast<std::size_t>(part.id)].c_str(), part.owned.str().c_str(),
                part.ghost.str().c_str());
}

/// This rank's arrays over `box` (its part's ghost box, or more out of core): the initial
/// values, then --load's files read by MPI-IO (collective), copied to the arrays initialised
/// as their copy() (copy_loaded). `alloc` gives their memory.
/// `held`: which arrays get a host copy (devinit: host_copies; empty: all).
template <class B>
std::vector<HostArray> load_rank_arrays(const Program<B>& p, const Box& box, const Options& opt,
                                        const HostAllocator& alloc = {},
                                        const std::vector<bool>& held = {}) {
  std::vector<HostArray> host = p.make_host_arrays(box, alloc, held);
  for (const auto& [name, path] : opt.loads)
    for (HostArray& a : host)
      if (a.name == name) mpi::read_array(MPI_COMM_WORLD, a, p.grid, path);
  copy_loaded(p.problem->arrays, p.problem->array_count, host, opt.loads);  // copy(X) of a loaded X
  return host;
}

/// Runs this rank's part out of core: every rank decides alike and chooses the same schedule
/// (the slowest rank's link goes into the model), so the passes end together, with the cells
/// each part reads from the others sent by MPI at every pass boundary (rt::ooc::foreign_plan).
/// Fills `host` with this rank's arrays over its reach; `loaded(host)` sees their initial values
/// (collective).
/// oocauto: with `compare` (`--out-of-core auto` given, on data that fits), the in-core run is
/// predicted from the same figures once the schedule is chosen, and when it is not slower the
/// rank returns nothing before any host array is made, the report holding only the choice's
/// line: every rank has the same figures, so every rank returns alike, and the caller runs in
/// core. A plan that cannot be made then means in core too.
/// The probe's reads again on the values the run starts from (probe_data.hpp), each rank on
/// its own cells: an error on any rank stops every rank with the lowest rank's message.
template <class B>
void probe_initial_data_on_ranks(const Program<B>& p, const typename B::Device& d,
                                 const std::vector<HostArray>& host, const Probed& probed,
                                 const Options& opt, std::int64_t step) {
  if (!opt.probe) return;
  std::string mine;
  try {
    mine = probe_initial_data(*p.problem, p.grid, d, p.kernels, p.kernel_count, host, probed, step);
  } catch (const std::exception& e) {
    mine = e.what();
  }
  if (const std::string first = mpi::first_error(MPI_COMM_WORLD, mine); !first.empty())
    throw mpi::UniformError(first);
}

template <class B, class M, class Loaded>
std::optional<RunStats> run_rank_out_of_core(const mpi::Session& session, const Program<B>& p,
                                             std::vector<typename B::Device>& devices,
                                             const Partition& partition, const Options& opt,
                                             const ooc::Options& ooc, const Probed& probed,
                                             std::vector<HostArray>& host, ooc::Stats& report,
                                             Loaded&& loaded, Monitor* monitor, ProgramIo& io,
                                             bool compare = false) {
  const Problem<B>& problem = *p.problem;
  const int rank = session.rank();
  const Part& part = partition.parts[static_cast<std::size_t>(rank)];
  ooc::Request request = ooc::request(p.grid, problem.dims, partition, p.ghost_lo, p.ghost_hi,
                                      problem.arrays, problem.array_count, ooc, probed, opt.quiet);
  ooc_frames(problem, request);  // <boundary> frames (oocbound, main.hpp)
  request.launches =
      problem.launches ? static_cast<int>(problem.launches->size()) : 1;  // the model's latency
  request.host_per_part = true;  // the model: each rank's thread issues its own part's commands
  request.trapezoid = p.ooc_trapezoid && ooc.trapezoid &&
                      B::ooc_trapezoid_ok(probed, *problem.launches, problem.dims, opt.quiet);
  const typename B::Kernels kernels =
      problem.build_kernels ? problem.build_kernels(devices[0]) : typename B::Kernels{};
  ooc_pass_rules(p, request);
  ChunkRule rule{request.shrink_lo, request.shrink_hi, request.trapezoid, &probed, problem.dims};
  rule.boundaries = problem.boundaries;  // <inject>'s images in periodic frames
  rule.boundary_count = problem.boundary_count;
  rule.grid = p.grid;
  rule.arrays = problem.arrays;  // mirror/copy/value frames refilled on the chunks (oocphys)
  rule.periodic_refilled = request.periodic_refilled;
  // io: the runner counts steps from 0; a run restarted, or cut into segments at the steps
  // where an output or checkpoint is due, gives each segment's first step here.
  std::int64_t offset = 0;
  const typename B::OocStep inner = chunk_steps<B>(
      rule, p.time_step, [k = &kernels](std::size_t) -> const typename B::Kernels& { return *k; });
  const typename B::OocStep step = [&inner, &offset](const typename B::Device& d, std::size_t part,
                                                     std::vector<typename B::Buffer>& buf,
                                                     const Part& chunk, std::int64_t s,
                                                     std::int64_t remaining) {
    inner(d, part, buf, chunk, s + offset, remaining);
  };
  // The model needs the link and the kernels' speed: each rank measures them on a probe of
  // its part, and the slowest figures go into the model, every figure the same on every rank
  // (mpi::slowest_link), so that every rank chooses the same schedule (and the same schedules
  // fail on every rank); mpi::check_same_schedule makes sure of it before any pass runs.
  auto calibrate = [&](ooc::Request probe, Index bytes) {
    if (compare) bytes = std::min(bytes, ooc::kAutoProbeBytes);  // oocauto: a smaller probe
    probe.owned = {part.owned};
    // A part too thin for the probe's chunk on some rank: the same PlanError on every rank,
    // before the calibration's collectives (one rank alone would leave the others waiting).
    ooc::Schedule probe_schedule;
    std::string failed;
    try {
      probe_schedule = ooc::schedule(probe);
    } catch (const PlanError& e) {
      failed = e.what();
    }
    if (const std::string first = mpi::first_error(MPI_COMM_WORLD, failed); !first.empty())
      throw PlanError(first);
    // The sample is held as the run's arrays will be (page-locked unless --pinned off, the
    // backend's out-of-core allocator and pinning), so that the link is measured at the speed
    // the chunks will move at: pageable memory measured 7-9 GB/s where the run moved 60.
    std::vector<HostArray> sample =
        p.make_host_arrays(B::OocRunner::probe_box(probe_schedule, bytes),
                           B::host_allocator(devices, ooc.pinned, true), {});
    ooc::Stats unused;
    const auto sample_pinned = B::ooc_pin(sample, ooc, unused);
    (void)sample_pinned;
    // The pass boundary's meeting (Link::boundary), as the run's: every written array's first
    // plane of the sample sent to and received from the neighbouring ranks (rank - 1 and
    // rank + 1) through the exchange the run uses, packed and unpacked by copy_host_box from
    // and to the sample (held as the run's arrays are); in lockstep rounds, a step of the probe
    // before each (measure_boundary). The model charges it at each barrier, with the messages.
    const int ranks = session.size();
    mpi::HaloExchange meeting(MPI_COMM_WORLD, rank, problem.array_count);
    std::vector<int> written_ids;
    double meeting_bytes = 0, meeting_messages = 0;  // this rank's, sent and received
    const int neighbours = (rank > 0 ? 1 : 0) + (rank + 1 < ranks ? 1 : 0);
    // One shape on every rank (a message's two ends must agree on its size): the least extents
    // over the ranks of a plane of the sample (parts cut along x differ there; a 2x2 split with
    // --weights failed in MPI_Waitall when each rank sent its own plane).
    long long extent[3] = {1, 1, 1}, least[3] = {1, 1, 1};
    const Box& probe_plane = sample.front().box;
    for (int d = 0; d + 1 < problem.dims; ++d) extent[d] = probe_plane.extent(d);
    mpi::check(MPI_Allreduce(extent, least, 3, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD),
               "MPI_Allreduce(the meeting's plane)");
    for (int id = 0; id < problem.array_count; ++id) {
      if (!problem.arrays[id].written) continue;
      Box plane = sample[static_cast<std::size_t>(id)].box;
      for (std::size_t d = 0; d < 3; ++d)
        plane.hi[d] = std::min(plane.hi[d], plane.lo[d] + static_cast<Index>(least[d]));
      std::vector<Transfer> plan;
      for (int r = 0; r + 1 < ranks; ++r) {
        plan.push_back(Transfer{r, r + 1, {plane}});
        plan.push_back(Transfer{r + 1, r, {plane}});
      }
      meeting.add(id, problem.arrays[id].name, problem.arrays[id].element_bytes, plan);
      written_ids.push_back(id);
      meeting_bytes += 2.0 * neighbours * static_cast<double>(plane.volume()) *
                       static_cast<double>(problem.arrays[id].element_bytes);
      meeting_messages += 2.0 * neighbours;
    }
    auto meet = [&] {
      meeting.start(written_ids, [&](int id, HostArray& box) {
        ooc::copy_host_box(sample[static_cast<std::size_t>(id)], box, box.box);
      });
      meeting.send(written_ids);
      meeting.finish(written_ids, [&](int id, const HostArray& box) {
        ooc::copy_host_box(box, sample[static_cast<std::size_t>(id)], box.box);
      });
    };
    ooc::Link link = B::OocRunner::calibrate(devices, probe_schedule, sample, step, bytes, {},
                                             written_ids.empty() ? std::function<void()>{} : meet);
    std::tie(link.message, link.message_latency) = mpi::measure_messages(MPI_COMM_WORLD);
    // The meeting's messages as the model charges messages (message_seconds) are not its.
    if (link.message > 0)
      link.boundary = std::max(0.0, link.boundary - meeting_bytes / link.message -
                                        meeting_messages * link.message_latency);
    // The figures the report prints, on every rank alike (`stepgen plan --calibration` given
    // them makes the run's choice).
    return ooc::as_printed(mpi::slowest_link(MPI_COMM_WORLD, link));
  };
  // oocauto: in core after all: the report holds the budget and the choice's line only.
  auto in_core = [&report](const std::string& line) {
    ooc::Stats stays;
    stays.budget = report.budget;
    stays.choice = line;
    report = stays;
    return std::optional<RunStats>{};
  };
  ooc::Schedule schedule;
  if (!compare) {
    schedule = ooc::plan<mpi::UniformError>(request, ooc, opt.steps, report, calibrate);
  } else {
    // oocauto: the same plan; no plan (a uniform PlanError: the same figures on every rank)
    // means in core.
    try {
      schedule = ooc::plan<PlanError>(request, ooc, opt.steps, report, calibrate);
    } catch (const PlanError& e) {
      return in_core(ooc::in_core_because(std::string("no out-of-core plan: ") + e.what()).line);
    }
  }
  mpi::check_same_schedule(MPI_COMM_WORLD, schedule);
  if (compare) {
    // What the rank's in-core run would move: its host copies up, the gathered arrays down.
    const ooc::AutoChoice c =
        ooc_auto_compare(problem, partition, request.arrays, schedule, report.link, opt.steps,
                         ooc.overlap, host_copies(p, opt, io), gathered_arrays(p, opt));
    if (!c.out_of_core) return in_core(c.line);
    report.choice = c.line;
    report.reason = c.reason;
  }

  // This rank's arrays over its reach: the cells other ranks own there are refreshed by
  // messages at every pass boundary (arrays no kernel writes keep their initial values).
  // Direct mapping: page-locked, the chunks are copied straight from and to them.
  const ooc::Part& mine = schedule.parts[static_cast<std::size_t>(rank)];
  report.pinned = ooc.pinned;
  const HostAllocator alloc = B::host_allocator(devices, ooc.pinned, true);
  host = load_rank_arrays(p,
                          schedule.has_frame  // <boundary> frames: the host arrays stop at the grid
                              ? intersect(bounding(part.ghost, mine.reach), p.grid)
                              : bounding(part.ghost, mine.reach),
                          opt, alloc);
  io.restart(host);  // io: the checkpoint's values over this rank's reach, when restarting
  loaded(host);
  probe_initial_data_on_ranks(p, devices[0], host, probed, opt, io.first_step());
  io.start(host);
  const auto pinned = B::ooc_pin(host, ooc, report);  // CUDA: page-locked where they are
  mpi::HaloExchange foreign(MPI_COMM_WORLD, rank, problem.array_count);
  const std::vector<Transfer> plan = ooc::foreign_plan(schedule);
  std::vector<int> written;
  for (int id = 0; id < problem.array_count; ++id)
    if (problem.arrays[id].written) {
      foreign.add(id, problem.arrays[id].name, problem.arrays[id].element_bytes, plan);
      written.push_back(id);
    }
  RunStats stats;
  Stopwatch exchange_timer;
  double message_wait_s = 0;         // the report's waiting for the messages (of exchange_timer's)
  Stopwatch debug_pack, debug_send;  // bench (STEPGEN_BOUNDARY_DEBUG)
  double debug_unpack_s = 0;
  auto exchange = [&] {
    exchange_timer.start();
    debug_pack.start();
    foreign.start(written, [&](int id, HostArray& box) {
      ooc::copy_host_box(host[static_cast<std::size_t>(id)], box, box.box);
    });
    debug_pack.stop();
    debug_send.start();
    stats.exchange_bytes += foreign.send(written);
    debug_send.stop();
    Stopwatch waited, unpacking;
    waited.start();
    foreign.finish(written, [&](int id, const HostArray& box) {
      unpacking.start();
      ooc::copy_host_box(box, host[static_cast<std::size_t>(id)], box.box);
      unpacking.stop();
    });
    message_wait_s += waited.stop() - unpacking.total();
    debug_unpack_s += unpacking.total();
    exchange_timer.stop();
  };
  // <boundary> frames (oocbound): the cells the frames are composed from, the grid's edge
  // slabs as wide as a pass reads past the edge (k * shrink), each rank's owned ones gathered
  // to every rank at every pass boundary (after the exchange) and before the run.
  std::unique_ptr<FrameSources> frames;
  if (schedule.has_frame) {
    Partition widths = partition;
    for (std::size_t d = 0; d < 3; ++d) {
      widths.ghost_lo[d] = schedule.shrink_lo[d] * schedule.steps_per_pass;
      widths.ghost_hi[d] = schedule.shrink_hi[d] * schedule.steps_per_pass;
    }
    std::vector<int> ids;
    std::vector<std::size_t> element;
    for (int id = 0; id < problem.array_count; ++id) {
      ids.push_back(id);
      element.push_back(problem.arrays[id].element_bytes);
    }
    frames = std::make_unique<FrameSources>(widths, problem.boundaries, problem.boundary_count, ids,
                                            element);
  }
  auto gather_frames = [&] {
    if (!frames) return;
    exchange_timer.start();
    for (const FrameSources::Piece& piece : frames->pieces) {
      if (piece.part != rank) continue;
      const HostArray& from = host[static_cast<std::size_t>(piece.array)];
      HostArray cells(from.name, from.element_bytes, piece.box);
      ooc::copy_host_box(from, cells, piece.box);
      std::copy(cells.bytes.data(), cells.bytes.data() + cells.bytes.size(),
                frames->bytes.begin() + static_cast<std::ptrdiff_t>(piece.offset));
    }
    std::vector<int> counts, displs;
    std::size_t at = 0;
    for (std::size_t n : frames->part_bytes) {
      if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw RunError("out-of-core: a rank's boundary frame sources exceed 2 GiB");
      counts.push_back(static_cast<int>(n));
      displs.push_back(static_cast<int>(at));
      at += n;
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, frames->bytes.data(), counts.data(),
                   displs.data(), MPI_BYTE, MPI_COMM_WORLD);
    stats.exchange_bytes += at;
    exchange_timer.stop();
  };
  // The one runner (ooc/runner.hpp), this rank's part only, `exchange` at every pass boundary.
  ooc::Share share;
  share.part = rank;
  share.exchange = [&] {
    exchange();
    gather_frames();
  };
  if (frames)
    share.fill_frame = [&](std::size_t a, HostArray& cells) {
      std::memset(cells.bytes.data(), 0, cells.bytes.size());
      frames->fill(static_cast<int>(a), cells.box, cells.bytes.data());
    };
  attach_monitor<B>(rule, share, monitor, p.reduce_boxes, &offset);  // after the calibration's
  // retune: the <local size="auto"/> kernels timed again on this rank's chunks (each rank
  // keeps its fastest: the same bits whatever runs; rank 0's lines in the report).
  ooc::Retuner retune = ooc.retune != ooc::Options::Retune::kOff
                            ? chunk_retuner(p.kernels, p.tuned, p.tuned_launches, problem.dims)
                            : ooc::Retuner{};
  retune.start(schedule.chunks, schedule.steps_per_pass, opt.steps - io.first_step(),
               ooc.retune == ooc::Options::Retune::kAlways);
  share.retune = &retune;
  if (monitor) monitor->start();
  typename B::OocRunner runner(devices, schedule, host, step, ooc.overlap, share, alloc);
  // io: the run in segments ending where an output or checkpoint is due (pass boundaries: the
  // host arrays then hold the rank's owned cells), each written by the ranks together.
  // `until` (the monitor's ends of passes) stops the run, and the segments, at a pass's end.
  double measured = 0;
  Index passes = 0;
  std::int64_t ran = 0;
  for (std::int64_t done = io.first_step(); done < opt.steps;) {
    const std::int64_t until = io.next_due(done);
    // A run ends without the pass-boundary exchange: the next segment's foreign cells first.
    if (done > io.first_step()) exchange();
    gather_frames();  // <boundary> frames: the edge slabs as they are now (nothing without)
    offset = done;
    runner.run(until - done, report);
    measured += report.measured_s;
    passes += report.passes;
    ran += report.steps;
    // `until` held at a pass's end: before the segment's last (then it ran fewer steps), or at
    // its last, where an output or checkpoint is due (a user test: that stop was lost, and
    // the run went on to the next segment).
    const bool stopped = report.steps < until - done || (monitor && monitor->stopped());
    done += report.steps;
    // The outputs and the checkpoint due after the last step run, as in core, stopped or not.
    if (io.due(done)) io.end_of_step(done, host);
    if (stopped) break;
  }
  // io: an `until` stopped the run at a pass's end (the same step on every rank): the outputs
  // with last="true" get that state, written by the ranks together.
  io.write_at_stop(
      monitor && monitor->stopped(), io.first_step() + ran,
      [&host](const std::vector<bool>&) -> const std::vector<HostArray>& { return host; });
  report.measured_s = measured;
  report.passes = passes;
  report.steps = ran;
  retune.finish();
  report.retune = retune.report();
  (void)pinned;
  // As one process's: the time loop, the link's bytes, the kernels' time from the events
  // around each compute command (the report's `kernels:`), and the messages' time.
  const std::size_t exchanged = stats.exchange_bytes;
  stats = ooc::run_stats(report, report.steps);
  stats.exchange_s = exchange_timer.total();
  stats.exchange_bytes = exchanged;
  stats.message_wait_s = message_wait_s;
  if (std::getenv("STEPGEN_BOUNDARY_DEBUG"))
    std::fprintf(stderr,
                 "boundary exchange (rank %d): %.1f us in all, pack %.1f, send %.1f, waits %.1f, "
                 "unpack %.1f (sums)\n",
                 rank, exchange_timer.total() * 1e6, debug_pack.total() * 1e6,
                 debug_send.total() * 1e6, message_wait_s * 1e6, debug_unpack_s * 1e6);
  return stats;
}

/// Runs this rank's part in core (the engine over its own part, `loop` its time loop), or out
/// of core when the options ask for it or the largest part's arrays do not fit the smallest
/// budget over the ranks (M::kOutOfCore: the backend's rank can). Fills `host` with this
/// rank's arrays: its part's ghost box in core, its reach out of core; `loaded(host)` sees
/// their initial values (collective).
template <class B, class M, class Loaded>
RunStats run_rank(const mpi::Session& session, M& rank, const Program<B>& p,
                  void (*loop)(RankRun<B, M>&, std::int64_t),
                  std::vector<typename B::Device>& devices, const Partition& partition,
                  const Options& opt, const ooc::Options& ooc, const Probed& probed,
                  std::vector<HostArray>& host, ooc::Stats& report, Loaded&& loaded,
                  Monitor* monitor, ProgramIo& io) {
  const Problem<B>& problem = *p.problem;
  const Part& part = partition.parts[static_cast<std::size_t>(session.rank())];
  if constexpr (M::kOutOfCore) {
    report.budget = table_budget(
        mpi::min_over_ranks(MPI_COMM_WORLD, ooc.device_memory > 0 ? ooc.device_memory
                                                                  : B::auto_device_memory(devices)),
        problem);
    Index in_core = 0;
    for (const Part& q : partition.parts) {
      Index bytes = 0;
      for (int id = 0; id < problem.array_count; ++id)
        bytes += q.ghost.volume() * static_cast<Index>(problem.arrays[id].element_bytes);
      in_core = std::max(in_core, bytes);
    }
    const bool fits = in_core <= report.budget;
    if (!(ooc.mode == ooc::Options::Mode::kOff ||
          (ooc.mode == ooc::Options::Mode::kAuto && fits))) {
      report.on = true;
      report.reason = fits ? "asked for with --out-of-core on"
                           : "the largest part needs " + human_bytes(static_cast<double>(in_core)) +
                                 ", the smallest budget per device over the ranks is " +
                                 human_bytes(static_cast<double>(report.budget));
      return *run_rank_out_of_core<B, M>(session, p, devices, partition, opt, ooc, probed, host,
                                         report, loaded, monitor, io);
    }
    // oocauto: `--out-of-core auto` given, on data that fits: the faster (predicted) of in
    // core and the best out-of-core plan, the same choice on every rank (mpi::slowest_link).
    if (ooc.mode == ooc::Options::Mode::kAuto && ooc.compare && opt.steps > 0) {
      if (const std::string why = ooc_auto_not_compared(p); !why.empty()) {
        report.choice = ooc::in_core_because(why).line;
      } else {
        report.on = true;
        std::optional<RunStats> out =
            run_rank_out_of_core<B, M>(session, p, devices, partition, opt, ooc, probed, host,
                                       report, loaded, monitor, io, true);
        if (out) return *out;  // out of core, predicted faster
      }
    }
  }
  // The host arrays stop at the grid's edge: a boundary frame is filled on the device.
  // devinit: only the arrays that need one get a host copy (one part per rank: no staging).
  // Page-locked unless --pinned off, as in one process (issue 26): the uploads and downloads
  // run at the link's speed; where the system refuses, pageable, and the report says so.
  HostMemory memory;
  host = load_rank_arrays(p, intersect(part.ghost, p.grid), opt,
                          pageable_fallback(B::host_allocator(devices, ooc.pinned, false), memory),
                          host_copies(p, opt, io));
  // The link for the report, as one process measures it (in_core_link: this rank's device
  // and part; not under --quiet); mpi::combine sums the ranks' figures.
  LinkSpeed link;
  if (!opt.quiet) link = in_core_link<B>(problem, devices, {part});
  io.restart(host);  // io: the checkpoint's values over this rank's box, when restarting
  loaded(host);
  probe_initial_data_on_ranks(p, devices[0], host, probed, opt, io.first_step());
  InCore<B, typename M::State> run(problem, devices, partition, host, probed, {session.rank(), 1},
                                   rank.config(MPI_COMM_WORLD));
  // The step-0 outputs (and the series' files, which replace a previous run's) once the
  // devices hold their buffers: a run refused before is refused before writing anything.
  io.start(host);
  if (!opt.quiet && session.rank() == 0) run.print_overlap();
  run.set_monitor(monitor, p.reduce_boxes);
  run.set_gathered(gathered_arrays(p, opt));  // hostmem: what is read after the run
  // io: after the steps where an output or checkpoint is due, the rank's owned boxes of the
  // arrays it needs copied into its host arrays, then written by all ranks together.
  run.set_steps(io.first_step(), [&io](RankRun<B, M>& r, std::int64_t step) {
    if (!io.due(step + 1)) return;
    r.fetch(io.wanted(step + 1));
    io.end_of_step(step + 1, r.host());
  });
  RunStats stats = run.run(opt.steps, loop);
  // io: an `until` stopped the run (the same step on every rank): the outputs with
  // last="true" get that state, written by the ranks together.
  io.write_at_stop(monitor && monitor->stopped(), run.first_step() + stats.steps,
                   [&run](const std::vector<bool>& want) -> const std::vector<HostArray>& {
                     run.fetch(want);
                     return run.host();
                   });
  stats.host_memory = memory.text();
  stats.link_h2d = link.h2d;
  stats.link_d2h = link.d2h;
  return stats;
}

/// The MPI program: every rank runs this with the same options. Returns the exit status (1:
/// --verify found a difference); errors are thrown (mpi::Session::run reports them).
template <class B, class M>
int run_mpi_program(mpi::Session& session, int argc, char** argv, Program<B> p,
                    void (*loop)(RankRun<B, M>&, std::int64_t)) {
  const Problem<B>& problem = *p.problem;
  const std::string backend = std::string(p.info.backend) + ", MPI";
  p.info.backend = backend.c_str();
  for (int id = 0; id < problem.array_count; ++id)
    p.info.array_bytes.push_back(static_cast<std::size_t>(p.grid.volume()) *
                                 problem.arrays[id].element_bytes);
  const int ranks = session.size();
  session.check_same_arguments(argc, argv);
  Options opt;
  ooc::Options ooc = p.ooc;
  IoOptions io_opt;
  Partition partition;
  try {  // the options and the split are the same on every rank: rank 0 alone reports their errors
    M::take_ooc_options(argc, argv, ooc);
    no_band_sharing_with_records(p.records, ooc);
    take_io_options(argc, argv, io_opt);  // io
    opt = parse_options(argc, argv, p.info);
    if (opt.help) {
      if (session.rank() == 0) {
        print_usage(p.info, stdout);
        if (M::kOutOfCore) ooc::print_usage(stdout);
        print_io_usage(p.io, stdout);
        M::print_usage_note(stdout);
      }
      return 0;
    }
    if (opt.parts > 0)
      throw UsageError("--parts " + std::to_string(opt.parts) + ": an MPI rank runs one part on " +
                       "one device; several parts per device are for one-process programs " +
                       "(generate without --distribution mpi)");
    if (opt.weights.empty()) opt.weights = p.weights;
    if (!opt.weights.empty() && opt.weights.size() != static_cast<std::size_t>(ranks))
      throw RunError("--weights gives " + std::to_string(opt.weights.size()) + " weights for " +
                     std::to_string(ranks) + " ranks (one per rank)");
    partition = rank_partition(p, ranks, opt);
    check_saves(opt.saves, p.problem->arrays, p.problem->array_count);
    // Rank 0, before the devices and the run (the trace files and the others once the
    // restart's step is known, below).
    mpi::rank0_check(MPI_COMM_WORLD, [&] { check_files(opt, p.info); });
    check_inject_values(p.injects, opt.steps);  // every rank: the same verdict
  } catch (const UsageError&) {
    throw;  // a bad command line: rank 0 reports it, every rank exits with status 2
  } catch (const std::exception& e) {
    throw mpi::UniformError(e.what());
  }

  // This node's devices, in order; this rank takes the one at its place among the node's ranks.
  M rank(session, opt);
  std::vector<typename B::Device> devices = rank.take_devices();
  // The kernel probe, on every rank's device (the same kernels: the same findings everywhere):
  // halos checked, rims measured; ghost zones widened where rims are wider than the halos.
  Probed probed;
  if (opt.probe) {
    try {
      probed = probe_kernels(problem, p.grid, devices[0], p.kernels, p.kernel_count, opt.steps);
      probe_report(probed, problem.dims, opt.quiet || session.rank() != 0, stdout);
      PartitionRequest request = p.partition_request(ranks, opt.weights);
      if (!opt.strategy.empty()) request.strategy = parse_strategy(opt.strategy);
      if (probed.widen_ghosts(request.ghost_lo, request.ghost_hi, problem.exchange_every,
                              p.ghost_lo, p.ghost_hi)) {
        partition = rank_partition(p, ranks, opt, &request);
        if (!opt.quiet && session.rank() == 0)
          std::printf("probe: ghost widths raised to %s (the kernels' rims)\n",
                      probe_sides(problem.dims, request.ghost_lo, request.ghost_hi).c_str());
      }
      probe_check_lines(probed, partition, p.grid);
    } catch (const std::exception& e) {
      throw mpi::UniformError(e.what());
    }
  }
  mpi::check_same_partition(MPI_COMM_WORLD, partition);  // every rank probed its own device
  // <local size="auto"/>: each rank times the shapes on its own device (the partition does not
  // depend on the choice, and the results are the same bits whatever each rank chose).
  // Shapes given by --local / STEPGEN_LOCAL, checked also when nothing is tuned (a UsageError,
  // the same on every rank).
  const std::vector<LocalOverride> local_given =
      local_overrides(opt.local, p.kernels, p.kernel_count, p.tuned, problem.dims);
  if (!p.tuned.empty()) {
    try {
      const std::vector<TuneResult> tuned = tune_locals(
          problem, p.grid, devices[0], p.kernels, p.tuned, p.tuned_launches, opt.tune, local_given);
      if (!opt.quiet && session.rank() == 0) tune_report(tuned, p.tuned, problem.dims, stdout);
    } catch (const std::exception& e) {
      throw mpi::UniformError(e.what());
    }
  }
  if (!opt.quiet) print_rank_partition(session, rank.describe(devices[0]), M::kUnit, partition);

  // io: outputs and checkpoints written by every rank together (its owned box; MPI-IO,
  // checkpoint_mpi.hpp, parallel HDF5), the checkpoint to restart from checked on every rank.
  IoWriters writers;
  writers.owned = partition.parts[static_cast<std::size_t>(session.rank())].owned;
  writers.messages = session.rank() == 0;
  writers.checkpoint = [](const std::string& path, const std::string& hash, std::int64_t step,
                          const Box& grid, const std::vector<io::CheckpointSource>& arrays,
                          const io::CheckpointReductions& reductions) {
    io::write_checkpoint(MPI_COMM_WORLD, path, hash, step, grid, arrays, reductions);
  };
  writers.raw = [grid = p.grid](const HostArray& a, const Box& owned, const std::string& path) {
    mpi::write_array(MPI_COMM_WORLD, a, owned, grid, path);
  };
#ifdef STEPGEN_HDF5
#ifdef H5_HAVE_PARALLEL
  writers.series = [](const std::string& path, const Box& grid) {
    return std::make_unique<io::SnapshotSeries>(path, grid, MPI_COMM_WORLD);
  };
#else
  writers.series = [](const std::string& path, const Box&) -> std::unique_ptr<io::SnapshotSeries> {
    throw RunError("output '" + path +
                   "': an MPI program writes HDF5 with parallel HDF5 "
                   "(libhdf5-openmpi-dev); this one was built with serial HDF5");
  };
#endif
#endif
  std::optional<ProgramIo> io_holder;
  try {
    io_holder.emplace(make_program_io(p, io_opt, opt, std::move(writers)));
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw mpi::UniformError(e.what());  // the same file on every rank: the same error
  }
  ProgramIo& io = *io_holder;
  // Rank 0 writes the traces; no link among the run's files, no two of them one file, none an
  // input or the user's own (rank 0's verdict, before any is written).
  mpi::check_trace_files(MPI_COMM_WORLD, p.records, io.first_step());
  mpi::rank0_check(MPI_COMM_WORLD,
                   [&] { check_run_files(run_files(p, opt, io_opt, io.first_step())); });

  // This rank's arrays (initial values of its box; --load reads it from the file by MPI-IO,
  // collective) and its run, in core or out of core. --verify: rank 0 gathers the whole grid's
  // initial values from the ranks' owned boxes for its one-device run.
  const Part& part = partition.parts[static_cast<std::size_t>(session.rank())];
  std::vector<Box> owned;
  for (const Part& q : partition.parts) owned.push_back(q.owned);
  std::vector<HostArray> host, initial;
  auto keep_initial = [&](const std::vector<HostArray>& mine) {
    if (!opt.verify) return;
    for (int id = 0; id < problem.array_count; ++id) {
      const auto u = static_cast<std::size_t>(id);
      if (!mine[u].held) {  // devinit: made on the devices (the same arrays on every rank)
        initial.push_back(
            HostArray::absent(problem.arrays[id].name, problem.arrays[id].element_bytes, p.grid));
        continue;
      }
      initial.emplace_back(problem.arrays[id].name, problem.arrays[id].element_bytes,
                           session.rank() == 0 ? p.grid : Box());
      mpi::gather_owned(MPI_COMM_WORLD, mine[u], owned, initial[u]);
    }
  };
  ooc::Stats ooc_stats;
  for (Record& r : p.records) r.begin(opt.steps, io.first_step());
  // Reductions, until, monitor: merged over the ranks at each end of step (the same values,
  // so the same stop, on every rank); rank 0 prints and writes the monitor's file.
  Monitor monitor(p.monitor_spec(), opt.steps, !opt.quiet && session.rank() == 0);
  // A restart gives the reductions their values at the checkpoint's step; each checkpoint
  // records them (an `until` over a reduction computed before it reads them).
  monitor.restore(io.restored_reductions());
  io.set_reductions([&monitor] { return monitor.last_values(); });
  monitor.progress_off();  // mpirun gives the ranks a pseudo-terminal even writing to a file
  monitor.combine = [](std::vector<Reduction>& r) { mpi::allreduce_reductions(MPI_COMM_WORLD, r); };
  RunStats stats = mpi::combine(
      MPI_COMM_WORLD, run_rank<B, M>(session, rank, p, loop, devices, partition, opt, ooc, probed,
                                     host, ooc_stats, keep_initial, &monitor, io));
  if (!ooc_stats.on) host_copies_report(host, stats);  // devinit: rank 0's host copies
  io.finish();
  // The traces: each rank sampled the points it owns; rank 0 gathers and writes them, before
  // --verify's run (which samples the same points again), up to the step an `until` stopped
  // the run at (the same on every rank).
  for (Record& r : p.records) r.end(monitor.steps_run(opt.steps));
  mpi::write_records(MPI_COMM_WORLD, p.records, owned);
  if (ooc_stats.on) ooc_stats = mpi::combine(MPI_COMM_WORLD, ooc_stats);
  if (!opt.quiet && session.rank() == 0) {
    print_report(stats, stdout);
    io.print_report(stdout);  // ckptbg: what the checkpoints cost (written by the ranks)
    if (ooc_stats.on)
      ooc::print_report(ooc_stats, stdout);
    else if (!ooc_stats.choice.empty())
      std::printf("%s\n", ooc_stats.choice.c_str());  // oocauto: in core, and why
    rank.print_report(session, ooc_stats.on);
  }
  if (session.rank() == 0) {
    if (!opt.quiet) monitor.print_report(stdout);
    monitor.write_csv(io.first_step());  // a restart's NAME-from-STEP.csv
  }

  int status = 0;
  if (opt.verify) {
    // Rank 0 gathers the owned boxes, reruns the whole grid on its device and compares.
    std::vector<HostArray> result;
    for (int id = 0; id < problem.array_count; ++id)
      result.emplace_back(problem.arrays[id].name, problem.arrays[id].element_bytes,
                          session.rank() == 0 ? p.grid : Box());
    for (int id = 0; id < problem.array_count; ++id)
      if (problem.arrays[id].compared) {
        if (!ooc_stats.on)  // hostmem
          require_gathered(gathered_arrays(p, opt), problem.arrays[id],
                           static_cast<std::size_t>(id), "--verify");
        mpi::gather_owned(MPI_COMM_WORLD, host[static_cast<std::size_t>(id)], owned,
                          result[static_cast<std::size_t>(id)]);
      }
    if (session.rank() == 0) {
      Partition whole = stepgen::rt::partition(p.partition_request(1, {}));
      InCore<B, typename M::State> one(problem, devices, whole, initial, probed, {0, 1},
                                       rank.config(MPI_COMM_SELF));
      Monitor again(p.monitor_spec(), opt.steps, false);  // until stops it at the same step
      one.set_monitor(&again, p.reduce_boxes);
      one.set_steps(io.first_step(), nullptr);  // io: from the restart's step, without output
      one.run(opt.steps, loop);
      for (int id = 0; id < problem.array_count; ++id) {
        if (!problem.arrays[id].compared) continue;
        const auto u = static_cast<std::size_t>(id);
        const std::string diff = problem.arrays[id].compare(result[u], initial[u]);
        if (!diff.empty()) {
          std::printf("verify: FAILED: %s\n", diff.c_str());
          status = 1;
        }
      }
      if (status == 0)
        std::printf("verify: OK: %d rank(s) equal 1 %s bit for bit\n", ranks, M::kUnit);
    }
    status = mpi::broadcast(MPI_COMM_WORLD, status);
  }
  // --save: every rank writes its owned box into the one file (MPI-IO, collective).
  for (const auto& [name, path] : opt.saves)
    for (std::size_t id = 0; id < host.size(); ++id)
      if (host[id].name == name) {
        if (!ooc_stats.on)  // hostmem
          require_gathered(gathered_arrays(p, opt), problem.arrays[id], id, "--save " + name);
        mpi::write_array(MPI_COMM_WORLD, host[id], part.owned, p.grid, path);
      }
  return status;
}

/// main() of a generated MPI program: MPI started and ended, errors reported once.
template <class B, class M>
int run_mpi_main(int argc, char** argv, const Program<B>& p,
                 void (*loop)(RankRun<B, M>&, std::int64_t)) {
  mpi::Session session(argc, argv);
  return session.run(p.info.name,
                     [&] { return run_mpi_program<B, M>(session, argc, argv, p, loop); });
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// One MPI rank's pieces for the MPI distribution (ranks.hpp): the split over the ranks, the split
/// printed with every part's rank, node and device, and the rank's run in core (the engine over
/// its own part with the backend's rank State) or out of core (the runner with the cells other
/// ranks own refreshed at every pass boundary).

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

#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/io/checkpoint_mpi.hpp"
#include "stepgen/exec/main_host.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/mpi_halo.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/rank_parts.hpp"
#include "stepgen/exec/traces_mpi.hpp"
#include "stepgen/exec/tune.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// One rank's in-core run: the engine over the rank's own part with the backend's rank State.
template <class B, class M>
using RankRun = InCore<B, typename M::State>;

/// The split over `ranks` ranks (one box each) with the options' weights and strategy and
/// the ghost widths `ghost_lo`, `ghost_hi` when given, each rank's box cut again into one part
/// per device of the rank (`--devices N`: split_ranks, rank_parts.hpp); an error when the grid
/// gives fewer parts.
template <class B>
Partition rank_partition(const Program<B>& p, int ranks, const Options& opt,
                         const PartitionRequest* widened = nullptr) {
  PartitionRequest request = widened ? *widened : p.partition_request(ranks, opt.weights);
  if (!widened && !opt.strategy.empty()) request.strategy = parse_strategy(opt.strategy);
  Partition partition = stepgen::rt::partition(request);
  if (partition.parts.size() != static_cast<std::size_t>(ranks))
    throw RunError(
        std::string(widened ? "with the ghost widths the kernels' rims need (" +
                                  probe_sides(p.problem.dims, request.ghost_lo, request.ghost_hi) +
                                  "), the grid"
                            : "the grid") +
        " can be split into only " + std::to_string(partition.parts.size()) + " parts (" +
        partition.rationale + "), one per rank: run with at most that many ranks");
  Partition parts = split_ranks(partition, request, parts_per_rank(opt));
  place_rank_parts(parts, parts_per_rank(opt), devices_per_rank(opt));
  return parts;
}

/// Rank 0 prints the split with the rank, node and device of every part (`devices`: where
/// this rank's parts run as M names their devices, one per part of the rank; `per_rank`: the
/// devices of a rank).
inline void print_rank_partition(const mpi::Session& session,
                                 const std::vector<std::string>& devices, const char* unit,
                                 const Partition& partition, int per_rank) {
  std::string mine;  // one line per device of the rank
  for (const std::string& d : devices)
    mine += "rank " + std::to_string(session.rank()) + " on " + session.host() + ", " + d + "\n";
  const std::vector<std::string> ranks = mpi::gather_strings(MPI_COMM_WORLD, mine);
  if (session.rank() != 0) return;
  std::vector<std::string> where;
  for (const std::string& r : ranks)
    for (std::size_t at = 0, end; (end = r.find('\n', at)) != std::string::npos; at = end + 1)
      where.push_back(r.substr(at, end - at));
  std::string each =
      per_rank == 1 ? std::string("one ") + unit : std::to_string(per_rank) + " " + unit + "s";
  if (devices.size() > static_cast<std::size_t>(per_rank))
    each += " and " + std::to_string(devices.size()) + " parts";
  std::printf("%zu rank(s) on %d node(s), %s each, grid %dx%dx%d (%s)\n", ranks.size(),
              session.nodes(), each.c_str(), partition.grid[0], partition.grid[1],
              partition.grid[2], partition.rationale.c_str());
  for (const Part& part : partition.parts)
    std::printf("  part %d on %s: owned %s, buffer %s\n", part.id,
                where[static_cast<std::size_t>(part.id)].c_str(), part.owned.str().c_str(),
                part.ghost.str().c_str());
}

/// This rank's arrays over `box` (its part's ghost box, or more out of core): the initial
/// values, then --load's files read by MPI-IO (collective), copied to the arrays initialised
/// as their copy() (copy_loaded). `alloc` gives their memory.
/// `held`: which arrays get a host copy (host_copies; empty: all).
template <class B>
std::vector<HostArray> load_rank_arrays(const Program<B>& p, const Box& box, const Options& opt,
                                        const HostAllocator& alloc = {},
                                        const std::vector<bool>& held = {}) {
  std::vector<HostArray> host = p.make_host_arrays(box, alloc, held);
  for (const auto& [name, path] : opt.loads)
    for (HostArray& a : host)
      if (a.name == name) mpi::read_array(MPI_COMM_WORLD, a, p.grid, path);
  copy_loaded(p.problem.arrays, p.problem.array_count, host, opt.loads);  // copy(X) of a loaded X
  return host;
}

/// The probe's reads again on the values the run starts from (probe_data.hpp), each rank on
/// its own cells: an error on any rank stops every rank with the lowest rank's message.
template <class B>
void probe_initial_data_on_ranks(const Program<B>& p, const typename B::Device& d,
                                 const std::vector<HostArray>& host, const Probed& probed,
                                 const Options& opt, std::int64_t step) {
  if (!opt.probe) return;
  std::string mine;
  try {
    mine = probe_initial_data(p.problem, p.grid, d, p.kernels, p.kernel_count, host, probed, step);
  } catch (const std::exception& e) {
    mine = e.what();
  }
  if (const std::string first = mpi::first_error(MPI_COMM_WORLD, mine); !first.empty())
    throw mpi::UniformError(first);
}

/// Out of core, one rank's calibration (run_rank_out_of_core's `calibrate`): the link and the
/// kernels' speed measured on a probe of the rank's part, with the pass boundary's meeting, the
/// slowest figures over the ranks (the same on every rank).
template <class B>
ooc::Link calibrate_rank(const mpi::Session& session, const Program<B>& p,
                         std::vector<typename B::Device>& devices, const Part& part,
                         const ooc::Options& ooc, const typename B::OocStep& step, bool compare,
                         ooc::Request probe, Index bytes) {
  const Problem<B>& problem = p.problem;
  const int rank = session.rank();
  if (compare) bytes = std::min(bytes, ooc::kAutoProbeBytes);  // a smaller probe
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
    if (!problem.arrays[id].stored_back()) continue;
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
}

/// Out of core with <boundary> frames: the cells the frames are composed from, the
/// grid's edge slabs as wide as a pass reads past the edge (k * shrink); nullptr without frames.
template <class B>
std::unique_ptr<FrameSources> rank_frame_sources(const Problem<B>& problem,
                                                 const Partition& partition,
                                                 const ooc::Schedule& schedule) {
  if (!schedule.has_frame) return nullptr;
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
  return std::make_unique<FrameSources>(widths, problem.boundaries, problem.boundary_count, ids,
                                        element);
}

/// Gathers the frames' sources: this rank's pieces copied from `host` into `frames`, every
/// rank's block to every rank; returns the bytes gathered.
inline std::size_t gather_frame_sources(FrameSources& frames, const std::vector<HostArray>& host,
                                        int rank) {
  for (const FrameSources::Piece& piece : frames.pieces) {
    if (piece.part != rank) continue;
    const HostArray& from = host[static_cast<std::size_t>(piece.array)];
    HostArray cells(from.name, from.element_bytes, piece.box);
    ooc::copy_host_box(from, cells, piece.box);
    std::copy(cells.bytes.data(), cells.bytes.data() + cells.bytes.size(),
              frames.bytes.begin() + static_cast<std::ptrdiff_t>(piece.offset));
  }
  std::vector<int> counts, displs;
  std::size_t at = 0;
  for (std::size_t n : frames.part_bytes) {
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw RunError("out-of-core: a rank's boundary frame sources exceed 2 GiB");
    counts.push_back(static_cast<int>(n));
    displs.push_back(static_cast<int>(at));
    at += n;
  }
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, frames.bytes.data(), counts.data(),
                 displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  return at;
}

/// Out of core, a rank's pass boundary: the cells other ranks own in its reach
/// (ooc::foreign_plan) refreshed by messages, packed from and unpacked into its host arrays.
class ForeignCells {
 public:
  template <class B>
  ForeignCells(const Problem<B>& problem, const ooc::Schedule& schedule, int rank)
      : halo_(MPI_COMM_WORLD, rank, problem.array_count) {
    const std::vector<Transfer> plan = ooc::foreign_plan(schedule);
    for (int id = 0; id < problem.array_count; ++id)
      if (problem.arrays[id].stored_back()) {
        halo_.add(id, problem.arrays[id].name, problem.arrays[id].element_bytes, plan);
        written_.push_back(id);
      }
  }

  /// One exchange; returns the bytes this rank sent.
  std::size_t exchange(std::vector<HostArray>& host) {
    pack_.start();
    halo_.start(written_, [&](int id, HostArray& box) {
      ooc::copy_host_box(host[static_cast<std::size_t>(id)], box, box.box);
    });
    pack_.stop();
    send_.start();
    const std::size_t bytes = halo_.send(written_);
    send_.stop();
    Stopwatch waited, unpacking;
    waited.start();
    halo_.finish(written_, [&](int id, const HostArray& box) {
      unpacking.start();
      ooc::copy_host_box(box, host[static_cast<std::size_t>(id)], box.box);
      unpacking.stop();
    });
    message_wait_s += waited.stop() - unpacking.total();
    unpack_s_ += unpacking.total();
    return bytes;
  }

  /// bench (STEPGEN_BOUNDARY_DEBUG): where the pass boundaries' time went, `total_s` in all.
  void print_debug(int rank, double total_s) const {
    std::fprintf(stderr,
                 "boundary exchange (rank %d): %.1f us in all, pack %.1f, send %.1f, waits %.1f, "
                 "unpack %.1f (sums)\n",
                 rank, total_s * 1e6, pack_.total() * 1e6, send_.total() * 1e6,
                 message_wait_s * 1e6, unpack_s_ * 1e6);
  }

  double message_wait_s = 0;  ///< the report's waiting for the messages

 private:
  mpi::HaloExchange halo_;
  std::vector<int> written_;
  Stopwatch pack_, send_;
  double unpack_s_ = 0;
};

/// Runs this rank's part out of core: every rank decides alike and chooses the same schedule
/// (the slowest rank's link goes into the model), so the passes end together, with the cells
/// each part reads from the others sent by MPI at every pass boundary (rt::ooc::foreign_plan).
/// Fills `host` with this rank's arrays over its reach; `loaded(host)` sees their initial values
/// (collective).
/// With `compare` (`--out-of-core auto` given, on data that fits), the in-core run is
/// predicted from the same figures once the schedule is chosen, and when it is not slower the
/// rank returns nothing before any host array is made, the report holding only the choice's
/// line: every rank has the same figures, so every rank returns alike, and the caller runs in
/// core. A plan that cannot be made then means in core too.
template <class B, class M, class Loaded>
std::optional<RunStats> run_rank_out_of_core(const mpi::Session& session, const Program<B>& p,
                                             std::vector<typename B::Device>& devices,
                                             const Partition& partition, const Options& opt,
                                             const ooc::Options& ooc, const Probed& probed,
                                             std::vector<HostArray>& host, ooc::Stats& report,
                                             Loaded&& loaded, Monitor* monitor, ProgramIo& io,
                                             bool compare = false) {
  const Problem<B>& problem = p.problem;
  const int rank = session.rank();
  const Part& part = partition.parts[static_cast<std::size_t>(rank)];
  OocStepper<B> stepper(p, devices, partition, ooc, probed, opt.quiet);
  ooc::Request& request = stepper.request;
  request.host_per_part = true;  // the model: each rank's thread issues its own part's commands
  // The model needs the link and the kernels' speed: each rank measures them on a probe of
  // its part, and the slowest figures go into the model, every figure the same on every rank
  // (mpi::slowest_link), so that every rank chooses the same schedule (and the same schedules
  // fail on every rank); mpi::check_same_schedule makes sure of it before any pass runs.
  auto calibrate = [&](ooc::Request probe, Index bytes) {
    return calibrate_rank<B>(session, p, devices, part, ooc, stepper.step, compare,
                             std::move(probe), bytes);
  };
  // In core after all: the report holds the budget and the choice's line only.
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
    // The same plan; no plan (a uniform PlanError: the same figures on every rank)
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
  RunStats stats;
  Stopwatch exchange_timer;  // the pass boundaries' messages and frames
  ForeignCells foreign(problem, schedule, rank);
  auto exchange = [&] {
    exchange_timer.start();
    stats.exchange_bytes += foreign.exchange(host);
    exchange_timer.stop();
  };
  // <boundary> frames: the grid's edge slabs, each rank's owned ones gathered to
  // every rank at every pass boundary (after the exchange) and before the run.
  const std::unique_ptr<FrameSources> frames = rank_frame_sources(problem, partition, schedule);
  auto gather_frames = [&] {
    if (!frames) return;
    exchange_timer.start();
    stats.exchange_bytes += gather_frame_sources(*frames, host, rank);
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
  attach_monitor<B>(stepper.rule, share, monitor, p.reduce_boxes, &stepper.offset);
  // Tuned shapes timed again on this rank's chunks (docs/decisions/0002-shapes-retuned-on-the-
  // chunks.md): each rank keeps its fastest shapes (the same bits whatever runs; rank 0's lines
  // in the report).
  const std::unique_ptr<ooc::Retuner> retune =
      ooc_retuner(p, ooc, schedule, opt.steps - io.first_step());
  share.retune = retune.get();
  if (monitor) monitor->start(io.first_step());
  typename B::OocRunner runner(devices, schedule, host, stepper.step, ooc.overlap, share, alloc);
  // Each segment after the first starts with the pass boundary's messages the previous one's
  // end left out, then the <boundary> frames' edge slabs as they are now.
  run_ooc_segments(opt, &io, monitor, host, report, stepper.offset,
                   [&](std::int64_t done, std::int64_t steps) {
                     if (done > io.first_step()) exchange();
                     gather_frames();
                     runner.run(steps, report);
                   });
  retune->finish();
  report.retune = retune->report();
  (void)pinned;
  // As one process's: the time loop, the link's bytes, the kernels' time from the events
  // around each compute command (the report's `kernels:`), and the messages' time.
  const std::size_t exchanged = stats.exchange_bytes;
  stats = ooc::run_stats(report, report.steps);
  stats.exchange_s = exchange_timer.total();
  stats.exchange_bytes = exchanged;
  stats.message_wait_s = foreign.message_wait_s;
  if (env_settings().boundary_debug) foreign.print_debug(rank, exchange_timer.total());
  return stats;
}

/// Runs this rank's part in core (the engine over its own part, `loop` its time loop; its parts,
/// one per device, with `--devices N`), or out of core when the options ask for it or the
/// largest part's arrays do not fit the smallest budget over the ranks (M::kOutOfCore: the
/// backend's rank can; one device per rank only). Fills `host` with this rank's arrays: its
/// parts' ghost boxes in core, its reach out of core; `loaded(host)` sees their initial values
/// (collective).
template <class B, class M, class Loaded>
RunStats run_rank(const mpi::Session& session, M& rank, const Program<B>& p,
                  void (*loop)(RankRun<B, M>&, std::int64_t),
                  std::vector<typename B::Device>& devices, const Partition& partition,
                  const Options& opt, const ooc::Options& ooc, const Probed& probed,
                  std::vector<HostArray>& host, ooc::Stats& report, Loaded&& loaded,
                  Monitor* monitor, ProgramIo& io) {
  const Problem<B>& problem = p.problem;
  // This rank's parts: one per device (--devices N: N, split_ranks), numbered from rank * N.
  const int per_rank = static_cast<int>(partition.parts.size()) / session.size();
  if (per_rank > static_cast<int>(devices.size()))  // --parts: a device handle per part
    devices = B::part_devices(std::move(devices), rank_parts(partition, session.rank(), per_rank));
  std::vector<Part> mine;
  Box reach;  // the host arrays' box: the parts' ghost boxes, within the grid
  for (int j = 0; j < per_rank; ++j) {
    mine.push_back(partition.parts[static_cast<std::size_t>(session.rank() * per_rank + j)]);
    reach = j == 0 ? mine.back().ghost : bounding(reach, mine.back().ghost);
  }
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
    if (per_rank > 1 &&
        !(ooc.mode == ooc::Options::Mode::kOff || (ooc.mode == ooc::Options::Mode::kAuto && fits)))
      throw mpi::UniformError(
          std::to_string(per_rank) + " parts a rank (--devices, --parts): a rank with several " +
          "parts runs in core only, and this run goes out of core (" +
          (fits ? std::string("--out-of-core on")
                : "the largest part needs " + human_bytes(static_cast<double>(in_core)) +
                      ", the smallest budget is " +
                      human_bytes(static_cast<double>(report.budget))) +
          "); run one device per rank (more ranks), or in core with the parts within the budget");
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
    // `--out-of-core auto` given, on data that fits: the faster (predicted) of in
    // core and the best out-of-core plan, the same choice on every rank (mpi::slowest_link).
    if (ooc.mode == ooc::Options::Mode::kAuto && ooc.compare && opt.steps > 0) {
      if (per_rank > 1) {
        report.choice = ooc::in_core_because("a rank with several parts runs in core").line;
      } else if (const std::string why = ooc_auto_not_compared(p); !why.empty()) {
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
  // Only the arrays that need one get a host copy (one part per rank: no staging).
  // Page-locked unless --pinned off, as in one process (issue 26): the uploads and downloads
  // run at the link's speed; where the system refuses, pageable, and the report says so.
  HostMemory memory;
  host = load_rank_arrays(p, intersect(reach, p.grid), opt,
                          pageable_fallback(B::host_allocator(devices, ooc.pinned, false), memory),
                          host_copies(p, opt, io));
  // The link for the report, as one process measures it (in_core_link: this rank's device
  // and part; not under --quiet); mpi::combine sums the ranks' figures.
  LinkSpeed link;
  if (!opt.quiet) link = in_core_link<B>(problem, devices, mine);
  io.restart(host);  // io: the checkpoint's values over this rank's box, when restarting
  loaded(host);
  probe_initial_data_on_ranks(p, devices[0], host, probed, opt, io.first_step());
  RunStats stats = run_in_core<B, typename M::State>(
      p, loop, devices, partition, host, opt, probed, monitor, &io,
      {session.rank() * per_rank, per_rank}, rank.config(MPI_COMM_WORLD), session.rank() == 0);
  stats.host_memory = memory.text();
  stats.link_h2d = link.h2d;
  stats.link_d2h = link.d2h;
  return stats;
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// The main program of a generated MPI program, written once for both backends: every rank
/// runs it with the same options; rank r drives the device of its node numbered by its place
/// among the node's ranks and computes part r of the split (with `--devices N`, OpenCL: the
/// node's devices from its place times N, and its box cut into N parts, rank_parts.hpp). Options
/// and the split (errors reported once, by rank 0), this rank's device, the kernel probe, the
/// partition with the rank, node and device of every part, this rank's arrays (initial values of
/// its box; --load by MPI-IO), its run in core (the engine over its own part, halos by MPI
/// messages) or out of core (the runner with the cells other ranks own refreshed at every pass
/// boundary), the report of the slowest rank, --verify (rank 0 reruns the whole grid on its
/// device), --save by MPI-IO.
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
#include "stepgen/mpi_rank.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/program.hpp"
#include "stepgen/traces_mpi.hpp"
#include "stepgen/tune.hpp"

namespace stepgen::rt {

/// One rank's run of an MPI program, as its phases (run_mpi_program) fill it in order: the
/// same phases as one process's (main.hpp), over the rank's part with the rank `M`.
template <class B, class M>
struct RankContext {
  RankContext(mpi::Session& s, Program<B> program) : session(s), p(std::move(program)) {}
  RankContext(const RankContext&) = delete;  // the monitor and io are referred to by address
  RankContext& operator=(const RankContext&) = delete;
  const Problem<B>& problem() const { return *p.problem; }
  /// The box this rank's parts own (one part per device of the rank).
  Box box() const { return rank_box(partition, session.rank(), parts_per_rank(opt)); }

  mpi::Session& session;
  Program<B> p;
  std::string backend;  ///< "opencl, MPI": what p.info.backend points to
  int ranks = 1;
  Options opt;  ///< options: the same on every rank
  ooc::Options ooc;
  IoOptions io_opt;
  Partition partition;    ///< options; widened by the probe
  std::optional<M> rank;  ///< devices: this rank's device and its State
  std::vector<typename B::Device> devices;
  Probed probed;                   ///< probe
  std::optional<ProgramIo> io;     ///< io: written by every rank together
  std::vector<Box> owned;          ///< run: every rank's owned box
  std::vector<HostArray> host;     ///< run: this rank's arrays
  std::vector<HostArray> initial;  ///< run, with --verify: rank 0's whole-grid initial values
  ooc::Stats ooc_stats;
  std::optional<Monitor> monitor;
  RunStats stats;
};

/// Phase options (every rank, rank 0 alone reporting their errors): the command line (false:
/// --help printed), weights one per rank, the split, --save's arrays, the files rank 0 checks
/// before the devices, the inject values.
template <class B, class M>
bool phase_options(RankContext<B, M>& c, int argc, char** argv) {
  const Problem<B>& problem = c.problem();
  c.backend = std::string(c.p.info.backend) + ", MPI";
  c.p.info.backend = c.backend.c_str();
  for (int id = 0; id < problem.array_count; ++id)
    c.p.info.array_bytes.push_back(static_cast<std::size_t>(c.p.grid.volume()) *
                                   problem.arrays[id].element_bytes);
  c.ranks = c.session.size();
  c.session.check_same_arguments(argc, argv);
  c.ooc = c.p.ooc;
  try {
    M::take_ooc_options(argc, argv, c.ooc);
    no_band_sharing_with_records(c.p.records, c.ooc);
    take_io_options(argc, argv, c.io_opt);
    c.opt = parse_options(argc, argv, c.p.info);
    if (c.opt.help) {
      if (c.session.rank() == 0) {
        print_usage(c.p.info, stdout);
        if (M::kOutOfCore) ooc::print_usage(stdout);
        print_io_usage(c.p.io, stdout);
        M::print_usage_note(stdout);
      }
      return false;
    }
    parts_per_rank(c.opt);  // --parts fewer than a rank's devices: a usage error
    if (c.opt.weights.empty()) c.opt.weights = c.p.weights;
    if (!c.opt.weights.empty() && c.opt.weights.size() != static_cast<std::size_t>(c.ranks))
      throw RunError("--weights gives " + std::to_string(c.opt.weights.size()) + " weights for " +
                     std::to_string(c.ranks) + " ranks (one per rank)");
    c.partition = rank_partition(c.p, c.ranks, c.opt);
    check_saves(c.opt.saves, problem.arrays, problem.array_count);
    mpi::rank0_check(MPI_COMM_WORLD, [&] { check_files(c.opt, c.p.info); });
    check_inject_values(c.p.injects, c.opt.steps);  // every rank: the same verdict
  } catch (const UsageError&) {
    throw;  // a bad command line: rank 0 reports it, every rank exits with status 2
  } catch (const std::exception& e) {
    throw mpi::UniformError(e.what());
  }
  return true;
}

/// Phase devices: this node's devices in order; the rank takes the one at its place among the
/// node's ranks (M).
template <class B, class M>
void phase_devices(RankContext<B, M>& c) {
  c.rank.emplace(c.session, c.opt);
  c.devices = c.rank->take_devices();
}

/// Phase probe, on every rank's device (the same kernels: the same findings everywhere): halos
/// checked, rims measured, ghost zones widened where rims are wider than the halos (the ranks
/// then compare their partitions); <local size="auto"/> timed on each rank's device (the
/// results are the same bits whatever each chose); the split printed with every part's rank.
template <class B, class M>
void phase_probe(RankContext<B, M>& c) {
  const Problem<B>& problem = c.problem();
  const bool report = !c.opt.quiet && c.session.rank() == 0;
  if (c.opt.probe) {
    try {
      c.probed = probe_kernels(problem, c.p.grid, c.devices[0], c.p.kernels, c.p.kernel_count,
                               c.opt.steps);
      probe_report(c.probed, problem.dims, !report, stdout);
      PartitionRequest request = c.p.partition_request(c.ranks, c.opt.weights);
      if (!c.opt.strategy.empty()) request.strategy = parse_strategy(c.opt.strategy);
      if (c.probed.widen_ghosts(request.ghost_lo, request.ghost_hi, problem.exchange_every,
                                c.p.ghost_lo, c.p.ghost_hi)) {
        c.partition = rank_partition(c.p, c.ranks, c.opt, &request);
        if (report)
          std::printf("probe: ghost widths raised to %s (the kernels' rims)\n",
                      probe_sides(problem.dims, request.ghost_lo, request.ghost_hi).c_str());
      }
      probe_check_lines(c.probed, c.partition, c.p.grid);
    } catch (const std::exception& e) {
      throw mpi::UniformError(e.what());
    }
  }
  mpi::check_same_partition(MPI_COMM_WORLD, c.partition);
  const std::vector<LocalOverride> local_given =
      local_overrides(c.opt.local, c.p.kernels, c.p.kernel_count, c.p.tuned, problem.dims);
  if (!c.p.tuned.empty()) {
    try {
      const std::vector<TuneResult> tuned =
          tune_locals(problem, c.p.grid, c.devices[0], c.p.kernels, c.p.tuned, c.p.tuned_launches,
                      c.opt.tune, local_given);
      if (report) tune_report(tuned, c.p.tuned, problem.dims, stdout);
    } catch (const std::exception& e) {
      throw mpi::UniformError(e.what());
    }
  }
  if (!c.opt.quiet) {  // where each of this rank's parts runs
    const int parts = parts_per_rank(c.opt), mine = c.session.rank() * parts;
    std::vector<std::string> where;
    for (int j = 0; j < parts; ++j) {
      const Part& q = c.partition.parts[static_cast<std::size_t>(mine + j)];
      where.push_back(c.rank->describe(c.devices[static_cast<std::size_t>(q.device)]));
    }
    print_rank_partition(c.session, where, M::kUnit, c.partition, devices_per_rank(c.opt));
  }
}

/// Phase io: outputs and checkpoints written by every rank together (its owned box; MPI-IO,
/// checkpoint_mpi.hpp, parallel HDF5), the checkpoint to restart from checked on every rank;
/// rank 0's verdict on the trace files and the run's other files before any is written.
template <class B, class M>
void phase_io(RankContext<B, M>& c) {
  IoWriters writers;
  writers.owned = c.box();
  writers.messages = c.session.rank() == 0;
  writers.checkpoint = [](const std::string& path, const std::string& hash, std::int64_t step,
                          const Box& grid, const std::vector<io::CheckpointSource>& arrays,
                          const io::CheckpointReductions& reductions) {
    io::write_checkpoint(MPI_COMM_WORLD, path, hash, step, grid, arrays, reductions);
  };
  writers.raw = [grid = c.p.grid](const HostArray& a, const Box& owned, const std::string& path) {
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
  try {
    c.io.emplace(make_program_io(c.p, c.io_opt, c.opt, std::move(writers)));
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw mpi::UniformError(e.what());  // the same file on every rank: the same error
  }
  mpi::check_trace_files(MPI_COMM_WORLD, c.p.records, c.io->first_step());
  mpi::rank0_check(MPI_COMM_WORLD,
                   [&] { check_run_files(run_files(c.p, c.opt, c.io_opt, c.io->first_step())); });
}

/// Phase run: this rank's arrays (initial values of its box; --load by MPI-IO, collective),
/// with --verify rank 0's copy of the whole grid's initial values gathered from the ranks'
/// owned boxes; the monitor (merged over the ranks at each end of step: the same stop on every
/// rank; rank 0 prints it); the run in or out of core; the traces (each rank sampled the
/// points it owns, rank 0 writes them) up to the step an `until` stopped the run at.
template <class B, class M>
void phase_run(RankContext<B, M>& c, void (*loop)(RankRun<B, M>&, std::int64_t)) {
  const Problem<B>& problem = c.problem();
  ProgramIo& io = *c.io;
  for (int r = 0; r < c.ranks; ++r)
    c.owned.push_back(rank_box(c.partition, r, parts_per_rank(c.opt)));
  auto keep_initial = [&c, &problem](const std::vector<HostArray>& mine) {
    if (!c.opt.verify) return;
    for (int id = 0; id < problem.array_count; ++id) {
      const auto u = static_cast<std::size_t>(id);
      if (!mine[u].held) {  // devinit: made on the devices (the same arrays on every rank)
        c.initial.push_back(
            HostArray::absent(problem.arrays[id].name, problem.arrays[id].element_bytes, c.p.grid));
        continue;
      }
      c.initial.emplace_back(problem.arrays[id].name, problem.arrays[id].element_bytes,
                             c.session.rank() == 0 ? c.p.grid : Box());
      mpi::gather_owned(MPI_COMM_WORLD, mine[u], c.owned, c.initial[u]);
    }
  };
  for (Record& r : c.p.records) r.begin(c.opt.steps, io.first_step());
  c.monitor.emplace(c.p.monitor_spec(), c.opt.steps, !c.opt.quiet && c.session.rank() == 0);
  Monitor& monitor = *c.monitor;
  monitor.restore(io.restored_reductions());
  io.set_reductions([&monitor] { return monitor.last_values(); });
  monitor.progress_off();  // mpirun gives the ranks a pseudo-terminal even writing to a file
  monitor.combine = [](std::vector<Reduction>& r) { mpi::allreduce_reductions(MPI_COMM_WORLD, r); };
  c.stats = mpi::combine(MPI_COMM_WORLD, run_rank<B, M>(c.session, *c.rank, c.p, loop, c.devices,
                                                        c.partition, c.opt, c.ooc, c.probed, c.host,
                                                        c.ooc_stats, keep_initial, &monitor, io));
  if (!c.ooc_stats.on) host_copies_report(c.host, c.stats);  // devinit: rank 0's host copies
  io.finish();
  for (Record& r : c.p.records) r.end(monitor.steps_run(c.opt.steps));
  mpi::write_records(MPI_COMM_WORLD, c.p.records, c.owned);
}

/// Phase report, rank 0: the slowest rank's times and the ranks' volumes, the checkpoints'
/// cost, out of core its report (combined over the ranks) or auto's choice, the rank's lines,
/// the monitor's report and table.
template <class B, class M>
void phase_report(RankContext<B, M>& c) {
  if (c.ooc_stats.on) c.ooc_stats = mpi::combine(MPI_COMM_WORLD, c.ooc_stats);
  if (c.session.rank() != 0) return;
  if (!c.opt.quiet) {
    print_report(c.stats, stdout);
    c.io->print_report(stdout);
    if (c.ooc_stats.on)
      ooc::print_report(c.ooc_stats, stdout);
    else if (!c.ooc_stats.choice.empty())
      std::printf("%s\n", c.ooc_stats.choice.c_str());
    c.rank->print_report(c.session, c.ooc_stats.on);
    c.monitor->print_report(stdout);
  }
  c.monitor->write_csv(c.io->first_step());
}

/// Phase verify (--verify): rank 0 gathers the owned boxes, reruns the whole grid on its device
/// from the gathered initial values and compares; every rank returns its verdict.
template <class B, class M>
int phase_verify(RankContext<B, M>& c, void (*loop)(RankRun<B, M>&, std::int64_t)) {
  if (!c.opt.verify) return 0;
  const Problem<B>& problem = c.problem();
  std::vector<HostArray> result;
  for (int id = 0; id < problem.array_count; ++id)
    result.emplace_back(problem.arrays[id].name, problem.arrays[id].element_bytes,
                        c.session.rank() == 0 ? c.p.grid : Box());
  for (int id = 0; id < problem.array_count; ++id)
    if (problem.arrays[id].compared) {
      if (!c.ooc_stats.on)  // hostmem
        require_gathered(gathered_arrays(c.p, c.opt), problem.arrays[id],
                         static_cast<std::size_t>(id), "--verify");
      mpi::gather_owned(MPI_COMM_WORLD, c.host[static_cast<std::size_t>(id)], c.owned,
                        result[static_cast<std::size_t>(id)]);
    }
  int status = 0;
  if (c.session.rank() == 0) {
    Partition whole = stepgen::rt::partition(c.p.partition_request(1, {}));
    InCore<B, typename M::State> one(problem, c.devices, whole, c.initial, c.probed, {0, 1},
                                     c.rank->config(MPI_COMM_SELF));
    Monitor again(c.p.monitor_spec(), c.opt.steps, false);  // until stops it at the same step
    one.set_monitor(&again, c.p.reduce_boxes);
    one.set_steps(c.io->first_step(), nullptr);  // from the restart's step, without output
    one.run(c.opt.steps, loop);
    for (int id = 0; id < problem.array_count; ++id) {
      if (!problem.arrays[id].compared) continue;
      const auto u = static_cast<std::size_t>(id);
      const std::string diff = problem.arrays[id].compare(result[u], c.initial[u]);
      if (!diff.empty()) {
        std::printf("verify: FAILED: %s\n", diff.c_str());
        status = 1;
      }
    }
    if (status == 0)
      std::printf("verify: OK: %d rank(s) equal 1 %s bit for bit\n", c.ranks, M::kUnit);
  }
  return mpi::broadcast(MPI_COMM_WORLD, status);
}

/// Phase save (--save): every rank writes its owned box into the one file (MPI-IO, collective).
template <class B, class M>
void phase_save(RankContext<B, M>& c) {
  for (const auto& [name, path] : c.opt.saves)
    for (std::size_t id = 0; id < c.host.size(); ++id)
      if (c.host[id].name == name) {
        if (!c.ooc_stats.on)  // hostmem
          require_gathered(gathered_arrays(c.p, c.opt), c.problem().arrays[id], id,
                           "--save " + name);
        mpi::write_array(MPI_COMM_WORLD, c.host[id], c.box(), c.p.grid, path);
      }
}

/// The MPI program: every rank runs the phases of one process's program (main.hpp) in the same
/// order, over its own part. Returns the exit status (1: --verify found a difference); errors
/// are thrown (mpi::Session::run reports them).
template <class B, class M>
int run_mpi_program(mpi::Session& session, int argc, char** argv, Program<B> p,
                    void (*loop)(RankRun<B, M>&, std::int64_t)) {
  RankContext<B, M> c(session, std::move(p));
  if (!phase_options(c, argc, argv)) return 0;
  phase_devices(c);
  phase_probe(c);
  phase_io(c);
  phase_run(c, loop);
  phase_report(c);
  const int status = phase_verify(c, loop);
  phase_save(c);
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

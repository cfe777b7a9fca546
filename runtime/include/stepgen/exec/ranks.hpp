#pragma once
/// \file
/// An MPI rank's distribution for the main program (main.hpp): rt::Ranks<B, M>, the phases that
/// differ from one process's (one_process.hpp), over the ranks of MPI_COMM_WORLD
/// (mpi::WorldComm). Every rank runs the same phases with the same options; rank r drives the
/// devices of its node numbered by its place among the node's ranks (`--devices N` each,
/// rank_parts.hpp) and computes its box of the split, cut again into one part per device (or
/// `--parts`): in core the engine over its parts, halos by MPI messages (and copies between its
/// devices), or out of core the runner with the cells other ranks own refreshed at every pass
/// boundary (mpi_rank.hpp); --load and --save by MPI-IO; --verify gathers the owned boxes on
/// rank 0, which reruns the whole grid on its device.
///
/// What differs between backends comes from `M`, the backend's rank (cl::MpiRank in
/// engine_mpi_opencl.hpp, cuda::MpiRank in engine_mpi_cuda.hpp): the rank State of the engine,
/// how a rank picks its devices and names them, the help and report lines, and whether it runs
/// out of core (`M::kOutOfCore`).

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/io/checkpoint_mpi.hpp"
#include "stepgen/exec/main.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/mpi_comm.hpp"
#include "stepgen/exec/mpi_rank.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/rank_parts.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// The ranks of an MPI program, `M` the backend's rank (the main program's phases call these
/// members with their RunContext `c`, main.hpp).
template <class B, class M>
struct Ranks {
  using Comm = mpi::WorldComm;
  using State = typename M::State;
  using Engine = InCore<B, State>;
  static constexpr const char* kBackend = ", MPI";  ///< added to the report's backend
  static constexpr bool kOutOfCore = M::kOutOfCore;
  static void print_usage_note(std::FILE* out) { M::print_usage_note(out); }

  std::optional<M> rank;         ///< devices: this rank's devices and its State's settings
  std::vector<Box> owned;        ///< partition: every rank's owned box
  std::vector<HostArray> whole;  ///< verify: the run's arrays gathered on rank 0

  /// After the command line: --parts fewer than a rank's devices is a usage error; one weight
  /// per rank.
  template <class C>
  void check_options(C& c) {
    parts_per_rank(c.opt);
    const auto ranks = static_cast<std::size_t>(c.comm.size());
    if (!c.opt.weights.empty() && c.opt.weights.size() != ranks)
      throw RunError("--weights gives " + std::to_string(c.opt.weights.size()) + " weights for " +
                     std::to_string(ranks) + " ranks (one per rank)");
  }

  /// Outputs and checkpoints written by every rank together (its owned box, set once the grid
  /// is split; MPI-IO, checkpoint_mpi.hpp, parallel HDF5); rank 0 prints their lines.
  template <class C>
  IoWriters io_writers(C& c) {
    IoWriters writers;
    writers.messages = c.comm.root();
    writers.checkpoint = [](const std::string& path, const std::string& hash, std::int64_t step,
                            const Box& grid, const std::vector<io::CheckpointSource>& arrays,
                            const io::CheckpointReductions& reductions) {
      io::write_checkpoint(MPI_COMM_WORLD, path, hash, step, grid, arrays, reductions);
    };
    writers.raw = [grid = c.p.grid](const HostArray& a, const Box& box, const std::string& path) {
      mpi::write_array(MPI_COMM_WORLD, a, box, grid, path);
    };
#ifdef STEPGEN_HDF5
#ifdef H5_HAVE_PARALLEL
    writers.series = [](const std::string& path, const Box& grid) {
      return std::make_unique<io::SnapshotSeries>(path, grid, MPI_COMM_WORLD);
    };
#else
    writers.series = [](const std::string& path,
                        const Box&) -> std::unique_ptr<io::SnapshotSeries> {
      throw RunError("output '" + path +
                     "': an MPI program writes HDF5 with parallel HDF5 "
                     "(libhdf5-openmpi-dev); this one was built with serial HDF5");
    };
#endif
#endif
    return writers;
  }

  /// The box this rank's parts own.
  template <class C>
  Box owned_box(const C& c) const {
    return rank_box(c.partition, c.comm.rank(), parts_per_rank(c.opt));
  }
  /// --verify's one-part run on rank 0 sends no message (MPI_COMM_SELF).
  template <class C>
  typename State::Config verify_config(C&) const {
    return rank->config(MPI_COMM_SELF);
  }
  template <class C>
  std::string verified(const C& c) const {
    return std::to_string(c.comm.size()) + " rank(s) equal 1 " + M::kUnit + " bit for bit";
  }

  /// This node's devices in order; the rank takes the ones at its place among the node's
  /// ranks (M).
  template <class C>
  void devices(C& c) {
    rank.emplace(c.comm.session(), c.opt);
    c.devices = rank->take_devices();
  }

  /// The split over the ranks (one box each, ghost zones widened where the probe's rims are
  /// wider than the halos: the ranks then compare their partitions), each rank's box cut
  /// again into its parts (rank_partition); printed by rank 0 with every part's rank, node and
  /// device.
  template <class C>
  void partition(C& c) {
    const Problem<B>& problem = c.problem();
    const bool report = !c.opt.quiet && c.comm.root();
    c.comm.uniform([&] {
      PartitionRequest request = c.p.partition_request(c.comm.size(), c.opt.weights);
      if (!c.opt.strategy.empty()) request.strategy = parse_strategy(c.opt.strategy);
      const bool widened = c.opt.probe && c.probed.widen_ghosts(request.ghost_lo, request.ghost_hi,
                                                                problem.exchange_every,
                                                                c.p.shrink_lo, c.p.shrink_hi);
      c.partition = rank_partition(c.p, c.comm.size(), c.opt, widened ? &request : nullptr);
      if (widened && report)
        std::printf("probe: ghost widths raised to %s (the kernels' rims)\n",
                    probe_sides(problem.dims, request.ghost_lo, request.ghost_hi).c_str());
      if (c.opt.probe) probe_check_lines(c.probed, c.partition, c.p.grid);
    });
    mpi::check_same_partition(MPI_COMM_WORLD, c.partition);
    const int parts = parts_per_rank(c.opt);
    for (int r = 0; r < c.comm.size(); ++r) owned.push_back(rank_box(c.partition, r, parts));
    if (c.opt.quiet) return;
    std::vector<std::string> where;  // where each of this rank's parts runs
    for (int j = 0; j < parts; ++j) {
      const Part& q = c.partition.parts[static_cast<std::size_t>(c.comm.rank() * parts + j)];
      where.push_back(rank->describe(c.devices[static_cast<std::size_t>(q.device)]));
    }
    print_rank_partition(c.comm.session(), where, M::kUnit, c.partition, devices_per_rank(c.opt));
  }

  /// This rank's arrays (initial values of its box; --load by MPI-IO, collective), with
  /// --verify rank 0's copy of the whole grid's initial values gathered from the ranks' owned
  /// boxes, and its run in or out of core (run_rank); the figures combined over the ranks.
  template <class C>
  void run(C& c) {
    const Problem<B>& problem = c.problem();
    auto keep_initial = [&c, &problem, this](const std::vector<HostArray>& mine) {
      if (!c.opt.verify) return;
      for (int id = 0; id < problem.array_count; ++id) {
        const auto u = static_cast<std::size_t>(id);
        if (!mine[u].held) {  // made on the devices (the same arrays on every rank)
          c.initial.push_back(HostArray::absent(problem.arrays[id].name,
                                                problem.arrays[id].element_bytes, c.p.grid));
          continue;
        }
        c.initial.emplace_back(problem.arrays[id].name, problem.arrays[id].element_bytes,
                               c.comm.root() ? c.p.grid : Box());
        mpi::gather_owned(MPI_COMM_WORLD, mine[u], owned, c.initial[u]);
      }
    };
    c.stats = c.comm.combine(run_rank<B, M>(c.comm.session(), *rank, c.p, c.loop, c.devices,
                                            c.partition, c.opt, c.ooc, c.probed, c.host,
                                            c.ooc_stats, keep_initial, &*c.monitor, *c.io));
    c.out_of_core = c.ooc_stats.on;
    if (!c.out_of_core) host_copies_report(c.host, c.stats);  // rank 0's host copies
  }

  /// The report's lines of the ranks (M): how the halos travel, the devices of a rank.
  template <class C>
  void print_report(C& c) const {
    rank->print_report(c.comm.session(), c.ooc_stats.on);
  }

  /// --verify: the run's compared arrays gathered on rank 0 from the ranks' owned boxes.
  template <class C>
  const std::vector<HostArray>& results(C& c) {
    const Problem<B>& problem = c.problem();
    for (int id = 0; id < problem.array_count; ++id)
      whole.emplace_back(problem.arrays[id].name, problem.arrays[id].element_bytes,
                         c.comm.root() ? c.p.grid : Box());
    for (int id = 0; id < problem.array_count; ++id)
      if (problem.arrays[id].result())
        mpi::gather_owned(MPI_COMM_WORLD, c.host[static_cast<std::size_t>(id)], owned,
                          whole[static_cast<std::size_t>(id)]);
    return whole;
  }
};

}  // namespace stepgen::rt

#pragma once
/// \file
/// The communicator of one process: rt::SelfComm, a communicator of size 1 without MPI. The
/// main program (main.hpp) is written once against the calls below; mpi::WorldComm
/// (mpi_comm.hpp) makes the same calls over the ranks of MPI_COMM_WORLD. AMReX's
/// ParallelDescriptor is the model: a collective step of the pipeline (an error every rank
/// reports alike, a check rank 0 makes, the slowest rank's figures, the receivers' traces, a
/// file every rank writes a piece of) is one call, which on one process is the plain step.

#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/raw_files.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// One process as a communicator of size 1 (rank 0, the root).
class SelfComm {
 public:
  SelfComm(int& /*argc*/, char**& /*argv*/) {}
  SelfComm(const SelfComm&) = delete;
  SelfComm& operator=(const SelfComm&) = delete;

  int rank() const { return 0; }
  int size() const { return 1; }
  /// The process that prints the report and reruns --verify.
  bool root() const { return true; }
  /// Every rank started with rank 0's arguments: one process always is.
  void check_same_arguments(int /*argc*/, char** /*argv*/) const {}
  /// Runs `step`, whose errors every rank meets alike (one rank reports them): here, as thrown.
  template <class Step>
  void uniform(Step&& step) const {
    step();
  }
  /// Runs `check` on rank 0 alone, its error thrown on every rank: here, `check`.
  template <class Check>
  void rank0_check(Check&& check) const {
    check();
  }
  /// The receivers' trace files checked before the run (rank 0).
  void check_trace_files(const Records& records, std::int64_t first) const {
    rt::check_trace_files(records, first);
  }
  /// The monitor's reductions merged over the ranks at each end of step: nothing to merge.
  void share_monitor(Monitor& /*monitor*/) const {}
  /// The run's figures over the ranks (the slowest rank's times, every rank's volumes).
  RunStats combine(const RunStats& mine) const { return mine; }
  ooc::Stats combine(const ooc::Stats& mine) const { return mine; }
  /// The receivers' traces, each rank having sampled the points of `owned[rank]`.
  void write_records(const Records& records, const std::vector<Box>& /*owned*/) const {
    for (const Record& r : records) r.write();
  }
  /// Rank 0's `value` on every rank.
  int broadcast(int value) const { return value; }
  /// Array `a`'s cells `owned` written into the raw file `path` of the whole `grid`, every rank
  /// its piece: one process holds the grid and writes it atomically.
  void write_array(const HostArray& a, const Box& /*owned*/, const Box& /*grid*/,
                   const std::string& path) const {
    save_raw(a, path);
  }
  /// Runs the program's `body` (its exit status): 2 on a usage error, 1 on any other error,
  /// printed once as "PROGRAM: error: ...".
  template <class Body>
  int run(const char* program, Body&& body) const {
    return run_main(program, body);
  }
};

}  // namespace stepgen::rt

#pragma once
/// \file
/// The communicator of an MPI program: mpi::WorldComm, the ranks of MPI_COMM_WORLD making the
/// main program's collective steps (main.hpp), the calls rt::SelfComm (comm.hpp) makes on one
/// process. It owns the MPI session (MPI started and ended, rank, node, failure policy).

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces_mpi.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::mpi {

/// Every rank of MPI_COMM_WORLD.
class WorldComm {
 public:
  WorldComm(int& argc, char**& argv) : session_(argc, argv) {}
  WorldComm(const WorldComm&) = delete;
  WorldComm& operator=(const WorldComm&) = delete;

  Session& session() { return session_; }
  const Session& session() const { return session_; }
  int rank() const { return session_.rank(); }
  int size() const { return session_.size(); }
  /// Rank 0: it prints the report and reruns --verify.
  bool root() const { return session_.rank() == 0; }
  /// Collective: throws on a rank started with other arguments than rank 0.
  void check_same_arguments(int argc, char** argv) const {
    session_.check_same_arguments(argc, argv);
  }
  /// Runs `step`, which every rank runs alike (the same options, files and kernels): its error,
  /// the same on every rank, is reported once (UniformError, rank 0); a usage error stays one.
  template <class Step>
  void uniform(Step&& step) const {
    try {
      step();
    } catch (const rt::UsageError&) {
      throw;  // a bad command line: rank 0 reports it, every rank exits with status 2
    } catch (const UniformError&) {
      throw;
    } catch (const std::exception& e) {
      throw UniformError(e.what());
    }
  }
  /// Collective: `check` on rank 0 alone, its error thrown on every rank.
  template <class Check>
  void rank0_check(Check&& check) const {
    mpi::rank0_check(MPI_COMM_WORLD, std::forward<Check>(check));
  }
  void check_trace_files(const rt::Records& records, std::int64_t first) const {
    mpi::check_trace_files(MPI_COMM_WORLD, records, first);
  }
  /// The monitor's reductions merged over the ranks at each end of step (the same stop on
  /// every rank); no progress line (mpirun gives the ranks a pseudo-terminal even writing to a
  /// file).
  void share_monitor(rt::Monitor& monitor) const {
    monitor.progress_off();
    monitor.combine = [](std::vector<rt::Reduction>& r) {
      allreduce_reductions(MPI_COMM_WORLD, r);
    };
  }
  rt::RunStats combine(const rt::RunStats& mine) const {
    return mpi::combine(MPI_COMM_WORLD, mine);
  }
  rt::ooc::Stats combine(const rt::ooc::Stats& mine) const {
    return mpi::combine(MPI_COMM_WORLD, mine);
  }
  /// Collective: every rank's samples (of the points it owns) gathered, rank 0 writes the traces.
  void write_records(const rt::Records& records, const std::vector<rt::Box>& owned) const {
    mpi::write_records(MPI_COMM_WORLD, records, owned);
  }
  int broadcast(int value) const { return mpi::broadcast(MPI_COMM_WORLD, value); }
  /// Collective: every rank writes its owned box of `a` into the one file (MPI-IO).
  void write_array(const rt::HostArray& a, const rt::Box& owned, const rt::Box& grid,
                   const std::string& path) const {
    mpi::write_array(MPI_COMM_WORLD, a, owned, grid, path);
  }
  /// Runs the program's `body` under the session's failure policy (mpi::Session::run).
  template <class Body>
  int run(const char* program, Body&& body) {
    return session_.run(program, std::forward<Body>(body));
  }

 private:
  Session session_;
};

}  // namespace stepgen::mpi

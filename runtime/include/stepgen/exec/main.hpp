#pragma once
/// \file
/// The main program of every generated program, written once for both backends, one process
/// and MPI: one pipeline of named phases (options, devices, probe, partition, run, report,
/// verify, save), each a short function over a RunContext, driven through a communicator (`D::
/// Comm`: rt::SelfComm, comm.hpp, one process as a communicator of size 1; mpi::WorldComm,
/// mpi_comm.hpp, the ranks of MPI_COMM_WORLD). What a distribution `D` does its own way is a
/// member of D: rt::OneProcess<B> (one_process.hpp: every device found, the grid cut into parts
/// on them) and rt::Ranks<B, M> (ranks.hpp: a rank's devices, its box of the grid, messages
/// between ranks). The generated file fills a rt::Program with what is specific to its spec
/// (its tables, initial values, time step and time loop) and calls rt::main_program<D>. What
/// differs between backends comes from the backend `B` (engine_opencl.hpp, engine_cuda.hpp).

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/comm.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/io/program_io.hpp"
#include "stepgen/exec/io/run_files.hpp"
#include "stepgen/exec/main_host.hpp"
#include "stepgen/exec/one_process.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/probe_run.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/exec/tune.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// One run of a program, as its phases (run_program) fill it in order, on one process or one
/// MPI rank (`D`).
template <class B, class D>
struct RunContext {
  using Device = typename B::Device;
  using Comm = typename D::Comm;
  using Engine = typename D::Engine;
  using Loop = void (*)(Engine&, std::int64_t);
  RunContext(Comm& communicator, Program<B> program, Loop time_loop)
      : comm(communicator), p(std::move(program)), loop(time_loop) {}
  RunContext(const RunContext&) = delete;  // the monitor and io are referred to by address
  RunContext& operator=(const RunContext&) = delete;
  const Problem<B>& problem() const { return p.problem; }

  Comm& comm;
  Program<B> p;
  Loop loop;            ///< the generated time loop over the engine
  D dist;               ///< what the distribution keeps between its phases
  std::string backend;  ///< what p.info.backend points to (MPI: ", MPI" added)
  Options opt;          ///< options: the same on every rank
  ooc::Options ooc;
  IoOptions io_opt;
  std::optional<ProgramIo> io;     ///< options: outputs, checkpoints, the restart
  std::vector<bool> gathered;      ///< options: the arrays gathered at the end
  std::vector<Device> devices;     ///< devices: this process's; partition: one per local part
  Probed probed;                   ///< probe
  Partition partition;             ///< partition: every part, with its rank and device
  ooc::Stats ooc_stats;            ///< run
  bool out_of_core = false;        ///< run
  std::vector<HostArray> host;     ///< run: the arrays on the host (an MPI rank: its box's)
  std::vector<HostArray> initial;  ///< run: the initial values --verify reruns from (the root)
  std::optional<Monitor> monitor;  ///< run: reductions, until, monitor
  RunStats stats;                  ///< run
};

/// Phase options (every rank alike, one reporting the errors): the command line (false: --help
/// printed, nothing to run), then the files the run reads and writes, checked before any device
/// is touched (a save that cannot be made, a trace file, a value file the steps run past,
/// links, two outputs of one file, an input overwritten) and the checkpoint to restart from
/// (spec, grid, arrays).
template <class B, class D>
bool phase_options(RunContext<B, D>& c, int argc, char** argv) {
  const Problem<B>& problem = c.problem();
  c.backend = std::string(c.p.info.backend) + D::kBackend;
  c.p.info.backend = c.backend.c_str();
  for (int id = 0; id < problem.array_count; ++id)
    c.p.info.array_bytes.push_back(static_cast<std::size_t>(c.p.grid.volume()) *
                                   problem.arrays[id].element_bytes);
  c.comm.check_same_arguments(argc, argv);
  c.ooc.chunks = c.p.ooc.chunks;  // the spec's <out_of_core>: the flags' defaults
  c.ooc.steps_per_pass = c.p.ooc.steps_per_pass;
  c.ooc.region_sharing = c.p.ooc.region_sharing;
  c.ooc.device_memory = c.p.ooc.device_memory;
  bool run = true;
  c.comm.uniform([&] {
    ooc::take_options(argc, argv, c.ooc);
    no_band_sharing_with_records(c.p.records, c.ooc);
    take_io_options(argc, argv, c.io_opt);
    c.opt = parse_options(argc, argv, c.p.info);
    if (c.opt.help) {
      if (c.comm.root()) {
        print_usage(c.p.info, stdout);
        if (D::kOutOfCore) ooc::print_usage(stdout);
        print_io_usage(c.p.io, stdout);
        D::print_usage_note(stdout);
      }
      run = false;
      return;
    }
    if (c.opt.weights.empty()) c.opt.weights = c.p.weights;
    c.dist.check_options(c);
    c.io.emplace(make_program_io(c.p, c.io_opt, c.opt, c.dist.io_writers(c)));
    c.gathered = gathered_arrays(c.p, c.opt);
    check_saves(c.opt.saves, problem.arrays, problem.array_count);
    c.comm.rank0_check([&] { check_files(c.opt, c.p.info); });
    c.comm.check_trace_files(c.p.records, c.io->first_step());
    check_inject_values(c.p.injects, c.opt.steps);  // every rank: the same verdict
    c.comm.rank0_check(
        [&] { check_run_files(run_files(c.p, c.opt, c.io_opt, c.io->first_step())); });
  });
  return run;
}

/// Phase probe, on the first device of every rank (the same kernels: the same findings
/// everywhere): the kernel probe (halos checked, rims measured), then the <local size="auto"/>
/// shapes timed and the fastest kept (shapes given by --local / STEPGEN_LOCAL, checked here
/// also when nothing is tuned, kept; the results are the same bits whatever each rank chose).
template <class B, class D>
void phase_probe(RunContext<B, D>& c) {
  const Problem<B>& problem = c.problem();
  const bool report = !c.opt.quiet && c.comm.root();
  c.comm.uniform([&] {
    if (c.opt.probe) {
      c.probed = probe_kernels(problem, c.p.grid, c.devices.front(), c.p.kernels, c.p.kernel_count,
                               c.opt.steps);
      probe_report(c.probed, problem.dims, !report, stdout, B::kViewsFromProbe);
    }
    const std::vector<LocalOverride> local_given =
        local_overrides(c.opt.local, c.p.kernels, c.p.kernel_count, c.p.tuned, problem.dims);
    if (!c.p.tuned.empty()) {
      const std::vector<TuneResult> tuned =
          tune_locals(problem, c.p.grid, c.devices.front(), c.p.kernels, c.p.tuned,
                      c.p.tuned_launches, c.opt.tune, local_given);
      if (report) tune_report(tuned, c.p.tuned, problem.dims, stdout);
    }
  });
}

/// Phase partition: the grid cut into parts with ghost zones as wide as the probe's rims need,
/// placed on the devices and ranks, printed (D::partition); the outputs then write the cells
/// this process owns.
template <class B, class D>
void phase_partition(RunContext<B, D>& c) {
  c.dist.partition(c);
  c.io->set_owned(c.dist.owned_box(c));
}

/// Phase run: the receivers begun, the monitor (its values at the checkpoint's step when
/// restarting; each checkpoint records them; merged over the ranks), the host arrays and the
/// run in or out of core (D::run, which starts the outputs once it can go), then the traces up
/// to the step an `until` stopped the run at (before --verify's run, which samples the same
/// points again).
template <class B, class D>
void phase_run(RunContext<B, D>& c) {
  ProgramIo& io = *c.io;
  for (Record& r : c.p.records) r.begin(c.opt.steps, io.first_step());
  c.monitor.emplace(c.p.monitor, c.opt.steps, !c.opt.quiet && c.comm.root());
  Monitor& monitor = *c.monitor;
  monitor.restore(io.restored_reductions());
  io.set_reductions([&monitor] { return monitor.last_values(); });
  c.comm.share_monitor(monitor);
  c.dist.run(c);
  io.finish();
  for (Record& r : c.p.records) r.end(monitor.steps_run(c.opt.steps));
  c.comm.write_records(c.p.records, c.dist.owned);
}

/// Phase report, on the root: the run's figures (the slowest rank's times, every rank's
/// volumes), the checkpoints' cost, out of core its report or auto's choice, the distribution's
/// lines, the monitor's report (--verbose: the environment's settings), and its table (a restart's
/// NAME-from-STEP.csv).
template <class B, class D>
void phase_report(RunContext<B, D>& c) {
  if (c.ooc_stats.on) c.ooc_stats = c.comm.combine(c.ooc_stats);
  if (!c.comm.root()) return;
  if (!c.opt.quiet) {
    print_report(c.stats, stdout);
    c.io->print_report(stdout);
    if (c.ooc_stats.on)
      ooc::print_report(c.ooc_stats, stdout);
    else if (!c.ooc_stats.choice.empty())
      std::printf("%s\n", c.ooc_stats.choice.c_str());
    c.dist.print_report(c);
    c.monitor->print_report(stdout);
    if (c.opt.verbose) env_settings().print(stdout);
  }
  c.monitor->write_csv(c.io->first_step());
}

/// Phase verify (--verify): the root runs again on one device over the whole grid from the
/// same initial values (an `until` stops it at the same step; from a restart's step, without
/// output) and compares every compared array bit for bit with the run's (an MPI program
/// gathers them from the ranks' owned boxes). Returns 1 on every rank when one differs.
template <class B, class D>
int phase_verify(RunContext<B, D>& c) {
  if (!c.opt.verify) return 0;
  const Problem<B>& problem = c.problem();
  for (int id = 0; id < problem.array_count; ++id)
    if (problem.arrays[id].result() && !c.out_of_core)  // in core: gathered only if read after
      require_gathered(c.gathered, problem.arrays[id], static_cast<std::size_t>(id), "--verify");
  const std::vector<HostArray>& result = c.dist.results(c);
  int status = 0;
  if (c.comm.root()) {
    Partition whole = stepgen::rt::partition(c.p.partition_request(1, {}));
    typename D::Engine one(problem, c.devices, whole, c.initial, c.probed, {0, 1},
                           c.dist.verify_config(c));
    Monitor again(c.p.monitor, c.opt.steps, false);
    one.set_monitor(&again, c.p.reduce_boxes);
    one.set_steps(c.io->first_step(), nullptr);
    one.run(c.opt.steps, c.loop);
    for (int id = 0; id < problem.array_count; ++id) {
      if (!problem.arrays[id].result()) continue;
      const auto u = static_cast<std::size_t>(id);
      const std::string diff = problem.arrays[id].compare(result[u], c.initial[u]);
      if (!diff.empty()) {
        std::printf("verify: FAILED: %s\n", diff.c_str());
        status = 1;
      }
    }
    if (status == 0) std::printf("verify: OK: %s\n", c.dist.verified(c).c_str());
  }
  return c.comm.broadcast(status);
}

/// Phase save (--save): each array named, atomically (MPI: every rank writes its owned box into
/// the one file).
template <class B, class D>
void phase_save(RunContext<B, D>& c) {
  for (const auto& [name, path] : c.opt.saves)
    for (std::size_t id = 0; id < c.host.size(); ++id)
      if (c.host[id].name == name) {
        if (!c.out_of_core)  // in core, only the arrays read after the run are gathered
          require_gathered(c.gathered, c.problem().arrays[id], id, "--save " + name);
        c.comm.write_array(c.host[id], c.dist.owned_box(c), c.p.grid, path);
      }
}

/// The main program: its phases in order over one RunContext, on one process or on every rank
/// alike. Returns the exit status (1: --verify found a difference); errors are thrown (the
/// communicator's run() reports them).
template <class B, class D>
int run_program(typename D::Comm& comm, int argc, char** argv, Program<B> p,
                typename RunContext<B, D>::Loop loop) {
  RunContext<B, D> c(comm, std::move(p), loop);
  if (!phase_options(c, argc, argv)) return 0;
  c.dist.devices(c);  // phase devices
  phase_probe(c);
  phase_partition(c);
  phase_run(c);
  phase_report(c);
  const int status = phase_verify(c);
  phase_save(c);
  return status;
}

/// main() of a generated program of distribution `D` (rt::OneProcess<B>, rt::Ranks<B, M>), its
/// time loop `loop` over D's engine: the communicator started (MPI: MPI_Init) and ended, the
/// errors reported once.
template <class D, class B>
int main_program(int argc, char** argv, const Program<B>& p,
                 void (*loop)(typename D::Engine&, std::int64_t)) {
  typename D::Comm comm(argc, argv);
  return comm.run(p.info.name, [&] { return run_program<B, D>(comm, argc, argv, p, loop); });
}

}  // namespace stepgen::rt

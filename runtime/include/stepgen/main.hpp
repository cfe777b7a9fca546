#pragma once
/// \file
/// The main program of a generated single-process program, written once for both backends:
/// options, devices, the kernel probe, the partition, the host arrays (--load), the run in or
/// out of core (run_in_or_out_of_core), the report, --verify against one device, --save. The
/// generated file fills a rt::Program with what is specific to its spec (its tables, initial
/// values, time step and time loop) and calls rt::run_program. What differs between backends
/// comes from the backend `B` (engine_opencl.hpp, engine_cuda.hpp): discover,
/// auto_device_memory, host_allocator, print_usage_note, kTimingNote, and out of core
/// ooc_trapezoid_ok, ooc_pin, ooc_run, OocRunner::calibrate.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/engine.hpp"
#include "stepgen/init.hpp"
#include "stepgen/io/program_io.hpp"
#include "stepgen/io/run_files.hpp"
#include "stepgen/main_host.hpp"
#include "stepgen/main_ooc.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/placement.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/probe_run.hpp"
#include "stepgen/program.hpp"
#include "stepgen/traces.hpp"
#include "stepgen/tune.hpp"

namespace stepgen::rt {

/// The host link an in-core run's report shows (measure_link): a short copy each way between
/// page-locked memory and each of the devices of `parts` at once, of the bytes the largest of
/// those parts holds, up to 64 MiB. One process passes all its parts, an MPI rank its own.
template <class B>
LinkSpeed in_core_link(const Problem<B>& problem, std::vector<typename B::Device>& devices,
                       const std::vector<Part>& parts) {
  std::size_t bytes = 0;
  for (const Part& part : parts) {
    std::size_t part_bytes = 0;
    for (int id = 0; id < problem.array_count; ++id)
      part_bytes +=
          static_cast<std::size_t>(part.ghost.volume()) * problem.arrays[id].element_bytes;
    bytes = std::max(bytes, part_bytes);
  }
  HostMemory memory;
  return measure_link<B>(devices, parts.size(),
                         pageable_fallback(B::host_allocator(devices, true, false), memory),
                         std::min<std::size_t>(bytes, std::size_t{64} << 20));
}

/// Runs in core: the engine (engine.hpp) over every part, the outputs and checkpoints of `io`
/// after the steps where they are due, the monitor's reductions (nullptr: none).
template <class B>
RunStats run_in_core(const Program<B>& p, std::vector<typename B::Device>& devices,
                     const Partition& partition, std::vector<HostArray>& host, const Options& opt,
                     const Probed& probed, Monitor* monitor, ProgramIo* io) {
  const Problem<B>& problem = *p.problem;

  InCore<B> run(problem, devices, partition, host, probed);
  run.set_monitor(monitor, p.reduce_boxes);
  run.set_gathered(gathered_arrays(p, opt));  // hostmem: what is read after the run
  if (!opt.quiet) {
    run.print_exchange_paths();
    run.print_overlap();
  }
  // io: the first step, and after the steps where an output or checkpoint is due the arrays
  // it needs copied from the devices into the host arrays, then written (snapshots by a
  // writer thread: the run goes on).
  // In core the snapshots are written from the host copies (no copy in the time loop): the
  // next fetch, and the gather of an array an output writes, wait for the writer first.
  // ckptbg: so are the checkpoints (a writer thread, announced once complete), and on an
  // error the writers stop reading the host copies before they go away.
  struct ReleaseOnError {
    ProgramIo* io;
    ~ReleaseOnError() {
      if (io && std::uncaught_exceptions() > 0) io->release_host();
    }
  } release_on_error{io};
  if (io) {
    // The step-0 outputs (and the series' files, which replace a previous run's) once the
    // devices hold their buffers: a run refused before is refused before writing anything.
    io->start(host);
    io->borrow_host(true);
    run.set_steps(io->first_step(), [io](InCore<B>& r, std::int64_t step) {
      io->poll_writers();  // ckptbg
      if (!io->due(step + 1)) return;
      io->flush_writers();
      r.fetch(io->wanted(step + 1));
      io->end_of_step(step + 1, r.host());
    });
    const std::vector<bool> gathered = gathered_arrays(p, opt);
    bool shared = false;
    for (int id = 0; id < problem.array_count; ++id)
      shared = shared || (static_cast<std::size_t>(id) < gathered.size() &&
                          gathered[static_cast<std::size_t>(id)] &&
                          (io->outputs_array(id) || io->checkpoints_array(id)));  // ckptbg
    if (shared) run.set_before_gather([io] { io->flush_writers(); });
  }
  const RunStats stats = run.run(opt.steps, p.time_loop);
  // io: an `until` stopped the run: the outputs with last="true" get that state.
  if (io)
    io->write_at_stop(monitor && monitor->stopped(), run.first_step() + stats.steps,
                      [&run](const std::vector<bool>& want) -> const std::vector<HostArray>& {
                        run.fetch(want);
                        return run.host();
                      });
  if (io) io->borrow_host(false);
  return stats;
}

/// Runs in core or, when ooc::decide said so (`report.on`), out of core (run_out_of_core,
/// main_ooc.hpp). Out of core, `host` should be page-locked (direct mapping; `report.pinned`
/// says whether it is).
template <class B>
RunStats run_in_or_out_of_core(const Program<B>& p, std::vector<typename B::Device>& devices,
                               const Partition& partition, std::vector<HostArray>& host,
                               const Options& opt, const ooc::Options& ooc, const Probed& probed,
                               ooc::Stats& report, Monitor* monitor = nullptr,
                               ProgramIo* io = nullptr) {
  if (!report.on) return run_in_core(p, devices, partition, host, opt, probed, monitor, io);
  return run_out_of_core(p, devices, partition, host, opt, ooc, probed, report, monitor, io);
}

/// The partition, one line per part.
template <class Device>
void print_partition(const std::vector<Device>& devices, const Partition& partition) {
  std::printf("%s, grid %dx%dx%d (%s)\n", parts_text(partition).c_str(), partition.grid[0],
              partition.grid[1], partition.grid[2], partition.rationale.c_str());
  for (const Part& part : partition.parts) {
    // The device without its ", part N": the line names the part.
    const std::string on = devices[static_cast<std::size_t>(part.id)].device_label();
    std::printf("  part %d on %s: owned %s, buffer %s\n", part.id, on.c_str(),
                part.owned.str().c_str(), part.ghost.str().c_str());
  }
}

/// Out of core, a receiver samples each point from the chunk that computes it at that step:
/// the chunk's own planes. Band sharing moves a chunk's lowest own planes to the chunk below
/// for part of a pass, so a program with <record> runs without it (the same results, the
/// lower bands computed twice).
inline void no_band_sharing_with_records(const Records& records, ooc::Options& ooc) {
  if (records.count > 0 && ooc.band_sharing) {
    ooc.band_sharing = false;
    ooc.band_sharing_off = "the spec's <record> samples each point from its own chunk";
  }
}

/// The parts `--parts` asks for on `devices` devices (one per device without it); fewer parts
/// than devices is a usage error.
inline int parts_asked(const Options& opt, std::size_t devices) {
  const int n = static_cast<int>(devices);
  if (opt.parts == 0) return n;
  if (opt.parts < n)
    throw UsageError("--parts " + std::to_string(opt.parts) + " is fewer than the " +
                     std::to_string(n) + " devices found: give at least one part per device " +
                     "(or --devices " + std::to_string(opt.parts) + ")");
  return opt.parts;
}

/// One run of a one-process program, as its phases (run_program) fill it in order.
template <class B>
struct RunContext {
  using Device = typename B::Device;
  explicit RunContext(Program<B> program) : p(std::move(program)) {}
  RunContext(const RunContext&) = delete;  // the monitor and io are referred to by address
  RunContext& operator=(const RunContext&) = delete;
  const Problem<B>& problem() const { return *p.problem; }

  Program<B> p;
  Options opt;
  ooc::Options ooc;
  IoOptions io_opt;
  std::optional<ProgramIo> io;     ///< options: outputs, checkpoints, the restart
  std::vector<Device> devices;     ///< devices: one per device; partition: one per part
  std::size_t physical = 0;        ///< the devices found (before the parts' handles)
  Probed probed;                   ///< probe
  Partition partition;             ///< partition
  ooc::Stats ooc_stats;            ///< placement
  bool out_of_core = false;        ///< placement
  HostMemory memory;               ///< placement: how the host arrays were allocated
  std::vector<bool> held;          ///< placement: the arrays with a host copy (devinit)
  std::vector<bool> gathered;      ///< placement: the arrays gathered at the end (hostmem)
  std::vector<HostArray> host;     ///< placement: the arrays on the host
  std::vector<HostArray> initial;  ///< placement: the initial values --verify reruns from
  LinkSpeed link;                  ///< placement: the link in core, for the report
  std::optional<Monitor> monitor;  ///< run: reductions, until, monitor
  RunStats stats;                  ///< run
};

/// Phase options: the command line (false: --help printed, nothing to run), then the files the
/// run reads and writes, checked before any device is touched (a save that cannot be made, a
/// trace file, a value file the steps run past, links, two outputs of one file, an input
/// overwritten) and the checkpoint to restart from (spec, grid, arrays).
template <class B>
bool phase_options(RunContext<B>& c, int argc, char** argv) {
  const Problem<B>& problem = c.problem();
  for (int id = 0; id < problem.array_count; ++id)
    c.p.info.array_bytes.push_back(static_cast<std::size_t>(c.p.grid.volume()) *
                                   problem.arrays[id].element_bytes);
  c.ooc = c.p.ooc;
  ooc::take_options(argc, argv, c.ooc);
  no_band_sharing_with_records(c.p.records, c.ooc);
  take_io_options(argc, argv, c.io_opt);
  c.opt = parse_options(argc, argv, c.p.info);
  if (c.opt.help) {
    print_usage(c.p.info, stdout);
    ooc::print_usage(stdout);
    print_io_usage(c.p.io, stdout);
    B::print_usage_note(stdout);
    return false;
  }
  c.io.emplace(make_program_io(c.p, c.io_opt, c.opt));
  check_saves(c.opt.saves, problem.arrays, problem.array_count);
  check_files(c.opt, c.p.info);
  check_trace_files(c.p.records, c.io->first_step());
  check_inject_values(c.p.injects, c.opt.steps);
  check_run_files(run_files(c.p, c.opt, c.io_opt, c.io->first_step()));
  if (c.opt.weights.empty()) c.opt.weights = c.p.weights;
  return true;
}

/// Phase devices: the devices found (B::discover), one weight per device.
template <class B>
void phase_devices(RunContext<B>& c) {
  c.devices = B::discover(c.opt);
  c.physical = c.devices.size();
  if (!c.opt.weights.empty() && c.opt.weights.size() != c.devices.size())
    throw RunError("--weights gives " + std::to_string(c.opt.weights.size()) + " weights for " +
                   std::to_string(c.devices.size()) + " devices");
}

/// Phase probe, on the first device: the kernel probe (halos checked, rims measured), then the
/// <local size="auto"/> shapes timed and the fastest kept (shapes given by --local /
/// STEPGEN_LOCAL, checked here also when nothing is tuned, kept).
template <class B>
void phase_probe(RunContext<B>& c) {
  const Problem<B>& problem = c.problem();
  if (c.opt.probe) {
    c.probed = probe_kernels(problem, c.p.grid, c.devices.front(), c.p.kernels, c.p.kernel_count,
                             c.opt.steps);
    probe_report(c.probed, problem.dims, c.opt.quiet, stdout);
  }
  const std::vector<LocalOverride> local_given =
      local_overrides(c.opt.local, c.p.kernels, c.p.kernel_count, c.p.tuned, problem.dims);
  if (!c.p.tuned.empty()) {
    const std::vector<TuneResult> tuned =
        tune_locals(problem, c.p.grid, c.devices.front(), c.p.kernels, c.p.tuned,
                    c.p.tuned_launches, c.opt.tune, local_given);
    if (!c.opt.quiet) tune_report(tuned, c.p.tuned, problem.dims, stdout);
  }
}

/// Phase partition: the grid cut into parts (--parts, one per device by default; ghost zones
/// as wide as the probe's rims need: probe_partition), placed on the devices (placement.hpp),
/// a device handle per part where parts share a device (B::part_devices).
template <class B>
void phase_partition(RunContext<B>& c) {
  const int parts = parts_asked(c.opt, c.devices.size());
  PartitionRequest request = c.p.partition_request(
      parts, part_weights(c.opt.weights, static_cast<int>(c.devices.size()), parts));
  request.parts_of_devices = parts > static_cast<int>(c.devices.size());
  if (!c.opt.strategy.empty()) request.strategy = parse_strategy(c.opt.strategy);
  c.partition = probe_partition(c.probed, request, c.problem().exchange_every, c.p.ghost_lo,
                                c.p.ghost_hi, c.opt.quiet);
  probe_check_lines(c.probed, c.partition, c.p.grid);
  place_parts(c.partition, static_cast<int>(c.devices.size()));
  if (shares_devices(c.partition)) c.devices = B::part_devices(std::move(c.devices), c.partition);
  if (!c.opt.quiet) print_partition(c.devices, c.partition);
}

/// Phase placement: in or out of core (ooc::decide on the device budget), the host arrays (page-
/// locked unless --pinned off: out of core the chunks are copied straight from them and a
/// refusal is an error; in core a refusal leaves them pageable, which the report says; in core
/// only the arrays that need one get a host copy, devinit), --load, the restart's values, the
/// probe's reads again on them (probe_data.hpp), --verify's copy of them, `--out-of-core auto`'s
/// choice on data that fits (oocauto), and the link in core for the report.
template <class B>
void phase_placement(RunContext<B>& c) {
  const Problem<B>& problem = c.problem();
  const Index budget = table_budget(
      c.ooc.device_memory > 0 ? c.ooc.device_memory : B::auto_device_memory(c.devices), problem);
  c.out_of_core =
      ooc::decide(budget, c.partition, problem.arrays, problem.array_count, c.ooc, c.ooc_stats);
  if (c.out_of_core && shares_devices(c.partition))
    throw RunError("--parts " + std::to_string(c.partition.parts.size()) + " on " +
                   std::to_string(c.physical) + " device(s): a device with several parts runs " +
                   "them in core only, and this run goes out of core (" + c.ooc_stats.reason +
                   "); leave --parts out (one part per device), or run in core " +
                   "(--out-of-core off) with the parts' arrays within the device memory");
  c.ooc_stats.pinned = c.out_of_core && c.ooc.pinned;
  const HostAllocator alloc =
      c.out_of_core
          ? B::host_allocator(c.devices, c.ooc.pinned, true)
          : pageable_fallback(B::host_allocator(c.devices, c.ooc.pinned, false), c.memory);
  c.held = c.out_of_core ? std::vector<bool>{} : host_copies(c.p, c.opt, *c.io);
  c.gathered = gathered_arrays(c.p, c.opt);
  c.host = c.p.make_host_arrays(c.p.grid, alloc, c.held);
  for (const auto& [name, path] : c.opt.loads)
    for (HostArray& a : c.host)
      if (a.name == name) load_raw(a, path);
  copy_loaded(problem.arrays, problem.array_count, c.host, c.opt.loads);  // copy(X) of a loaded X
  c.io->restart(c.host);
  if (c.opt.probe)
    if (const std::string e =
            probe_initial_data(problem, c.p.grid, c.devices.front(), c.p.kernels, c.p.kernel_count,
                               c.host, c.probed, c.io->first_step());
        !e.empty())
      throw RunError(e);
  if (c.opt.verify) c.initial = c.host;  // the one extra copy --verify costs
  if (ooc_auto_choice(c.p, c.devices, c.partition, c.host, c.opt, c.ooc, c.probed, c.ooc_stats,
                      c.held, c.gathered)) {
    c.out_of_core = true;
    c.ooc_stats.pinned = c.ooc.pinned;
    complete_host_arrays(c.p, c.host, B::host_allocator(c.devices, c.ooc.pinned, true));
  }
  // A short copy each way from page-locked memory, of the bytes a device holds up to 64 MiB
  // (skipped under --quiet, which prints no report).
  if (!c.out_of_core && !c.opt.quiet)
    c.link = in_core_link<B>(problem, c.devices, c.partition.parts);
}

/// Phase run: the receivers begun, the monitor (its values at the checkpoint's step when
/// restarting; each checkpoint records them), out of core the steps per pass checked before the
/// plan's work, the run in or out of core (which starts the outputs once it can go), then the
/// traces up to the step an `until` stopped the run at (before --verify's run, which samples
/// the same points again).
template <class B>
void phase_run(RunContext<B>& c) {
  ProgramIo& io = *c.io;
  for (Record& r : c.p.records) r.begin(c.opt.steps, io.first_step());
  c.monitor.emplace(c.p.monitor_spec(), c.opt.steps, !c.opt.quiet);
  Monitor& monitor = *c.monitor;
  monitor.restore(io.restored_reductions());
  io.set_reductions([&monitor] { return monitor.last_values(); });
  if (c.out_of_core) {
    ooc::Request given;
    given.steps_per_pass = c.ooc.steps_per_pass;
    ooc_pass_rules(c.p, given);
    ooc::check_steps_per_pass(given);
  }
  c.stats = run_in_or_out_of_core(c.p, c.devices, c.partition, c.host, c.opt, c.ooc, c.probed,
                                  c.ooc_stats, &monitor, &io);
  io.finish();
  for (Record& r : c.p.records) r.end(monitor.steps_run(c.opt.steps));
  for (const Record& r : c.p.records) r.write();
}

/// Phase report: the run's figures (in core with the host memory, the link and the host
/// copies), the checkpoints' cost, out of core its report or auto's choice, the monitor's
/// report, and its table (a restart's NAME-from-STEP.csv).
template <class B>
void phase_report(RunContext<B>& c) {
  RunStats& stats = c.stats;
  if (!c.out_of_core) {
    stats.host_memory = c.memory.text();
    stats.link_h2d = c.link.h2d;
    stats.link_d2h = c.link.d2h;
    host_copies_report(c.host, stats);                     // devinit
    if (stats.staging_bytes < 0) stats.staging_bytes = 0;  // hostmem: none on one device
  }
  if (!c.opt.quiet) {
    print_report(stats, stdout);
    c.io->print_report(stdout);
    if (c.ooc_stats.on)
      ooc::print_report(c.ooc_stats, stdout);
    else if (!c.ooc_stats.choice.empty())
      std::printf("%s\n", c.ooc_stats.choice.c_str());
    if (B::kTimingNote) std::printf("%s\n", B::kTimingNote);
    c.monitor->print_report(stdout);
  }
  c.monitor->write_csv(c.io->first_step());
}

/// Phase verify (--verify): the run again on one device over the whole grid from the same
/// initial values (an `until` stops it at the same step; from a restart's step, without
/// output), every compared array bit for bit. Returns 1 when one differs.
template <class B>
int phase_verify(RunContext<B>& c) {
  if (!c.opt.verify) return 0;
  const Problem<B>& problem = c.problem();
  Partition whole = stepgen::rt::partition(c.p.partition_request(1, {}));
  InCore<B> one(problem, c.devices, whole, c.initial, c.probed);
  Monitor again(c.p.monitor_spec(), c.opt.steps, false);
  one.set_monitor(&again, c.p.reduce_boxes);
  one.set_steps(c.io->first_step(), nullptr);
  one.run(c.opt.steps, c.p.time_loop);
  int status = 0;
  for (int id = 0; id < problem.array_count; ++id) {
    if (!problem.arrays[id].compared) continue;
    const auto u = static_cast<std::size_t>(id);
    if (!c.out_of_core) require_gathered(c.gathered, problem.arrays[id], u, "--verify");
    const std::string diff = problem.arrays[id].compare(c.host[u], c.initial[u]);
    if (!diff.empty()) {
      std::printf("verify: FAILED: %s\n", diff.c_str());
      status = 1;
    }
  }
  if (status == 0)
    std::printf("verify: OK: %s equal 1 device bit for bit\n", parts_text(c.partition).c_str());
  return status;
}

/// Phase save (--save): each array named, atomically.
template <class B>
void phase_save(RunContext<B>& c) {
  for (const auto& [name, path] : c.opt.saves)
    for (std::size_t id = 0; id < c.host.size(); ++id)
      if (c.host[id].name == name) {
        if (!c.out_of_core)
          require_gathered(c.gathered, c.problem().arrays[id], id, "--save " + name);
        save_raw(c.host[id], path);
      }
}

/// The main program of one process: its phases in order (options, devices, probe, partition,
/// placement in or out of core, run, report, verify, save) over one RunContext. Returns the
/// exit status (1: --verify found a difference); errors are thrown (rt::run_main prints them).
template <class B>
int run_program(int argc, char** argv, Program<B> p) {
  RunContext<B> c(std::move(p));
  if (!phase_options(c, argc, argv)) return 0;
  phase_devices(c);
  phase_probe(c);
  phase_partition(c);
  phase_placement(c);
  phase_run(c);
  phase_report(c);
  const int status = phase_verify(c);
  phase_save(c);
  return status;
}

}  // namespace stepgen::rt

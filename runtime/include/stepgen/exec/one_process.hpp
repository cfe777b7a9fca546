#pragma once
/// \file
/// One process's distribution for the main program (main.hpp): rt::OneProcess<B>, the phases
/// that differ from an MPI rank's (ranks.hpp) on a communicator of size 1 (rt::SelfComm):
/// every device found, the grid cut into parts on them, the host arrays over the whole grid,
/// the run in core (the engine over every part, exchanges between the devices) or out of core
/// (run_out_of_core, main_ooc.hpp).

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/comm.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/io/program_io.hpp"
#include "stepgen/exec/main_host.hpp"
#include "stepgen/exec/main_ooc.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/probe_run.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/partition.hpp"
#include "stepgen/plan/placement.hpp"

namespace stepgen::rt {

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

/// One process: every device it finds, every part of the grid (the main program's phases call
/// these members with their RunContext `c`, main.hpp).
template <class B>
struct OneProcess {
  using Comm = SelfComm;
  using State = typename B::State;
  using Engine = InCore<B, State>;
  static constexpr const char* kBackend = "";  ///< added to the report's backend
  static constexpr bool kOutOfCore = true;     ///< --help lists the out-of-core options
  static void print_usage_note(std::FILE* out) { B::print_usage_note(out); }

  std::size_t physical = 0;  ///< the devices found (before the parts' handles)
  HostMemory memory;         ///< how the host arrays were allocated
  std::vector<bool> held;    ///< the arrays with a host copy
  LinkSpeed link;            ///< the link in core, for the report
  std::vector<Box> owned;    ///< every rank's owned box: none (the records are this process's)

  /// After the command line: nothing to check beyond it (the weights are checked with the
  /// devices).
  template <class C>
  void check_options(C&) {}
  /// How the outputs and checkpoints are written: the defaults (this process holds the grid).
  template <class C>
  IoWriters io_writers(C&) {
    return {};
  }
  template <class C>
  Box owned_box(const C& c) const {
    return c.p.grid;
  }
  /// The settings of the engine --verify reruns on one device.
  template <class C>
  typename State::Config verify_config(C&) const {
    return {};
  }
  /// What --verify found equal.
  template <class C>
  std::string verified(const C& c) const {
    return parts_text(c.partition) + " equal 1 device bit for bit";
  }

  /// The devices found (B::discover), one weight per device.
  template <class C>
  void devices(C& c) {
    c.devices = B::discover(c.opt);
    physical = c.devices.size();
    if (!c.opt.weights.empty() && c.opt.weights.size() != c.devices.size())
      throw RunError("--weights gives " + std::to_string(c.opt.weights.size()) + " weights for " +
                     std::to_string(c.devices.size()) + " devices");
  }

  /// The grid cut into parts (--parts, one per device by default; ghost zones as wide as the
  /// probe's rims need: probe_partition), placed on the devices (placement.hpp), a device
  /// handle per part where parts share a device (B::part_devices).
  template <class C>
  void partition(C& c) {
    const int parts = parts_asked(c.opt, c.devices.size());
    PartitionRequest request = c.p.partition_request(
        parts, part_weights(c.opt.weights, static_cast<int>(c.devices.size()), parts));
    request.parts_of_devices = parts > static_cast<int>(c.devices.size());
    if (!c.opt.strategy.empty()) request.strategy = parse_strategy(c.opt.strategy);
    c.partition = probe_partition(c.probed, request, c.problem().exchange_every, c.p.shrink_lo,
                                  c.p.shrink_hi, c.opt.quiet);
    probe_check_lines(c.probed, c.partition, c.p.grid);
    place_parts(c.partition, static_cast<int>(c.devices.size()));
    if (shares_devices(c.partition)) c.devices = B::part_devices(std::move(c.devices), c.partition);
    if (!c.opt.quiet) print_partition(c.devices, c.partition);
  }

  /// In or out of core (ooc::decide on the device budget), the host arrays (page-locked unless
  /// --pinned off: out of core the chunks are copied straight from them and a refusal is an
  /// error; in core a refusal leaves them pageable, which the report says; in core only the
  /// arrays that need one get a host copy), --load, the restart's values, the probe's
  /// reads again on them (probe_data.hpp), --verify's copy of them, `--out-of-core auto`'s
  /// choice on data that fits, and the link in core for the report.
  template <class C>
  void place(C& c) {
    const Problem<B>& problem = c.problem();
    const Index budget = table_budget(
        c.ooc.device_memory > 0 ? c.ooc.device_memory : B::auto_device_memory(c.devices), problem);
    c.out_of_core =
        ooc::decide(budget, c.partition, problem.arrays, problem.array_count, c.ooc, c.ooc_stats);
    if (c.out_of_core && shares_devices(c.partition))
      throw RunError("--parts " + std::to_string(c.partition.parts.size()) + " on " +
                     std::to_string(physical) + " device(s): a device with several parts runs " +
                     "them in core only, and this run goes out of core (" + c.ooc_stats.reason +
                     "); leave --parts out (one part per device), or run in core " +
                     "(--out-of-core off) with the parts' arrays within the device memory");
    c.ooc_stats.pinned = c.out_of_core && c.ooc.pinned;
    const HostAllocator alloc =
        c.out_of_core
            ? B::host_allocator(c.devices, c.ooc.pinned, true)
            : pageable_fallback(B::host_allocator(c.devices, c.ooc.pinned, false), memory);
    held = c.out_of_core ? std::vector<bool>{} : host_copies(c.p, c.opt, *c.io);
    c.host = c.p.make_host_arrays(c.p.grid, alloc, held);
    for (const auto& [name, path] : c.opt.loads)
      for (HostArray& a : c.host)
        if (a.name == name) load_raw(a, path);
    copy_loaded(problem.arrays, problem.array_count, c.host, c.opt.loads);  // copy(X) of loaded X
    c.io->restart(c.host);
    if (c.opt.probe)
      if (const std::string e =
              probe_initial_data(problem, c.p.grid, c.devices.front(), c.p.kernels,
                                 c.p.kernel_count, c.host, c.probed, c.io->first_step());
          !e.empty())
        throw RunError(e);
    if (c.opt.verify) c.initial = c.host;  // the one extra copy --verify costs
    if (ooc_auto_choice(c.p, c.devices, c.partition, c.host, c.opt, c.ooc, c.probed, c.ooc_stats,
                        held, c.gathered)) {
      c.out_of_core = true;
      c.ooc_stats.pinned = c.ooc.pinned;
      complete_host_arrays(c.p, c.host, B::host_allocator(c.devices, c.ooc.pinned, true));
    }
    // A short copy each way from page-locked memory, of the bytes a device holds up to 64 MiB
    // (skipped under --quiet, which prints no report).
    if (!c.out_of_core && !c.opt.quiet)
      link = in_core_link<B>(problem, c.devices, c.partition.parts);
  }

  /// The placement (place), out of core the steps per pass checked before the plan's work, the
  /// run in core (run_in_core) or out of core (run_out_of_core, which starts the outputs once
  /// it can go); in core the report's host memory, link and host copies.
  template <class C>
  void run(C& c) {
    place(c);
    if (c.out_of_core) {
      ooc::Request given;
      given.steps_per_pass = c.ooc.steps_per_pass;
      ooc_pass_rules(c.p, given);
      ooc::check_steps_per_pass(given);
      c.stats = run_out_of_core(c.p, c.devices, c.partition, c.host, c.opt, c.ooc, c.probed,
                                c.ooc_stats, &*c.monitor, &*c.io);
      return;
    }
    c.stats = run_in_core<B, State>(c.p, c.loop, c.devices, c.partition, c.host, c.opt, c.probed,
                                    &*c.monitor, &*c.io);
    c.stats.host_memory = memory.text();
    c.stats.link_h2d = link.h2d;
    c.stats.link_d2h = link.d2h;
    host_copies_report(c.host, c.stats);                       // the report's host copies line
    if (c.stats.staging_bytes < 0) c.stats.staging_bytes = 0;  // none on one device
  }

  /// The report's lines of this distribution: the backend's timing note.
  template <class C>
  void print_report(C&) const {
    if (B::kTimingNote) std::printf("%s\n", B::kTimingNote);
  }

  /// --verify: the arrays the run ended with (this process holds them over the grid).
  template <class C>
  const std::vector<HostArray>& results(C& c) {
    return c.host;
  }
};

}  // namespace stepgen::rt

#pragma once
/// \file
/// The main program of a generated single-process program, written once for both backends:
/// options, devices, the kernel probe, the partition, the host arrays (--load), the run in or
/// out of core, the report, --verify against one device, --save. The generated file fills a
/// rt::Program with what is specific to its spec (its tables, initial values, time loop and
/// out-of-core driver) and calls rt::run_program. What differs between backends comes from the
/// backend `B` (engine_opencl.hpp, engine_cuda.hpp): discover, auto_device_memory,
/// host_allocator, print_usage_note, kTimingNote.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "stepgen/engine.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/program.hpp"

namespace stepgen::rt {

/// Compares an array after the run with the one-device run's (rt::compare_arrays<T>).
using CompareArrays = std::string (*)(const HostArray& got, const HostArray& want);

/// What the main program needs from the generated file.
template <class B>
struct Program {
  using Device = typename B::Device;
  ProgramInfo info;  ///< name, spec, backend and the spec's defaults (array_bytes: filled here)
  const Problem<B>* problem = nullptr;
  Box grid;
  const KernelEntry<B>* kernels = nullptr;  ///< the kernels as the probe sees them
  std::size_t kernel_count = 0;
  /// How the grid is split over `devices` with `weights`.
  PartitionRequest (*partition_request)(int devices, const std::vector<double>& weights) = nullptr;
  std::vector<double> weights;  ///< the spec's device weights (empty: equal)
  Vec3 ghost_lo, ghost_hi;      ///< the ghost widths the halos need (before the probe's rims)
  ooc::Options ooc;             ///< the spec's <out_of_core> settings: the flags' defaults
  /// The arrays over the whole grid with their initial values, in memory from `alloc`.
  std::vector<HostArray> (*make_host_arrays)(const HostAllocator& alloc) = nullptr;
  void (*time_loop)(InCore<B>& run, std::int64_t steps) = nullptr;
  /// Runs in core or, when ooc::decide said so (`report.on`), out of core.
  RunStats (*run)(std::vector<Device>& devices, const Partition& partition,
                  std::vector<HostArray>& host, const Options& opt, const ooc::Options& ooc,
                  const Probed& probed, ooc::Stats& report) = nullptr;
  const CompareArrays* compare = nullptr;  ///< one per array
};

/// The partition, one line per part.
template <class Device>
void print_partition(const std::vector<Device>& devices, const Partition& partition) {
  std::printf("%zu device(s), grid %dx%dx%d (%s)\n", partition.parts.size(), partition.grid[0],
              partition.grid[1], partition.grid[2], partition.rationale.c_str());
  for (const Part& part : partition.parts)
    std::printf("  part %d on %s: owned %s, buffer %s\n", part.id,
                devices[static_cast<std::size_t>(part.id)].label().c_str(),
                part.owned.str().c_str(), part.ghost.str().c_str());
}

/// The main program: options, devices, partition, run, verify, save, report. Returns the exit
/// status (1: --verify found a difference); errors are thrown (rt::run_main prints them).
template <class B>
int run_program(int argc, char** argv, Program<B> p) {
  const Problem<B>& problem = *p.problem;
  for (int id = 0; id < problem.array_count; ++id)
    p.info.array_bytes.push_back(static_cast<std::size_t>(p.grid.volume()) *
                                 problem.arrays[id].element_bytes);
  ooc::Options ooc = p.ooc;
  ooc::take_options(argc, argv, ooc);
  Options opt = parse_options(argc, argv, p.info);
  if (opt.help) {
    print_usage(p.info, stdout);
    ooc::print_usage(stdout);
    B::print_usage_note(stdout);
    return 0;
  }
  check_files(opt, p.info);  // before the devices and the run: a save that cannot be made
  if (opt.weights.empty()) opt.weights = p.weights;

  std::vector<typename B::Device> devices = B::discover(opt);
  if (!opt.weights.empty() && opt.weights.size() != devices.size())
    throw RunError("--weights gives " + std::to_string(opt.weights.size()) + " weights for " +
                   std::to_string(devices.size()) + " devices");
  // The kernel probe, on the first device: halos checked, rims measured.
  Probed probed;
  if (opt.probe) {
    probed = probe_kernels(problem, p.grid, devices.front(), p.kernels, p.kernel_count);
    probe_report(probed, problem.dims, opt.quiet, stdout);
  }
  PartitionRequest request = p.partition_request(static_cast<int>(devices.size()), opt.weights);
  if (!opt.strategy.empty()) request.strategy = parse_strategy(opt.strategy);
  // Kernels whose rim is wider than their halos: ghost zones wide enough that every owned
  // cell is computed.
  if (probed.widen_ghosts(request.ghost_lo, request.ghost_hi, problem.exchange_every, p.ghost_lo,
                          p.ghost_hi) &&
      !opt.quiet)
    std::printf("probe: ghost widths raised to %s (the kernels' rims)\n",
                probe_sides(problem.dims, request.ghost_lo, request.ghost_hi).c_str());
  Partition partition = stepgen::rt::partition(request);
  if (!opt.quiet) print_partition(devices, partition);

  // The host arrays page-locked unless --pinned off (B::host_allocator). Out of core, the
  // chunks are copied straight from and to them (direct mapping); a refusal is an error there.
  // In core, uploads and downloads run at the link's speed; when the system refuses, the
  // arrays are pageable instead and the report says so.
  ooc::Stats ooc_stats;
  const Index budget = ooc.device_memory > 0 ? ooc.device_memory : B::auto_device_memory(devices);
  const bool out_of_core =
      ooc::decide(budget, partition, problem.arrays, problem.array_count, ooc, ooc_stats);
  ooc_stats.pinned = out_of_core && ooc.pinned;
  HostMemory memory;
  const HostAllocator alloc =
      out_of_core ? B::host_allocator(devices, ooc.pinned, true)
                  : pageable_fallback(B::host_allocator(devices, ooc.pinned, false), memory);
  std::vector<HostArray> host = p.make_host_arrays(alloc);
  for (const auto& [name, path] : opt.loads)
    for (HostArray& a : host)
      if (a.name == name) load_raw(a, path);
  // --verify keeps the initial values for its one-device run (the one extra copy it costs).
  std::vector<HostArray> initial;
  if (opt.verify) initial = host;

  // The link in core, for the report: a short copy each way from page-locked memory, of the
  // bytes a device holds up to 64 MiB (skipped under --quiet, which prints no report).
  LinkSpeed link;
  if (!out_of_core && !opt.quiet) {
    std::size_t bytes = 0;
    for (const Part& part : partition.parts) {
      std::size_t part_bytes = 0;
      for (int id = 0; id < problem.array_count; ++id)
        part_bytes +=
            static_cast<std::size_t>(part.ghost.volume()) * problem.arrays[id].element_bytes;
      bytes = std::max(bytes, part_bytes);
    }
    HostMemory probe_memory;
    link = measure_link<B>(devices, partition.parts.size(),
                           pageable_fallback(B::host_allocator(devices, true, false), probe_memory),
                           std::min<std::size_t>(bytes, std::size_t{64} << 20));
  }

  RunStats stats = p.run(devices, partition, host, opt, ooc, probed, ooc_stats);
  if (!out_of_core) {
    stats.host_memory = memory.text();
    stats.link_h2d = link.h2d;
    stats.link_d2h = link.d2h;
  }
  if (!opt.quiet) {
    print_report(stats, stdout);
    if (ooc_stats.on) ooc::print_report(ooc_stats, stdout);
    if (B::kTimingNote) std::printf("%s\n", B::kTimingNote);
  }

  int status = 0;
  if (opt.verify) {
    Partition whole = stepgen::rt::partition(p.partition_request(1, {}));
    InCore<B>(problem, devices, whole, initial, probed).run(opt.steps, p.time_loop);
    for (int id = 0; id < problem.array_count; ++id) {
      if (!problem.arrays[id].compared) continue;
      const auto u = static_cast<std::size_t>(id);
      const std::string diff = p.compare[id](host[u], initial[u]);
      if (!diff.empty()) {
        std::printf("verify: FAILED: %s\n", diff.c_str());
        status = 1;
      }
    }
    if (status == 0)
      std::printf("verify: OK: %zu device(s) equal 1 device bit for bit\n", partition.parts.size());
  }
  for (const auto& [name, path] : opt.saves)
    for (const HostArray& a : host)
      if (a.name == name) save_raw(a, path);
  return status;
}

}  // namespace stepgen::rt

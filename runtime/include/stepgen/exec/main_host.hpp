#pragma once
/// \file
/// What a generated program's main is given and the host side of its run, for one process and
/// MPI alike: rt::Program (what the generated file fills), the device budget its tables leave,
/// the ProgramIo of a run, which arrays get a host copy and which are gathered at the
/// end, and the files a run writes and must not replace (run_files).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/description.hpp"
#include "stepgen/description/init.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/io/program_io.hpp"
#include "stepgen/exec/io/run_files.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/probe_run.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/exec/tune.hpp"
#include "stepgen/plan/partition.hpp"
#include "stepgen/plan/placement.hpp"

namespace stepgen::rt {

/// The device memory budget left to the arrays when every device holds the spec's tables
/// (tables.hpp) whole: `budget` less their bytes; an error when they take all of it.
template <class B>
Index table_budget(Index budget, const Problem<B>& problem) {
  const auto tables = static_cast<Index>(problem.table_bytes);
  if (tables > 0 && tables >= budget)
    throw RunError("the tables need " + human_bytes(static_cast<double>(tables)) +
                   " on every device but the device memory budget is " +
                   human_bytes(static_cast<double>(budget)) +
                   ": nothing is left for the arrays (--device-memory SIZE)");
  return budget - tables;
}

/// The ProgramIo of a run (io/program_io.hpp): a checkpoint holds every array but the scratch
/// arrays (written, not saved: their values are not kept between steps).
template <class B>
ProgramIo make_program_io(const Program<B>& p, const IoOptions& io_opt, const Options& opt,
                          IoWriters writers = {}) {
  std::vector<std::string> names;
  std::vector<bool> state;
  for (int id = 0; id < p.problem.array_count; ++id) {
    const ArrayInfo& a = p.problem.arrays[id];
    names.push_back(a.name);
    state.push_back(!a.scratch());
  }
  return ProgramIo(p.io, io_opt, names, p.io.types, state, p.grid, opt.steps, opt.quiet,
                   std::move(writers));
}

/// `random(seed)` over the box `a.box` of the grid `grid`: the values the whole-grid fill gives
/// those cells (init.hpp's generator depends only on the seed and the global linear index).
template <typename T>
void fill_random(HostArray& a, const Box& grid, std::uint64_t seed) {
  if (!a.held) return;  // made on the devices
  T* out = a.as<T>();
  const Box& b = a.box;
  const auto gx = static_cast<std::uint64_t>(grid.extent(0));
  const auto gy = static_cast<std::uint64_t>(grid.extent(1));
  for (Index z = b.lo[2]; z < b.hi[2]; ++z)
    for (Index y = b.lo[1]; y < b.hi[1]; ++y) {
      const std::uint64_t row = (static_cast<std::uint64_t>(z - grid.lo[2]) * gy +
                                 static_cast<std::uint64_t>(y - grid.lo[1])) *
                                gx;
      for (Index x = b.lo[0]; x < b.hi[0]; ++x)
        *out++ = random_value<T>(seed, row + static_cast<std::uint64_t>(x - grid.lo[0]));
    }
}

// --- which arrays have a host copy (docs/decisions/0003-initial-values-made-on-the-devices.md) ---

/// The arrays of an in-core run that need a host copy (the others are made on the devices,
/// never uploaded nor gathered): those whose initial values come from the host (file()), the
/// ones --load reads, --save writes, --verify compares (the arrays kernels write), outputs and
/// checkpoints write or a restart reads (ProgramIo::host_arrays_used); a copy(X) with a host
/// copy makes X have one too (the host fill copies X's). The exchanges between the process's
/// devices need none: they stage through buffers of their own boxes (rt::ExchangeStaging;
/// docs/decisions/0004-in-core-host-memory.md). STEPGEN_HOST_COPIES=all gives every array one
/// (to compare memory or bits with a run where every array has one). Out of core, the host
/// arrays are the store: call it in core only.
template <class B>
std::vector<bool> host_copies(const Program<B>& p, const Options& opt, const ProgramIo& io) {
  const Problem<B>& problem = p.problem;
  const auto n = static_cast<std::size_t>(problem.array_count);
  std::vector<bool> held = io.host_arrays_used();
  held.resize(n, false);
  if (env_settings().host_copies_all) return std::vector<bool>(n, true);
  auto named = [&](const std::string& name) {
    for (std::size_t id = 0; id < n; ++id)
      if (name == problem.arrays[id].name) held[id] = true;
  };
  for (const auto& [name, path] : opt.loads) named(name);
  for (const auto& [name, path] : opt.saves) named(name);
  for (std::size_t id = 0; id < n; ++id) {
    const ArrayInfo& a = problem.arrays[id];
    if (!a.init.on_device()) held[id] = true;
    if (opt.verify && a.result()) held[id] = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t id = 0; id < n; ++id) {
      const ArrayInit& init = problem.arrays[id].init;
      if (!held[id] || init.kind != ArrayInit::kCopy) continue;
      const auto src = static_cast<std::size_t>(init.source);
      if (!held[src]) held[src] = changed = true;
    }
  }
  return held;
}

/// Gives each array of `targets` (by id) whose initial value is copy(X) the values of X's host
/// copy, sources first (a copy of a copy after its source's); arrays without a host copy are
/// left alone. `host[X]` is held wherever a target is (host_copies' closure), over the same box.
inline void copy_initial(const ArrayInfo* arrays, int count, std::vector<HostArray>& host,
                         std::vector<bool> targets) {
  const auto n = static_cast<std::size_t>(count);
  targets.resize(n, false);
  for (std::size_t id = 0; id < n; ++id)
    targets[id] = targets[id] && host[id].held && arrays[id].init.kind == ArrayInit::kCopy;
  for (std::size_t round = 0; round <= n; ++round) {
    bool left = false;
    for (std::size_t id = 0; id < n; ++id) {
      if (!targets[id]) continue;
      const auto src = static_cast<std::size_t>(arrays[id].init.source);
      if (targets[src]) {  // its source's values first
        left = true;
        continue;
      }
      host[src].require("copy()'s initial values");
      host[id].bytes = host[src].bytes;  // the same size: into the target's own memory
      targets[id] = false;
    }
    if (!left) return;
  }
  throw RunError("internal error: copy() initial values form a cycle");
}

/// --load NAME=PATH gives NAME its initial values: an array whose initial value is copy(NAME),
/// or a copy of such a copy, copies the loaded values (docs/spec.md), as the devices make it
/// without a host copy (make_on_devices copies NAME's buffer once uploaded). The host fill
/// (make_host_arrays) copied the spec's values before the files were read: the held copies
/// not loaded themselves are copied again, after the loads. Without this, --load A with
/// B = copy(A) gave B the spec's values or A's loaded ones depending on whether B had a host
/// copy (--save B, --verify, out of core, MPI), and so different results.
inline void copy_loaded(const ArrayInfo* arrays, int count, std::vector<HostArray>& host,
                        const std::vector<std::pair<std::string, std::string>>& loads) {
  if (loads.empty()) return;
  std::vector<bool> targets(static_cast<std::size_t>(count), true);
  for (const auto& [name, path] : loads)
    for (std::size_t id = 0; id < targets.size(); ++id)
      if (arrays[id].name == name) targets[id] = false;  // its own file wins
  copy_initial(arrays, count, host, targets);
}

/// Array `id` (`a`) over `box` for the generated make_host_arrays: with a host copy from
/// `alloc` when `held[id]` (or `held` is empty), else HostArray::absent.
inline HostArray host_array(const ArrayInfo& a, const Box& box, const HostAllocator& alloc,
                            const std::vector<bool>& held, std::size_t id) {
  if (held.empty() || held[id]) return HostArray(a.name, a.element_bytes, box, alloc);
  return HostArray::absent(a.name, a.element_bytes, box);
}

// --- which arrays are gathered at the end of an in-core run ------------------------------------

/// The arrays an in-core run gathers at its end (InCore::set_gathered): those read from the
/// host arrays after it, among the arrays kernels write (an unwritten array's host copy holds
/// its values): --save's, and with --verify every array it compares. Nothing else reads them
/// after the run: outputs and checkpoints copy what they write during it (InCore::fetch), and
/// reductions and traces read the devices. A file() initial value or --load gives an array a
/// host copy for its upload only: it is not gathered unless saved or verified.
template <class B>
std::vector<bool> gathered_arrays(const Program<B>& p, const Options& opt) {
  const Problem<B>& problem = p.problem;
  std::vector<bool> want(static_cast<std::size_t>(problem.array_count), false);
  for (int id = 0; id < problem.array_count; ++id) {
    const ArrayInfo& a = problem.arrays[id];
    if (!a.result()) continue;
    if (opt.verify) want[static_cast<std::size_t>(id)] = true;
    for (const auto& [name, path] : opt.saves)
      if (name == a.name) want[static_cast<std::size_t>(id)] = true;
  }
  return want;
}

/// Throws an internal error when `what` reads the host copy of array `a` (id `id`) after an
/// in-core run that did not gather it (`gathered`: gathered_arrays): a written array's host
/// bytes then hold its initial values, not its last ones.
inline void require_gathered(const std::vector<bool>& gathered, const ArrayInfo& a, std::size_t id,
                             const std::string& what) {
  if (a.result() && !gathered[id])
    throw RunError("internal error: " + what + " reads array " + a.name +
                   " after the run, which did not gather it (its last values are on the devices)");
}
// --- end: which arrays are gathered at the end of an in-core run -------------------------------

/// The report's figures on host copies (RunStats::device_made, host_array_bytes).
inline void host_copies_report(const std::vector<HostArray>& host, RunStats& stats) {
  std::size_t bytes = 0;
  std::string made;
  for (const HostArray& a : host) {
    if (a.held) {
      bytes += a.bytes.size();
      continue;
    }
    if (!made.empty()) made += ", ";
    made += a.name;
  }
  stats.device_made = made;
  stats.host_array_bytes = static_cast<long long>(bytes);
}
// --- end: which arrays have a host copy --------------------------------------------------------

/// Every file this run writes and the files it must not replace (io/run_files.hpp, checked by
/// check_run_files before the run): each --save, the checkpoint (--checkpoint or the spec's),
/// the spec's outputs (an HDF5 series and its XDMF file, of a run restarted at `first` its
/// NAME-from-STEP files; a raw output's STEM_ARRAY_STEP.raw files), the monitor's table and
/// the traces; kept: the file() initial values and tables (`--spec-dir`), --load's files and,
/// restarting, the series and traces of the runs this one resumes.
template <class B>
RunFiles run_files(const Program<B>& p, const Options& opt, const IoOptions& io_opt,
                   std::int64_t first) {
  RunFiles f;
  for (const auto& [name, path] : opt.saves)
    f.writes.push_back({"--save " + name + "=" + path, path});
  const std::string checkpoint =
      io_opt.checkpoint.empty() ? std::string(p.io.checkpoint_file) : io_opt.checkpoint;
  const std::int64_t every =
      io_opt.checkpoint_every >= 0 ? io_opt.checkpoint_every : p.io.checkpoint_every;
  if (every > 0)
    f.writes.push_back({io_opt.checkpoint.empty()
                            ? "the spec's <checkpoint> file '" + checkpoint + "'"
                            : "--checkpoint " + checkpoint,
                        checkpoint});
  for (const OutputSpec& o : p.io.outputs) {
    const std::string spec = o.file;
    if (!o.hdf5()) {
      f.raw.push_back({"the <output> '" + spec + "'", spec, {}});
      for (int id : o.arrays) f.raw.back().arrays.push_back(p.problem.arrays[id].name);
      continue;
    }
    const std::string file = first > 0 ? restarted_output_path(spec, first) : spec;
    f.writes.push_back({"the <output> file '" + file + "'", file});
    add_earlier_segments(f.kept, "the series '" + spec + "'", spec, first);
    if (p.grid.dims < 2) continue;  // no XDMF file for a 1D grid (io/snapshot.hpp)
    f.writes.push_back({"the XDMF file of <output> '" + file + "'", io::xdmf_path_for(file)});
    add_earlier_segments(f.kept, "the XDMF file '" + io::xdmf_path_for(spec) + "'",
                         io::xdmf_path_for(spec), first);
  }
  if (p.monitor.every > 0 && *p.monitor.file) {
    const std::string file = Monitor::csv_path(p.monitor, first);
    f.writes.push_back({"the <monitor> file '" + file + "'", file});
    add_earlier_segments(f.kept, "the monitor's table '" + std::string(p.monitor.file) + "'",
                         p.monitor.file, first);
  }
  for (const Record& r : p.records) {
    f.writes.push_back({"the record file '" + r.path(first) + "'", r.path(first)});
    add_earlier_segments(f.kept, "the trace '" + r.file + "'", r.file, first);
  }
  for (const std::string& in : p.io.inputs)
    f.kept.push_back({"the spec's input file() '" + in + "'", spec_file(p.io.spec_dir, in)});
  for (const auto& [name, path] : opt.loads) f.kept.push_back({"--load " + name + "'s file", path});
  return f;
}

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

/// Runs in core, one process or an MPI rank: the engine (engine.hpp) over the `local` parts
/// with the exchange state `S` (B::State between the devices of one process; an MPI rank's,
/// `config` its settings), `loop` its time loop, the outputs and checkpoints of `io` after the
/// steps where they are due (an MPI rank's written by the ranks together), the monitor's
/// reductions (nullptr: none). `root`: the process that prints the engine's lines.
template <class B, class S>
RunStats run_in_core(const Program<B>& p, void (*loop)(InCore<B, S>&, std::int64_t),
                     std::vector<typename B::Device>& devices, const Partition& partition,
                     std::vector<HostArray>& host, const Options& opt, const Probed& probed,
                     Monitor* monitor, ProgramIo* io, Local local = {},
                     const typename S::Config& config = {}, bool root = true) {
  const Problem<B>& problem = p.problem;

  InCore<B, S> run(problem, devices, partition, host, probed, local, config);
  run.set_monitor(monitor, p.reduce_boxes);
  run.set_gathered(gathered_arrays(p, opt));  // what is read after the run
  if (!opt.quiet && root) {
    run.print_exchange_paths();
    run.print_overlap();
  }
  // io: the first step, and after the steps where an output or checkpoint is due the arrays
  // it needs copied from the devices into the host arrays, then written (snapshots by a
  // writer thread: the run goes on).
  // In core the snapshots are written from the host copies (no copy in the time loop): the
  // next fetch, and the gather of an array an output writes, wait for the writer first.
  // So are the checkpoints (a writer thread, announced once complete), and on an
  // error the writers stop reading the host copies before they go away. (An MPI rank's
  // outputs and checkpoints are collective writes, with no writer thread: these are no-ops.)
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
    run.set_steps(io->first_step(), [io](InCore<B, S>& r, std::int64_t step) {
      io->poll_writers();  // background checkpoints completed: announced
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
                          (io->outputs_array(id) || io->checkpoints_array(id)));
    if (shared) run.set_before_gather([io] { io->flush_writers(); });
  }
  const RunStats stats = run.run(opt.steps, loop);
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

}  // namespace stepgen::rt

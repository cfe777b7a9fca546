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
#include <string>
#include <utility>
#include <vector>

#include "stepgen/engine.hpp"
#include "stepgen/init.hpp"
#include "stepgen/io/program_io.hpp"
#include "stepgen/io/run_files.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/probe_run.hpp"
#include "stepgen/program.hpp"
#include "stepgen/traces.hpp"
#include "stepgen/tune.hpp"

namespace stepgen::rt {

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
  /// The arrays over `box` with the values the whole grid has there (the whole grid, or an MPI
  /// rank's box), in memory from `alloc`.
  /// `held[id]` false: array id gets no host copy (HostArray::absent: the engine makes it on
  /// the devices, devinit); empty: every array gets one.
  std::vector<HostArray> (*make_host_arrays)(const Box& box, const HostAllocator& alloc,
                                             const std::vector<bool>& held) = nullptr;
  /// The generated time loop, in core (it runs time_step once per step).
  void (*time_loop)(InCore<B>& run, std::int64_t steps) = nullptr;
  /// The generated time step on one chunk, out of core.
  void (*time_step)(ChunkRun<B>& run, std::int64_t step) = nullptr;
  bool ooc_trapezoid = false;  ///< the kernels can compute only the planes still read
  /// Kernels whose spec says <local size="auto"/> (tune.hpp), and the launch table whose
  /// work-group sizes follow their choice (nullptr: none).
  std::vector<TunedKernel> tuned;
  std::vector<ProbeLaunch>* tuned_launches = nullptr;
  Records records;  ///< the receivers (<record>: traces.hpp), written after the run
  Injects injects;  ///< the sources (<inject>)
  /// The spec's reductions, until and <monitor> (monitor.hpp; nullptr: none) and each
  /// reduction's reduce_box.
  const MonitorSpec* monitor = nullptr;
  const ReduceBox<B>* reduce_boxes = nullptr;

  MonitorSpec monitor_spec() const { return monitor ? *monitor : MonitorSpec{}; }
  IoSpec io;  ///< outputs, checkpoint, spec hash and folder (io/program_io.hpp)
};

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
  for (int id = 0; id < p.problem->array_count; ++id) {
    const ArrayInfo& a = p.problem->arrays[id];
    names.push_back(a.name);
    state.push_back(!(a.written && !a.compared));
  }
  return ProgramIo(p.io, io_opt, names, p.io.types, state, p.grid, opt.steps, opt.quiet,
                   std::move(writers));
}

/// `random(seed)` over the box `a.box` of the grid `grid`: the values the whole-grid fill gives
/// those cells (init.hpp's generator depends only on the seed and the global linear index).
template <typename T>
void fill_random(HostArray& a, const Box& grid, std::uint64_t seed) {
  if (!a.held) return;  // devinit: made on the devices
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

// --- devinit: which arrays have a host copy ----------------------------------------------------

/// The arrays of an in-core run that need a host copy (the others are made on the devices,
/// never uploaded nor gathered): those whose initial values come from the host (file()), the
/// ones --load reads, --save writes, --verify compares (the arrays kernels write), outputs and
/// checkpoints write or a restart reads (ProgramIo::host_arrays_used); a copy(X) with a host
/// copy makes X have one too (the host fill copies X's). The exchanges between the process's
/// devices need none: they stage through buffers of their own boxes (hostmem:
/// InCore::stage_exchanges). STEPGEN_HOST_COPIES=all gives every array one (as before devinit:
/// comparisons). Out of core, the host arrays are the store: call it in core only.
template <class B>
std::vector<bool> host_copies(const Program<B>& p, const Options& opt, const ProgramIo& io) {
  const Problem<B>& problem = *p.problem;
  const auto n = static_cast<std::size_t>(problem.array_count);
  std::vector<bool> held = io.host_arrays_used();
  held.resize(n, false);
  const char* env = std::getenv("STEPGEN_HOST_COPIES");
  if (env && std::string(env) == "all") return std::vector<bool>(n, true);
  auto named = [&](const std::string& name) {
    for (std::size_t id = 0; id < n; ++id)
      if (name == problem.arrays[id].name) held[id] = true;
  };
  for (const auto& [name, path] : opt.loads) named(name);
  for (const auto& [name, path] : opt.saves) named(name);
  for (std::size_t id = 0; id < n; ++id) {
    const ArrayInfo& a = problem.arrays[id];
    if (!a.init.on_device()) held[id] = true;
    if (opt.verify && a.compared) held[id] = true;
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

// --- hostmem: which arrays are gathered at the end of an in-core run ---------------------------

/// The arrays an in-core run gathers at its end (InCore::set_gathered): those read from the
/// host arrays after it, among the arrays kernels write (an unwritten array's host copy holds
/// its values): --save's, and with --verify every array it compares. Nothing else reads them
/// after the run: outputs and checkpoints copy what they write during it (InCore::fetch), and
/// reductions and traces read the devices. A file() initial value or --load gives an array a
/// host copy for its upload only: it is not gathered unless saved or verified.
template <class B>
std::vector<bool> gathered_arrays(const Program<B>& p, const Options& opt) {
  const Problem<B>& problem = *p.problem;
  std::vector<bool> want(static_cast<std::size_t>(problem.array_count), false);
  for (int id = 0; id < problem.array_count; ++id) {
    const ArrayInfo& a = problem.arrays[id];
    if (!a.compared) continue;
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
  if (a.compared && !gathered[id])
    throw RunError("internal error: " + what + " reads array " + a.name +
                   " after the run, which did not gather it (its last values are on the devices)");
}
// --- end hostmem -------------------------------------------------------------------------------

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
// --- end devinit -------------------------------------------------------------------------------

/// The one-step functions the out-of-core runners call (B::OocStep): one time step on one
/// chunk, `time_step` run over a ChunkRun with the kernels `kernels(part)` built for the part's
/// device.
template <class B, class KernelsOf>
typename B::OocStep chunk_steps(const ChunkRule& rule,
                                void (*time_step)(ChunkRun<B>&, std::int64_t), KernelsOf kernels) {
  return [&rule, time_step, kernels](const typename B::Device& d, std::size_t part,
                                     std::vector<typename B::Buffer>& buf, const Part& chunk,
                                     std::int64_t step, std::int64_t remaining) {
    ChunkRun<B> run(rule, d, kernels(part), buf, chunk, remaining);
    time_step(run, step);
  };
}

/// Out of core, the steps per pass must divide this (0: any): the greatest common divisor of
/// the reductions' `every` (the steps where they are computed end passes).
inline Index ooc_every(const MonitorSpec& m) {
  Index g = 0;
  for (int i = 0; i < m.count; ++i) g = std::gcd(g, static_cast<Index>(m.reductions[i].every));
  return g;
}

/// Out of core: the chunks' reductions go to `monitor` (nullptr: none), and the end of each
/// step's work runs at the pass boundaries (share.pass_end). Attached after the calibration,
/// whose probe steps must not count.
template <class B>
void attach_monitor(ChunkRule& rule, ooc::Share& share, Monitor* monitor,
                    const ReduceBox<B>* reduce_boxes, const std::int64_t* offset = nullptr) {
  if (!monitor) return;
  rule.monitor = monitor;
  rule.reduce_boxes = reinterpret_cast<const void*>(reduce_boxes);
  // The runner numbers a segment's steps from 0: `*offset` is the segment's first step (io).
  share.pass_end = [monitor, offset](std::int64_t first, std::int64_t last) {
    const std::int64_t o = offset ? *offset : 0;
    for (std::int64_t s = first + o; s <= last + o; ++s)
      if (!monitor->end_of_step(s)) return false;
    return true;
  };
}

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
    if (!o.hdf5) {
      f.raw.push_back({"the <output> '" + spec + "'", spec, {}});
      for (int id : o.arrays) f.raw.back().arrays.push_back(p.problem->arrays[id].name);
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
  if (p.monitor_spec().every > 0 && *p.monitor_spec().file) {
    const std::string file = Monitor::csv_path(p.monitor_spec(), first);
    f.writes.push_back({"the <monitor> file '" + file + "'", file});
    add_earlier_segments(f.kept, "the monitor's table '" + std::string(p.monitor_spec().file) + "'",
                         p.monitor_spec().file, first);
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

/// Why the program cannot run out of core at all ("" = it can): a launch whose work-items
/// compute several cells along the slowest dimension (its global size extent(X, d) / c), which
/// chunks of any plane count would cut.
template <class B>
std::string ooc_obstacle(const Program<B>& p) {
  const Problem<B>& problem = *p.problem;
  if (!problem.launches) return {};
  for (const ProbeLaunch& l : *problem.launches)
    if (l.cells > 1 && static_cast<std::size_t>(l.kernel) < p.kernel_count)
      return "kernel '" + std::string(p.kernels[static_cast<std::size_t>(l.kernel)].probe.name) +
             "' computes " + std::to_string(l.cells) +
             " cells per work-item along the slowest dimension (its global size divides the "
             "extent by " +
             std::to_string(l.cells) +
             "), and out of core cuts that dimension into chunks of any plane count";
  return {};
}

/// Out of core, where passes must end (`request.every`: the steps per pass divide it) and
/// whether every pass ends with a barrier: at the reductions' steps, and with reductions, at
/// the outputs' and checkpoints' steps too (io cuts the run into segments there; a reduction's
/// step must not fall inside a segment's pass).
template <class B>
void ooc_pass_rules(const Program<B>& p, ooc::Request& request) {
  if (const std::string why = ooc_obstacle(p); !why.empty())
    throw PlanError("this program cannot run out of core: " + why);
  request.every = ooc_every(p.monitor_spec());
  if (p.monitor_spec().count > 0) {
    // The message names every interval that takes part (a user test read "do not divide 1,
    // the steps between reductions" where the reductions' gcd was 5 and the outputs' made 1).
    std::string reductions, others;
    for (int i = 0; i < p.monitor_spec().count; ++i)
      reductions += (i ? ", " : "") + std::to_string(p.monitor_spec().reductions[i].every);
    for (const OutputSpec& o : p.io.outputs) {
      request.every = std::gcd(request.every, static_cast<Index>(o.every));
      others += ", an output's " + std::to_string(o.every);
    }
    if (p.io.checkpoint_every > 0) {
      request.every = std::gcd(request.every, static_cast<Index>(p.io.checkpoint_every));
      others += ", the checkpoint's " + std::to_string(p.io.checkpoint_every);
    }
    if (!others.empty())
      request.every_why = "the greatest common divisor of the steps between reductions (" +
                          reductions + ")" + others +
                          " (with reductions, passes end at outputs and checkpoints too)";
  }
  request.pass_barriers = p.monitor_spec().count > 0 || p.monitor_spec().every > 0;
}

/// Out of core with <boundary> frames: how each dimension's frame is kept through a pass
/// (ooc::frame_request, ooc/frames.hpp: images, refilled on the chunks, or one step a pass).
template <class B>
void ooc_frames(const Problem<B>& problem, ooc::Request& request) {
  if (problem.boundary_count == 0) return;
  if (problem.frame_read_after_write)
    for (std::size_t d = 0; d < 3; ++d)
      request.frame_read_after_write[d] = problem.frame_read_after_write[d];
  ooc::frame_request(problem.boundaries, problem.boundary_count, request);
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

// --- oocauto: `--out-of-core auto` on data that fits (ooc/choice.hpp) ---
/// `--out-of-core auto`'s comparison, once `sc` is the best out-of-core plan on the measured
/// `link`: the in-core run predicted from the same figures, moving the arrays with a host copy
/// up (`held` by array id, empty: all) and the gathered ones down (`gathered`, empty: all), and
/// the faster taken (ooc::choose_auto). One process and MPI ranks alike (mpi_main.hpp).
template <class B>
ooc::AutoChoice ooc_auto_compare(const Problem<B>& problem, const Partition& partition,
                                 const std::vector<ooc::Array>& arrays, const ooc::Schedule& sc,
                                 const ooc::Link& link, std::int64_t steps, bool overlap,
                                 const std::vector<bool>& held, const std::vector<bool>& gathered) {
  const double out_s = ooc::predict(sc, link, steps, overlap);
  // What the in-core run moves: the arrays with a host copy up, the gathered ones down.
  std::vector<std::string> up, down;
  for (int id = 0; id < problem.array_count; ++id) {
    const auto u = static_cast<std::size_t>(id);
    if (held.empty() || (u < held.size() && held[u])) up.push_back(problem.arrays[id].name);
    if (gathered.empty() || (u < gathered.size() && gathered[u]))
      down.push_back(problem.arrays[id].name);
  }
  const double in_s = ooc::predict_in_core(
      ooc::in_core_work(partition, arrays, &up, &down), up.size(),
      static_cast<std::size_t>(std::count_if(arrays.begin(), arrays.end(),
                                             [&down](const ooc::Array& a) {
                                               return a.written &&
                                                      std::find(down.begin(), down.end(), a.name) !=
                                                          down.end();
                                             })),
      link, steps);
  return ooc::choose_auto(in_s, out_s, sc, steps);
}

/// Why `--out-of-core auto` given does not compare for this program (in core then), or "":
/// the spec's <boundary> frames or <record> receivers.
template <class B>
std::string ooc_auto_not_compared(const Program<B>& p) {
  if (const std::string why = ooc_obstacle(p); !why.empty()) return why;
  if (p.problem->boundary_count > 0)
    return "the spec's <boundary> frames: compared only without them (out of core composes them "
           "on the host at every pass boundary)";
  if (p.records.count > 0)  // the calibration's probe step would sample them before begin()
    return "the spec's <record> receivers: compared only without them";
  return "";
}

/// oocauto: gives the arrays `want` selects host copies over `box` in `arrays` (from `alloc`)
/// with their initial values: zero, value and random made on the host with the devices' bits,
/// copy(X) copied from X's copy in `arrays` (made here, or there before: --load's values
/// included). The other arrays are left as they are.
template <class B>
void add_initial_host_arrays(const Program<B>& p, const Box& box, const HostAllocator& alloc,
                             const std::vector<bool>& want, std::vector<HostArray>& arrays) {
  const Problem<B>& problem = *p.problem;
  const auto n = static_cast<std::size_t>(problem.array_count);
  std::vector<bool> made(n, false), copies(n, false);
  bool any = false;
  for (std::size_t id = 0; id < n; ++id) {
    any = any || want[id];
    copies[id] = want[id] && problem.arrays[id].init.kind == ArrayInit::kCopy;
    made[id] = want[id] && !copies[id];
  }
  if (!any) return;
  std::vector<HostArray> fresh = p.make_host_arrays(box, alloc, made);
  for (std::size_t id = 0; id < n; ++id) {
    if (made[id]) arrays[id] = std::move(fresh[id]);
    if (copies[id]) arrays[id] = HostArray(fresh[id].name, fresh[id].element_bytes, box, alloc);
  }
  copy_initial(problem.arrays, problem.array_count, arrays, copies);
}

/// oocauto: the host arrays of one calibration probe over `box` (ooc::Runner::Sample), held as an
/// out-of-core run's (the backend's out-of-core allocator, then B::ooc_pin), with the values the
/// arrays have there: copied from their host copies (after --load and --restart), made as the
/// devices make them for the arrays without one. `--out-of-core auto` so measures the link and
/// the kernels before, and without, every array's host copy (complete_host_arrays makes them
/// once out of core is taken): wave2k 512^3's start-up took 4.58 s and 2.64 GiB when the
/// calibration needed them all, against 0.45 s and 173 MiB in core without the flag.
template <class B>
typename B::OocRunner::Sample calibration_sample(const Program<B>& p,
                                                 const std::vector<typename B::Device>& devices,
                                                 const ooc::Options& ooc,
                                                 const std::vector<HostArray>& host) {
  return [&p, &devices, &ooc, &host](const Box& box) {
    const Problem<B>& problem = *p.problem;
    const auto n = static_cast<std::size_t>(problem.array_count);
    const HostAllocator alloc = B::host_allocator(devices, ooc.pinned, true);
    using Pinned = decltype(B::ooc_pin(std::declval<std::vector<HostArray>&>(), ooc,
                                       std::declval<ooc::Stats&>()));
    struct Held {
      std::vector<HostArray> arrays;
      Pinned pinned;  // released before the arrays
    };
    auto held = std::make_shared<Held>();
    // Copied from their host copies where they have one (after --load and --restart), the
    // others made over the box (add_initial_host_arrays).
    held->arrays.resize(n);
    std::vector<bool> missing(n, false);
    for (std::size_t id = 0; id < n; ++id) {
      missing[id] = !host[id].held;
      if (missing[id]) continue;
      held->arrays[id] = HostArray(host[id].name, host[id].element_bytes, box, alloc);
      ooc::copy_host_box(host[id], held->arrays[id], box);
    }
    add_initial_host_arrays(p, box, alloc, missing, held->arrays);
    ooc::Stats unused;
    held->pinned = B::ooc_pin(held->arrays, ooc, unused);
    return std::shared_ptr<std::vector<HostArray>>(held, &held->arrays);
  };
}

/// oocauto: `--out-of-core auto` took out of core after the in-core start-up made the host
/// copies an in-core run needs (host_copies): the other arrays get one now over the grid, out of
/// core the host arrays being the store (add_initial_host_arrays). `alloc`: the backend's
/// out-of-core allocator.
template <class B>
void complete_host_arrays(const Program<B>& p, std::vector<HostArray>& host,
                          const HostAllocator& alloc) {
  std::vector<bool> missing(host.size(), false);
  for (std::size_t id = 0; id < host.size(); ++id) missing[id] = !host[id].held;
  add_initial_host_arrays(p, p.grid, alloc, missing, host);
}

/// Given `--out-of-core auto` (ooc.compare) on data that fits: the start-up calibration of
/// out of core (the link, the kernels' seconds per cell-step with the shapes tune_locals kept,
/// the per-command latency) on samples of the arrays over the probes' boxes
/// (calibration_sample), the best out-of-core plan (ooc::choose) and the in-core run predicted
/// from the same figures; the faster is taken. Fills the report's choice line and, out of core,
/// its reason and link (the run's plan reuses the calibration). Returns whether the run goes
/// out of core; the caller then makes the host copies still missing (complete_host_arrays).
/// Without the flag, or out of core already, it changes nothing.
/// `host`: the host copies an in-core run needs (host_copies), and `held` (by array id) which
/// they are; `gathered`: the arrays it gathers (gathered_arrays). The prediction of the
/// in-core run moves those only.
template <class B>
bool ooc_auto_choice(const Program<B>& p, std::vector<typename B::Device>& devices,
                     const Partition& partition, std::vector<HostArray>& host, const Options& opt,
                     const ooc::Options& ooc, const Probed& probed, ooc::Stats& report,
                     const std::vector<bool>& held = {}, const std::vector<bool>& gathered = {}) {
  if (report.on || ooc.mode != ooc::Options::Mode::kAuto || !ooc.compare) return report.on;
  const Problem<B>& problem = *p.problem;
  if (const std::string why = ooc_auto_not_compared(p); !why.empty()) {
    report.choice = ooc::in_core_because(why).line;
    return false;
  }
  if (opt.steps <= 0) return false;
  ooc::Request request = ooc::request(p.grid, problem.dims, partition, p.ghost_lo, p.ghost_hi,
                                      problem.arrays, problem.array_count, ooc, probed, true);
  request.launches =
      problem.launches ? static_cast<int>(problem.launches->size()) : 1;  // the model's latency
  request.trapezoid = p.ooc_trapezoid && ooc.trapezoid &&
                      B::ooc_trapezoid_ok(probed, *problem.launches, problem.dims, true);
  ooc_pass_rules(p, request);
  std::vector<typename B::Kernels> kernels;
  for (const typename B::Device& d : devices)
    kernels.push_back(problem.build_kernels ? problem.build_kernels(d) : typename B::Kernels{});
  ChunkRule rule{request.shrink_lo, request.shrink_hi, request.trapezoid, &probed, problem.dims};
  const typename B::OocStep step = chunk_steps<B>(
      rule, p.time_step,
      [&kernels](std::size_t part) -> const typename B::Kernels& { return kernels[part]; });
  ooc::Request probe = request;
  probe.chunks = 1;
  probe.steps_per_pass = 1;
  ooc::Link link;
  ooc::Schedule sc;
  try {
    link = B::OocRunner::calibrate(devices, ooc::schedule(probe), host, step,
                                   std::min<Index>(report.budget / 4, ooc::kAutoProbeBytes),
                                   calibration_sample(p, devices, ooc, host));
    sc = ooc::choose(request, report.budget, link, opt.steps, ooc.overlap);
  } catch (const PlanError& e) {
    report.choice = ooc::in_core_because(std::string("no out-of-core plan: ") + e.what()).line;
    return false;
  }
  const ooc::AutoChoice c = ooc_auto_compare(problem, partition, request.arrays, sc, link,
                                             opt.steps, ooc.overlap, held, gathered);
  report.choice = c.line;
  if (!c.out_of_core) return false;
  report.on = true;
  report.reason = c.reason;
  report.link = link;
  return true;
}
// --- end oocauto ---

/// Runs in core or, when ooc::decide said so (`report.on`), out of core: the same time
/// step on chunks of planes streamed through the devices (ooc.hpp), the schedule chosen by
/// the model with the link and kernel speed measured on a probe chunk. Out of core, `host`
/// should be page-locked (direct mapping; `report.pinned` says whether it is).
template <class B>
RunStats run_in_or_out_of_core(const Program<B>& p, std::vector<typename B::Device>& devices,
                               const Partition& partition, std::vector<HostArray>& host,
                               const Options& opt, const ooc::Options& ooc, const Probed& probed,
                               ooc::Stats& report, Monitor* monitor = nullptr,
                               ProgramIo* io = nullptr) {
  const Problem<B>& problem = *p.problem;
  if (!report.on) {
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

  ooc::Request request = ooc::request(p.grid, problem.dims, partition, p.ghost_lo, p.ghost_hi,
                                      problem.arrays, problem.array_count, ooc, probed, opt.quiet);
  ooc_frames(problem, request);  // <boundary> frames (oocbound)
  request.launches =
      problem.launches ? static_cast<int>(problem.launches->size()) : 1;  // the model's latency
  request.trapezoid = p.ooc_trapezoid && ooc.trapezoid &&
                      B::ooc_trapezoid_ok(probed, *problem.launches, problem.dims, opt.quiet);
  const auto pinned = B::ooc_pin(host, ooc, report);
  std::vector<typename B::Kernels> kernels;
  for (const typename B::Device& d : devices)
    kernels.push_back(problem.build_kernels ? problem.build_kernels(d) : typename B::Kernels{});
  ooc_pass_rules(p, request);
  ChunkRule rule{request.shrink_lo, request.shrink_hi, request.trapezoid, &probed, problem.dims};
  rule.boundaries = problem.boundaries;  // <inject>'s images in periodic frames
  rule.boundary_count = problem.boundary_count;
  rule.grid = p.grid;
  rule.arrays = problem.arrays;  // mirror/copy/value frames refilled on the chunks (oocphys)
  rule.periodic_refilled = request.periodic_refilled;
  // io: the runner counts steps from 0; a run restarted, or cut into segments at the steps
  // where an output or checkpoint is due, gives each segment's first step here.
  std::int64_t offset = 0;
  const typename B::OocStep inner = chunk_steps<B>(
      rule, p.time_step,
      [&kernels](std::size_t part) -> const typename B::Kernels& { return kernels[part]; });
  const typename B::OocStep step = [&inner, &offset](const typename B::Device& d, std::size_t part,
                                                     std::vector<typename B::Buffer>& buf,
                                                     const Part& chunk, std::int64_t s,
                                                     std::int64_t remaining) {
    inner(d, part, buf, chunk, s + offset, remaining);
  };
  const ooc::Schedule schedule =
      ooc::plan(request, ooc, opt.steps, report, [&](const ooc::Request& probe, Index bytes) {
        if (report.link.measured) return report.link;  // oocauto: calibrated by auto's choice
        return B::OocRunner::calibrate(devices, ooc::schedule(probe), host, step, bytes);
      });
  // The step-0 outputs (and the series' files, which replace a previous run's) once a plan is
  // found: a plan refused (no chunk fits the memory) is refused before writing anything (a
  // user test: a refused run had replaced the previous run's snapshot series).
  if (io) io->start(host);
  // io: the run in segments ending where an output or checkpoint is due (pass boundaries:
  // the host arrays then hold every array's values), each written from the host arrays; the
  // monitor's ends of passes see the steps' numbers from the run's start, and `until` stops
  // the run (and the segments) at a pass's end.
  const std::int64_t first = io ? io->first_step() : 0;
  // retune: the <local size="auto"/> kernels timed again on the chunks (ooc/retune.hpp).
  ooc::Retuner retune = ooc.retune != ooc::Options::Retune::kOff
                            ? chunk_retuner(p.kernels, p.tuned, p.tuned_launches, problem.dims)
                            : ooc::Retuner{};
  retune.start(schedule.chunks, schedule.steps_per_pass, opt.steps - first,
               ooc.retune == ooc::Options::Retune::kAlways);
  double measured = 0;
  std::int64_t passes = 0, ran = 0;
  if (monitor) monitor->start();
  for (std::int64_t done = first; done < opt.steps;) {
    const std::int64_t until = io ? io->next_due(done) : opt.steps;
    offset = done;
    ooc::Share share;
    attach_monitor<B>(rule, share, monitor, p.reduce_boxes, &offset);
    share.frames = {problem.boundaries, problem.boundary_count};  // <boundary> frames
    share.retune = &retune;
    B::ooc_run(devices, schedule, host, step, ooc, until - done, report, std::move(share));
    measured += report.measured_s;
    passes += report.passes;
    ran += report.steps;
    // `until` held at a pass's end: before the segment's last (then it ran fewer steps), or at
    // its last, where an output or checkpoint is due (a user test: that stop was lost, and
    // the run went on to the next segment).
    const bool stopped = report.steps < until - done || (monitor && monitor->stopped());
    done += report.steps;
    // The outputs and the checkpoint due after the last step run, as in core, stopped or not.
    if (io && io->due(done)) io->end_of_step(done, host);
    if (stopped) break;
  }
  // io: an `until` stopped the run at a pass's end (the host arrays hold that state): the
  // outputs with last="true" get it.
  if (io)
    io->write_at_stop(
        monitor && monitor->stopped(), first + ran,
        [&host](const std::vector<bool>&) -> const std::vector<HostArray>& { return host; });
  report.measured_s = measured;
  report.passes = passes;
  report.steps = ran;
  retune.finish();
  report.retune = retune.report();
  (void)pinned;
  return ooc::run_stats(report, ran);
}

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
  no_band_sharing_with_records(p.records, ooc);
  IoOptions io_opt;
  take_io_options(argc, argv, io_opt);
  Options opt = parse_options(argc, argv, p.info);
  if (opt.help) {
    print_usage(p.info, stdout);
    ooc::print_usage(stdout);
    print_io_usage(p.io, stdout);
    B::print_usage_note(stdout);
    return 0;
  }
  // io: a checkpoint to restart from is checked before anything runs (spec, grid, arrays).
  ProgramIo io = make_program_io(p, io_opt, opt);
  check_saves(opt.saves, problem.arrays, problem.array_count);
  check_files(opt, p.info);  // before the devices and the run: a save that cannot be made
  check_trace_files(p.records, io.first_step());  // and a trace file
  check_inject_values(p.injects, opt.steps);      // and a value file the steps run past
  // No link among them, no two of them one file, none an input or the user's own.
  check_run_files(run_files(p, opt, io_opt, io.first_step()));
  if (opt.weights.empty()) opt.weights = p.weights;

  std::vector<typename B::Device> devices = B::discover(opt);
  if (!opt.weights.empty() && opt.weights.size() != devices.size())
    throw RunError("--weights gives " + std::to_string(opt.weights.size()) + " weights for " +
                   std::to_string(devices.size()) + " devices");
  // The kernel probe, on the first device: halos checked, rims measured.
  Probed probed;
  if (opt.probe) {
    probed = probe_kernels(problem, p.grid, devices.front(), p.kernels, p.kernel_count, opt.steps);
    probe_report(probed, problem.dims, opt.quiet, stdout);
  }
  // <local size="auto"/>: the work-group shapes timed on the first device, the fastest kept;
  // shapes given by --local / STEPGEN_LOCAL (checked here also when nothing is tuned) kept.
  const std::vector<LocalOverride> local_given =
      local_overrides(opt.local, p.kernels, p.kernel_count, p.tuned, problem.dims);
  if (!p.tuned.empty()) {
    const std::vector<TuneResult> tuned =
        tune_locals(problem, p.grid, devices.front(), p.kernels, p.tuned, p.tuned_launches,
                    opt.tune, local_given);
    if (!opt.quiet) tune_report(tuned, p.tuned, problem.dims, stdout);
  }
  PartitionRequest request = p.partition_request(static_cast<int>(devices.size()), opt.weights);
  if (!opt.strategy.empty()) request.strategy = parse_strategy(opt.strategy);
  // Kernels whose rim is wider than their halos: ghost zones wide enough that every owned
  // cell is computed; never fewer parts than the declared halos give (probe_partition).
  Partition partition =
      probe_partition(probed, request, problem.exchange_every, p.ghost_lo, p.ghost_hi, opt.quiet);
  probe_check_lines(probed, partition, p.grid);
  if (!opt.quiet) print_partition(devices, partition);

  // The host arrays page-locked unless --pinned off (B::host_allocator). Out of core, the
  // chunks are copied straight from and to them (direct mapping); a refusal is an error there.
  // In core, uploads and downloads run at the link's speed; when the system refuses, the
  // arrays are pageable instead and the report says so.
  ooc::Stats ooc_stats;
  const Index budget = table_budget(
      ooc.device_memory > 0 ? ooc.device_memory : B::auto_device_memory(devices), problem);
  bool out_of_core =
      ooc::decide(budget, partition, problem.arrays, problem.array_count, ooc, ooc_stats);
  ooc_stats.pinned = out_of_core && ooc.pinned;
  HostMemory memory;
  const HostAllocator alloc =
      out_of_core ? B::host_allocator(devices, ooc.pinned, true)
                  : pageable_fallback(B::host_allocator(devices, ooc.pinned, false), memory);
  // devinit: in core, only the arrays that need one get a host copy (host_copies); so too
  // with `--out-of-core auto` given, until it takes out of core (complete_host_arrays below).
  const std::vector<bool> held = out_of_core ? std::vector<bool>{} : host_copies(p, opt, io);
  const std::vector<bool> gathered = gathered_arrays(p, opt);  // hostmem: in core, at the end
  std::vector<HostArray> host = p.make_host_arrays(p.grid, alloc, held);
  for (const auto& [name, path] : opt.loads)
    for (HostArray& a : host)
      if (a.name == name) load_raw(a, path);
  copy_loaded(problem.arrays, problem.array_count, host, opt.loads);  // copy(X) of a loaded X
  io.restart(host);  // io: the checkpoint's values, when restarting
  // The probe's reads again, on the values the run starts from (probe_data.hpp).
  if (opt.probe)
    if (const std::string e = probe_initial_data(problem, p.grid, devices.front(), p.kernels,
                                                 p.kernel_count, host, probed, io.first_step());
        !e.empty())
      throw RunError(e);
  // --verify keeps the initial values for its one-device run (the one extra copy it costs).
  std::vector<HostArray> initial;
  if (opt.verify) initial = host;
  // oocauto: `--out-of-core auto` on data that fits takes the faster (predicted).
  if (ooc_auto_choice(p, devices, partition, host, opt, ooc, probed, ooc_stats, held, gathered)) {
    out_of_core = true;
    ooc_stats.pinned = ooc.pinned;
    complete_host_arrays(p, host, B::host_allocator(devices, ooc.pinned, true));
  }

  // The link in core, for the report: a short copy each way from page-locked memory, of the
  // bytes a device holds up to 64 MiB (skipped under --quiet, which prints no report).
  LinkSpeed link;
  if (!out_of_core && !opt.quiet) link = in_core_link<B>(problem, devices, partition.parts);

  for (Record& r : p.records) r.begin(opt.steps, io.first_step());
  // Reductions, until, monitor (monitor.hpp): the monitor's lines unless --quiet.
  Monitor monitor(p.monitor_spec(), opt.steps, !opt.quiet);
  // A restart gives the reductions their values at the checkpoint's step; each checkpoint
  // records them (an `until` over a reduction computed before it reads them).
  monitor.restore(io.restored_reductions());
  io.set_reductions([&monitor] { return monitor.last_values(); });
  // Out of core, steps per pass that no plan may take are refused before the plan's work
  // (ooc::plan refuses them again). run_in_or_out_of_core starts the outputs (io.start) once
  // the run can go (MPI ranks plan before io.start).
  if (out_of_core) {
    ooc::Request given;
    given.steps_per_pass = ooc.steps_per_pass;
    ooc_pass_rules(p, given);
    ooc::check_steps_per_pass(given);
  }
  RunStats stats = run_in_or_out_of_core(p, devices, partition, host, opt, ooc, probed, ooc_stats,
                                         &monitor, &io);
  io.finish();
  // The traces, before --verify's run (which samples the same points again), up to the step
  // an `until` stopped the run at.
  for (Record& r : p.records) r.end(monitor.steps_run(opt.steps));
  for (const Record& r : p.records) r.write();
  if (!out_of_core) {
    stats.host_memory = memory.text();
    stats.link_h2d = link.h2d;
    stats.link_d2h = link.d2h;
    host_copies_report(host, stats);  // devinit
    // hostmem: the exchanges' staging (none on one device).
    if (stats.staging_bytes < 0) stats.staging_bytes = 0;
  }
  if (!opt.quiet) {
    print_report(stats, stdout);
    io.print_report(stdout);  // ckptbg: what the checkpoints cost
    if (ooc_stats.on)
      ooc::print_report(ooc_stats, stdout);
    else if (!ooc_stats.choice.empty())
      std::printf("%s\n", ooc_stats.choice.c_str());  // oocauto
    if (B::kTimingNote) std::printf("%s\n", B::kTimingNote);
  }
  if (!opt.quiet) monitor.print_report(stdout);
  monitor.write_csv(io.first_step());  // a restart's NAME-from-STEP.csv

  int status = 0;
  if (opt.verify) {
    Partition whole = stepgen::rt::partition(p.partition_request(1, {}));
    InCore<B> one(problem, devices, whole, initial, probed);
    Monitor again(p.monitor_spec(), opt.steps, false);  // until stops it at the same step
    one.set_monitor(&again, p.reduce_boxes);
    one.set_steps(io.first_step(), nullptr);  // io: from the restart's step, without output
    one.run(opt.steps, p.time_loop);
    for (int id = 0; id < problem.array_count; ++id) {
      if (!problem.arrays[id].compared) continue;
      const auto u = static_cast<std::size_t>(id);
      if (!out_of_core) require_gathered(gathered, problem.arrays[id], u, "--verify");  // hostmem
      const std::string diff = problem.arrays[id].compare(host[u], initial[u]);
      if (!diff.empty()) {
        std::printf("verify: FAILED: %s\n", diff.c_str());
        status = 1;
      }
    }
    if (status == 0)
      std::printf("verify: OK: %zu device(s) equal 1 device bit for bit\n", partition.parts.size());
  }
  for (const auto& [name, path] : opt.saves)
    for (std::size_t id = 0; id < host.size(); ++id)
      if (host[id].name == name) {
        if (!out_of_core) require_gathered(gathered, problem.arrays[id], id, "--save " + name);
        save_raw(host[id], path);
      }
  return status;
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// The out-of-core phase of a generated program's main, one process and MPI alike: the time
/// step on one chunk (chunk_steps), the request's pass rules and frames, `--out-of-core auto`'s
/// comparison on data that fits (ooc_auto_choice), and the out-of-core run of one
/// process (run_out_of_core: the chunk pipeline in segments cut where outputs are due).

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

#include "stepgen/description/init.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/io/program_io.hpp"
#include "stepgen/exec/io/run_files.hpp"
#include "stepgen/exec/main_host.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/probe_run.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/exec/tune.hpp"
#include "stepgen/plan/partition.hpp"
#include "stepgen/plan/placement.hpp"

namespace stepgen::rt {

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

/// Why the program cannot run out of core at all ("" = it can): a launch whose work-items
/// compute several cells along the slowest dimension (its global size extent(X, d) / c), which
/// chunks of any plane count would cut.
template <class B>
std::string ooc_obstacle(const Program<B>& p) {
  const Problem<B>& problem = p.problem;
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
  request.every = ooc_every(p.monitor);
  if (p.monitor.count > 0) {
    // The message names every interval that takes part: with reductions every 5 and an output
    // every 1, "do not divide 1, the steps between reductions" would blame the reductions.
    std::string reductions, others;
    for (int i = 0; i < p.monitor.count; ++i)
      reductions += (i ? ", " : "") + std::to_string(p.monitor.reductions[i].every);
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
  request.pass_barriers = p.monitor.count > 0 || p.monitor.every > 0;
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

// --- `--out-of-core auto` on data that fits (ooc/choice.hpp) ------------
/// STEPGEN_AUTO_CHOICE=in-core or out-of-core (for tests): the run `--out-of-core auto` takes
/// whatever the prediction, so that what follows each choice is tested on any machine; the
/// report's line says so. Unset or empty: the prediction decides. Another value is an error.
inline const char* forced_auto_choice() {
  const std::string& s = env_settings().auto_choice;
  if (s.empty()) return nullptr;
  if (s != "in-core" && s != "out-of-core")
    throw std::invalid_argument("STEPGEN_AUTO_CHOICE is '" + s +
                                "': it takes in-core or out-of-core (or is unset)");
  return s.c_str();
}

/// `--out-of-core auto`'s comparison, once `sc` is the best out-of-core plan on the measured
/// `link`: the in-core run predicted from the same figures, moving the arrays with a host copy
/// up (`held` by array id, empty: all) and the gathered ones down (`gathered`, empty: all), and
/// the faster taken (ooc::choose_auto). One process and MPI ranks alike (ranks.hpp).
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
  return ooc::choose_auto(in_s, out_s, sc, steps, forced_auto_choice());
}

/// Why `--out-of-core auto` given does not compare for this program (in core then), or "":
/// the spec's <boundary> frames or <record> receivers.
template <class B>
std::string ooc_auto_not_compared(const Program<B>& p) {
  if (const std::string why = ooc_obstacle(p); !why.empty()) return why;
  if (p.problem.boundary_count > 0)
    return "the spec's <boundary> frames: compared only without them (out of core composes them "
           "on the host at every pass boundary)";
  if (p.records.count > 0)  // the calibration's probe step would sample them before begin()
    return "the spec's <record> receivers: compared only without them";
  return "";
}

/// Gives the arrays `want` selects host copies over `box` in `arrays` (from `alloc`)
/// with their initial values: zero, value and random made on the host with the devices' bits,
/// copy(X) copied from X's copy in `arrays` (made here, or there before: --load's values
/// included). The other arrays are left as they are.
template <class B>
void add_initial_host_arrays(const Program<B>& p, const Box& box, const HostAllocator& alloc,
                             const std::vector<bool>& want, std::vector<HostArray>& arrays) {
  const Problem<B>& problem = p.problem;
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

/// The host arrays of one calibration probe over `box` (ooc::Runner::Sample), held as an
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
    const Problem<B>& problem = p.problem;
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

/// `--out-of-core auto` took out of core after the in-core start-up made the host
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
  const Problem<B>& problem = p.problem;
  if (shares_devices(partition)) {
    report.choice =
        ooc::in_core_because("--parts: several parts on one device run in core only").line;
    return false;
  }
  if (const std::string why = ooc_auto_not_compared(p); !why.empty()) {
    report.choice = ooc::in_core_because(why).line;
    return false;
  }
  if (opt.steps <= 0) return false;
  ooc::Request request = ooc::request(p.grid, problem.dims, partition, p.shrink_lo, p.shrink_hi,
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
// --- end: `--out-of-core auto` on data that fits (ooc/choice.hpp) ---

/// The request of an out-of-core run over `partition`: with its <boundary> frames,
/// its launches (the model's latency) and whether the passes may be trapezoids.
template <class B>
ooc::Request ooc_run_request(const Program<B>& p, const Partition& partition,
                             const ooc::Options& ooc, const Probed& probed, bool quiet) {
  const Problem<B>& problem = p.problem;
  ooc::Request request = ooc::request(p.grid, problem.dims, partition, p.shrink_lo, p.shrink_hi,
                                      problem.arrays, problem.array_count, ooc, probed, quiet);
  ooc_frames(problem, request);
  request.launches = problem.launches ? static_cast<int>(problem.launches->size()) : 1;
  request.trapezoid = p.ooc_trapezoid && ooc.trapezoid &&
                      B::ooc_trapezoid_ok(probed, *problem.launches, problem.dims, quiet);
  return request;
}

/// The chunk rule of an out-of-core run of `request` (its pass rules applied): the shrinks,
/// the trapezoid, the probe's findings, <inject>'s images in periodic frames, and the
/// mirror/copy/value frames refilled on the chunks.
template <class B>
ChunkRule ooc_chunk_rule(const Program<B>& p, const ooc::Request& request, const Probed& probed) {
  const Problem<B>& problem = p.problem;
  ChunkRule rule{request.shrink_lo, request.shrink_hi, request.trapezoid, &probed, problem.dims};
  rule.boundaries = problem.boundaries;
  rule.boundary_count = problem.boundary_count;
  rule.grid = p.grid;
  rule.arrays = problem.arrays;
  rule.periodic_refilled = request.periodic_refilled;
  return rule;
}

/// The time step of an out-of-core run on its chunks, one process and an MPI rank alike: the
/// run's request (ooc_run_request, its pass rules applied), the chunk rule, the kernels built
/// for each device, and the step the runners call (B::OocStep) with the run's step numbers:
/// the runner counts from 0, and `offset` is the first step of the segment running (a run
/// restarted, or cut into segments where an output or checkpoint is due). Not copied: the step
/// holds its address.
template <class B>
struct OocStepper {
  ooc::Request request;
  ChunkRule rule;
  std::vector<typename B::Kernels> kernels;  ///< one per device (one device: every part's)
  std::int64_t offset = 0;
  typename B::OocStep step;

  OocStepper(const Program<B>& p, const std::vector<typename B::Device>& devices,
             const Partition& partition, const ooc::Options& ooc, const Probed& probed, bool quiet)
      : request(ooc_run_request(p, partition, ooc, probed, quiet)) {
    ooc_pass_rules(p, request);
    rule = ooc_chunk_rule(p, request, probed);
    for (const typename B::Device& d : devices)
      kernels.push_back(p.problem.build_kernels ? p.problem.build_kernels(d)
                                                : typename B::Kernels{});
    step = [this, time_step = p.time_step](const typename B::Device& d, std::size_t part,
                                           std::vector<typename B::Buffer>& buf, const Part& chunk,
                                           std::int64_t s, std::int64_t remaining) {
      ChunkRun<B> run(rule, d, kernels.size() == 1 ? kernels.front() : kernels[part], buf, chunk,
                      remaining);
      time_step(run, s + offset);
    };
  }
  OocStepper(const OocStepper&) = delete;
  OocStepper& operator=(const OocStepper&) = delete;
};

/// The <local size="auto"/> kernels timed again on the chunks of `schedule`
/// (ooc/retune.hpp) over the `steps` the run has left; started, or off as the options say.
template <class B>
std::unique_ptr<ooc::Retuner> ooc_retuner(const Program<B>& p, const ooc::Options& ooc,
                                          const ooc::Schedule& schedule, std::int64_t steps) {
  auto retune = std::make_unique<ooc::Retuner>(
      ooc.retune != ooc::Options::Retune::kOff
          ? chunk_retuner(p.kernels, p.tuned, p.tuned_launches, p.problem.dims)
          : ooc::Retuner{});
  retune->start(schedule.chunks, schedule.steps_per_pass, steps,
                ooc.retune == ooc::Options::Retune::kAlways);
  return retune;
}

/// Out of core, the run in segments ending where an output or checkpoint of `io` is due (pass
/// boundaries: the host arrays then hold the values the outputs write), one process and an MPI
/// rank alike: `segment(done, steps)` runs one (`offset` set to its first step before), filling
/// `report`; `until` (the monitor's ends of passes) stops the run, and the segments, at a
/// pass's end. The outputs with last="true" get the state it stopped at. `report` then sums
/// the segments.
template <class Segment>
void run_ooc_segments(const Options& opt, ProgramIo* io, Monitor* monitor,
                      const std::vector<HostArray>& host, ooc::Stats& report, std::int64_t& offset,
                      Segment&& segment) {
  const std::int64_t first = io ? io->first_step() : 0;
  double measured = 0;
  std::int64_t passes = 0, ran = 0;
  for (std::int64_t done = first; done < opt.steps;) {
    const std::int64_t until = io ? io->next_due(done) : opt.steps;
    offset = done;
    segment(done, until - done);
    measured += report.measured_s;
    passes += report.passes;
    ran += report.steps;
    // `until` held at a pass's end: before the segment's last (then it ran fewer steps), or at
    // its last, where an output or checkpoint is due (that stop must not be lost to the next
    // segment).
    const bool stopped = report.steps < until - done || (monitor && monitor->stopped());
    done += report.steps;
    // The outputs and the checkpoint due after the last step run, as in core, stopped or not.
    if (io && io->due(done)) io->end_of_step(done, host);
    if (stopped) break;
  }
  if (io)
    io->write_at_stop(
        monitor && monitor->stopped(), first + ran,
        [&host](const std::vector<bool>&) -> const std::vector<HostArray>& { return host; });
  report.measured_s = measured;
  report.passes = passes;
  report.steps = ran;
}

/// Runs out of core: the same time step on chunks of planes streamed through the devices
/// (ooc.hpp), the schedule chosen by the model with the link and kernel speed measured on a
/// probe chunk, in segments ending where an output or checkpoint of `io` is due.
template <class B>
RunStats run_out_of_core(const Program<B>& p, std::vector<typename B::Device>& devices,
                         const Partition& partition, std::vector<HostArray>& host,
                         const Options& opt, const ooc::Options& ooc, const Probed& probed,
                         ooc::Stats& report, Monitor* monitor, ProgramIo* io) {
  const Problem<B>& problem = p.problem;
  OocStepper<B> stepper(p, devices, partition, ooc, probed, opt.quiet);
  const auto pinned = B::ooc_pin(host, ooc, report);
  const ooc::Schedule schedule = ooc::plan(
      stepper.request, ooc, opt.steps, report, [&](const ooc::Request& probe, Index bytes) {
        if (report.link.measured) return report.link;  // calibrated by auto's choice
        return B::OocRunner::calibrate(devices, ooc::schedule(probe), host, stepper.step, bytes);
      });
  // The step-0 outputs (and the series' files, which replace a previous run's) once a plan is
  // found: a plan refused (no chunk fits the memory) is refused before writing anything.
  if (io) io->start(host);
  const std::unique_ptr<ooc::Retuner> retune =
      ooc_retuner(p, ooc, schedule, opt.steps - (io ? io->first_step() : 0));
  if (monitor) monitor->start(io ? io->first_step() : 0);
  run_ooc_segments(
      opt, io, monitor, host, report, stepper.offset, [&](std::int64_t, std::int64_t steps) {
        ooc::Share share;
        attach_monitor<B>(stepper.rule, share, monitor, p.reduce_boxes, &stepper.offset);
        share.frames = {problem.boundaries, problem.boundary_count};  // <boundary> frames
        share.retune = retune.get();
        B::ooc_run(devices, schedule, host, stepper.step, ooc, steps, report, std::move(share));
      });
  retune->finish();
  report.retune = retune->report();
  (void)pinned;
  return ooc::run_stats(report, report.steps);
}

}  // namespace stepgen::rt

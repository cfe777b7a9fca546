#pragma once
/// \file
/// Out of core, a program's plan: whether it runs out of core (decide), its request from the
/// partition, the probe and the options (request), the start-up calibration and the chooser
/// (plan), and its figures for the common report (run_stats). Written once for every program,
/// one process or MPI. Standard library only.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/ooc/options.hpp"
#include "stepgen/exec/ooc/report.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/model.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt::ooc {

/// Whether the run goes out of core: when the options ask for it or a part's arrays do not
/// fit its device's budget (`budget`). Fills the report's budget, and the reason when it does.
inline bool decide(Index budget, const Partition& partition, const ArrayInfo* arrays,
                   int array_count, const Options& ooc, Stats& report) {
  report.budget = budget;
  // A device's parts together (several with --parts: Part::device, placement.hpp).
  std::map<int, Index> per_device;
  bool shared = false;
  for (const rt::Part& part : partition.parts) {
    Index bytes = 0;
    for (int id = 0; id < array_count; ++id)
      bytes += part.ghost.volume() * static_cast<Index>(arrays[id].element_bytes);
    shared = shared || per_device.count(part.device) > 0;
    per_device[part.device] += bytes;
  }
  Index in_core = 0;
  for (const auto& [device, bytes] : per_device) in_core = std::max(in_core, bytes);
  const bool fits = in_core <= report.budget;
  if (ooc.mode == Options::Mode::kOff || (ooc.mode == Options::Mode::kAuto && fits)) return false;
  report.on = true;
  report.reason = fits ? "asked for with --out-of-core on"
                       : std::string(shared ? "a device's parts need " : "a part needs ") +
                             human_bytes(static_cast<double>(in_core)) +
                             ", the budget per device is " +
                             human_bytes(static_cast<double>(report.budget));
  return true;
}

/// The out-of-core request for the parts of `partition`, from the options: the planes a step
/// costs a chunk (`shrink_lo`, `shrink_hi`: the step's read halos, widened where the probe
/// found kernel rims wider than them, said unless `quiet`) and the arrays (`arrays[id].written`:
/// stored back after each pass). The trapezoid is the backend's to decide.
inline Request request(const Box& grid, int dims, const Partition& partition, Vec3 shrink_lo,
                       Vec3 shrink_hi, const ArrayInfo* arrays, int array_count, const Options& ooc,
                       const Probed& probed, bool quiet) {
  Request request;
  request.grid = grid;
  for (const rt::Part& part : partition.parts) request.owned.push_back(part.owned);
  request.shrink_lo = shrink_lo;
  request.shrink_hi = shrink_hi;
  // Kernels whose rim is wider than their halos: a chunk's window loses more planes a step.
  if (probed.widen_shrink(request.shrink_lo, request.shrink_hi) && !quiet)
    std::printf("probe: out of core, a step costs a chunk %s planes (the kernels' rims)\n",
                probe_sides(dims, request.shrink_lo, request.shrink_hi).c_str());
  for (int id = 0; id < array_count; ++id)
    request.arrays.push_back(
        {arrays[id].name, static_cast<Index>(arrays[id].element_bytes), arrays[id].stored_back()});
  request.chunks = ooc.chunks;
  request.steps_per_pass = ooc.steps_per_pass;
  request.region_sharing = ooc.region_sharing;
  request.buffers = ooc.buffers;
  request.band_sharing = ooc.band_sharing;
  return request;
}

/// The out-of-core schedule for `request` (rt::ooc::choose) over `steps`, with the link and the
/// kernels' speed measured on a probe chunk by `calibrate(probe, probe_bytes)` (`probe`:
/// `request` in one chunk of one step); fills the report with the choice and its prediction.
/// A plan that cannot be made is thrown as `Error`.
template <class Error = RunError, class Calibrate>
Schedule plan(const Request& request, const Options& ooc, std::int64_t steps, Stats& report,
              Calibrate&& calibrate) {
  Schedule schedule;
  try {
    report.auto_chunks = ooc.chunks == 0;
    report.auto_k = ooc.steps_per_pass == 0;
    check_steps_per_pass(request);  // refused before the probe's work (<boundary> frames' cap)
    // The model needs the link and the kernels' speed: measure them on a probe chunk.
    Request probe = request;
    probe.chunks = 1;
    probe.steps_per_pass = 1;
    probe.frame = {false, false, false};  // <boundary> frames: the probe stays in the grid
    const Index probe_bytes = std::min<Index>(report.budget / 4, Index{1} << 30);
    report.link = calibrate(probe, probe_bytes);
    schedule = choose(request, report.budget, report.link, steps, ooc.overlap);
  } catch (const PlanError& e) {
    throw Error(e.what());
  }
  report.chunks = schedule.chunks;
  report.steps_per_pass = schedule.steps_per_pass;
  report.region_sharing = schedule.region_sharing;
  report.trapezoid = schedule.trapezoid;
  report.band_sharing = schedule.band_sharing;
  report.steps_limit = schedule.max_steps_why;  // <boundary> frames: at most one step a pass
  // Why not: band sharing asked for and not done is never dropped without a word (guarded by
  // tests/traces/traces_test.sh, "band sharing off (the spec's <record> ...)").
  if (!schedule.band_sharing)
    report.band_sharing_off = !ooc.band_sharing_off.empty() ? ooc.band_sharing_off
                              : !ooc.band_sharing           ? "--band-sharing off"
                              : !schedule.trapezoid         ? "needs the trapezoid"
                              : !schedule.region_sharing    ? "needs region sharing"
                              : schedule.steps_per_pass < 2 ? "one step per pass"
                                                            : "";
  report.overlap = ooc.overlap;
  report.buffers = schedule.buffers;
  report.device_bytes = schedule.device_bytes;
  report.predicted_s = predict(schedule, report.link, steps, ooc.overlap);
  return schedule;
}

/// The run's figures for the common report after an out-of-core run of `steps`.
inline RunStats run_stats(const Stats& report, std::int64_t steps) {
  RunStats stats;
  stats.total_s = report.measured_s;
  stats.host_device_s = report.measured_s;
  stats.host_device_bytes = report.h2d_bytes + report.d2h_bytes;
  stats.steps = steps;
  // The kernels' time from the events around each compute command (0: untimed).
  stats.kernel_s = report.kernel_s;
  return stats;
}

}  // namespace stepgen::rt::ooc

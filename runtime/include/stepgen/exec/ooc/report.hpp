#pragma once
/// \file
/// Out of core, the report: what a run did (Stats) and its lines in the program's output.
/// Standard library only.

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/ooc/model.hpp"

namespace stepgen::rt::ooc {

/// What an out-of-core run did, for the report.
struct Stats {
  bool on = false;
  std::string reason;  ///< why it is on or off
  Index budget = 0;
  int chunks = 0, steps_per_pass = 0, buffers = 0;
  bool region_sharing = false, overlap = false, auto_chunks = false, auto_k = false;
  bool pinned = false;
  bool trapezoid = false;
  bool band_sharing = false;
  std::string band_sharing_off;  ///< why band sharing is off ("": on)
  std::string steps_limit;       ///< why the model chose among fewer steps per pass ("": not)
  Index passes = 0;
  std::size_t h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;
  Index device_bytes = 0;
  Link link;
  double predicted_s = 0;
  double measured_s = 0;  ///< the time loop, loads to last store
  Index steps = 0;
  std::size_t parts = 1;  ///< devices streaming their parts at once (ranks, with MPI)
  // --- the kernel/copy split and `--out-of-core auto`'s choice (docs/decisions/0001) ---
  /// The commands' times from events around each (summed over commands and devices):
  /// compute commands (kernels and their region/band-sharing device copies), loads, stores.
  double kernel_s = 0, load_s = 0, store_s = 0;
  /// The host's time issuing the commands (waits at pass barriers not counted).
  double issue_s = 0;
  bool timed = false;  ///< the backend timed its commands
  std::string choice;  ///< `--out-of-core auto`'s line: which it took and why ("": none)
  // --- end: the kernel/copy split and the choice ---
  std::vector<std::string> retune;  ///< the shapes retuned on the chunks (ooc/retune.hpp)
};

inline void print_report(const Stats& s, std::FILE* out) {
  if (!s.choice.empty()) std::fprintf(out, "%s\n", s.choice.c_str());  // auto's choice
  if (!s.on) {
    std::fprintf(out, "out-of-core: off (%s)\n", s.reason.c_str());
    return;
  }
  std::fprintf(out, "out-of-core: on (%s)\n", s.reason.c_str());
  std::fprintf(
      out,
      "  %d chunk(s)%s, %d step(s) per pass%s, %" PRId64
      " pass(es), region sharing %s, overlap %s, trapezoid %s, band sharing %s%s%s, %d buffer "
      "slots, %s of chunk buffers per device, host arrays %s\n",
      s.chunks, s.auto_chunks ? " (model)" : "", s.steps_per_pass, s.auto_k ? " (model)" : "",
      s.passes, s.region_sharing ? "on" : "off", s.overlap ? "on" : "off",
      s.trapezoid ? "on" : "off", s.band_sharing ? "on" : "off",
      s.band_sharing_off.empty() ? "" : " (",
      (s.band_sharing_off.empty() ? "" : s.band_sharing_off + ")").c_str(), s.buffers,
      human_bytes(static_cast<double>(s.device_bytes)).c_str(), s.pinned ? "pinned" : "pageable");
  if (s.auto_k && !s.steps_limit.empty())
    std::fprintf(out, "  one step per pass: %s\n", s.steps_limit.c_str());
  std::fprintf(out, "  moved: host->device %s, device->host %s, device->device %s\n",
               human_bytes(static_cast<double>(s.h2d_bytes)).c_str(),
               human_bytes(static_cast<double>(s.d2h_bytes)).c_str(),
               human_bytes(static_cast<double>(s.d2d_bytes)).c_str());
  std::fprintf(out,
               "  link (%s): h2d %.2f GB/s, d2h %.2f GB/s, bidirectional %.2f GB/s; kernels %.3f "
               "ns per cell-step; device copies %.1f GB/s\n",
               s.link.measured ? "measured at start-up" : "assumed", s.link.h2d / 1e9,
               s.link.d2h / 1e9, s.link.bidir / 1e9, s.link.cell_step * 1e9, s.link.d2d / 1e9);
  if (s.link.devices_all > 1)
    std::fprintf(out,
                 "  link, %d devices streaming at once (summed): h2d %.2f GB/s, d2h %.2f GB/s, "
                 "bidirectional %.2f GB/s\n",
                 s.link.devices_all, s.link.h2d_all / 1e9, s.link.d2h_all / 1e9,
                 s.link.bidir_all / 1e9);
  std::fprintf(out, "  calibration: %s\n", link_figures_text(s.link).c_str());
  const double bound = link_bound(static_cast<double>(s.h2d_bytes),
                                  static_cast<double>(s.d2h_bytes), s.link, s.parts);
  std::fprintf(out,
               "  predicted %.6f s, measured %.6f s (%.3f ms/step, %.3f s/pass); link bound %.6f "
               "s (%.0f%% of it reached)\n",
               s.predicted_s, s.measured_s,
               s.steps ? 1e3 * s.measured_s / static_cast<double>(s.steps) : 0.0,
               s.passes ? s.measured_s / static_cast<double>(s.passes) : 0.0, bound,
               s.measured_s > 0 ? 100 * bound / s.measured_s : 0.0);
  // The split, each command timed by events around it.
  if (s.timed)
    std::fprintf(out,
                 "  split (events around each command, summed over commands and devices): "
                 "kernels %.6f s (with region/band-sharing device copies), loads %.6f s, stores "
                 "%.6f s; per-command latency %.1f us (%s); the host issued them in %.6f s (an "
                 "op %.1f us + %.1f us per copy or launch at start-up)\n",
                 s.kernel_s, s.load_s, s.store_s, s.link.latency * 1e6,
                 s.link.measured ? "measured at start-up" : "assumed", s.issue_s,
                 s.link.issue_op * 1e6, s.link.issue_command * 1e6);
  for (const std::string& line : s.retune) std::fprintf(out, "%s\n", line.c_str());
}

}  // namespace stepgen::rt::ooc

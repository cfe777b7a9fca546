#pragma once
/// \file
/// What the out-of-core model knows of the machine (rt::ooc::Link: link bandwidths, kernel time
/// per cell and step, device copies, latencies, MPI messages) and its text form, the
/// KEY=VALUE list a program's report ends with and `stepgen plan --calibration` reads
/// (calibration.hpp). Standard library only: the generator's planning includes it without the
/// runner or the engines.

#include <cstdio>
#include <cstdlib>
#include <string>

namespace stepgen::rt::ooc {

/// What start-up measures on the first device: link bandwidths (bytes/s) and kernel time.
struct Link {
  double h2d = 1e10;        ///< host to device
  double d2h = 1e10;        ///< device to host
  double bidir = 1.5e10;    ///< both at once, bytes in + out per second
  double cell_step = 1e-9;  ///< seconds per cell per time step (all of the body's launches)
  /// Copies within the device (region sharing), bytes copied per second. They run on the
  /// compute queue, so the model adds their time to the kernels'.
  double d2d = 1e12;
  bool measured = false;
  /// With several devices in one process: the host link when all of them stream at once,
  /// bytes per second summed over the devices (0: not measured, the links are independent).
  /// Devices often share the host's memory or PCIe root, so this is less than the sum of
  /// their links (2 x H200: 78 GB/s against 83 GB/s for one GPU alone).
  double h2d_all = 0, d2h_all = 0, bidir_all = 0;
  int devices_all = 0;  ///< how many devices streamed at once for the *_all figures
  // --- per-command latency (docs/decisions/0001-out-of-core-auto-compares.md) ---
  /// Seconds one command costs beyond its bytes or cells (issue, launch, completion): the
  /// median of a few one-cell copies, each waited for, measured at start-up (calibrate.hpp).
  /// The model charges it to every load and store (one per array), to every step of a compute
  /// command (a launch at least) and to every pass barrier. 0: not charged.
  double latency = 0;
  /// The host's time to issue commands: the runner issues every command from one thread, and
  /// on small runs the devices wait for it (wave2k 37x29x41 in 10 chunks: 93 us a chunk
  /// visit, its commands' events 74 us). `issue_op`: an op's own calls (its waits, the events
  /// timing it, its completion event); `issue_command`: each copy or launch it issues. Measured
  /// at start-up on emulated ops (calibrate.hpp, measure_issue), then scaled to a short run of
  /// the runner itself (runner.hpp, time_issue); 0: the host is not modelled.
  double issue_op = 0, issue_command = 0;
  /// MPI: the messages at each pass boundary (the cells other ranks own, ranks.hpp), each
  /// rank's sent and received bytes per second, their packing and unpacking included, and the
  /// seconds each message costs beyond its bytes. Measured at start-up by the ranks
  /// (mpi::measure_messages); 0: not charged (one process, or not measured).
  double message = 0, message_latency = 0;
  /// MPI: what a pass boundary costs beyond the drained pipeline and the messages' bytes and
  /// latencies: the ranks reach it at different times (noise in their passes: the rank waited
  /// for changes from boundary to boundary), and the meeting's own calls. Measured at start-up
  /// in rounds the ranks run in lockstep (measure_boundary); 0: not charged.
  double boundary = 0;
  // --- end: per-command latency ---
};

/// The link as KEY=VALUE figures (GB/s; kernel in ns per cell-step), the line print_report
/// ends with after "calibration:" and `stepgen plan --calibration` reads
/// (stepgen/plan/calibration.hpp).
inline std::string link_figures_text(const Link& link) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "h2d=%.9g,d2h=%.9g,bidir=%.9g,kernel=%.9g,d2d=%.9g",
                link.h2d / 1e9, link.d2h / 1e9, link.bidir / 1e9, link.cell_step * 1e9,
                link.d2d / 1e9);
  std::string s = buf;
  if (link.devices_all > 1) {
    std::snprintf(buf, sizeof buf, ",devices_all=%d,h2d_all=%.9g,d2h_all=%.9g,bidir_all=%.9g",
                  link.devices_all, link.h2d_all / 1e9, link.d2h_all / 1e9, link.bidir_all / 1e9);
    s += buf;
  }
  // The per-command latency in microseconds, where measured or stated.
  if (link.latency > 0) {
    std::snprintf(buf, sizeof buf, ",latency=%.9g", link.latency * 1e6);
    s += buf;
  }
  // The host's issue, microseconds, each where measured above 0 or stated.
  if (link.issue_op > 0) {
    std::snprintf(buf, sizeof buf, ",issue_op=%.9g", link.issue_op * 1e6);
    s += buf;
  }
  if (link.issue_command > 0) {
    std::snprintf(buf, sizeof buf, ",issue_command=%.9g", link.issue_command * 1e6);
    s += buf;
  }
  // MPI: the pass boundary's messages, GB/s and microseconds, where measured.
  if (link.message > 0) {
    std::snprintf(buf, sizeof buf, ",message=%.9g,message_latency=%.9g", link.message / 1e9,
                  link.message_latency * 1e6);
    s += buf;
  }
  if (link.boundary > 0) {  // MPI: a pass boundary's meeting, microseconds
    std::snprintf(buf, sizeof buf, ",boundary=%.9g", link.boundary * 1e6);
    s += buf;
  }
  return s;
}

/// The link as its figures are printed (link_figures_text: 9 significant digits) and read back
/// (calibration.hpp: the same strtod and the same scaling): the run plans with these, so
/// `stepgen plan --calibration` given the run's line makes the run's choice even where two
/// plans' predictions differ in the last digits.
inline Link as_printed(Link l) {
  // `printed`: the number as link_figures_text computes it; `back`: the parser's factor.
  auto round = [](double v, double printed, double back) {
    if (!(v > 0)) return v;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", printed);
    return std::strtod(buf, nullptr) * back;
  };
  l.h2d = round(l.h2d, l.h2d / 1e9, 1e9);
  l.d2h = round(l.d2h, l.d2h / 1e9, 1e9);
  l.bidir = round(l.bidir, l.bidir / 1e9, 1e9);
  l.d2d = round(l.d2d, l.d2d / 1e9, 1e9);
  l.cell_step = round(l.cell_step, l.cell_step * 1e9, 1e-9);
  if (l.devices_all > 1) {
    l.h2d_all = round(l.h2d_all, l.h2d_all / 1e9, 1e9);
    l.d2h_all = round(l.d2h_all, l.d2h_all / 1e9, 1e9);
    l.bidir_all = round(l.bidir_all, l.bidir_all / 1e9, 1e9);
  }
  l.latency = round(l.latency, l.latency * 1e6, 1e-6);
  l.issue_op = round(l.issue_op, l.issue_op * 1e6, 1e-6);
  l.issue_command = round(l.issue_command, l.issue_command * 1e6, 1e-6);
  if (l.message > 0) {
    l.message = round(l.message, l.message / 1e9, 1e9);
    l.message_latency = round(l.message_latency, l.message_latency * 1e6, 1e-6);
  }
  l.boundary = round(l.boundary, l.boundary * 1e6, 1e-6);
  return l;
}

}  // namespace stepgen::rt::ooc

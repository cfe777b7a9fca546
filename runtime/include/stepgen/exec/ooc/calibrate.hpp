#pragma once
/// \file
/// Out of core, the start-up measurements the model needs, written once for the backends:
/// the link (each way, both at once, all devices at once) and, on a probe chunk, the kernels'
/// time per cell-step and the device copies' speed. Standard library only.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/model.hpp"

namespace stepgen::rt::ooc {

/// The first planes (along the slowest dimension) of `box`, at most `bytes` for cells of
/// `cell_bytes` bytes, at least one plane: what a link calibration sends.
inline Box probe_planes(const Box& box, int dims, Index cell_bytes, Index bytes) {
  const int s = dims - 1;
  const Index plane_bytes = cell_bytes * (box.volume() / std::max<Index>(box.extent(s), 1));
  Box probe = box;
  probe.hi[static_cast<std::size_t>(s)] =
      probe.lo[static_cast<std::size_t>(s)] +
      std::clamp<Index>(bytes / std::max<Index>(plane_bytes, 1), 1, box.extent(s));
  return probe;
}

// --- the latency charged once (docs/decisions/0001-out-of-core-auto-compares.md) ---
/// What is left of `seconds`, a timed group of `commands` commands in a row on one queue, once
/// the model's per-command latency (Link::latency) is taken off: the model charges every
/// command that latency on top of its bytes or cells, so a figure measured with the latency
/// in it would charge it twice (on small runs, whose probes are small, the kernels' and the
/// link's figures are mostly latency: acoustic 64x56x48 was predicted 1.45-1.85x its
/// measured time on the H100). At least a tenth of the time is kept: a latency measured
/// higher than these commands really wait (another process on the GPU, say) never makes a
/// figure infinite.
inline double without_latency(double seconds, double commands, const Link& link) {
  return std::max(seconds - commands * std::max(link.latency, 0.0), 0.1 * seconds);
}
// --- end: the latency charged once ---

/// The link measurements of a start-up calibration, shared by the backends. `make(p, box)`
/// makes a probe (with a member `box`): the box's cells of every array on part p's device,
/// with two copy streams; `copy(probe, to_device)` enqueues the probe's copies one way on its
/// stream for that way (one command per array); `wait(probe)` waits for both of its streams;
/// `latency(probe)` measures the per-command latency on the probe (Link::latency, first: the
/// link's figures leave it out, without_latency). With several devices, first all of them at
/// once (the *_all figures: the first planes of each owned box, which do not overlap), then
/// the first part's device alone (the first planes of its reach): h2d, d2h and both ways,
/// each after a warm-up. Returns that last probe, on which the caller times the kernels.
template <typename Probe, typename Make, typename Copy, typename Wait, typename Latency>
Probe measure_link(const Schedule& sc, std::size_t devices, Index probe_bytes, Make make, Copy copy,
                   Wait wait, Latency latency, Link& link) {
  Index cell_bytes = 0;
  for (const Array& a : sc.arrays) cell_bytes += a.element_bytes;
  std::vector<Probe> one;
  one.push_back(make(0, probe_planes(sc.parts[0].reach, sc.dims, cell_bytes, probe_bytes)));
  link.latency = latency(one.front());  // the per-command latency, charged by the model
  // Copies every probe at once; the bytes per second of one way. Each way is one queue per
  // probe, a command per array on each, the queues side by side.
  const auto commands = static_cast<double>(sc.arrays.size());
  auto timed = [&](std::vector<Probe>& probes, bool send, bool receive) {
    double bytes = 0;
    Stopwatch t;
    t.start();
    for (Probe& pr : probes) {
      bytes += static_cast<double>(pr.box.volume()) * static_cast<double>(cell_bytes);
      if (send) copy(pr, true);
      if (receive) copy(pr, false);
    }
    for (Probe& pr : probes) wait(pr);
    return bytes / std::max(without_latency(t.stop(), commands, link), 1e-9);
  };
  // The best of three runs each: one run of a few tens of milliseconds is at the mercy of
  // whatever else the host does then (the H100 gave 28.7 to 53.5 GB/s host to device).
  auto measure = [&](std::vector<Probe>& probes, double& h2d, double& d2h, double& bidir) {
    timed(probes, true, false);  // warm-up
    h2d = d2h = bidir = 0;
    for (int i = 0; i < 3; ++i) {
      h2d = std::max(h2d, timed(probes, true, false));
      d2h = std::max(d2h, timed(probes, false, true));
      bidir = std::max(bidir, 2 * timed(probes, true, true));
    }
  };
  const std::size_t n = std::min(devices, sc.parts.size());
  if (n > 1) {
    std::vector<Probe> all;
    for (std::size_t p = 0; p < n; ++p)
      all.push_back(make(p, probe_planes(sc.parts[p].owned, sc.dims, cell_bytes, probe_bytes)));
    measure(all, link.h2d_all, link.d2h_all, link.bidir_all);
    link.devices_all = static_cast<int>(n);
  }
  measure(one, link.h2d, link.d2h, link.bidir);
  return std::move(one.front());
}

/// The fastest of `runs` runs of `f` (which waits for its own work), in seconds: one timing
/// of a few milliseconds is at the mercy of whatever else the machine does then.
template <typename F>
double fastest(int runs, F f) {
  double best = 0;
  for (int i = 0; i < runs; ++i) {
    Stopwatch t;
    t.start();
    f();
    const double s = std::max(t.stop(), 1e-9);
    best = i == 0 ? s : std::min(best, s);
  }
  return best;
}

/// The speed of copies within a device, as region sharing does them: `copy(from, to)` copies
/// every array's cells of box `from` to box `to` of the same buffers (a command per array)
/// and waits. Measured on the probe's lower and upper halves along the slowest dimension (the
/// best of three after a warm-up), `link`'s per-command latency left out (without_latency);
/// bytes copied per second. The default of Link when the probe is too thin.
template <typename Copy>
double measure_copies(const Box& probe, int dims, Copy copy, const std::vector<Array>& arrays,
                      const Link& link) {
  const auto a = static_cast<std::size_t>(dims - 1);
  const Index half = probe.extent(dims - 1) / 2;
  if (half < 1) return Link{}.d2d;
  Box from = probe, to = probe;
  from.hi[a] = from.lo[a] + half;
  to.lo[a] = from.hi[a];
  to.hi[a] = to.lo[a] + half;
  double bytes = 0;
  for (const Array& arr : arrays)
    bytes += static_cast<double>(from.volume()) * static_cast<double>(arr.element_bytes);
  copy(from, to);  // warm-up
  const double s = fastest(3, [&] { copy(from, to); });
  return bytes / std::max(without_latency(s, static_cast<double>(arrays.size()), link), 1e-9);
}

/// The device side of the start-up measurements, on a probe box the buffers hold: the kernels'
/// seconds per cell-step (`step()` runs one time step over the probe and waits; a warm-up,
/// then the fastest of three) and the speed of device copies (`copy(a, from, to)` copies array
/// a's cells between two places of its probe buffer, `wait()` waits for them). A step over
/// the probe computes its planes but one step's halos at either end (computed_planes), and
/// so does the model count the cells of a chunk: with a thin probe (21 planes at 1750^3, 8 of
/// them halos) dividing by all its cells made the kernels look 1.6x faster than they are.
/// The step's launches (Schedule::launches) are charged the per-command latency by the model,
/// so the step's time is taken without it (without_latency): `link.latency` is measured first.
template <typename Step, typename Copy, typename Wait>
void measure_device(const Schedule& sc, const Box& probe, Step step, Copy copy, Wait wait,
                    Link& link) {
  step();  // warm-up (and, in OpenCL, first-launch compilation)
  const int axis = sc.dims - 1;
  const Index planes = std::max<Index>(probe.extent(axis), 1);
  const double computed = static_cast<double>(probe.volume() / planes) *
                          static_cast<double>(computed_planes(sc, planes));
  link.cell_step =
      without_latency(fastest(3, step), static_cast<double>(std::max(sc.launches, 1)), link) /
      computed;
  link.d2d = measure_copies(
      probe, sc.dims,
      [&](const Box& from, const Box& to) {
        for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
          const auto elem = static_cast<std::size_t>(sc.arrays[a].element_bytes);
          copy(a, rect_of(from, probe, elem), rect_of(to, probe, elem));
        }
        wait();
      },
      sc.arrays, link);
}

// --- per-command latency (docs/decisions/0001-out-of-core-auto-compares.md) ---
/// The median of `runs` runs of `f` (which waits for its own work), in seconds.
template <typename F>
double median_seconds(int runs, F f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    Stopwatch w;
    w.start();
    f();
    t.push_back(std::max(w.stop(), 0.0));
  }
  std::sort(t.begin(), t.end());
  return t.empty() ? 0 : t[t.size() / 2];
}

/// The host's time to issue commands (Link::issue_op, issue_command): `op(n)` issues one op
/// as the runner does (a wait on the previous op's event, a timing event, `n` one-cell copies,
/// a timing event, its completion event) without waiting for the device; `wait()` waits for
/// all of them. 16 ops of 1 copy, and 16 of 4 copies, the host's time only, the fastest of
/// three after a warm-up each: issue_command from the difference, issue_op from the rest.
/// `now()` reads the host's clock in seconds (the tests pass one they drive).
template <typename IssueOp, typename Wait, typename Now>
void measure_issue(IssueOp op, Wait wait, Link& link, Now now) {
  constexpr int kOps = 16;
  auto per_op = [&](int copies) {
    double best = -1;
    for (int r = 0; r < 4; ++r) {  // the first: a warm-up
      const double start = now();
      for (int i = 0; i < kOps; ++i) op(copies);
      const double s = now() - start;
      wait();
      if (r > 0 && (best < 0 || s < best)) best = s;
    }
    return std::max(best, 0.0) / kOps;
  };
  const double one = per_op(1), four = per_op(4);
  link.issue_command = std::max((four - one) / 3, 0.0);
  link.issue_op = std::max(one - link.issue_command, 0.0);
}

/// The emulated issue figures (measure_issue) scaled to the runner's own: `issued`, the
/// seconds a run of `sc` over `steps` steps spent issuing its ops (Stats::issue_s), over the
/// seconds the figures give those ops (issue_seconds), by 0.5-20; unchanged where either is 0.
inline void scale_issue(const Schedule& sc, Index steps, double issued, Link& link) {
  double emulated = 0;
  for (const Op& op : ops(sc, steps)) emulated += issue_seconds(sc, op, link);
  if (!(emulated > 0) || !(issued > 0)) return;
  const double f = std::clamp(issued / emulated, 0.5, 20.0);
  link.issue_op *= f;
  link.issue_command *= f;
}

/// measure_issue on the steady clock.
template <typename IssueOp, typename Wait>
void measure_issue(IssueOp op, Wait wait, Link& link) {
  measure_issue(op, wait, link, [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  });
}

/// MPI: what a pass boundary costs the ranks beyond their own work (Link::boundary). `rounds`
/// times, after a first meeting that lines the ranks up, every rank does `work()` (a step of
/// its probe, waited for, as a pass ends with its last chunk's compute) and then `meet()` (a
/// small message to and from its neighbours, waited for, as at a pass boundary). Returns the
/// mean of a round's time less the median of the rank's own work: a round ends when the
/// slowest rank's work is done (noise: which rank that is changes from round to round) and
/// the meeting's calls are over. The mean, not the median: the slow rounds are the cost.
template <typename Work, typename Meet>
double measure_boundary(Work work, Meet meet, int rounds = 40) {
  auto now = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  work();  // warm-up
  meet();
  std::vector<double> own, round;
  for (int i = 0; i < rounds; ++i) {
    const double t0 = now();
    work();
    const double t1 = now();
    meet();
    const double t2 = now();
    own.push_back(t1 - t0);
    round.push_back(t2 - t0);
  }
  std::sort(own.begin(), own.end());
  double sum = 0;
  for (const double r : round) sum += r;
  return std::max(0.0, sum / static_cast<double>(rounds) - own[own.size() / 2]);
}

/// A command's latency: `tiny()` issues one copy of a single cell and waits for it; after a
/// warm-up, the median of seven. What the model charges each command beyond its bytes or cells
/// (Link::latency).
template <typename Tiny>
double measure_latency(Tiny tiny) {
  tiny();  // warm-up
  return median_seconds(7, tiny);
}
// --- end: per-command latency ---

}  // namespace stepgen::rt::ooc

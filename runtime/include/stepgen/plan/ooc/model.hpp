#pragma once
/// \file
/// Out of core, the model: chunks and steps per pass from the link and the kernel speed. The
/// pipeline of ops() played out on stated or measured figures (simulate, predict), and the
/// chooser every program and `stepgen plan` run (choose). Standard library only.

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/errors.hpp"
#include "stepgen/plan/ooc/link.hpp"
#include "stepgen/plan/ooc/pipeline.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
#include "stepgen/plan/ooc/transfers.hpp"

namespace stepgen::rt::ooc {

/// The link each of `parts` devices gets when all of them stream at once: its own link, or
/// its share of the measured aggregate where that is lower.
inline Link share(const Link& link, std::size_t parts) {
  Link l = link;
  if (parts > 1 && link.devices_all > 1) {
    const double n = static_cast<double>(parts);
    if (link.h2d_all > 0) l.h2d = std::min(l.h2d, link.h2d_all / n);
    if (link.d2h_all > 0) l.d2h = std::min(l.d2h, link.d2h_all / n);
    if (link.bidir_all > 0) l.bidir = std::min(l.bidir, link.bidir_all / n);
  }
  return l;
}

/// The planes along the slowest dimension a step computes on a buffer of `planes` planes when
/// it computes the whole buffer: all but one step's halos below and above (the kernels leave
/// the cells whose reads would leave the buffer alone). At least 1.
inline Index computed_planes(const Schedule& sc, Index planes) {
  const auto a = static_cast<std::size_t>(sc.dims - 1);
  return std::max<Index>(planes - sc.shrink_lo[a] - sc.shrink_hi[a], 1);
}

/// The cells a pass computes on one chunk over its `steps` steps (default: k): the whole load
/// window every step (but its halo planes at either end, computed_planes), or with the
/// trapezoid the planes each step still needs (counted as the step's last launch needs them: exact
/// for one launch per step, a little low for several).
inline double pass_cells(const Schedule& sc, const Chunk& c, Index steps = -1) {
  const Index k = steps < 0 ? sc.steps_per_pass : steps;
  const double load = static_cast<double>(c.load.volume());
  const int axis = sc.dims - 1;
  const auto a = static_cast<std::size_t>(axis);
  const Index planes = std::max<Index>(c.load.extent(axis), 1);
  const double plane = load / static_cast<double>(planes);
  if (!sc.trapezoid) return plane * static_cast<double>(computed_planes(sc, planes) * k);
  // Band sharing: a part's later chunks compute their own planes' worth each step, shifted up.
  const bool bands = sc.band_sharing && c.id > 0;
  rt::Part p;
  p.owned = c.load;
  p.owned.lo[a] = c.own_lo;
  p.owned.hi[a] = c.own_hi;
  p.ghost = c.load;
  double cells = 0;
  for (Index r = 0; r < k; ++r) {
    // Step j of the pass has r = k - 1 - j steps after it.
    if (bands) p.owned.lo[a] = band_owned_lo(sc, c, k, k - 1 - r);
    const auto [b, e] = needed_planes(p, axis, r, sc.shrink_lo[a], sc.shrink_hi[a], 0, 0, 1);
    // Where the window is clipped at the grid's edge the kernels leave its halo planes alone.
    const Index lo = std::max(b, sc.shrink_lo[a]), hi = std::min(e, planes - sc.shrink_hi[a]);
    cells += plane * static_cast<double>(std::max<Index>(hi - lo, 0));
  }
  return cells;
}

/// One compute command's seconds on chunk `c` in a pass of `steps` steps: its kernels' cells
/// (pass_cells) and its device copies (region and band sharing, on the compute queue).
inline double compute_seconds(const Schedule& sc, const Chunk& c, Index steps, const Link& link) {
  Index elem_sum = 0;
  for (const Array& a : sc.arrays) elem_sum += a.element_bytes;
  const double d2d =
      static_cast<double>(c.shared.volume() * elem_sum + band_copy_bytes(sc, c, steps));
  return pass_cells(sc, c, steps) * link.cell_step + d2d / link.d2d;
}

// --- per-command latency in the model (docs/decisions/0001-out-of-core-auto-compares.md) ---
/// A load's (to_device) or a store's latency as bytes at the link's speed that way: one
/// command per array it moves (Link::latency each), so that simulate can add it to the
/// command's bytes.
/// The copies a load (to_device: one per array) or a store (one per written array) issues.
inline double copy_commands(const Schedule& sc, bool to_device) {
  double commands = 0;
  for (const Array& a : sc.arrays)
    if (to_device || a.written) commands += 1;
  return commands;
}

inline double latency_bytes(const Schedule& sc, const Link& link, bool to_device) {
  if (link.latency <= 0) return 0;
  return copy_commands(sc, to_device) * link.latency * (to_device ? link.h2d : link.d2h);
}

/// The commands compute command `op` issues, each charged the per-command latency: its
/// launches (Schedule::launches a step) and its device copies (region and band sharing: one
/// per array and box, as compute() issues them). On small runs, where the commands are tiny,
/// these are most of the time (wave2k 37x29x41 at 4 chunks, k = 3 with band sharing: about 40
/// commands a chunk; predicted 1.1 ms without the copies, 3.7 measured on the H100).
inline double compute_commands(const Schedule& sc, const Op& op) {
  std::size_t bytes = 0;
  double copies = 0, steps = 0;
  compute(
      sc, op, bytes,
      [&copies](std::size_t, Buffer, const RectCopy&, Buffer, const RectCopy&) { copies += 1; },
      [&steps](const rt::Part&, Index, Index) { steps += 1; });
  return copies + steps * static_cast<double>(std::max(sc.launches, 1));
}

/// The copies and launches op `op` issues: a load's one per array, a store's one per written
/// array, a compute command's compute_commands (a barrier: none).
inline double op_commands(const Schedule& sc, const Op& op) {
  if (op.kind == Op::Kind::kBarrier) return 0;
  if (op.kind == Op::Kind::kCompute) return compute_commands(sc, op);
  return copy_commands(sc, op.kind == Op::Kind::kLoad);
}

/// The host's time to issue op `op` (Link::issue_op + issue_command per copy or launch; a
/// barrier: none).
inline double issue_seconds(const Schedule& sc, const Op& op, const Link& link) {
  if (op.kind == Op::Kind::kBarrier) return 0;
  return link.issue_op + link.issue_command * op_commands(sc, op);
}
// --- end: per-command latency in the model ---

/// MPI (Schedule::host_per_part, Link::message): the seconds of one pass boundary's messages,
/// the slowest rank's. Every rank sends the cells of the written arrays that other parts read
/// from its owned box and receives its foreign cells, one message per array and box
/// (foreign_plan), packed and unpacked on the host while its device waits (the pipeline is
/// drained at the barrier). 0 in one process or without the figures.
inline double message_seconds(const Schedule& sc, const Link& link) {
  if (!sc.host_per_part || link.message <= 0 || sc.parts.size() < 2) return 0;
  Index written_bytes = 0;
  int written = 0;
  for (const Array& a : sc.arrays)
    if (a.written) {
      written_bytes += a.element_bytes;
      ++written;
    }
  std::vector<double> bytes(sc.parts.size(), 0), messages(sc.parts.size(), 0);
  for (const Transfer& t : foreign_plan(sc))
    for (const Box& b : t.boxes)
      for (const int p : {t.src, t.dst}) {
        bytes[static_cast<std::size_t>(p)] += static_cast<double>(b.volume() * written_bytes);
        messages[static_cast<std::size_t>(p)] += written;
      }
  double slowest = 0;
  for (std::size_t p = 0; p < bytes.size(); ++p)
    slowest = std::max(slowest, bytes[p] / link.message + messages[p] * link.message_latency);
  return slowest;
}

/// simulate's work of each command of `ops`: bytes for loads and stores (with the link's
/// latency as bytes), seconds for compute; `where[part][3 * t + kind]`: the command's index,
/// for the waits on it (-1: none).
inline std::vector<double> command_work(const Schedule& sc, const std::vector<Op>& ops,
                                        const Link& link, Index steps,
                                        std::vector<std::vector<std::ptrdiff_t>>& where) {
  using K = Op::Kind;
  Index elem_sum = 0, written_sum = 0;
  for (const Array& a : sc.arrays) {
    elem_sum += a.element_bytes;
    if (a.written) written_sum += a.element_bytes;
  }
  const Index visits = passes(steps, sc.steps_per_pass) * sc.chunks;
  std::vector<double> work(ops.size(), 0);
  where.assign(sc.parts.size(), std::vector<std::ptrdiff_t>(3 * visits + 3, -1));
  std::map<std::pair<std::pair<int, int>, Index>, double> compute_s;  // (part, chunk), steps
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind == K::kBarrier) continue;
    const Part& part = sc.parts[static_cast<std::size_t>(op.part)];
    const Chunk& c = part.chunks[static_cast<std::size_t>(op.chunk)];
    where[static_cast<std::size_t>(op.part)]
         [static_cast<std::size_t>(3 * op.t) + static_cast<std::size_t>(op.kind)] =
             static_cast<std::ptrdiff_t>(i);
    if (op.kind == K::kLoad) {
      work[i] = static_cast<double>(c.h2d.volume() * elem_sum);
      work[i] += latency_bytes(sc, link, true);  // each command's latency, as bytes
    } else if (op.kind == K::kStore) {
      work[i] = static_cast<double>(c.own.volume() * written_sum);
      work[i] += latency_bytes(sc, link, false);
    } else {
      auto key = std::make_pair(std::make_pair(op.part, op.chunk), op.steps);
      auto it = compute_s.find(key);
      if (it == compute_s.end()) {
        it = compute_s.emplace(key, compute_seconds(sc, c, op.steps, link)).first;
      }
      work[i] = it->second;
      if (link.latency > 0) work[i] += link.latency * compute_commands(sc, op);  // per command
    }
  }
  return work;
}

/// The pipeline played out: every command of ops(sc, steps) in issue order on its stream
/// (loads, kernels and stores each on their own with `overlap`, all on one without), each
/// starting when its stream's previous command and the commands it waits for are done, as the
/// runners issue them. A load moves its chunk's host window at the link's host-to-device speed
/// and a store its own planes back at device-to-host speed; while a load and a store of one
/// device run at once both slow down in proportion so that together they move at most the
/// bidirectional figure. A compute command takes its cells' kernel time plus its device
/// copies (region and band sharing) at the device-copy speed. Several parts stream at once,
/// each at its share of the link (share), and meet at the pass barriers. Returns the
/// seconds until the last command is done.
inline double simulate(const Schedule& sc, const Link& measured, Index steps, bool overlap) {
  using K = Op::Kind;
  const std::vector<Op> ops = ooc::ops(sc, steps);
  if (ops.empty()) return 0;
  const Link link = share(measured, sc.parts.size());
  const std::size_t parts = sc.parts.size();
  // A command's work: bytes for loads and stores, seconds for compute; its place for waits.
  std::vector<std::vector<std::ptrdiff_t>> where;
  const std::vector<double> work = command_work(sc, ops, link, steps, where);
  // When the host has issued each op (issue_op + issue_command per copy or launch,
  // one after the other in issue order, per issuing thread: Schedule::host_per_part; after a
  // barrier, from when the barrier is over).
  std::vector<double> issued(ops.size(), 0);
  std::vector<double> issue_cost(ops.size(), 0);
  if (link.issue_op > 0 || link.issue_command > 0)  // (op_commands walks each compute command)
    for (std::size_t i = 0; i < ops.size(); ++i) issue_cost[i] = issue_seconds(sc, ops[i], link);
  // One thread issues every part's commands (one process), or each part has its own (MPI).
  std::vector<double> host_clock(sc.host_per_part ? parts : 1, 0.0);
  auto clock_of = [&](const Op& op) -> double& {
    return host_clock[sc.host_per_part ? static_cast<std::size_t>(op.part) : 0];
  };
  const double boundary = message_seconds(sc, measured);  // MPI: the messages at each barrier
  const double f = std::min(1.0, link.bidir / (link.h2d + link.d2h));  // both ways at once
  std::vector<char> done(ops.size(), 0), running(ops.size(), 0);
  std::vector<double> left = work;
  double now = 0;
  std::size_t begin = 0;  // the commands from here to the next barrier run together
  while (begin < ops.size()) {
    std::size_t end = begin;
    while (end < ops.size() && ops[end].kind != K::kBarrier) ++end;
    for (double& c : host_clock) c = std::max(c, now);  // the hosts waited at the barrier
    for (std::size_t i = begin; i < end; ++i) issued[i] = clock_of(ops[i]) += issue_cost[i];
    // Each part's streams: the commands in issue order; the one at the head runs.
    const std::size_t lanes = overlap ? 3 : 1;
    std::vector<std::vector<std::size_t>> queue(parts * lanes);
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t lane = overlap ? static_cast<std::size_t>(ops[i].kind) : 0;
      queue[static_cast<std::size_t>(ops[i].part) * lanes + lane].push_back(i);
    }
    std::vector<std::size_t> head(queue.size(), 0);
    std::size_t remaining = end - begin;
    auto ready = [&](const Op& op) {
      for (const auto& w : op.waits) {
        const std::ptrdiff_t j =
            where[static_cast<std::size_t>(op.part)]
                 [static_cast<std::size_t>(3 * w.second) + static_cast<std::size_t>(w.first)];
        if (j >= 0 && !done[static_cast<std::size_t>(j)]) return false;
      }
      return true;
    };
    while (remaining > 0) {
      // Start what can start; commands with nothing to do finish at once.
      for (bool again = true; again;) {
        again = false;
        for (std::size_t q = 0; q < queue.size(); ++q) {
          if (head[q] >= queue[q].size()) continue;
          const std::size_t i = queue[q][head[q]];
          if (running[i] || !ready(ops[i]) || issued[i] > now) continue;
          if (left[i] > 0) {
            running[i] = 1;
          } else {
            done[i] = 1;
            ++head[q];
            --remaining;
            again = true;
          }
        }
      }
      if (remaining == 0) break;
      // The running commands' speeds, and the first to finish.
      std::vector<std::pair<std::size_t, double>> run;  // command, work per second
      for (std::size_t q = 0; q < queue.size(); ++q) {
        if (head[q] >= queue[q].size()) continue;
        const std::size_t i = queue[q][head[q]];
        if (running[i]) run.push_back({i, 0.0});
      }
      // The first head the host has not issued yet.
      double next_issue = -1;
      for (std::size_t q = 0; q < queue.size(); ++q) {
        if (head[q] >= queue[q].size()) continue;
        const std::size_t i = queue[q][head[q]];
        if (!running[i] && issued[i] > now && (next_issue < 0 || issued[i] < next_issue))
          next_issue = issued[i];
      }
      if (run.empty() && next_issue >= 0) {
        now = next_issue;
        continue;
      }
      if (run.empty()) throw RunError("out-of-core model: the pipeline waits on itself");
      for (auto& [i, rate] : run) {
        const Op& op = ops[i];
        if (op.kind == K::kCompute) {
          rate = 1;
          continue;
        }
        bool other = false;  // a transfer the other way on this part's link
        for (const auto& [j, unused] : run)
          other = other ||
                  (ops[j].part == op.part && ops[j].kind != K::kCompute && ops[j].kind != op.kind);
        rate = (op.kind == K::kLoad ? link.h2d : link.d2h) * (other ? f : 1.0);
      }
      double dt = -1;
      for (const auto& [i, rate] : run)
        if (dt < 0 || left[i] / rate < dt) dt = left[i] / rate;
      double then = now + dt;
      if (next_issue >= 0 && next_issue < then) {  // a head is issued first
        dt = next_issue - now;
        then = next_issue;
      }
      now = then;
      for (const auto& [i, rate] : run) {
        left[i] -= rate * dt;
        if (left[i] <= 1e-9 * work[i]) {
          left[i] = 0;
          running[i] = 0;
          done[i] = 1;
          const std::size_t lane = overlap ? static_cast<std::size_t>(ops[i].kind) : 0;
          ++head[static_cast<std::size_t>(ops[i].part) * lanes + lane];
          --remaining;
        }
      }
    }
    begin = end + 1;  // past the barrier: every stream drained
    // The barrier's wait; MPI: its messages and the ranks' meeting (Link::boundary)
    if (end < ops.size()) now += link.latency + boundary + (sc.host_per_part ? link.boundary : 0);
  }
  return now;
}

/// A time no run of `sc` can beat, cheap to compute: per part, its bytes each way and both
/// ways at once at the link's speeds, and its kernels and device copies, each taken alone
/// (simulate plays the same work out, so it never predicts less). choose skips playing
/// out a plan this already rules out.
inline double lower_bound(const Schedule& sc, const Link& measured, Index steps) {
  const Link link = share(measured, sc.parts.size());
  const Index k = sc.steps_per_pass, full = steps / k, rest = steps % k;
  const double passes = static_cast<double>(ooc::passes(steps, sc.steps_per_pass));
  double worst = 0;
  for (const Part& p : sc.parts) {
    const double in = passes * static_cast<double>(p.h2d_bytes),
                 out = passes * static_cast<double>(p.d2h_bytes);
    double comp = 0;
    for (const Chunk& c : p.chunks)
      for (const Index s : {k, rest}) {
        const double times = static_cast<double>(s == k ? full : 1);
        if (s == 0 || times == 0) continue;
        comp += times * compute_seconds(sc, c, s, link);
      }
    worst = std::max({worst, in / link.h2d, out / link.d2h,
                      (in + out) / std::max({link.bidir, link.h2d, link.d2h}), comp});
  }
  return worst;
}

/// The predicted wall time of a run: the pipeline played out (simulate). Replayed on the
/// H100 runs' logged inputs (bench/run.sh replay) it comes within -10% to +5% of the
/// measured times, where the closed form it replaced (the slowest stream plus filling and
/// draining) predicted the link-bound plans 9-19% fast: it missed the loads that wait for a
/// free buffer slot and the link both directions share. A run of many passes is played out
/// for its last short pass and four full ones before it, and every further full pass adds what
/// the fourth added (the pipeline repeats itself pass after pass), so that choosing among
/// hundreds of plans for a run of thousands of steps stays quick.
inline double predict(const Schedule& sc, const Link& measured, Index steps, bool overlap) {
  const Index k = sc.steps_per_pass, full = steps / k, rest = steps % k;
  constexpr Index kPlayed = 4;
  if (full <= kPlayed) return simulate(sc, measured, steps, overlap);
  const double last = simulate(sc, measured, kPlayed * k + rest, overlap);
  const double before = simulate(sc, measured, (kPlayed - 1) * k + rest, overlap);
  return last + static_cast<double>(full - kPlayed) * (last - before);
}

/// The link bound of a run: max(in / h2d, out / d2h, (in + out) / bidir) over the bytes it
/// moves: no schedule moving these bytes can be faster.
inline double link_bound(double in, double out, const Link& link) {
  return std::max({in / link.h2d, out / link.d2h, (in + out) / link.bidir});
}

/// The link bound of a run on `parts` devices streaming at once, `in` and `out` summed over
/// them: each device at its share of the link (share), the bytes spread evenly.
inline double link_bound(double in, double out, const Link& link, std::size_t parts) {
  const double n = static_cast<double>(std::max<std::size_t>(parts, 1));
  return link_bound(in / n, out / n, share(link, parts));
}

/// Throws PlanError when the request's steps_per_pass (given: the spec's or --steps-per-pass)
/// is one no plan may take. choose() checks it; a program checks it before it writes anything
/// (the step-0 outputs), so that a refused run leaves no file behind.
inline void check_steps_per_pass(const Request& r) {
  const int want_k = r.steps_per_pass;
  // The end of a step's work runs at pass boundaries: k must divide `every` (reductions).
  if (want_k > 0 && r.every > 0 && r.every % want_k != 0)
    throw PlanError(
        "out-of-core: " + std::to_string(want_k) +
        " steps per pass (the spec's steps_per_pass or --steps-per-pass) do not "
        "divide " +
        std::to_string(r.every) + ", " +
        (r.every_why.empty() ? std::string("the steps between reductions (every)") : r.every_why) +
        ": passes must end where they are computed; give a divisor of it");
  // <boundary> frames whose periodic images no kernel can compute past one step.
  if (want_k > 0 && r.max_steps_per_pass > 0 && want_k > r.max_steps_per_pass)
    throw PlanError("out-of-core: " + std::to_string(want_k) +
                    " steps per pass (the spec's steps_per_pass or --steps-per-pass), but at "
                    "most " +
                    std::to_string(r.max_steps_per_pass) + " can be exact: " + r.max_steps_why +
                    "; give --steps-per-pass " + std::to_string(r.max_steps_per_pass));
}

/// The request's chunks and steps_per_pass, where 0 (auto), chosen by the model among those
/// whose largest part fits `budget` bytes: every k from 1 to 32 (at most `steps`) and, per k,
/// chunk counts from the fewest that fit to 8 times that. Each plan gets its lower bound
/// (lower_bound); they are played out (predict) from the lowest bound up until no bound
/// left is below the best predicted time, so only a few are. Throws PlanError naming what would
/// be needed when nothing fits, or when the given values do not.
inline Schedule choose(Request r, Index budget, const Link& link, Index steps, bool overlap) {
  const int s = r.grid.dims - 1;
  Index planes = Index{1} << 40;
  for (const Box& b : r.owned) planes = std::min(planes, b.extent(s));
  const int want_n = r.chunks, want_k = r.steps_per_pass;
  check_steps_per_pass(r);
  int k_hi = want_k > 0 ? want_k : static_cast<int>(std::clamp<Index>(steps, 1, 32));
  if (r.max_steps_per_pass > 0) k_hi = std::min(k_hi, r.max_steps_per_pass);
  bool have = false;
  Schedule best;
  double best_t = 0;
  std::string why, budget_why;  // why candidates were refused
  Index smallest = -1;
  struct Fit {
    double bound;  ///< lower_bound
    int k;
    Index n;
  };
  std::vector<Fit> fits;  // the plans that fit the budget
  for (int k = want_k > 0 ? want_k : 1; k <= k_hi; ++k) {
    if (r.every > 0 && r.every % k != 0) continue;
    r.steps_per_pass = k;
    const Index n_lo = want_n > 0 ? want_n : 1, n_hi = want_n > 0 ? want_n : planes;
    Index first_fit = 0;
    for (Index n = n_lo; n <= n_hi; ++n) {
      r.chunks = static_cast<int>(n);
      Schedule sc;
      try {
        sc = schedule(r);
      } catch (const PlanError& e) {
        why = e.what();
        // Thinner chunks only make it worse: the halo of k steps does not fit them either.
        if (why.find("owns only") != std::string::npos) break;
        continue;
      }
      if (budget > 0 && sc.device_bytes > budget) {
        if (smallest < 0 || sc.device_bytes < smallest) {
          smallest = sc.device_bytes;
          // Fewer steps per pass helps only where the smallest plan has more than one.
          budget_why = "the smallest plan (" + std::to_string(n) + " chunk(s) of " +
                       std::to_string(k) + " step(s) per pass) needs " +
                       human_bytes(static_cast<double>(sc.device_bytes)) +
                       " of chunk buffers per device, more than the budget of " +
                       human_bytes(static_cast<double>(budget)) + "; give more --device-memory" +
                       (k > 1 ? " or fewer --steps-per-pass" : "");
        }
        continue;
      }
      if (!first_fit) first_fit = n;
      fits.push_back({lower_bound(sc, link, steps), k, n});
      if (n >= first_fit * 8) break;
    }
  }
  // Played out from the most promising bound on, until no plan left can beat the best.
  std::stable_sort(fits.begin(), fits.end(),
                   [](const Fit& a, const Fit& b) { return a.bound < b.bound; });
  for (const Fit& f : fits) {
    if (have && f.bound >= best_t) break;
    r.steps_per_pass = f.k;
    r.chunks = static_cast<int>(f.n);
    Schedule sc = schedule(r);
    const double t = predict(sc, link, steps, overlap);
    if (!have || t < best_t) {
      best = std::move(sc);
      best_t = t;
      have = true;
    }
  }
  // Over the budget, or no plan at all for another reason (more chunks asked than planes, a
  // pass's halos wider than a chunk): the message says which, so that --ooc-chunks 40 on 32
  // planes is not told that a chunk cannot fit.
  if (!have)
    throw PlanError(budget_why.empty()
                        ? "out-of-core: no plan can be made: " + why
                        : "out-of-core: one chunk with its halos cannot fit: " + budget_why);
  return best;
}

}  // namespace stepgen::rt::ooc

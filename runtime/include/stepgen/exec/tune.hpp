#pragma once
/// \file
/// The work-group shape tuner: a kernel whose spec says `<local size="auto"/>` lists candidate
/// shapes (work-group in OpenCL, block in CUDA); at start-up, after the kernel probe, the
/// program times each candidate on the first device over a box of the grid with buffers of
/// its own (the run's arrays are not touched), keeps the fastest for the whole run (in core,
/// out of core, every device and rank) and reports the choice and the gain. A kernel may say
/// `auto` only when its results do not depend on the shape (stepgen refuses kernels that use
/// local memory, barriers or work-group queries: docs/spec.md), so the results are the same
/// bits whatever is chosen. A candidate the device refuses (too many work-items, registers or
/// local memory for that shape) is skipped and reported.
/// A shape may also be given at run time (`--local KERNEL=SHAPE`, or STEPGEN_LOCAL in the
/// environment; rt::local_overrides): that kernel launches with it untuned (hand sweeps
/// without a rebuild); only kernels that say `auto` may be given one, and a shape the device
/// refuses is an error naming the kernel and the shape.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stepgen/description/description.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/probe_run.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/retune.hpp"

namespace stepgen::rt {

/// The candidate shapes of one kernel and the one its launches use (the first until tuned).
struct LocalShapes {
  int dims = 1;
  std::vector<std::array<std::size_t, 3>> candidates;
  std::size_t chosen = 0;
  /// Per candidate, its time per launch on the start-up tuning box (< 0: refused); empty when
  /// it was not tuned (--tune off, a shape given at run time). Out of core, the runner retunes
  /// the kernels that have them on the chunks (ooc/retune.hpp).
  std::vector<double> startup{};
  /// The shape the launch function passes to the launch (dims entries).
  const std::size_t* shape() const { return candidates[chosen].data(); }
};

/// "32x1x16".
inline std::string shape_text(const std::array<std::size_t, 3>& s, int dims) {
  std::string t;
  for (int d = 0; d < dims; ++d)
    t += (d ? "x" : "") + std::to_string(s[static_cast<std::size_t>(d)]);
  return t;
}

/// A launch shape given at run time for a tuned kernel: `--local KERNEL=SHAPE[,...]` or
/// STEPGEN_LOCAL="KERNEL=SHAPE[,...]" (SHAPE: one size per grid dimension, "32x1x16").
struct LocalOverride {
  std::size_t tuned = 0;                        ///< the kernel's index among the tuned ones
  std::array<std::size_t, 3> shape{{1, 1, 1}};  ///< sizes past the grid's dimensions are 1
  std::string from;                             ///< "--local" or "STEPGEN_LOCAL"
};

/// The launch shapes given at run time: STEPGEN_LOCAL first, then each --local list in
/// `flags` (a later entry for a kernel replaces an earlier one). Throws UsageError naming the
/// source and the entry for a malformed entry, a kernel the program does not have, or one whose
/// spec gives a fixed shape (only kernels that say <local size="auto"/> were checked by stepgen
/// not to depend on the shape: no local memory, barriers or work-group queries).
template <class B>
std::vector<LocalOverride> local_overrides(const std::vector<std::string>& flags,
                                           const KernelEntry<B>* entries, std::size_t kernel_count,
                                           const std::vector<TunedKernel>& tuned, int dims) {
  std::vector<LocalOverride> result;
  auto add_list = [&](const std::string& list, const std::string& from) {
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      const std::string entry = list.substr(start, comma - start);
      start = comma + 1;
      if (entry.empty()) continue;
      const std::size_t eq = entry.find('=');
      auto bad = [&](const std::string& why) {
        return UsageError(from + ": '" + entry + "': " + why);
      };
      if (eq == std::string::npos || eq == 0)
        throw bad("expected KERNEL=SHAPE, e.g. name=32x1x16 (one size per grid dimension)");
      const std::string name = entry.substr(0, eq);
      std::string known;
      std::size_t id = kernel_count;
      for (std::size_t k = 0; k < kernel_count; ++k) {
        known += std::string(k ? " " : "") + entries[k].probe.name;
        if (entries[k].probe.name == name) id = k;
      }
      if (id == kernel_count)
        throw bad("the program has no kernel '" + name + "' (kernels: " + known + ")");
      std::size_t which = tuned.size();
      for (std::size_t t = 0; t < tuned.size(); ++t)
        if (static_cast<std::size_t>(tuned[t].kernel) == id) which = t;
      if (which == tuned.size())
        throw bad("kernel '" + name +
                  "' has a fixed local size in its spec; only kernels whose spec says <local "
                  "size=\"auto\"/> may be given a shape at run time (stepgen checked that their "
                  "results do not depend on it)");
      LocalOverride o;
      o.tuned = which;
      o.from = from;
      const std::string text = entry.substr(eq + 1);
      std::size_t pos = 0;
      int d = 0;
      for (; d < 3 && pos <= text.size(); ++d) {
        const std::size_t x = std::min(text.find('x', pos), text.size());
        const std::string item = text.substr(pos, x - pos);
        pos = x + 1;
        char* end = nullptr;
        const unsigned long long v = item.empty() || item[0] == '-' || item[0] == '+'
                                         ? 0
                                         : std::strtoull(item.c_str(), &end, 10);
        if (v == 0 || v > (1u << 20) || !end || *end != '\0')
          throw bad("'" + item + "' is not a size from 1 to 1048576");
        o.shape[static_cast<std::size_t>(d)] = static_cast<std::size_t>(v);
      }
      if (d != dims || pos <= text.size())
        throw bad("the shape needs " + std::to_string(dims) +
                  " sizes separated by 'x' (the grid's dimensions), e.g. " +
                  (dims == 1   ? std::string("64")
                   : dims == 2 ? std::string("32x8")
                               : std::string("32x1x16")));
      result.erase(std::remove_if(result.begin(), result.end(),
                                  [&](const LocalOverride& r) { return r.tuned == which; }),
                   result.end());
      result.push_back(o);
    }
  };
  if (const auto& env = env_settings().local) add_list(*env, "STEPGEN_LOCAL");
  for (const std::string& f : flags) add_list(f, "--local");
  return result;
}

/// The box the tuner times kernels on: the grid's first planes along the slowest dimension, as
/// many as keep it under `max_cells` cells (at least 8 planes or the grid's extent): the other
/// dimensions whole, so that rows are as long as the run's.
inline Box tune_box(const Box& grid, int dims, Index max_cells) {
  const int s = dims - 1;
  const auto a = static_cast<std::size_t>(s);
  const Index plane = std::max<Index>(grid.volume() / std::max<Index>(grid.extent(s), 1), 1);
  const Index planes =
      std::clamp<Index>(max_cells / plane, std::min<Index>(8, grid.extent(s)), grid.extent(s));
  Box b = grid;
  b.hi[a] = b.lo[a] + planes;
  return b;
}

/// Sets kernel `t`'s shape to candidate `c`, and the launch table's work-group size along the
/// slowest dimension for its launches (out of core, a launch's slab is widened to whole
/// work-groups of it: ooc::needed_planes).
inline void use_shape(const TunedKernel& t, std::size_t c, std::vector<ProbeLaunch>* launches,
                      int dims) {
  t.shapes->chosen = c;
  if (launches)
    for (ProbeLaunch& l : *launches)
      if (l.kernel == t.kernel)
        l.group = t.shapes->candidates[c][static_cast<std::size_t>(dims - 1)];
}

/// What tuning found for one kernel, for the report.
struct TuneResult {
  std::string kernel;
  std::vector<double> seconds;        ///< per candidate, one launch over the box; < 0: refused
  std::vector<std::string> refusals;  ///< why, per refused candidate
  std::size_t chosen = 0;
  std::string given;          ///< the shape was given (--local, STEPGEN_LOCAL: which), not tuned
  double given_seconds = -1;  ///< its time per launch on the tuning box
};

/// Times every candidate shape of every tuned kernel on device `d` (launches over `box` with
/// buffers of their own, filled with 1s) and sets each kernel's chosen shape to the fastest;
/// the launch table's work-group size along the slowest dimension (`launches`: slabs are cut
/// at it) follows. `tune` false: the first candidate, untimed. A kernel in `overrides`
/// launches with the shape given there (timed once on the box; refused: an error), untuned.
template <class B>
std::vector<TuneResult> tune_locals(const Problem<B>& problem, const Box& grid,
                                    const typename B::Device& d, const KernelEntry<B>* entries,
                                    const std::vector<TunedKernel>& tuned,
                                    std::vector<ProbeLaunch>* launches, bool tune,
                                    const std::vector<LocalOverride>& overrides = {}) {
  std::vector<TuneResult> results;
  if (tuned.empty()) return results;
  const int dims = problem.dims;
  const Box box = tune_box(grid, dims, Index{1} << 23);
  if (tune || !overrides.empty()) {
    const typename B::Kernels k =
        problem.build_kernels ? problem.build_kernels(d) : typename B::Kernels{};
    std::vector<typename B::Buffer> buf;
    // The host values live until the copies are done (B::write_box does not wait).
    std::vector<HostArray> host;
    host.reserve(static_cast<std::size_t>(problem.array_count));
    for (int id = 0; id < problem.array_count; ++id) {
      const ArrayInfo& a = problem.arrays[id];
      HostArray& ones = host.emplace_back(a.name, a.element_bytes, box);
      unsigned char* p = ones.bytes.data();
      for (std::size_t i = 0; i < ones.bytes.size(); i += a.element_bytes) {
        if (a.floating() && a.element_bytes == 4) {
          const float one = 1.0f;
          std::memcpy(p + i, &one, 4);
        } else if (a.floating() && a.element_bytes == 8) {
          const double one = 1.0;
          std::memcpy(p + i, &one, 8);
        } else {
          std::memset(p + i, 0, a.element_bytes);
          p[i] = 1;
        }
      }
      buf.push_back(B::create_buffer(d, box, a.element_bytes, a.name));
      B::write_box(d, buf.back(), box, ones, box);
    }
    B::finish(d);
    Part part;
    part.owned = part.ghost = box;
    for (std::size_t ti = 0; ti < tuned.size(); ++ti) {
      const TunedKernel& t = tuned[ti];
      const KernelEntry<B>& entry = entries[t.kernel];
      LocalShapes& s = *t.shapes;
      TuneResult r;
      r.kernel = entry.probe.name;
      auto launch = [&] { entry.launch(B::whole(d, k, buf, part, 0)); };
      // Batches of launches long enough to time (at least 20 ms or 10 launches); the
      // fastest of two batches.
      auto time_launches = [&] {
        double best = 0;
        for (int batch = 0; batch < 2; ++batch) {
          using Clock = Stopwatch::Clock;
          const Clock::time_point t0 = Clock::now();
          auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
          int n = 0;
          do {
            launch();
            ++n;
            if (n % 3 == 0) B::finish(d);
          } while (n < 3 || (n < 10 && elapsed() < 0.02));
          B::finish(d);
          const double per = elapsed() / n;
          best = batch == 0 ? per : std::min(best, per);
        }
        return best;
      };
      // A shape given at run time: launched as given (a candidate or not), untuned.
      const LocalOverride* given = nullptr;
      for (const LocalOverride& o : overrides)
        if (o.tuned == ti) given = &o;
      if (given) {
        std::size_t c = 0;
        while (c < s.candidates.size() && s.candidates[c] != given->shape) ++c;
        if (c == s.candidates.size()) s.candidates.push_back(given->shape);
        s.chosen = r.chosen = c;
        r.given = given->from;
        try {
          launch();  // a shape the device refuses throws here
          B::finish(d);
        } catch (const RunError& e) {
          throw RunError("local size of kernel '" + r.kernel + "': the shape " +
                         shape_text(given->shape, dims) + " given by " + given->from +
                         " was refused by the device: " + e.what());
        }
        r.given_seconds = time_launches();
        results.push_back(std::move(r));
        continue;
      }
      if (!tune) {  // --tune off: the first candidate, untimed
        s.chosen = 0;
        results.push_back(std::move(r));
        continue;
      }
      for (std::size_t c = 0; c < s.candidates.size(); ++c) {
        s.chosen = c;
        try {
          launch();  // warm-up; a shape the device refuses throws here
          B::finish(d);
        } catch (const RunError& e) {
          r.seconds.push_back(-1);
          r.refusals.push_back(shape_text(s.candidates[c], dims) + ": " + e.what());
          continue;
        }
        r.seconds.push_back(time_launches());
      }
      std::size_t fastest = s.candidates.size();
      for (std::size_t c = 0; c < r.seconds.size(); ++c)
        if (r.seconds[c] >= 0 &&
            (fastest == s.candidates.size() || r.seconds[c] < r.seconds[fastest]))
          fastest = c;
      if (fastest == s.candidates.size())
        throw RunError("local size of kernel '" + r.kernel +
                       "': the device refused every candidate shape (" + r.refusals.front() + ")");
      s.chosen = r.chosen = fastest;
      s.startup = r.seconds;
      results.push_back(std::move(r));
    }
  } else {
    for (const TunedKernel& t : tuned) {
      t.shapes->chosen = 0;
      TuneResult r;
      r.kernel = entries[t.kernel].probe.name;
      results.push_back(std::move(r));
    }
  }
  for (const TunedKernel& t : tuned) use_shape(t, t.shapes->chosen, launches, dims);
  return results;
}

/// Out of core, the kernels the runner retunes on the chunks (ooc/retune.hpp): those tuned at
/// start-up (not --tune off, no shape given at run time), with their start-up times.
template <class B>
ooc::Retuner chunk_retuner(const KernelEntry<B>* entries, const std::vector<TunedKernel>& tuned,
                           std::vector<ProbeLaunch>* launches, int dims) {
  std::vector<ooc::RetuneKernel> kernels;
  for (const TunedKernel& t : tuned) {
    const LocalShapes& s = *t.shapes;
    if (s.startup.size() != s.candidates.size()) continue;
    ooc::RetuneKernel k;
    k.name = entries[t.kernel].probe.name;
    for (const auto& shape : s.candidates) k.shapes.push_back(shape_text(shape, dims));
    k.startup = s.startup;
    k.start = s.chosen;
    k.use = [t, launches, dims](std::size_t c) { use_shape(t, c, launches, dims); };
    kernels.push_back(std::move(k));
  }
  return ooc::Retuner(std::move(kernels));
}

/// The report's lines: per tuned kernel, the shape chosen and its time, the first candidate's
/// and the slowest's with the gain over them, the shapes tried and refused.
inline void tune_report(const std::vector<TuneResult>& results,
                        const std::vector<TunedKernel>& tuned, int dims, std::FILE* out) {
  for (std::size_t i = 0; i < results.size() && i < tuned.size(); ++i) {
    const TuneResult& r = results[i];
    const LocalShapes& s = *tuned[i].shapes;
    if (!r.given.empty()) {
      std::fprintf(out,
                   "local size: kernel '%s': %s given by %s (not tuned; %.3f ms per launch on "
                   "the tuning box)\n",
                   r.kernel.c_str(), shape_text(s.candidates[s.chosen], dims).c_str(),
                   r.given.c_str(), r.given_seconds * 1e3);
      continue;
    }
    if (r.seconds.empty()) {
      std::fprintf(out, "local size: kernel '%s': %s (the first candidate; --tune off)\n",
                   r.kernel.c_str(), shape_text(s.candidates[s.chosen], dims).c_str());
      continue;
    }
    std::size_t slowest = r.chosen;
    for (std::size_t c = 0; c < r.seconds.size(); ++c)
      if (r.seconds[c] > r.seconds[slowest]) slowest = c;
    const double best = r.seconds[r.chosen];
    char buf[160];
    std::snprintf(buf, sizeof buf, " (%.3f ms per launch on the tuning box)", best * 1e3);
    std::string line = "local size: kernel '" + r.kernel +
                       "' tuned: " + shape_text(s.candidates[r.chosen], dims) + buf;
    if (r.seconds[0] > 0 && r.chosen != 0) {
      std::snprintf(buf, sizeof buf, "; %.2fx faster than the first candidate %s",
                    r.seconds[0] / best, shape_text(s.candidates[0], dims).c_str());
      line += buf;
    }
    if (slowest != r.chosen && slowest != 0) {
      std::snprintf(buf, sizeof buf, ", %.2fx faster than the slowest %s",
                    r.seconds[slowest] / best, shape_text(s.candidates[slowest], dims).c_str());
      line += buf;
    }
    std::fprintf(out, "%s\n", line.c_str());
    std::string tried = "  tried:";
    for (std::size_t c = 0; c < r.seconds.size(); ++c) {
      if (r.seconds[c] < 0) continue;
      std::snprintf(buf, sizeof buf, " %s %.3f ms", shape_text(s.candidates[c], dims).c_str(),
                    r.seconds[c] * 1e3);
      tried += buf;
    }
    std::fprintf(out, "%s\n", tried.c_str());
    for (const std::string& why : r.refusals)
      std::fprintf(out, "  refused by the device: %s\n", why.c_str());
  }
}

}  // namespace stepgen::rt

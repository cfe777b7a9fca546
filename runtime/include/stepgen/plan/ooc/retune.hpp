#pragma once
/// \file
/// Out of core, the launch shapes retuned on the chunks (issue 26): a kernel whose spec says
/// `<local size="auto"/>` had its work-group (CUDA: block) shape chosen at start-up on a box of
/// the grid (tune.hpp), which ranks shapes as in core; the chunks of an out-of-core run rank them
/// differently (thin trapezoid slabs, copies on the other queues sharing the memory: on the H100
/// the start-up choice for acoustic 1160^3 ran 8.7% slower than the best shape). So the runner
/// times the candidates on the run's own chunk commands: the first part's interior chunks of
/// full passes (the same planes and steps, so their times compare; events around each command,
/// Runner), each candidate once, then the three fastest once more; the fastest per cell-step
/// is kept for the rest of the run (every device: the shapes are the program's). Kernels are
/// retuned one after the other, the others keeping their shape. The results are the same bits
/// whatever runs: only kernels stepgen found not to depend on the shape may say `auto`.
/// Candidates the device refused at start-up, and those over kPruned times the fastest there,
/// are not tried. A run too short to pay for the trials (fewer than kRunFactor times the
/// commands they need) keeps the start-up choice, and the report says why; `--ooc-retune always`
/// retunes it anyway (with fewer than 3 chunks per pass, comparing every chunk), `off` never.
/// Standard library only.

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/pipeline.hpp"
#include "stepgen/plan/ooc/schedule.hpp"

namespace stepgen::rt::ooc {

/// One kernel the runner may retune.
struct RetuneKernel {
  std::string name;
  std::vector<std::string> shapes;  ///< per candidate, as the report writes it ("32x1x16")
  /// Per candidate, its time per launch on the start-up tuning box; < 0: the device refused it.
  std::vector<double> startup;
  std::size_t start = 0;                 ///< the start-up choice
  std::function<void(std::size_t)> use;  ///< makes the program's launches use candidate c
};

class Retuner {
 public:
  /// A candidate slower than this at start-up (times the fastest there) is not tried.
  static constexpr double kPruned = 1.5;
  /// The run must have this many times the eligible commands the trials need.
  static constexpr Index kRunFactor = 3;
  /// Candidates measured a second time (the fastest of the first round).
  static constexpr std::size_t kSecond = 3;

  Retuner() = default;
  explicit Retuner(std::vector<RetuneKernel> kernels) : kernels_(std::move(kernels)) {
    wanted_ = false;
    for (RetuneKernel& k : kernels_) {
      State s;
      double fastest = -1;
      for (double t : k.startup)
        if (t >= 0 && (fastest < 0 || t < fastest)) fastest = t;
      for (std::size_t c = 0; c < k.startup.size(); ++c) {
        if (k.startup[c] < 0) continue;
        if (k.startup[c] > kPruned * fastest) {
          ++s.pruned;
          continue;
        }
        s.queue.push_back(c);
      }
      s.best = k.start;
      s.seconds.assign(k.shapes.size(), -1);
      wanted_ = wanted_ || s.queue.size() > 1;
      states_.push_back(std::move(s));
    }
  }

  /// Whether there is anything to retune (a kernel with two candidates or more to try).
  bool wanted() const { return wanted_; }

  /// Decides, before the run, whether the run pays for the trials: `chunks` per pass, `k` steps
  /// per pass, `steps` in the run (`always`: whenever it has interior chunks; the trials may
  /// then be unfinished at its end). False: the start-up choices stay, the report says why.
  bool start(int chunks, Index k, Index steps, bool always = false) {
    active_ = false;
    why_not_.clear();
    if (!wanted()) return false;
    any_chunk_ = always && chunks < 3;  // always: with fewer, every chunk is compared
    if (chunks < 3 && !any_chunk_) {
      why_not_ = "fewer than 3 chunks per pass (the interior chunks are compared)";
      return false;
    }
    Index needed = 0;
    for (const State& s : states_)
      if (s.queue.size() > 1)
        needed += static_cast<Index>(s.queue.size() + std::min(kSecond, s.queue.size()));
    const Index eligible = (steps / std::max<Index>(k, 1)) * (any_chunk_ ? chunks : chunks - 2);
    if (!always && eligible < kRunFactor * needed) {
      why_not_ = "the run has " + std::to_string(eligible) +
                 " interior chunk commands of full passes, the trials need " +
                 std::to_string(needed) + " (" + std::to_string(kRunFactor) +
                 "x that to pay for them: more steps or more chunks)";
      return false;
    }
    active_ = true;
    current_ = 0;
    next_kernel();
    return true;
  }
  bool active() const { return active_; }

  /// Whether compute command `op` is one whose time compares with the others': part
  /// `first_part`'s (the first one run here), an interior chunk (any chunk when `always` was
  /// asked with fewer than 3), a full pass.
  bool eligible(const Schedule& sc, const Op& op, int first_part) const {
    return op.kind == Op::Kind::kCompute && op.part == first_part &&
           (any_chunk_ || (op.chunk > 0 && op.chunk + 1 < sc.chunks)) &&
           op.steps == sc.steps_per_pass;
  }

  /// Before compute command `op`: sets the shapes it runs with. Returns the id to pass to
  /// measured() with its time, or -1 (untimed: not eligible, or waiting for results).
  int before(const Schedule& sc, const Op& op, int first_part) {
    if (!active_) return -1;
    State& s = states_[current_];
    if (!eligible(sc, op, first_part) || s.queue.empty()) {
      // Waiting for the trials in flight: the fastest known so far.
      kernels_[current_].use(s.best);
      return -1;
    }
    const std::size_t c = s.queue.front();
    s.queue.erase(s.queue.begin());
    kernels_[current_].use(c);
    const Chunk& ch =
        sc.parts[static_cast<std::size_t>(op.part)].chunks[static_cast<std::size_t>(op.chunk)];
    trials_.push_back(
        {current_, c, static_cast<double>(ch.own.volume()) * static_cast<double>(op.steps)});
    ++s.pending;
    ++s.commands;
    return static_cast<int>(trials_.size() - 1);
  }

  /// The time of trial `id` (a command's seconds, between the events around it).
  void measured(int id, double seconds) {
    if (id < 0 || static_cast<std::size_t>(id) >= trials_.size()) return;
    const Trial& t = trials_[static_cast<std::size_t>(id)];
    State& s = states_[t.kernel];
    --s.pending;
    if (s.done) return;
    const double per = seconds > 0 && t.cell_steps > 0 ? seconds / t.cell_steps : -1;
    if (per > 0 && (s.seconds[t.candidate] < 0 || per < s.seconds[t.candidate]))
      s.seconds[t.candidate] = per;
    if (per > 0 && (s.seconds[s.best] < 0 || per < s.seconds[s.best])) s.best = t.candidate;
    if (t.kernel != current_ || !active_ || s.pending > 0 || !s.queue.empty()) return;
    if (!s.second_round) {  // the fastest few once more
      s.second_round = true;
      std::vector<std::size_t> order;
      for (std::size_t c = 0; c < s.seconds.size(); ++c)
        if (s.seconds[c] > 0) order.push_back(c);
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return s.seconds[a] < s.seconds[b]; });
      order.resize(std::min(order.size(), kSecond));
      s.queue = order;
      if (!s.queue.empty()) return;
    }
    s.done = true;
    kernels_[current_].use(s.best);
    ++current_;
    next_kernel();
  }

  /// After the run: a kernel whose trials the run ended before keeps the fastest measured (the
  /// program's launches after the run, --verify's, use it: the report says so).
  void finish() {
    if (active_ && current_ < states_.size()) kernels_[current_].use(states_[current_].best);
  }

  /// The report's lines (none when nothing is retuned).
  std::vector<std::string> report() const {
    std::vector<std::string> lines;
    if (!wanted()) {
      // Candidates there were, but none besides the start-up choice left to try.
      for (std::size_t i = 0; i < kernels_.size(); ++i)
        if (kernels_[i].shapes.size() > 1)
          lines.push_back("  local size: kernel '" + kernels_[i].name + "': the start-up choice " +
                          kernels_[i].shapes[kernels_[i].start] +
                          " kept, not retuned on the chunks: the other candidates were refused or "
                          "over 1.5x the fastest at start-up");
      return lines;
    }
    if (!active_ && !why_not_.empty()) {
      for (const RetuneKernel& k : kernels_)
        lines.push_back("  local size: kernel '" + k.name + "': the start-up choice " +
                        k.shapes[k.start] + " kept, not retuned on the chunks: " + why_not_);
      return lines;
    }
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      const RetuneKernel& k = kernels_[i];
      const State& s = states_[i];
      if (s.commands == 0) continue;
      char buf[200];
      std::string line = "  local size: kernel '" + k.name + "' retuned on the chunks: ";
      if (!s.done) {
        line += "unfinished (the run ended first), " + k.shapes[s.best] + " kept";
      } else if (s.best == k.start) {
        std::snprintf(buf, sizeof buf, " (%.4f ns per cell-step)", s.seconds[s.best] * 1e9);
        line += "the start-up choice " + k.shapes[s.best] + " kept, the fastest there too" + buf;
      } else {
        std::snprintf(buf, sizeof buf, " (%.4f ns per cell-step)", s.seconds[s.best] * 1e9);
        line += k.shapes[s.best] + buf;
        if (s.seconds[k.start] > 0) {
          std::snprintf(buf, sizeof buf, ", %.2fx faster than the start-up choice %s",
                        s.seconds[k.start] / s.seconds[s.best], k.shapes[k.start].c_str());
          line += buf;
        }
      }
      std::snprintf(buf, sizeof buf, "; %zu chunk commands timed", s.commands);
      line += buf;
      if (s.pruned > 0) {
        std::snprintf(buf, sizeof buf,
                      ", %zu shape(s) not tried (over %.1fx the fastest at start-up)", s.pruned,
                      kPruned);
        line += buf;
      }
      lines.push_back(line);
      std::string tried = "    on the chunks (ns per cell-step, fastest of each):";
      std::vector<std::size_t> order;
      for (std::size_t c = 0; c < s.seconds.size(); ++c)
        if (s.seconds[c] > 0) order.push_back(c);
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return s.seconds[a] < s.seconds[b]; });
      for (std::size_t c : order) {
        std::snprintf(buf, sizeof buf, " %s %.4f", k.shapes[c].c_str(), s.seconds[c] * 1e9);
        tried += buf;
      }
      lines.push_back(tried);
    }
    return lines;
  }

  /// The candidate kernel `i` runs with now (tests).
  std::size_t best(std::size_t i) const { return states_[i].best; }
  bool done(std::size_t i) const { return states_[i].done; }

 private:
  struct State {
    std::vector<std::size_t> queue;  ///< candidates still to time, in order
    std::vector<double> seconds;     ///< per candidate, the fastest per cell-step (< 0: none)
    std::size_t best = 0;
    std::size_t pending = 0;   ///< trials issued, not measured yet
    std::size_t commands = 0;  ///< trials issued
    std::size_t pruned = 0;
    bool second_round = false;
    bool done = false;
  };
  struct Trial {
    std::size_t kernel, candidate;
    double cell_steps;
  };
  /// Skips kernels with nothing to try; past the last one, retuning is over.
  void next_kernel() {
    while (current_ < states_.size() && states_[current_].queue.size() < 2) ++current_;
    if (current_ >= states_.size()) {
      active_ = false;
      return;
    }
    kernels_[current_].use(states_[current_].best);
  }

  std::vector<RetuneKernel> kernels_;
  std::vector<State> states_;
  std::vector<Trial> trials_;
  std::size_t current_ = 0;
  bool active_ = false;
  bool wanted_ = false;
  bool any_chunk_ = false;
  std::string why_not_;
};

}  // namespace stepgen::rt::ooc

#pragma once
/// \file
/// Reductions, `until` and the monitor of a run: the end-of-step work of the generated time
/// loop, written once for both backends, in core, out of core and MPI.
///
/// The engines add each part's (or chunk's) owned cells into a partial rt::Reduction (the
/// backend's reduce_box) and hand it to Monitor::add at the steps where the reduction is
/// computed ((step + 1) % every == 0, and the last step). At the end of that step
/// Monitor::end_of_step merges the partials (exact, any order), across MPI ranks through
/// `combine`, reads the values, tests `until`, prints the monitor's line and the progress line.
/// Standard library only (MPI comes in through `combine`, mpi.hpp's allreduce_reductions).

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/description.hpp"
#include "stepgen/description/reduce.hpp"
#include "stepgen/exec/io/paths.hpp"
#include "stepgen/exec/program.hpp"

namespace stepgen::rt {

class Monitor;

/// The reductions, until and monitor of one run.
class Monitor {
 public:
  /// `print`: the monitor's table and the progress line on stdout (false under --quiet, in
  /// the --verify run, on ranks other than 0).
  Monitor(const MonitorSpec& spec, std::int64_t steps, bool print)
      : spec_(spec), steps_(steps), print_(print) {
    for (int i = 0; i < spec.count; ++i) {
      pending_.emplace_back(spec.reductions[i].op);
      values_.push_back(std::numeric_limits<double>::quiet_NaN());
      periodic_.push_back(std::numeric_limits<double>::quiet_NaN());
      computed_at_.push_back(-1);
    }
    progress_ = print && spec.every == 0 && isatty(STDOUT_FILENO) != 0;
    clock_.start();
  }

  /// No progress line: MPI ranks, whose output mpirun passes on through a pseudo-terminal
  /// even when it writes to a file (the line would end up in the file).
  void progress_off() { progress_ = false; }

  /// The run's first step, `first` (a restart's: the checkpoint's step), begins now: the
  /// monitor's times and rates count from here, its first row's ms/step over the steps since.
  void start(std::int64_t first = 0) {
    first_ = first;
    last_line_ = first - 1;
    clock_ = Stopwatch();
    clock_.start();
    progress_clock_ = Stopwatch();
    progress_clock_.start();
    elapsed_ = 0;
  }

  /// The merge of every rank's partial reductions (MPI; empty: one process).
  std::function<void(std::vector<Reduction>&)> combine;

  int count() const { return spec_.count; }
  const ReduceInfo& info(int i) const { return spec_.reductions[i]; }

  /// Whether reduction i is computed at `step`.
  bool computed(int i, std::int64_t step) const {
    const std::int64_t every = std::max<std::int64_t>(spec_.reductions[i].every, 1);
    return (step + 1) % every == 0 || step + 1 == steps_;
  }
  /// Whether any reduction is computed at `step`.
  bool any_computed(std::int64_t step) const {
    for (int i = 0; i < spec_.count; ++i)
      if (computed(i, step)) return true;
    return false;
  }

  /// Adds a part's (or chunk's) partial reduction i of this step (any thread, any order).
  void add(int i, const Reduction& partial) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_[static_cast<std::size_t>(i)].merge(partial);
  }

  /// The last computed value of reduction i (NaN before its first).
  double value(int i) const { return values_[static_cast<std::size_t>(i)]; }

  /// Every reduction's last value computed at a step of its `every`, by name: what a
  /// checkpoint records (not the values of a run's last step, which a longer run does not
  /// compute there: a restart then reads what the straight run reads).
  std::vector<std::pair<std::string, double>> last_values() const {
    std::vector<std::pair<std::string, double>> out;
    for (int i = 0; i < spec_.count; ++i)
      out.emplace_back(spec_.reductions[i].name, periodic_[static_cast<std::size_t>(i)]);
    return out;
  }
  /// A restart: the last values its checkpoint recorded, by name (names it does not know are
  /// left alone), so that `until` reads what the straight run reads.
  void restore(const std::vector<std::pair<std::string, double>>& last) {
    for (const auto& [name, v] : last)
      for (int i = 0; i < spec_.count; ++i)
        if (name == spec_.reductions[i].name)
          values_[static_cast<std::size_t>(i)] = periodic_[static_cast<std::size_t>(i)] = v;
  }

  /// The end of `step`: the reductions computed there read (merged across ranks), until
  /// tested, the monitor's line. False: the run stops after this step.
  bool end_of_step(std::int64_t step) {
    bool any = false, until_due = false;
    std::vector<Reduction> done;
    std::vector<int> ids;
    for (int i = 0; i < spec_.count; ++i) {
      if (!computed(i, step)) continue;
      const auto u = static_cast<std::size_t>(i);
      done.push_back(pending_[u]);
      ids.push_back(i);
      pending_[u] = Reduction(spec_.reductions[i].op);
      any = true;
    }
    if (any) {
      if (combine) combine(done);
      for (std::size_t j = 0; j < ids.size(); ++j) {
        const auto u = static_cast<std::size_t>(ids[j]);
        values_[u] = done[j].value();
        computed_at_[u] = step;
        const std::int64_t every = std::max<std::int64_t>(spec_.reductions[ids[j]].every, 1);
        if ((step + 1) % every == 0) periodic_[u] = values_[u];
      }
      for (int j = 0; j < spec_.until_use_count; ++j)
        if (computed_at_[static_cast<std::size_t>(spec_.until_uses[j])] == step) until_due = true;
    }
    if (spec_.until && until_due) diverged();
    const bool stop = spec_.until && until_due && spec_.until(*this, step);
    if (spec_.every > 0 && ((step + 1) % spec_.every == 0 || stop || step + 1 == steps_))
      line(step);
    if (progress_) progress(step, stop);
    if (stop) stopped_at_ = step;
    return !stop;
  }

  /// The step after which `until` stopped the run (-1: it ran every step).
  std::int64_t stopped_at() const { return stopped_at_; }
  /// Whether `until` stopped the run.
  bool stopped() const { return stopped_at_ >= 0; }
  /// The steps a run of `steps` ran: fewer where `until` stopped it.
  std::int64_t steps_run(std::int64_t steps) const { return stopped() ? stopped_at_ + 1 : steps; }

  /// The report's lines: why the run stopped, and each reduction's last value (without a
  /// monitor, which printed them).
  void print_report(std::FILE* out) const {
    if (stopped_at_ >= 0) {
      std::fprintf(out, "stopped at step %" PRId64 ": %s (", stopped_at_, spec_.until_text);
      for (int j = 0; j < spec_.until_use_count; ++j) {
        const int i = spec_.until_uses[j];
        std::fprintf(out, "%s%s = %.17g", j ? ", " : "", spec_.reductions[i].name, value(i));
      }
      std::fprintf(out, ")\n");
    }
    for (int i = 0; i < spec_.count; ++i)
      if (computed_at_[static_cast<std::size_t>(i)] >= 0)
        std::fprintf(out, "reduce %s = %.17g (step %" PRId64 ")\n", spec_.reductions[i].name,
                     value(i), computed_at_[static_cast<std::size_t>(i)]);
  }

  /// The monitor's CSV file of a run that starts at step `first`: the spec's file, or for a run
  /// restarted at a later step a file of its own, NAME-from-STEP.csv (as the traces and the
  /// snapshot series: the table of the run it resumes keeps its rows).
  static std::string csv_path(const MonitorSpec& spec, std::int64_t first) {
    return first > 0 ? restarted_output_path(spec.file, first) : std::string(spec.file);
  }
  /// Writes the monitor's CSV (atomically: the previous file stays until the whole is written)
  /// to csv_path(first).
  void write_csv(std::int64_t first = 0) const {
    if (spec_.every <= 0 || !*spec_.file) return;
    // A run of no step (a restart at --steps) has no line: the header alone, not an empty file.
    const std::string text = csv_.empty() ? header() : csv_;
    write_atomically(csv_path(spec_, first), reinterpret_cast<const unsigned char*>(text.data()),
                     text.size(), "the monitor");
  }

 private:
  /// A reduction `until` names that was computed and is NaN: no comparison with it is ever
  /// true, so the run would go on to its last step unnoticed. Throws RunError naming it.
  void diverged() const {
    for (int j = 0; j < spec_.until_use_count; ++j) {
      const auto u = static_cast<std::size_t>(spec_.until_uses[j]);
      if (computed_at_[u] >= 0 && std::isnan(values_[u]))
        throw RunError(std::string("until: reduction '") + spec_.reductions[u].name +
                       "' is NaN after step " + std::to_string(computed_at_[u]) +
                       " (the run diverged: a cell is NaN), so '" + spec_.until_text +
                       "' can never be true; the run stops here");
    }
  }

  std::string header() const {
    std::string h = "step";
    for (int i = 0; i < spec_.count; ++i) h += std::string(",") + spec_.reductions[i].name;
    return h + ",ms_per_step,elapsed_s\n";
  }
  void line(std::int64_t step) {
    const double now = clock_.stop();
    clock_.start();
    elapsed_ += now;
    const std::int64_t n = step - last_line_;
    const double ms = n > 0 ? 1e3 * now / static_cast<double>(n) : 0.0;
    last_line_ = step;
    if (csv_.empty()) {
      csv_ = header();
      if (print_) {
        std::printf("monitor: %10s", "step");
        for (int i = 0; i < spec_.count; ++i) std::printf(" %24s", spec_.reductions[i].name);
        std::printf(" %12s %12s\n", "ms/step", "elapsed s");
      }
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%" PRId64, step);
    csv_ += buf;
    if (print_) std::printf("monitor: %10" PRId64, step);
    for (int i = 0; i < spec_.count; ++i) {
      std::snprintf(buf, sizeof buf, ",%.17g", value(i));
      csv_ += buf;
      if (print_) std::printf(" %24.17g", value(i));
    }
    std::snprintf(buf, sizeof buf, ",%.6f,%.6f\n", ms, elapsed_);
    csv_ += buf;
    if (print_) {
      std::printf(" %12.6f %12.3f\n", ms, elapsed_);
      std::fflush(stdout);
    }
  }

  /// On a terminal: steps, rate and time left, at most four times a second.
  void progress(std::int64_t step, bool stop) {
    const double now = progress_clock_.stop();
    progress_clock_.start();
    since_ += now;
    const bool last = stop || step + 1 == steps_;
    if (since_ < 0.25 && !last) return;
    since_ = 0;
    const double t = clock_.stop();
    clock_.start();
    elapsed_ += t;
    const double rate = static_cast<double>(step + 1 - first_) / std::max(elapsed_, 1e-9);
    const double left = static_cast<double>(steps_ - step - 1) / std::max(rate, 1e-9);
    std::printf("\rstep %" PRId64 "/%" PRId64 "  %.1f steps/s  %.0f s left   ", step + 1, steps_,
                rate, left);
    if (last) std::printf("\n");
    progress_line_shown() = !last;  // other messages clear it first (clear_progress_line)
    std::fflush(stdout);
  }

  MonitorSpec spec_;
  std::int64_t steps_;
  bool print_;
  bool progress_ = false;
  std::vector<Reduction> pending_;
  std::vector<double> values_;
  std::vector<double> periodic_;  ///< the last values computed at a step of their `every`
  std::vector<std::int64_t> computed_at_;
  std::mutex mutex_;
  std::int64_t stopped_at_ = -1;
  std::int64_t last_line_ = -1;
  std::int64_t first_ = 0;  ///< the run's first step (start)
  Stopwatch clock_, progress_clock_;
  double elapsed_ = 0, since_ = 0;
  std::string csv_;
};

/// Adds op over the cells `box` of host array values `a` (holding `buffer`), of a - minus
/// computed in T when `minus` is not null: the host side of the backends' reduce_box.
template <typename T>
void reduce_host_box(const HostArray& a, const HostArray* minus, const Box& buffer, const Box& box,
                     Reduction& into) {
  const T* pa = a.as<T>();
  const T* pm = minus ? minus->as<T>() : nullptr;
  const Index nx = buffer.extent(0), ny = buffer.extent(1);
  for (Index z = box.lo[2]; z < box.hi[2]; ++z)
    for (Index y = box.lo[1]; y < box.hi[1]; ++y) {
      const Index row = ((z - buffer.lo[2]) * ny + (y - buffer.lo[1])) * nx - buffer.lo[0];
      for (Index x = box.lo[0]; x < box.hi[0]; ++x) {
        const auto at = static_cast<std::size_t>(row + x);
        if (pm) {
          const T d = static_cast<T>(pa[at] - pm[at]);
          into.add(d);
        } else {
          into.add(pa[at]);
        }
      }
    }
}

}  // namespace stepgen::rt

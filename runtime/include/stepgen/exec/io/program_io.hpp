#pragma once
/// \file
/// Output, checkpoint and restart in a generated program (docs/io.md): the spec's <output>s and
/// <checkpoint>, the options --checkpoint PATH, --checkpoint-every N, --restart PATH and
/// --spec-dir DIR, and what happens at the end of a step. rt::ProgramIo is built by the main
/// program; the engines call it at the end of the steps where something is due (in core after
/// each such step, out of core at the pass boundaries, which fall on those steps), with the
/// arrays' current values in the host arrays. Snapshots (.h5) need HDF5: the generated CMake
/// defines STEPGEN_HDF5 and links it only for a spec with an .h5 output.

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stepgen/description/description.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/io/checkpoint.hpp"
#include "stepgen/exec/io/checkpoint_reader.hpp"
#include "stepgen/exec/io/checkpoint_writer.hpp"
#include "stepgen/exec/io/paths.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#ifdef STEPGEN_HDF5
#include "stepgen/exec/io/snapshot_writer.hpp"
#endif

namespace stepgen::rt {

/// The options of this file's features.
struct IoOptions {
  std::string checkpoint;              ///< --checkpoint PATH ("": the spec's)
  std::int64_t checkpoint_every = -1;  ///< --checkpoint-every N (-1: the spec's; 0: none)
  std::string restart;                 ///< --restart PATH
};

/// The folder file() initial values are read from: --spec-dir DIR, else STEPGEN_SPEC_DIR, else
/// the spec's folder at generation. Set by take_io_options.
inline std::string& spec_dir_override() {
  static std::string dir;
  return dir;
}

/// The path of a file() initial value named `path` in the spec (relative to the spec's folder
/// `spec_dir`, baked in at generation, unless overridden): absolute paths stay as they are.
inline std::string spec_file(const char* spec_dir, const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  std::string dir = spec_dir_override();
  if (dir.empty()) dir = env_settings().spec_dir;
  if (dir.empty()) dir = spec_dir;
  if (dir.empty()) return path;
  return dir.back() == '/' ? dir + path : dir + "/" + path;
}

/// Takes this file's options out of argv (as ooc::take_options does).
inline void take_io_options(int& argc, char** argv, IoOptions& o) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value (see --help)");
      return argv[++i];
    };
    if (flag == "--checkpoint") {
      o.checkpoint = value();
      if (o.checkpoint.empty()) throw UsageError("--checkpoint needs a file name");
    } else if (flag == "--checkpoint-every") {
      const std::string v = value();
      std::int64_t n = -1;
      std::size_t used = 0;
      try {
        n = std::stoll(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || n < 0)
        throw UsageError("--checkpoint-every expects a number of steps >= 0, got '" + v + "'");
      o.checkpoint_every = n;
    } else if (flag == "--restart") {
      o.restart = value();
      if (o.restart.empty()) throw UsageError("--restart needs a file name");
    } else if (flag == "--spec-dir") {
      spec_dir_override() = value();
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
}

inline void print_io_usage(const IoSpec& spec, std::FILE* out) {
  std::fprintf(out,
               "\nOutput and restart (docs/io.md):\n"
               "  --checkpoint PATH        write checkpoints to PATH, atomically (default: %s)\n"
               "  --checkpoint-every N     a checkpoint after every N steps; 0: none (default: "
               "%" PRId64
               ")\n"
               "  --restart PATH           resume from a checkpoint (any devices, ranks, out of\n"
               "                           core); --steps still counts from step 0\n"
               "  --spec-dir DIR           where file() initial values are read from (default:\n"
               "                           $STEPGEN_SPEC_DIR, else the spec's folder: %s)\n",
               *spec.checkpoint_file ? spec.checkpoint_file : "none", spec.checkpoint_every,
               *spec.spec_dir ? spec.spec_dir : ".");
  for (const OutputSpec& o : spec.outputs)
    std::fprintf(out, "  output: %s every %" PRId64 " steps%s%s\n", o.file, o.every,
                 o.first() ? ", and the initial state" : "", o.last() ? ", and the last step" : "");
}

/// Creates the folder of a file the program writes (an output's, a checkpoint's) when missing,
/// as `mkdir -p` does; RunError naming the folder when it cannot.
inline void make_folder_of(const std::string& file, const std::string& what) {
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    throw RunError("cannot create the folder '" + folder.string() + "' of " + what + " '" + file +
                   "': " + (ec ? ec.message() : "it exists and is not a folder"));
}

/// How a process writes: one process, the defaults; an MPI rank (ranks.hpp), its owned box
/// (set once the grid is split: ProgramIo::set_owned) and collective writers.
struct IoWriters {
  /// The cells this process writes (its host arrays hold at least these); none: the grid.
  std::optional<Box> owned;
  bool messages = true;  ///< prints the restart and checkpoint lines (MPI: rank 0)
  /// Writes a checkpoint of `arrays` (this process's pieces); default io::write_checkpoint.
  std::function<void(const std::string& path, const std::string& hash, std::int64_t step,
                     const Box& grid, const std::vector<io::CheckpointSource>& arrays,
                     const io::CheckpointReductions& reductions)>
      checkpoint;
  /// Writes array `a`'s cells `owned` as the raw file `path` of the whole grid; default:
  /// rt::write_atomically of the whole host array.
  std::function<void(const HostArray& a, const Box& owned, const std::string& path)> raw;
#ifdef STEPGEN_HDF5
  /// Creates a series; default: serial HDF5, written by a writer thread.
  std::function<std::unique_ptr<io::SnapshotSeries>(const std::string& path, const Box& grid)>
      series;
#endif
};

/// Output and checkpoints of one run. Steps are counted as --steps counts them: "after `done`
/// steps" is the state the run has once steps 0 .. done-1 ran (an output at step 50 equals
/// --steps 50 --save).
class ProgramIo {
 public:
  /// `types[id]`: each array's spec type name; `state[id]`: whether a checkpoint holds it;
  /// `writers`: how this process writes (one process: the defaults).
  ProgramIo(const IoSpec& spec, const IoOptions& opt, const std::vector<std::string>& names,
            const std::vector<std::string>& types, const std::vector<bool>& state, const Box& grid,
            std::int64_t steps, bool quiet, IoWriters writers = {})
      : writers_(std::move(writers)),
        spec_(spec),
        names_(names),
        types_(types),
        state_(state),
        grid_(grid),
        steps_(steps),
        quiet_(quiet || !writers_.messages) {
    if (!writers_.owned) writers_.owned = grid;
    own_checkpoint_writer_ = !writers_.checkpoint;  // may write in the background
    if (!writers_.checkpoint)
      writers_.checkpoint = [](const std::string& path, const std::string& hash, std::int64_t step,
                               const Box& grid, const std::vector<io::CheckpointSource>& arrays,
                               const io::CheckpointReductions& reductions) {
        io::write_checkpoint(path, hash, step, grid, arrays, 0, reductions);
      };
    if (!writers_.raw)
      writers_.raw = [](const HostArray& a, const Box&, const std::string& path) {
        write_atomically(path, a.bytes.data(), a.bytes.size(),
                         "array " + a.name + " (output " + path + ")");
      };
#ifndef STEPGEN_HDF5
    // An HDF5 output in a program built without HDF5 (a build by hand, the CUDA emulation) is
    // refused before the first step, so that no steps are run for an output that cannot be
    // written.
    for (const OutputSpec& o : spec.outputs)
      if (o.hdf5())
        throw RunError("output '" + std::string(o.file) +
                       "': this program was built without HDF5 (build it with the generated "
                       "CMakeLists.txt, which finds HDF5 and defines STEPGEN_HDF5)");
#endif
    checkpoint_ = opt.checkpoint.empty() ? spec.checkpoint_file : opt.checkpoint;
    every_ = opt.checkpoint_every >= 0 ? opt.checkpoint_every : spec.checkpoint_every;
    if (every_ > 0 && checkpoint_.empty())
      throw UsageError("--checkpoint-every " + std::to_string(every_) +
                       " needs --checkpoint PATH (the spec has no <checkpoint>)");
    if (!opt.checkpoint.empty() && opt.checkpoint_every < 0 && spec.checkpoint_every <= 0)
      throw UsageError("--checkpoint " + opt.checkpoint +
                       " needs --checkpoint-every N (the spec has no <checkpoint>): nothing "
                       "would be written");
    // A checkpoint that cannot be written (a device such as /dev/null, a read-only file, a
    // folder without write access) is refused before the first step, not after the steps
    // before the first checkpoint (guarded by ckpt_device in tests/io/program_test.sh). A
    // folder not there yet is made when the run starts.
    if (every_ > 0) {
      const std::filesystem::path folder = std::filesystem::path(checkpoint_).parent_path();
      std::error_code ec;
      if (folder.empty() || std::filesystem::is_directory(folder, ec))
        file::check_writable("cannot write checkpoint '" + checkpoint_ + "'", checkpoint_);
    }
    if (!opt.restart.empty()) {
      reader_ = std::make_unique<io::CheckpointReader>(opt.restart);
      reader_->expect(spec.spec_hash, grid, state_arrays());
      first_ = reader_->info().step;
      // The monitor's values at the checkpoint's step, known before any host array is made
      // (the main program restores the monitor before its run phase reads the arrays).
      restored_ = reader_->info().reductions;
      if (first_ > steps_)
        throw UsageError("--restart " + opt.restart + ": it was written after step " +
                         std::to_string(first_) + ", past --steps " + std::to_string(steps_));
    }
  }
  /// The cells this process writes (an MPI rank's owned box, once the grid is split).
  void set_owned(const Box& owned) {
    writers_.owned = owned;
  }

  /// The arrays this run reads or writes through their host copies: every output's,
  /// and a checkpoint's arrays when checkpoints are written or read (--restart).
  std::vector<bool> host_arrays_used() const {
    std::vector<bool> use(names_.size(), false);
    if (every_ > 0 || reader_)
      for (std::size_t id = 0; id < use.size(); ++id) use[id] = state_[id];
    for (const OutputSpec& o : spec_.outputs)
      for (int id : o.arrays) use[static_cast<std::size_t>(id)] = true;
    return use;
  }

  /// The step the run starts at (0, or the checkpoint's).
  std::int64_t first_step() const {
    return first_;
  }
  /// The reductions' values the checkpoint restarted from holds (none: not restarting).
  const io::CheckpointReductions& restored_reductions() const {
    return restored_;
  }
  /// What each checkpoint records of the reductions (the monitor's last values).
  void set_reductions(std::function<io::CheckpointReductions()> f) {
    reductions_ = std::move(f);
  }

  /// Loads the checkpoint's values into the host arrays (each over its own box: the whole
  /// grid, or an MPI rank's box) when restarting.
  void restart(std::vector<HostArray>& host) {
    if (!reader_) return;
    for (std::size_t id = 0; id < host.size(); ++id)
      if (state_[id]) reader_->read(host[id].name, host[id].box, host[id].bytes.data());
    restored_ = reader_->info().reductions;
    if (!quiet_)
      std::printf("restart: from '%s' at step %" PRId64 "\n", reader_->path().c_str(), first_);
    reader_.reset();
  }

  /// Creates the outputs' files; writes the initial state of outputs with first="true" (not
  /// when restarting). `host`: the initial values.
  void start(const std::vector<HostArray>& host) {
    for (const OutputSpec& o : spec_.outputs) {
      Series s;
      s.spec = &o;
      // A restart's HDF5 series goes to a file of its own (the interrupted run's is kept); a
      // .raw output's files are one per step, the same in both runs: they keep their names.
      s.file = first_ > 0 && o.hdf5() ? restarted_output_path(o.file, first_) : std::string(o.file);
      make_folder_of(s.file, "output");
#ifdef STEPGEN_HDF5
      if (o.hdf5() && writers_.series)  // MPI: parallel HDF5, written in place (collective)
        s.series = writers_.series(s.file, grid_);
      else if (o.hdf5())
        s.writer = std::make_unique<io::SnapshotWriter>(
            std::make_unique<io::SnapshotSeries>(s.file, grid_));
#endif
      series_.push_back(std::move(s));
    }
    if (every_ > 0) make_folder_of(checkpoint_, "checkpoint");
    if (first_ == 0)
      for (Series& s : series_)
        if (s.spec->first()) write_output(s, 0, host);
  }

  /// Whether anything is due after `done` steps.
  bool due(std::int64_t done) const {
    if (checkpoint_due(done)) return true;
    for (const Series& s : series_)
      if (output_due(*s.spec, done)) return true;
    return false;
  }

  /// Where an `until` stopped the run (`stopped`; one step count on every rank) after `done`
  /// steps, short of --steps: the outputs with last="true" not written at `done` get that
  /// state, as after --steps. `host(want)` returns host arrays holding (at least) the arrays
  /// `want` marks: in core fetched from the devices, out of core the host arrays as they are
  /// at a pass's end. Background writes end first (in core they read the same host arrays).
  template <class HostOf>
  void write_at_stop(bool stopped, std::int64_t done, HostOf&& host) {
    if (!stopped) return;
    std::vector<bool> want(names_.size(), false);
    bool any = false;
    for (const Series& s : series_)
      if (last_at_stop(*s.spec, done)) {
        any = true;
        for (int id : s.spec->arrays) want[static_cast<std::size_t>(id)] = true;
      }
    if (!any) return;
    flush_writers();
    const std::vector<HostArray>& values = host(want);
    for (Series& s : series_)
      if (last_at_stop(*s.spec, done)) write_output(s, done, values);
  }

  /// The arrays whose current values end_of_step(done) reads from the host arrays.
  std::vector<bool> wanted(std::int64_t done) const {
    std::vector<bool> want(names_.size(), false);
    if (checkpoint_due(done))
      for (std::size_t id = 0; id < want.size(); ++id) want[id] = state_[id];
    for (const Series& s : series_)
      if (output_due(*s.spec, done))
        for (int id : s.spec->arrays) want[static_cast<std::size_t>(id)] = true;
    return want;
  }

  /// The next step count after `done` at which something is due (steps_ at the latest):
  /// out of core, a pass boundary.
  std::int64_t next_due(std::int64_t done) const {
    for (std::int64_t d = done + 1; d < steps_; ++d) {
      bool any = checkpoint_due(d);
      for (const Series& s : series_) any = any || output_due(*s.spec, d);
      if (any) return d;
      // Jump to the next multiple of any interval rather than testing every step.
      std::int64_t next = steps_;
      if (every_ > 0) next = std::min(next, (d / every_ + 1) * every_);
      for (const Series& s : series_)
        next = std::min(next, (d / s.spec->every + 1) * s.spec->every);
      if (next - 1 > d) d = next - 1;
    }
    return steps_;
  }

  /// After `done` steps, the host arrays holding the current values of wanted(done): writes
  /// the outputs and the checkpoint due.
  void end_of_step(std::int64_t done, const std::vector<HostArray>& host) {
    for (Series& s : series_)
      if (output_due(*s.spec, done)) write_output(s, done, host);
    if (checkpoint_due(done)) {
      std::vector<io::CheckpointSource> arrays;
      std::vector<std::vector<unsigned char>> copies;
      for (std::size_t id = 0; id < host.size(); ++id)
        if (state_[id]) arrays.push_back({names_[id], types_[id], {piece(host[id], copies)}});
      // In core, one process: written by a thread from the host copies (borrowed
      // until the next flush_writers()), announced once complete (poll/flush/finish).
      if (borrow_ && copies.empty() && own_checkpoint_writer_) {
        if (!checkpoint_writer_) checkpoint_writer_ = std::make_unique<io::CheckpointWriter>();
        checkpoint_writer_->submit(checkpoint_, spec_.spec_hash, done, grid_, std::move(arrays),
                                   reductions_ ? reductions_() : io::CheckpointReductions{});
        costs_.background = true;
        return;
      }
      const auto t0 = std::chrono::steady_clock::now();
      writers_.checkpoint(checkpoint_, spec_.spec_hash, done, grid_, arrays,
                          reductions_ ? reductions_() : io::CheckpointReductions{});
      io::CheckpointWriter::Done d;
      d.path = checkpoint_;
      d.step = done;
      for (std::size_t id = 0; id < host.size(); ++id)
        if (state_[id])
          d.bytes += static_cast<std::uint64_t>(grid_.volume()) * host[id].element_bytes;
      d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      costs_.waited_s += d.seconds;
      announce({d});
    }
  }

  // --- checkpoints in the background, what they cost --------------------------------------
  /// Announces the background checkpoints completed since the last call, without waiting;
  /// rethrows a failure (called after each step in core).
  void poll_writers() {
    if (checkpoint_writer_) announce(checkpoint_writer_->poll());
  }
  /// Whether array `id` is written by a checkpoint (in core, the gather of such an array waits
  /// for a background checkpoint first).
  bool checkpoints_array(int id) const {
    return every_ > 0 && static_cast<std::size_t>(id) < state_.size() &&
           state_[static_cast<std::size_t>(id)];
  }
  /// On an error: waits until the writer threads no longer read the host copies, which are
  /// about to go away, reporting nothing (a failure of theirs is printed to stderr).
  void release_host() noexcept {
    borrow_ = false;
    if (checkpoint_writer_) checkpoint_writer_->wait_quietly();
#ifdef STEPGEN_HDF5
    for (Series& s : series_)
      if (s.writer) s.writer->wait_quietly();
#endif
  }
  /// The report's line on checkpoints (none written: nothing): how many, their size, the time
  /// they took and how long the run waited for them (docs/io.md).
  void print_report(std::FILE* out) const {
    if (quiet_ || costs_.count == 0) return;
    const double each = static_cast<double>(costs_.bytes) / static_cast<double>(costs_.count);
    const double gbps =
        costs_.written_s > 0 ? static_cast<double>(costs_.bytes) / costs_.written_s / 1e9 : 0;
    const double waited =
        costs_.waited_s + (checkpoint_writer_ ? checkpoint_writer_->waited_s() : 0);
    if (costs_.background)
      std::fprintf(out,
                   "checkpoints: %" PRId64
                   " x %s in %.2f s (%.2f GB/s) written in the background, the run waited "
                   "%.2f s\n",
                   costs_.count, human_bytes(each).c_str(), costs_.written_s, gbps, waited);
    else
      std::fprintf(out,
                   "checkpoints: %" PRId64 " x %s written in %.2f s (%.2f GB/s; the run waited)\n",
                   costs_.count, human_bytes(each).c_str(), costs_.written_s, gbps);
  }
  // --- end: checkpoints in the background, what they cost -----------------------------------

  /// In core, the snapshots are written from the host copies themselves (SnapshotWriter's
  /// borrow): call flush_writers() before anything changes them (the next fetch, the gather).
  void borrow_host(bool on) {
    borrow_ = on;
  }
  /// Waits until the writer threads have written what is queued; rethrows their failures.
  void flush_writers() {
#ifdef STEPGEN_HDF5
    for (Series& s : series_)
      if (s.writer) s.writer->flush();
#endif
    if (checkpoint_writer_) {  // the background checkpoint in flight, if any
      announce(checkpoint_writer_->wait());
    }
  }
  /// Whether array `id` is written by an output.
  bool outputs_array(int id) const {
    for (const Series& s : series_)
      for (int a : s.spec->arrays)
        if (a == id) return true;
    return false;
  }

  /// Waits for the writer threads; rethrows their failures.
  void finish() {
    // The run's end waits for the last checkpoint first: nothing reads the host copies
    // past here, whatever throws below.
    if (checkpoint_writer_) checkpoint_writer_->wait_quietly();
#ifdef STEPGEN_HDF5
    for (Series& s : series_)
      if (s.writer) s.writer->close();
#endif
    if (checkpoint_writer_) {  // announced, or its failure thrown
      announce(checkpoint_writer_->wait());
      checkpoint_writer_->close();
    }
  }

 private:
  struct Series {
    const OutputSpec* spec = nullptr;
    std::string file;
#ifdef STEPGEN_HDF5
    std::unique_ptr<io::SnapshotWriter> writer;  ///< one process: a writer thread
    std::unique_ptr<io::SnapshotSeries> series;  ///< MPI: collective writes in place
#endif
  };

  /// The owned cells of `a` as a piece: the host array itself when it is the owned box, else a
  /// copy of that box kept in `copies` (an MPI rank's host arrays hold its ghost box).
  io::Piece piece(const HostArray& a, std::vector<std::vector<unsigned char>>& copies) const {
    const Box& owned = *writers_.owned;
    if (a.box == owned) return {owned, a.bytes.data()};
    copies.emplace_back(static_cast<std::size_t>(owned.volume()) * a.element_bytes);
    unsigned char* out = copies.back().data();
    const std::size_t row = static_cast<std::size_t>(owned.extent(0)) * a.element_bytes;
    for (Index z = owned.lo[2]; z < owned.hi[2]; ++z)
      for (Index y = owned.lo[1]; y < owned.hi[1]; ++y, out += row) {
        const std::size_t at = static_cast<std::size_t>(
            ((z - a.box.lo[2]) * a.box.extent(1) + (y - a.box.lo[1])) * a.box.extent(0) +
            (owned.lo[0] - a.box.lo[0]));
        std::memcpy(out, a.bytes.data() + at * a.element_bytes, row);
      }
    return {owned, copies.back().data()};
  }

  /// Prints "checkpoint: 'F' after step N" for each checkpoint complete, and counts it.
  void announce(const std::vector<io::CheckpointWriter::Done>& done) {
    for (const io::CheckpointWriter::Done& d : done) {
      ++costs_.count;
      costs_.bytes += d.bytes;
      costs_.written_s += d.seconds;
      if (!quiet_) {
        clear_progress_line();  // a progress line on the terminal: this line starts its own
        std::printf("checkpoint: '%s' after step %" PRId64 "\n", d.path.c_str(), d.step);
      }
    }
  }

  std::vector<std::pair<std::string, std::string>> state_arrays() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t id = 0; id < names_.size(); ++id)
      if (state_[id]) out.emplace_back(names_[id], types_[id]);
    return out;
  }
  bool checkpoint_due(std::int64_t done) const {
    return every_ > 0 && done > first_ && done % every_ == 0;
  }
  bool output_due(const OutputSpec& o, std::int64_t done) const {
    return done > first_ && (done % o.every == 0 || (o.last() && done == steps_));
  }
  bool last_at_stop(const OutputSpec& o, std::int64_t done) const {
    return o.last() && done < steps_ && !output_due(o, done) && done > first_;
  }

  void write_output(Series& s, std::int64_t done, const std::vector<HostArray>& host) {
    if (s.spec->hdf5()) {
#ifdef STEPGEN_HDF5
      std::vector<io::SnapshotArray> arrays;
      std::vector<std::vector<unsigned char>> copies;
      for (int id : s.spec->arrays) {
        const auto u = static_cast<std::size_t>(id);
        arrays.push_back({names_[u], types_[u], {piece(host[u], copies)}});
      }
      if (s.series)
        s.series->write(done, arrays);
      else
        // The run goes on while it writes (in core from the host copies, else from a copy).
        s.writer->submit(done, arrays, borrow_ && copies.empty());
#else
      throw RunError("output '" + s.file + "': this program was built without HDF5");
#endif
      return;
    }
    for (int id : s.spec->arrays) {
      const HostArray& a = host[static_cast<std::size_t>(id)];
      writers_.raw(a, *writers_.owned, raw_output_path(s.file, a.name, done));
    }
  }

  IoWriters writers_;
  bool borrow_ = false;  ///< snapshots written from the host copies (in core)
  const IoSpec& spec_;
  std::vector<std::string> names_, types_;
  std::vector<bool> state_;  ///< the arrays a checkpoint holds
  Box grid_;
  std::int64_t steps_;
  bool quiet_;
  std::string checkpoint_;
  std::int64_t every_ = 0;
  std::int64_t first_ = 0;
  std::unique_ptr<io::CheckpointReader> reader_;
  std::function<io::CheckpointReductions()> reductions_;
  io::CheckpointReductions restored_;  ///< the reductions of the checkpoint restarted from
  std::vector<Series> series_;
  // The background writer (in core, one process), what the checkpoints cost
  bool own_checkpoint_writer_ = false;  ///< io::write_checkpoint (not an MPI rank's)
  struct Costs {
    std::int64_t count = 0;
    std::uint64_t bytes = 0;
    double written_s = 0, waited_s = 0;  ///< waited_s: the synchronous writes
    bool background = false;
  } costs_;
  std::unique_ptr<io::CheckpointWriter> checkpoint_writer_;  ///< last: joined first
};

}  // namespace stepgen::rt

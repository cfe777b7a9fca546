#pragma once
/// \file
/// Sources and receivers: the spec's <inject> and <record> body actions (docs/spec.md).
///
/// An rt::Inject adds a value, computed on the host in double once per step and converted to
/// the array's type (cell = cell + T(value)), to one cell, on every buffer that holds a copy of
/// it (a part's owned cell and its neighbours' ghost copies, an out-of-core chunk's window):
/// every copy then holds what the one-device run holds, so a ghost copy read before the next
/// exchange is exact. An rt::Record samples its cells every `every` steps, from the one part
/// (or chunk) that owns each, into a table of rows (one per sampled step) written at the end
/// as CSV, atomically. The engines (engine.hpp: InCore::inject/record, ChunkRun::inject/record)
/// do the copies; this header holds the tables and the file.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/description/description.hpp"
#include "stepgen/exec/io/paths.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// Adds `v` (double) to the cell at `cell` of element type T: cell = cell + T(v).
template <typename T>
void add_to_cell(unsigned char* cell, double v) {
  T x;
  std::memcpy(&x, cell, sizeof(T));
  x = static_cast<T>(x + static_cast<T>(v));
  std::memcpy(cell, &x, sizeof(T));
}

/// A cell of element type T as a double (exact for float, double and integers up to 2^53).
template <typename T>
double cell_value(const unsigned char* cell) {
  T x;
  std::memcpy(&x, cell, sizeof(T));
  return static_cast<double>(x);
}

/// The digits a trace prints of a type: enough to read the same value back (0: an integer).
template <typename T>
constexpr int trace_digits() {
  return std::is_floating_point<T>::value ? (sizeof(T) == 4 ? 9 : 17) : 0;
}

/// One value per step from a table (a `value="file(...)"` read at generation time).
inline double table_value(const double* values, std::size_t count, std::int64_t step,
                          const char* what) {
  if (step < 0 || static_cast<std::uint64_t>(step) >= count)
    throw RunError(std::string("inject: ") + what + " holds " + std::to_string(count) +
                   " values (one per step), none for step " + std::to_string(step) +
                   ": run fewer steps or give a longer file");
  return values[step];
}

/// A source: `value(step)` added to cell `at` of array `array` at its place in the body.
struct Inject {
  int array;
  Vec3 at;
  double (*value)(std::int64_t step);
  void (*add)(unsigned char* cell, double v);  ///< add_to_cell<T> of the array's type
  std::size_t element_bytes;
  const char* name;  ///< the array's
  /// value="file(PATH)": the values PATH held at generation time (one per step from step 0)
  /// and PATH; -1 and "" for an expression (a value at every step).
  std::int64_t values = -1;
  const char* file = "";
};

/// Checks before the run that every inject of a value file has a value for each step the run
/// may take (steps 0 to steps - 1; a restart or an `until` may run fewer, never more): the
/// error now, before step 0, not after the steps the file covers. Throws RunError.
inline void check_inject_values(const Injects& injects, std::int64_t steps) {
  for (const Inject& in : injects)
    if (in.values >= 0 && in.values < steps)
      throw RunError(std::string("inject into ") + in.name + ": value file '" + in.file +
                     "' holds " + std::to_string(in.values) +
                     " values (one per step) but this run takes " + std::to_string(steps) +
                     " steps (--steps): run at most " + std::to_string(in.values) +
                     " steps, or give a longer file and regenerate");
}

/// A receiver: cells of one array sampled after every `every` steps ((step + 1) % every == 0)
/// at its place in the body, into one row per sampled step; `write` makes the CSV file.
class Record {
 public:
  Record(int array, const char* name, std::vector<Vec3> points, int dims, std::int64_t every,
         std::string file, std::size_t element_bytes, double (*get)(const unsigned char*),
         int digits)
      : array(array),
        name(name),
        points(std::move(points)),
        dims(dims),
        every(every),
        file(std::move(file)),
        element_bytes(element_bytes),
        get(get),
        digits(digits) {}

  int array;
  const char* name;
  std::vector<Vec3> points;
  int dims;
  std::int64_t every;
  std::string file;  ///< relative to the working directory
  std::size_t element_bytes;
  double (*get)(const unsigned char* cell);  ///< cell_value<T> of the array's type
  int digits;                                ///< trace_digits<T>

  /// Empties the table for a run of `steps` steps (every row unsampled); a run resumed at step
  /// `first` (a restart) samples and writes the rows from there on only, to a file of its own
  /// (path()).
  void begin(std::int64_t steps, std::int64_t first = 0) {
    first_ = first;
    rows_ = steps / every;
    values_.assign(static_cast<std::size_t>(rows_) * points.size(), 0.0);
    have_.assign(values_.size(), 0);
  }
  /// The run ended after `steps` steps (an `until` stopped it short of --steps): the rows past
  /// it hold no sample and are not written (they were an internal error, and the stopped run
  /// lost its --save, monitor and trace files with it).
  void end(std::int64_t steps) {
    rows_ = std::min(rows_, std::max<std::int64_t>(steps, 0) / every);
  }
  /// Whether step `step` is sampled.
  bool due(std::int64_t step) const { return (step + 1) % every == 0; }
  /// Stores point `k`'s value at step `step` (ignored outside the run: a calibration chunk).
  void put(std::int64_t step, std::size_t k, double v) {
    if (!due(step)) return;
    const std::int64_t row = (step + 1) / every - 1;
    if (row < 0 || row >= rows_) return;
    const std::size_t i = static_cast<std::size_t>(row) * points.size() + k;
    values_[i] = v;
    have_[i] = 1;
  }
  std::int64_t rows() const { return rows_; }
  /// The file written: `file`, or for a run restarted at step `first` (begin), a file of its
  /// own, NAME-from-STEP.EXT (restarted_output_path), as the snapshot series: the traces of
  /// the run it resumes keep their rows.
  std::string path() const { return path(first_); }
  std::string path(std::int64_t first) const {
    return first > 0 ? restarted_output_path(file, first) : file;
  }
  std::vector<double>& values() { return values_; }
  std::vector<char>& have() { return have_; }

  /// The CSV text: a header `step,NAME[x y z],...`, then one row per sampled step (the step
  /// index t, 0-based, then each point's value: floats with enough digits to read back the
  /// same bits). Throws when a cell was never sampled (a bug, never a silent hole).
  std::string csv() const {
    std::string out = "step";
    for (const Vec3& p : points) {
      out += "," + std::string(name) + "[";
      for (int d = 0; d < dims; ++d)
        out += (d ? " " : "") + std::to_string(p[static_cast<std::size_t>(d)]);
      out += "]";
    }
    out += "\n";
    char buf[64];
    for (std::int64_t r = 0; r < rows_; ++r) {
      if ((r + 1) * every - 1 < first_) continue;  // before a restart's first step
      out += std::to_string((r + 1) * every - 1);
      for (std::size_t k = 0; k < points.size(); ++k) {
        const std::size_t i = static_cast<std::size_t>(r) * points.size() + k;
        if (!have_[i])
          throw RunError("record " + file + ": point " + std::to_string(k) + " of array " + name +
                         " was not sampled at step " + std::to_string((r + 1) * every - 1) +
                         " (internal error)");
        if (digits > 0)
          std::snprintf(buf, sizeof buf, ",%.*g", digits, values_[i]);
        else
          std::snprintf(buf, sizeof buf, ",%.0f", values_[i]);
        out += buf;
      }
      out += "\n";
    }
    return out;
  }
  /// Writes the trace file atomically: CSV (program.hpp: write_atomically), or HDF5 when the
  /// file ends in .h5 or .hdf5 (io/trace_h5.hpp, in a program built with STEPGEN_HDF5).
  void write() const;

  // --- HDF5 traces (io/trace_h5.hpp) ---------------------------------------------------------
  /// Whether the trace file is HDF5 (its name ends in .h5 or .hdf5, any case).
  bool hdf5() const {
    auto ends = [&](const char* ext) {
      const std::size_t n = std::strlen(ext);
      if (file.size() < n) return false;
      for (std::size_t i = 0; i < n; ++i) {
        char c = file[file.size() - n + i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != ext[i]) return false;
      }
      return true;
    };
    return ends(".h5") || ends(".hdf5");
  }
  /// The rows the file holds (a restart's from its first step on): their table indices.
  std::vector<std::int64_t> written_rows() const {
    std::vector<std::int64_t> rows;
    for (std::int64_t r = 0; r < rows_; ++r)
      if ((r + 1) * every - 1 >= first_) rows.push_back(r);
    return rows;
  }
  /// Row `r`'s value of point `k`; throws when it was never sampled (as csv()).
  double sampled(std::int64_t r, std::size_t k) const {
    const std::size_t i = static_cast<std::size_t>(r) * points.size() + k;
    if (!have_[i])
      throw RunError("record " + file + ": point " + std::to_string(k) + " of array " + name +
                     " was not sampled at step " + std::to_string((r + 1) * every - 1) +
                     " (internal error)");
    return values_[i];
  }
  // --- end of HDF5 traces --------------------------------------------------------------------

 private:
  std::int64_t rows_ = 0;
  std::int64_t first_ = 0;
  std::vector<double> values_;
  std::vector<char> have_;
};

}  // namespace stepgen::rt

#ifdef STEPGEN_HDF5
#include "stepgen/exec/io/trace_h5.hpp"
#endif

namespace stepgen::rt {

inline void Record::write() const {
  if (hdf5()) {
#ifdef STEPGEN_HDF5
    io::write_trace_h5(*this);
    return;
#else
    throw RunError("record " + file +
                   ": an .h5 trace needs HDF5, and this program was built without it "
                   "(STEPGEN_HDF5; regenerate the program from its spec)");
#endif
  }
  const std::string text = csv();
  write_atomically(path(), reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                   "the trace of record " + std::string(name));
}

/// Checks before the run that every trace file (of a run restarted at step `first`: path())
/// can be written (a folder or a missing folder in its place: the error now, not after the
/// run). Throws RunError (UsageError for a symbolic link).
inline void check_trace_files(const Records& records, std::int64_t first = 0) {
  for (const Record& r : records) {
    const std::string file = r.path(first);
    const std::string what = "record " + std::string(r.name) + " file=" + file;
    file::check_writable(what, file);
  }
}

/// The one-cell box at `p`.
inline Box cell_box(int dims, const Vec3& p) {
  Box b = Box::from_extent(dims, {1, 1, 1});
  for (std::size_t d = 0; d < 3; ++d) {
    b.lo[d] = p[d];
    b.hi[d] = p[d] + 1;
  }
  return b;
}

}  // namespace stepgen::rt

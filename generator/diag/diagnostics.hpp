#pragma once
/// \file
/// Diagnostics that point at their cause: `PATH:LINE:COL: error: MESSAGE`, then the source line
/// and a caret under the column. All stages report into one Diagnostics object; a stage that sees
/// an error keeps going so that every error of a file is reported in one run.

#include <ostream>
#include <string>
#include <vector>

#include "spec/spec_tree.hpp"

namespace stepgen {

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string path;
  spec::Loc loc;
  std::string message;
  std::string line;  ///< the source line, for a diagnostic in another file than the spec's
};

/// Collects diagnostics for one spec file (and the files it names).
class Diagnostics {
 public:
  /// `path` is printed as given; `source` is the file's text, used to print the offending line.
  Diagnostics(std::string path, std::string source);

  void error(spec::Loc loc, std::string message);
  void warning(spec::Loc loc, std::string message);
  void note(spec::Loc loc, std::string message);
  /// A diagnostic in another file the spec names (a kernel source): printed with `path` and, when
  /// given, `line` (the text of line `loc.line` of that file) and a caret.
  void add_in(Severity severity, std::string path, spec::Loc loc, std::string message,
              std::string line = {});

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return list_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return source_; }

  /// Prints every diagnostic in report order, each followed by its source line and a caret.
  void print(std::ostream& out) const;

 private:
  void add(Severity severity, spec::Loc loc, std::string message);

  std::string path_;
  std::string source_;
  std::vector<Diagnostic> list_;
  int error_count_ = 0;
};

/// " (did you mean 'X'?)" for the closest of `candidates` to `word`, or "" when none is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Converts a character offset in `text` to a one-based line and column.
spec::Loc offset_to_loc(const std::string& text, std::size_t offset);

}  // namespace stepgen

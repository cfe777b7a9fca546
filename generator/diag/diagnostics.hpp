#pragma once
/// \file
/// Diagnostics that point at their cause: `PATH:LINE:COL: error: MESSAGE`, then the source line
/// and a caret under the column. All stages report into one Diagnostics object; a stage that sees
/// an error keeps going so that every error of a file is reported in one run.

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diag/source_text.hpp"
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

/// Most errors stored and printed for one file; later ones are counted ("N more errors").
inline constexpr int kMaxErrorsShown = 100;

/// Collects diagnostics for one spec file (and the files it names). Only the first
/// kMaxErrorsShown errors are kept, with the warnings and notes reported before the last of them;
/// the rest are counted, and print() says how many there were.
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
  /// Every error reported, shown or not.
  int error_count() const { return error_count_; }
  /// Errors (and warnings, notes) reported past kMaxErrorsShown errors: counted, not kept.
  int hidden_errors() const { return hidden_errors_; }
  int hidden_warnings() const { return hidden_warnings_; }
  /// True once kMaxErrorsShown errors are kept: a caller may skip work whose only product is
  /// another message.
  bool full() const { return shown_errors_ >= kMaxErrorsShown; }
  const std::vector<Diagnostic>& all() const { return list_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return source_; }

  /// Prints every kept diagnostic in report order, each followed by its source line and a caret,
  /// then how many more were reported, if any.
  void print(std::ostream& out) const;

 private:
  void add(Severity severity, spec::Loc loc, std::string message);

  std::string path_;
  std::string source_;
  std::vector<Diagnostic> list_;
  int error_count_ = 0;
  int shown_errors_ = 0;
  int hidden_errors_ = 0;
  int hidden_warnings_ = 0;
};

/// " (did you mean 'X'?)" for the closest of `candidates` to `word`, or "" when none is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace stepgen

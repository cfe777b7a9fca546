#include "diag/diagnostics.hpp"

#include <algorithm>
#include <sstream>

namespace stepgen {

Diagnostics::Diagnostics(std::string path, std::string source)
    : path_(std::move(path)), source_(std::move(source)) {}

void Diagnostics::error(spec::Loc loc, std::string message) {
  add(Severity::kError, loc, std::move(message));
}
void Diagnostics::warning(spec::Loc loc, std::string message) {
  add(Severity::kWarning, loc, std::move(message));
}
void Diagnostics::note(spec::Loc loc, std::string message) {
  add(Severity::kNote, loc, std::move(message));
}

void Diagnostics::add(Severity severity, spec::Loc loc, std::string message) {
  if (severity == Severity::kError) ++error_count_;
  list_.push_back({severity, path_, loc, std::move(message), {}});
}

void Diagnostics::add_in(Severity severity, std::string path, spec::Loc loc, std::string message,
                         std::string line) {
  if (severity == Severity::kError) ++error_count_;
  list_.push_back({severity, std::move(path), loc, std::move(message), std::move(line)});
}

namespace {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

// The text of one-based line `line`, without its newline; empty when out of range.
std::string line_text(const std::string& source, int line) {
  if (line <= 0) return {};
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = source.find('\n', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  std::size_t end = source.find('\n', start);
  std::string text =
      source.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return text;
}

}  // namespace

void Diagnostics::print(std::ostream& out) const {
  for (const Diagnostic& d : list_) {
    out << d.path;
    if (d.loc.line > 0) out << ':' << d.loc.line << ':' << std::max(d.loc.col, 1);
    out << ": " << severity_name(d.severity) << ": " << d.message << '\n';
    std::string text = d.path == path_ ? line_text(source_, d.loc.line) : d.line;
    if (d.loc.line > 0 && !text.empty()) {
      out << text << '\n';
      // Tabs are kept so that the caret lines up with the text above it.
      std::string pad;
      for (int i = 0; i + 1 < d.loc.col && i < static_cast<int>(text.size()); ++i)
        pad += text[static_cast<std::size_t>(i)] == '\t' ? '\t' : ' ';
      out << pad << "^\n";
    }
  }
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Close means at most a third of the word's letters differ (and at least one may).
  std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  if (best.empty() || best_distance > limit) return {};
  return " (did you mean '" + best + "'?)";
}

spec::Loc offset_to_loc(const std::string& text, std::size_t offset) {
  spec::Loc loc{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

}  // namespace stepgen

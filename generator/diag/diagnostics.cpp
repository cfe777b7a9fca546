#include "diag/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

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
  if (full()) {
    ++(severity == Severity::kError ? hidden_errors_ : hidden_warnings_);
    return;
  }
  if (severity == Severity::kError) ++shown_errors_;
  list_.push_back({severity, path_, loc, std::move(message), {}});
}

void Diagnostics::add_in(Severity severity, std::string path, spec::Loc loc, std::string message,
                         std::string line) {
  if (severity == Severity::kError) ++error_count_;
  if (full()) {
    ++(severity == Severity::kError ? hidden_errors_ : hidden_warnings_);
    return;
  }
  if (severity == Severity::kError) ++shown_errors_;
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

}  // namespace

void Diagnostics::print(std::ostream& out) const {
  const LineIndex lines(source_);
  for (const Diagnostic& d : list_) {
    out << d.path;
    if (d.loc.line > 0) out << ':' << d.loc.line << ':' << std::max(d.loc.col, 1);
    out << ": " << severity_name(d.severity) << ": " << d.message << '\n';
    std::string_view text = d.line;  // a diagnostic in another file brings its line
    if (d.path == path_) {
      auto [begin, end] = lines.line_range(d.loc.line);
      text = std::string_view(source_).substr(begin, end - begin);
    }
    if (d.loc.line > 0 && !text.empty()) {
      // A long line (a minified spec) is shown around the column: kLineWindow bytes at most.
      constexpr std::size_t kLineWindow = 160;
      std::size_t col = static_cast<std::size_t>(std::max(d.loc.col, 1)) - 1;
      std::size_t from = text.size() <= kLineWindow || col < kLineWindow / 2
                             ? 0
                             : std::min(col - kLineWindow / 2, text.size() - kLineWindow);
      std::string_view shown = text.substr(from, kLineWindow);
      const char* before = from > 0 ? "..." : "";
      out << before << shown << (from + shown.size() < text.size() ? "..." : "") << '\n';
      // Tabs are kept so that the caret lines up with the text above it.
      std::string pad = from > 0 ? "   " : "";
      for (std::size_t i = from; i < col && i < from + shown.size(); ++i)
        pad += text[i] == '\t' ? '\t' : ' ';
      out << pad << "^\n";
    }
  }
  if (hidden_errors_ > 0 || hidden_warnings_ > 0) {
    // Reported past the cap: counted only. Warnings there also count notes.
    auto count = [](int n, const char* what) {
      return std::to_string(n) + " more " + what + (n == 1 ? "" : "s");
    };
    std::string hidden = hidden_errors_ > 0 ? count(hidden_errors_, "error") : "";
    if (hidden_warnings_ > 0)
      hidden += (hidden.empty() ? "" : " and ") + count(hidden_warnings_, "warning");
    out << path_ << ": note: " << hidden << " not shown (only the first " << kMaxErrorsShown
        << " errors of a file are)\n";
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
  // The distance ignoring case first, then with it: 'G' for arrays u and g suggests 'g' (both
  // one edit away), and 'GRID' finds 'grid' (four edits with case, none without).
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const std::string word_lower = lower(word);
  std::string best;
  std::pair<std::size_t, std::size_t> best_distance{std::string::npos, std::string::npos};
  for (const std::string& c : candidates) {
    const std::pair<std::size_t, std::size_t> d{edit_distance(word_lower, lower(c)),
                                                edit_distance(word, c)};
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Close means at most a third of the word's letters differ (and at least one may).
  std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  if (!best.empty() && best_distance.first <= limit) return " (did you mean '" + best + "'?)";
  // Else a name the word abbreviates, or that abbreviates the word: the shorter one's letters in
  // order in the longer, the first letter the same, at least four ('arguments' for 'args',
  // 'rand' for 'random'; not 'foo' for 'floor'), the closest of those.
  auto abbreviates = [](const std::string& s, const std::string& l) {
    if (s.size() < 4 || s.size() >= l.size() || s[0] != l[0]) return false;
    std::size_t at = 0;
    for (char ch : l)
      if (at < s.size() && ch == s[at]) ++at;
    return at == s.size();
  };
  best.clear();
  std::size_t closest = std::string::npos;
  for (const std::string& c : candidates) {
    const std::string cl = lower(c);
    if (!abbreviates(word_lower, cl) && !abbreviates(cl, word_lower)) continue;
    if (const std::size_t d = edit_distance(word_lower, cl); d < closest) {
      closest = d;
      best = c;
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

}  // namespace stepgen

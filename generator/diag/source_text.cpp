#include "diag/source_text.hpp"

#include <algorithm>

namespace stepgen {

LineIndex::LineIndex(std::string_view text) : size_(text.size()) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\n' && c != '\r') continue;
    ends_.push_back(i);
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    starts_.push_back(i + 1);
  }
  ends_.push_back(text.size());
}

spec::Loc LineIndex::loc(std::size_t offset) const {
  offset = std::min(offset, size_);
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  --it;
  return {static_cast<int>(it - starts_.begin()) + 1, static_cast<int>(offset - *it) + 1};
}

spec::Loc LineIndex::loc_from(spec::Loc origin, std::size_t offset) const {
  if (origin.line <= 0) return origin;
  spec::Loc l = loc(offset);
  if (l.line == 1) return {origin.line, origin.col + l.col - 1};
  return {origin.line + l.line - 1, l.col};
}

std::size_t LineIndex::line_start(std::size_t line) const {
  return line < starts_.size() ? starts_[line] : size_;
}

std::pair<std::size_t, std::size_t> LineIndex::line_range(int line) const {
  if (line <= 0 || static_cast<std::size_t>(line) > starts_.size()) return {0, 0};
  std::size_t i = static_cast<std::size_t>(line) - 1;
  return {starts_[i], ends_[i]};
}

spec::Loc offset_to_loc(std::string_view text, std::size_t offset) {
  return LineIndex(text).loc(offset);
}

}  // namespace stepgen

#pragma once
/// \file
/// Positions in a source text: byte offset -> one-based line:column. The one place that knows
/// what ends a line; the spec readers (XML, YAML), validation (positions inside a value), the
/// diagnostics (the line shown under a message) and the template renderer all use it.

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/spec_tree.hpp"

namespace stepgen {

/// The lines of a text, for offset -> line:column in O(log lines): the one place that knows what
/// ends a line ("\r\n", "\n" or a lone "\r", as XML and YAML both define it). Built in one pass.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);

  /// One-based line and column (in bytes) of the byte at `offset`; an offset past the end is
  /// the end. A line end's own bytes belong to the line they end.
  spec::Loc loc(std::size_t offset) const;
  /// The position of `offset` in a text whose first byte sits at `origin` in the spec: on the
  /// first line, columns count on from origin's column. `origin` unknown (line 0) stays unknown.
  spec::Loc loc_from(spec::Loc origin, std::size_t offset) const;
  /// The offset of the first byte of zero-based line `line` (the text's size when out of range).
  std::size_t line_start(std::size_t line) const;
  /// [begin, end) of one-based line `line` without its line end; {0, 0} when out of range.
  std::pair<std::size_t, std::size_t> line_range(int line) const;
  std::size_t line_count() const { return starts_.size(); }

 private:
  std::vector<std::size_t> starts_;  ///< offset of each line's first byte
  std::vector<std::size_t> ends_;  ///< offset of each line's end (its "\r", "\n" or the text's end)
  std::size_t size_ = 0;
};

/// Converts a byte offset in `text` to a one-based line and column (LineIndex, for one offset).
spec::Loc offset_to_loc(std::string_view text, std::size_t offset);

}  // namespace stepgen

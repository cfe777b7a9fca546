#pragma once
/// \file
/// XML character data with the source offset of every byte, for the XML reader: decoding
/// (character and entity references, line ends, attribute-value normalisation) and splitting
/// blank-separated lists, so that each value, list item and halo offset points at its own first
/// character in the spec.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace stepgen::spec::xml_text {

/// Decoded text with the source offset of each of its bytes.
struct Span {
  std::string value;
  std::vector<std::size_t> at;  ///< at[i]: source offset of value[i]
  std::size_t end = 0;          ///< source offset just past the raw text
  std::size_t pos(std::size_t i) const { return i < at.size() ? at[i] : end; }
};

/// XML's blanks: space, tab, line feed, carriage return.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// Brackets that group list items and halo offsets.
inline bool is_open(char c) {
  return c == '(' || c == '[' || c == '{';
}
inline bool is_close(char c) {
  return c == ')' || c == ']' || c == '}';
}

/// Decodes text[begin, end) as XML character data: references when `entities`, line ends
/// normalized to '\n', and every blank turned into a space when `attribute` (XML's attribute
/// value normalization, as pugixml does it).
Span decode(const std::string& text, std::size_t begin, std::size_t end, bool entities,
            bool attribute);

/// Appends `from` to `to`, offsets included.
void append(Span& to, const Span& from);

/// [b, e) of `s` without surrounding blanks.
std::pair<std::size_t, std::size_t> trimmed(const std::string& s, std::size_t b, std::size_t e);

/// Item ranges of a blank-separated list; blanks inside brackets do not separate.
std::vector<std::pair<std::size_t, std::size_t>> split_items(const std::string& s);

}  // namespace stepgen::spec::xml_text

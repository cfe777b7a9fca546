#include "spec/xml_text.hpp"

#include <cctype>
#include <cstdint>

namespace stepgen::spec::xml_text {

namespace {

void append_utf8(Span& s, std::uint32_t cp, std::size_t offset) {
  auto put = [&](std::uint32_t byte) {
    s.value.push_back(static_cast<char>(byte));
    s.at.push_back(offset);
  };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6));
    put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18));
    put(0x80 | ((cp >> 12) & 0x3F));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  }
}

// Length of the character reference at text[i] ('&...;') and its code point; 0 when there is
// none (pugixml keeps such an '&' as it is, and so do we).
std::size_t entity_at(const std::string& text, std::size_t i, std::size_t end, std::uint32_t& cp) {
  static const struct {
    const char* name;
    char c;
  } kNamed[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&apos;", '\''}, {"&quot;", '"'}};
  for (const auto& e : kNamed) {
    std::size_t n = std::char_traits<char>::length(e.name);
    if (i + n <= end && text.compare(i, n, e.name) == 0) {
      cp = static_cast<unsigned char>(e.c);
      return n;
    }
  }
  if (i + 2 >= end || text[i + 1] != '#') return 0;
  std::size_t j = i + 2;
  int base = 10;
  if (text[j] == 'x') {
    base = 16;
    ++j;
  }
  std::uint32_t value = 0;
  std::size_t digits = 0;
  for (; j < end && digits <= 8; ++j, ++digits) {
    char c = text[j];
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                : -1;
    if (d < 0) break;
    value = value * static_cast<std::uint32_t>(base) + static_cast<std::uint32_t>(d);
  }
  if (digits == 0 || digits > 8 || j >= end || text[j] != ';' || value > 0x10FFFF) return 0;
  cp = value;
  return j + 1 - i;
}

}  // namespace

// Decodes text[begin, end) as XML character data: references when `entities`, line ends
// normalized to '\n', and every blank turned into a space when `attribute` (XML's attribute
// value normalization, as pugixml does it).
Span decode(const std::string& text, std::size_t begin, std::size_t end, bool entities,
            bool attribute) {
  Span s;
  s.end = end;
  s.value.reserve(end - begin);
  s.at.reserve(end - begin);
  for (std::size_t i = begin; i < end;) {
    char c = text[i];
    std::uint32_t cp = 0;
    std::size_t n = 0;
    if (entities && c == '&' && (n = entity_at(text, i, end, cp)) > 0) {
      append_utf8(s, cp, i);
      i += n;
      continue;
    }
    if (c == '\r') {
      s.value.push_back(attribute ? ' ' : '\n');
      s.at.push_back(i);
      i += (i + 1 < end && text[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    s.value.push_back(attribute && (c == '\n' || c == '\t') ? ' ' : c);
    s.at.push_back(i);
    ++i;
  }
  return s;
}

void append(Span& to, const Span& from) {
  to.value += from.value;
  to.at.insert(to.at.end(), from.at.begin(), from.at.end());
  to.end = from.end;
}

// [b, e) of `s` without surrounding blanks.
std::pair<std::size_t, std::size_t> trimmed(const std::string& s, std::size_t b, std::size_t e) {
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return {b, e};
}

// Item ranges of a blank-separated list; blanks inside brackets do not separate.
std::vector<std::pair<std::size_t, std::size_t>> split_items(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> items;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i >= s.size()) break;
    std::size_t b = i;
    int depth = 0;
    for (; i < s.size() && (depth > 0 || !is_space(s[i])); ++i) {
      if (is_open(s[i])) ++depth;
      if (is_close(s[i]) && depth > 0) --depth;
    }
    items.emplace_back(b, i);
  }
  return items;
}

}  // namespace stepgen::spec::xml_text

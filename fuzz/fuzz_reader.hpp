#pragma once
/// \file
/// What both fuzz targets do with one input: read it, print the diagnostics, and trap when a
/// reported position or a value's position lies outside the input.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "spec/reader.hpp"

namespace stepgen::fuzz {

inline void check_loc(const spec::Loc& loc, int lines) {
  if (loc.line < 0 || loc.line > lines || loc.col < 0 || (loc.line > 0 && loc.col < 1))
    std::abort();
}

inline void check_text(const spec::Text& t, int lines) {
  if (t.present && t.loc.line == 0) std::abort();  // a value from the file has a position
  check_loc(t.loc, lines);
}

inline void check_tree(const spec::SpecTree& t, int lines) {
  check_text(t.name, lines);
  for (const auto& a : t.arrays) {
    for (const auto* x : {&a.name, &a.type, &a.init, &a.save}) check_text(*x, lines);
    if (a.size.size() > spec::kMaxDims) std::abort();
    for (const auto& x : a.size) check_text(x, lines);
  }
  for (const auto& k : t.kernels) {
    for (const auto* x : {&k.name, &k.source, &k.language}) check_text(*x, lines);
    if (k.global.size() > spec::kMaxDims || k.local.size() > spec::kMaxDims) std::abort();
    for (const auto& a : k.args) {
      for (const auto* x : {&a.array, &a.access, &a.scalar_type, &a.value}) check_text(*x, lines);
      if (a.halo.size() > spec::kMaxHaloPoints) std::abort();
      for (const auto& p : a.halo) {
        if (p.offsets.empty() || p.offsets.size() > spec::kMaxDims) std::abort();
        for (const auto& x : p.offsets) check_text(x, lines);
      }
    }
  }
  for (const auto& s : t.iterate.body)
    for (const auto& x : s.arrays) check_text(x, lines);
}

using Reader = std::optional<spec::SpecTree> (*)(const std::string&, const std::string&,
                                                 Diagnostics&);

inline int run_one(Reader read, const char* path, const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // Lines as the readers count them: "\r\n", "\n" and a lone "\r" each end one.
  int lines = static_cast<int>(LineIndex(text).line_count());
  Diagnostics diags(path, text);
  std::optional<spec::SpecTree> tree = read(path, text, diags);
  if (!tree && !diags.has_errors()) std::abort();  // no tree needs a reason
  for (const Diagnostic& d : diags.all()) check_loc(d.loc, lines);
  if (tree) check_tree(*tree, lines);
  std::ostringstream out;
  diags.print(out);
  return 0;
}

}  // namespace stepgen::fuzz

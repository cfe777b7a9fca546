#pragma once
// Helpers the generator tests share: reading files, and running readers + validation the way
// `stepgen generate` does (a spec error fails the calling test).
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "diag/diagnostics.hpp"
#include "model/model.hpp"
#include "spec/reader.hpp"

namespace test_support {

using Tree = std::map<std::string, std::string>;

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reads and validates `spec`; fails the test on any error.
inline std::unique_ptr<stepgen::model::Model> load_model(const std::string& spec) {
  stepgen::Diagnostics diags(spec, read_text(spec));
  auto tree = stepgen::spec::read_spec(spec, diags.source(), diags);
  REQUIRE_MESSAGE(tree, spec);
  auto model = stepgen::model::build_model(*tree, diags);
  REQUIRE_MESSAGE(!diags.has_errors(), spec);
  REQUIRE(model);
  return std::make_unique<stepgen::model::Model>(std::move(*model));
}

// (No <regex> below: GCC 12's <regex> warns maybe-uninitialized under -fsanitize=address,undefined
// and the sanitizer build, scripts/sanitize.sh, treats warnings as errors.)

/// `text` with every "templates hash " + 16 hex digits (the header's hash, which covers the
/// spec's bytes) made "templates hash HASH".
inline std::string without_hash(std::string text) {
  const std::string tag = "templates hash ";
  for (std::size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1)) {
    const std::size_t digits = at + tag.size();
    std::size_t n = 0;
    while (n < 16 && digits + n < text.size() &&
           std::isxdigit(static_cast<unsigned char>(text[digits + n])) &&
           !std::isupper(static_cast<unsigned char>(text[digits + n])))
      ++n;
    if (n == 16) text.replace(digits, 16, "HASH");
  }
  return text;
}

/// The first thing in `text` that looks like a build stamp: __DATE__, __TIME__, __TIMESTAMP__,
/// an ISO date (2026-11-24) or a clock time (9:05:00, 12:34:56) standing alone; "" when none.
inline std::string timestamp_in(const std::string& text) {
  for (const char* macro : {"__DATE__", "__TIME__", "__TIMESTAMP__"})
    if (text.find(macro) != std::string::npos) return macro;
  auto word = [&](std::size_t i) {
    return i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_');
  };
  auto digits = [&](std::size_t i, std::size_t n) {
    for (std::size_t k = i; k < i + n; ++k)
      if (k >= text.size() || !std::isdigit(static_cast<unsigned char>(text[k]))) return false;
    return true;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || (i > 0 && word(i - 1))) continue;
    if (digits(i, 4) && text.compare(i + 4, 1, "-") == 0 && digits(i + 5, 2) &&
        text.compare(i + 7, 1, "-") == 0 && digits(i + 8, 2) && !word(i + 10))
      return text.substr(i, 10);
    for (std::size_t n = 1; n <= 2; ++n) {
      const std::size_t j = i + n;
      if (digits(i, n) && text.compare(j, 1, ":") == 0 && digits(j + 1, 2) &&
          text.compare(j + 3, 1, ":") == 0 && digits(j + 4, 2) && !word(j + 6))
        return text.substr(i, n + 6);
    }
  }
  return "";
}

}  // namespace test_support

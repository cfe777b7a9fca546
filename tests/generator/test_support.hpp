#pragma once
// Helpers the generator tests share: reading files, and running readers + validation the way
// `stepgen generate` does (a spec error fails the calling test).
#include <doctest/doctest.h>

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

}  // namespace test_support

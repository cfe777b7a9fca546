// Golden files: the generated tree of a few examples is checked in under tests/golden/, and
// generation must reproduce it byte for byte (scripts/update-golden.sh regenerates it).
// Also: generation is deterministic and free of absolute paths.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "diag/diagnostics.hpp"
#include "emit/emitter.hpp"
#include "model/model.hpp"
#include "spec/reader.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Generates the tree of `spec` for `target` in memory.
std::map<std::string, std::string> generate(const std::string& spec, const std::string& target) {
  stepgen::Diagnostics diags(spec, read_text(spec));
  auto tree = stepgen::spec::read_spec(spec, diags.source(), diags);
  REQUIRE(tree);
  auto model = stepgen::model::build_model(*tree, diags);
  REQUIRE_MESSAGE(!diags.has_errors(), spec);
  REQUIRE(model);
  stepgen::emit::OutputSet out;
  stepgen::emit::make_emitter(target)->emit(*model, out);
  return out.files();
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "same lines, different line endings";
    if (la != lb || ha != hb)
      return "line " + std::to_string(line) + ":\n  golden:    " + (ha ? la : "<end>") + "\n  generated: " + (hb ? lb : "<end>");
  }
}

}  // namespace

TEST_CASE("generated trees equal the golden files") {
  const fs::path golden = fs::path(STEPGEN_SOURCE_DIR) / "tests/golden";
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(golden)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    const std::string target = name.substr(0, name.find('-'));
    const std::string example = name.substr(name.find('-') + 1);
    const std::string spec = std::string(STEPGEN_SOURCE_DIR) + "/examples/" + example + "/" + example + ".xml";
    CAPTURE(name);
    std::map<std::string, std::string> files = generate(spec, target);
    std::map<std::string, std::string> expected;
    for (const auto& f : fs::recursive_directory_iterator(entry.path()))
      if (f.is_regular_file())
        expected[fs::relative(f.path(), entry.path()).generic_string()] = read_text(f.path());
    for (const auto& [path, text] : expected) {
      CAPTURE(path);
      auto it = files.find(path);
      CHECK_MESSAGE(it != files.end(), "golden file no longer generated (run scripts/update-golden.sh)");
      if (it != files.end() && it->second != text)
        FAIL_CHECK("generated file differs from the golden one (run scripts/update-golden.sh and review): "
                   << first_difference(text, it->second));
    }
    for (const auto& [path, text] : files) {
      CAPTURE(path);
      CHECK_MESSAGE(expected.count(path) == 1, "new generated file not in the golden tree");
    }
    ++cases;
  }
  CHECK(cases >= 2);
}

TEST_CASE("generation is deterministic, the same from XML and YAML, and names no absolute path") {
  const std::string dir = std::string(STEPGEN_SOURCE_DIR) + "/examples/";
  for (const char* example : {"jacobi2d", "acoustic", "twostage", "heat3d"}) {
    CAPTURE(example);
    const std::string base = dir + example + "/" + example;
    auto xml = generate(base + ".xml", "opencl");
    CHECK(xml == generate(base + ".xml", "opencl"));
    auto yaml = generate(base + ".yaml", "opencl");
    REQUIRE(xml.size() == yaml.size());
    for (auto& [path, text] : yaml) {
      // The headers name the spec file; everything else must be identical.
      std::string same = text;
      const std::string from = std::string(example) + ".yaml", to = std::string(example) + ".xml";
      for (std::size_t at = same.find(from); at != std::string::npos; at = same.find(from, at + to.size()))
        same.replace(at, from.size(), to);
      CAPTURE(path);
      CHECK(same == xml[path]);
    }
    for (const auto& [path, text] : xml) {
      CAPTURE(path);
      CHECK(text.find(STEPGEN_SOURCE_DIR) == std::string::npos);
      CHECK(text.find("\r\n") == std::string::npos);
    }
  }
}

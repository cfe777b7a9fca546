// Golden files: tests/golden/CASE/ holds `spec` (the spec's path from the source root), `target`
// (a backend name), optionally `distribution` (`mpi`: the MPI program, as --distribution mpi) and
// `tree/`, the expected generated folder. Generation must reproduce the tree
// byte for byte, with no file missing or added (scripts/update-golden.sh regenerates it; see
// tests/golden/README.md). Also: generation is deterministic, the same from XML and YAML, and free
// of absolute paths and timestamps.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "diag/diagnostics.hpp"
#include "emit/emitter.hpp"
#include "emit/provenance.hpp"
#include "model/model.hpp"
#include "spec/reader.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

using test_support::read_text;
using test_support::Tree;

// The first line of a one-line file, without its line ending.
std::string read_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

// Generates the tree of `spec` for `target` in memory, as `stepgen generate SPEC -o OUT_DIR
// [--distribution DISTRIBUTION]` would write it (the headers name the spec by its path from
// OUT_DIR).
Tree generate(const std::string& spec, const std::string& target, const std::string& out_dir = "",
              const std::string& distribution = "") {
  auto model = test_support::load_model(spec);
  REQUIRE_MESSAGE((distribution.empty() || distribution == "none" || distribution == "mpi"),
                  "unknown distribution " << distribution);
  auto emitter = stepgen::emit::make_emitter(target);
  REQUIRE_MESSAGE(emitter, "no backend " << target);
  stepgen::emit::GenerateOptions options;
  options.output_dir = out_dir;
  if (!distribution.empty()) options.mpi = distribution == "mpi";  // as the driver does
  return stepgen::emit::generate_files(*model, *emitter, options).files();
}

// The header's hash covers the spec's bytes, so the XML and YAML specs of one program differ there.
std::string without_hash(const std::string& text) {
  return test_support::without_hash(text);
}

Tree read_tree(const fs::path& root) {
  Tree files;
  for (const auto& f : fs::recursive_directory_iterator(root))
    if (f.is_regular_file())
      files[fs::relative(f.path(), root).generic_string()] = read_text(f.path());
  return files;
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "same lines, different line endings or final newline";
    if (la != lb || ha != hb)
      return "line " + std::to_string(line) + ":\n  golden:    " + (ha ? la : "<end of file>") +
             "\n  generated: " + (hb ? lb : "<end of file>");
  }
}

// Compares a generated tree with its golden one; every difference is one failed check.
void check_same_tree(const Tree& golden, const Tree& generated) {
  for (const auto& entry : golden) {
    const std::string& path = entry.first;  // a named variable: CAPTURE takes it in a lambda
    const std::string& text = entry.second;
    CAPTURE(path);
    auto it = generated.find(path);
    if (it == generated.end())
      FAIL_CHECK("golden file no longer generated (run scripts/update-golden.sh and review)");
    else if (it->second != text)
      FAIL_CHECK(
          "generated file differs from the golden one (run scripts/update-golden.sh and "
          "review): "
          << first_difference(text, it->second));
  }
  for (const auto& entry : generated) {
    const std::string& path = entry.first;
    CAPTURE(path);
    // runtime/ is copied verbatim from runtime/include/: compared with it, not stored twice.
    const std::string runtime = "runtime/stepgen/";
    if (path.rfind(runtime, 0) == 0) {
      CHECK(entry.second == read_text(fs::path(STEPGEN_SOURCE_DIR) / "runtime/include/stepgen" /
                                      path.substr(runtime.size())));
      continue;
    }
    if (golden.count(path) == 0)
      FAIL_CHECK("generated file missing from the golden tree (run scripts/update-golden.sh)");
  }
}

// Replaces every occurrence of `from` in `text` by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// io2: a spec whose tables or arrays are read from file() bakes its folder (absolute) into the
// program (rt::spec_file); the golden trees hold it as @STEPGEN_SOURCE_DIR@/examples/NAME
// (scripts/update-golden.sh writes them so), wherever the sources are.
Tree with_source_dir_placeholder(Tree tree) {
  for (auto& entry : tree)
    entry.second = replace_all(entry.second, STEPGEN_SOURCE_DIR, "@STEPGEN_SOURCE_DIR@");
  return tree;
}

const char* const kExamples[] = {"acoustic", "advect",         "blur9",   "heat3d",
                                 "jacobi2d", "stepocl_jacobi", "twostage"};

}  // namespace

TEST_CASE("generated trees equal the golden files") {
  const fs::path golden = fs::path(STEPGEN_SOURCE_DIR) / "tests/golden";
  int cases = 0, mpi_cases = 0;
  for (const auto& entry : fs::directory_iterator(golden)) {
    if (!entry.is_directory()) continue;
    const fs::path dir = entry.path();
    const std::string name = dir.filename().string();
    CAPTURE(name);
    REQUIRE_MESSAGE(fs::is_regular_file(dir / "spec"), "a golden case needs a 'spec' file");
    REQUIRE_MESSAGE(fs::is_regular_file(dir / "target"), "a golden case needs a 'target' file");
    REQUIRE_MESSAGE(fs::is_directory(dir / "tree"), "a golden case needs a 'tree' folder");
    const std::string spec = (fs::path(STEPGEN_SOURCE_DIR) / read_line(dir / "spec")).string();
    const std::string distribution =
        fs::is_regular_file(dir / "distribution") ? read_line(dir / "distribution") : "";
    check_same_tree(read_tree(dir / "tree"),
                    with_source_dir_placeholder(generate(spec, read_line(dir / "target"),
                                                         (dir / "tree").string(), distribution)));
    ++cases;
    if (distribution == "mpi") ++mpi_cases;
  }
  CHECK(cases >= 2);
  CHECK(mpi_cases >= 2);
}

// Every example has a golden tree for every backend, one-process (TARGET-NAME) and MPI
// (TARGET-mpi-NAME, with `distribution` holding mpi); scripts/update-golden.sh adds missing ones.
TEST_CASE("every example has golden trees for every backend, one-process and MPI") {
  const fs::path root(STEPGEN_SOURCE_DIR);
  for (const auto& entry : fs::directory_iterator(root / "examples")) {
    const std::string example = entry.path().filename().string();
    if (!fs::is_regular_file(entry.path() / (example + ".xml"))) continue;
    for (const std::string& target : stepgen::emit::emitter_names()) {
      for (const std::string distribution : {"", "mpi"}) {
        const fs::path dir =
            root / "tests/golden" /
            (target + (distribution.empty() ? "" : "-" + distribution) + "-" + example);
        CAPTURE(dir);
        CHECK_MESSAGE(fs::is_directory(dir / "tree"),
                      "missing golden case (run scripts/update-golden.sh)");
        CHECK(read_line(dir / "spec") == "examples/" + example + "/" + example + ".xml");
        CHECK(read_line(dir / "target") == target);
        if (distribution.empty())
          CHECK_FALSE(fs::exists(dir / "distribution"));
        else
          CHECK(read_line(dir / "distribution") == distribution);
      }
    }
  }
}

TEST_CASE("the golden comparison names the first differing line") {
  CHECK(first_difference("one\ntwo\n", "one\nthree\n") ==
        "line 2:\n  golden:    two\n  generated: three");
  CHECK(first_difference("one\n", "one\ntwo\n") ==
        "line 2:\n  golden:    <end of file>\n  generated: two");
  CHECK(first_difference("one\n", "one") == "same lines, different line endings or final newline");
  CHECK(replace_all("a.yaml b.yaml", "a.yaml", "a.xml") == "a.xml b.yaml");
}

// Generating twice gives the same bytes. The XML and YAML spec of an example describe the same
// program, so they give the same bytes too, except where the generated files name the spec file
// (the header comment and `stepgen plan SPEC` hints) and the header's hash of the spec's bytes:
// those are compared after replacing NAME.yaml by NAME.xml and the hash by HASH, and everything
// else must be identical.
TEST_CASE("generation is deterministic and the same from XML and YAML") {
  const std::string dir = std::string(STEPGEN_SOURCE_DIR) + "/examples/";
  for (const char* example : kExamples) {
    CAPTURE(example);
    const std::string base = dir + example + "/" + example;
    const Tree xml = generate(base + ".xml", "opencl");
    CHECK(xml == generate(base + ".xml", "opencl"));
    const Tree yaml = generate(base + ".yaml", "opencl");
    Tree yaml_as_xml;
    for (const auto& [path, text] : yaml)
      yaml_as_xml[path] = without_hash(
          replace_all(text, std::string(example) + ".yaml", std::string(example) + ".xml"));
    Tree xml_without_hash;
    for (const auto& [path, text] : xml) xml_without_hash[path] = without_hash(text);
    check_same_tree(xml_without_hash, yaml_as_xml);
  }
}

TEST_CASE("generated files name no absolute path and carry no timestamp") {
  const std::string dir = std::string(STEPGEN_SOURCE_DIR) + "/examples/";
  // Places this test runs from: none may leak into the output.
  std::vector<std::string> paths = {STEPGEN_SOURCE_DIR,
                                    fs::path(STEPGEN_BINARY).parent_path().string(),
                                    fs::current_path().string(),
                                    "/work/",
                                    "/home/",
                                    "/tmp/"};
  // __DATE__-like macros, ISO dates and clock times (a year alone is fine: papers are cited).
  for (const char* example : kExamples) {
    CAPTURE(example);
    // Generated from an absolute spec path, so any path that leaked would show.
    for (const auto& entry : generate(dir + example + "/" + example + ".xml", "opencl")) {
      const std::string& path = entry.first;  // a named variable: CAPTURE takes it in a lambda
      const std::string& text = entry.second;
      CAPTURE(path);
      for (const std::string& p : paths) {
        CAPTURE(p);
        CHECK(text.find(p) == std::string::npos);
      }
      const std::string stamp = test_support::timestamp_in(text);
      CHECK_MESSAGE(stamp.empty(), "looks like a timestamp: " << stamp);
      CHECK(text.find('\r') == std::string::npos);
      CHECK((text.empty() || text.back() == '\n'));
    }
  }
}

TEST_CASE("the stamp and hash helpers of these tests") {
  using test_support::timestamp_in;
  CHECK(timestamp_in("built __DATE__") == "__DATE__");
  CHECK(timestamp_in("// on 2026-11-24.") == "2026-11-24");
  CHECK(timestamp_in("at 9:05:00 UTC") == "9:05:00");
  CHECK(timestamp_in("at 12:34:56") == "12:34:56");
  CHECK(timestamp_in("Miki et al. 2016; sizes 1024x1024, ratio 1:2, v1.2026-11-24x") == "");
  CHECK(timestamp_in("123:45:67 and 12026-11-24") == "");
  CHECK(test_support::without_hash("spec and templates hash 0123456789abcdef, target") ==
        "spec and templates hash HASH, target");
  CHECK(test_support::without_hash("templates hash 0123") == "templates hash 0123");
}

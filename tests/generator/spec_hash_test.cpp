// The checkpoint's spec hash (emit/spec_hash.hpp): two specs whose runs differ get different
// hashes (a program refuses a checkpoint of another hash, tests/io/program_test.sh), and what
// does not change a run (layout, steps, the monitor, outputs) leaves it alone.
#include "emit/spec_hash.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

// tests/reduce/until.xml, its kernels beside it, in a folder of this process.
struct Specs {
  fs::path dir = fs::temp_directory_path() / ("stepgen_spec_hash." + std::to_string(::getpid()));
  std::string base;
  int count = 0;
  Specs() {
    const fs::path src = fs::path(STEPGEN_SOURCE_DIR) / "tests" / "reduce";
    fs::create_directories(dir);
    for (const char* f : {"jacobi2d.cl", "jacobi2d.cu"})
      fs::copy_file(src / f, dir / f, fs::copy_options::overwrite_existing);
    base = test_support::read_text(src / "until.xml");
  }
  ~Specs() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  // The hash of until.xml with `from` replaced by `to` (which must occur).
  std::string hash(const std::string& from = "", const std::string& to = "") {
    std::string text = base;
    if (!from.empty()) {
      const std::size_t at = text.find(from);
      REQUIRE_MESSAGE(at != std::string::npos, from);
      text.replace(at, from.size(), to);
    }
    const fs::path spec = dir / ("s" + std::to_string(count++) + ".xml");
    std::ofstream(spec) << text;
    return stepgen::emit::spec_hash(*test_support::load_model(spec.string()));
  }
};

}  // namespace

TEST_CASE("the spec hash covers the reductions and until") {
  Specs s;
  const std::string base = s.hash();
  CHECK(base.size() == 16);
  // A reduction's op, array, minus, interval and place; until's condition.
  CHECK(s.hash("name=\"diff\" op=\"linf\"", "name=\"diff\" op=\"max\"") != base);
  CHECK(s.hash("name=\"res\" op=\"l2\"", "name=\"res\" op=\"sum\"") != base);
  CHECK(s.hash("array=\"B\" minus=\"A\" every=\"4\"/>", "array=\"B\" every=\"4\"/>") != base);
  CHECK(s.hash("minus=\"A\" every=\"4\"", "minus=\"A\" every=\"2\"") != base);
  CHECK(s.hash("res &lt; 2.9", "res &lt; 2.8") != base);
  CHECK(s.hash("diff &lt; 1)", "diff &lt;= 1)") != base);
}

TEST_CASE("the spec hash leaves out what does not change a run") {
  Specs s;
  const std::string base = s.hash();
  CHECK(s.hash() == base);
  CHECK(s.hash("steps=\"40\"", "steps=\"80\"") == base);
  CHECK(s.hash("<stencil name=\"until\">", "<stencil name=\"until\">\n  <!-- a comment -->") ==
        base);
  CHECK(s.hash("</iterate>", "</iterate>\n  <monitor every=\"4\"/>") == base);
  // The kernels' text (docs/io.md: a fixed kernel may resume a run).
  std::ofstream(s.dir / "jacobi2d.cl", std::ios::app) << "// one more line\n";
  CHECK(s.hash() == base);
}

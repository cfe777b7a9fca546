// The error suite: tests/errors/NAME.xml|yaml|yml holds an invalid spec and NAME.expected the exact
// stderr of `stepgen check tests/errors/NAME.xml`, run from the repository root. Regenerate with
// scripts/update-errors.sh (and read the diff) when a message changes on purpose.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = STEPGEN_SOURCE_DIR;
const fs::path kErrors = kSource / "tests" / "errors";

bool is_spec(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".xml" || ext == ".yaml" || ext == ".yml";
}

// Every spec of the suite, relative to the source folder, sorted.
std::vector<std::string> cases() {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(kErrors))
    if (e.is_regular_file() && is_spec(e.path()))
      out.push_back(fs::relative(e.path(), kSource).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

struct Run {
  int status = -1;
  std::string err;
};

// Runs `stepgen check SPEC` from the source folder, as a user would.
Run check(const std::string& spec) {
  fs::path err_file =
      fs::temp_directory_path() / ("stepgen_errors_" + std::to_string(::getpid()) + ".stderr");
  std::string command = "cd " + quoted(kSource.string()) + " && " + quoted(STEPGEN_BINARY) +
                        " check " + quoted(spec) + " >/dev/null 2>" + quoted(err_file.string());
  int raw = std::system(command.c_str());
  Run r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.err = read(err_file);
  fs::remove(err_file);
  return r;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A line diff (longest common subsequence): "-" expected only, "+" actual only, " " both.
std::string diff(const std::string& expected, const std::string& actual) {
  std::vector<std::string> a = lines(expected), b = lines(actual);
  std::vector<std::vector<std::size_t>> lcs(a.size() + 1,
                                            std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::string out = "--- expected\n+++ actual\n";
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      out += " " + a[i++] + "\n";
      ++j;
    } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out += "+" + b[j++] + "\n";
    } else {
      out += "-" + a[i++] + "\n";
    }
  }
  if (!expected.empty() && expected.back() != '\n') out += "(expected has no newline at its end)\n";
  if (!actual.empty() && actual.back() != '\n') out += "(actual has no newline at its end)\n";
  return out;
}

fs::path expected_path(const std::string& spec) {
  return (kSource / spec).replace_extension(".expected");
}

}  // namespace

TEST_CASE("error suite: stepgen check prints exactly the expected diagnostics") {
  for (const std::string& spec : cases()) {
    CAPTURE(spec);
    fs::path expected_file = expected_path(spec);
    if (!fs::exists(expected_file)) continue;  // reported by the case below
    std::string expected = read(expected_file);
    Run r = check(spec);
    bool same = r.err == expected;  // (a bool, so that a failure prints the diff, not both texts)
    CHECK_MESSAGE(same, "stderr differs from " << expected_file.filename().string()
                                               << " (scripts/update-errors.sh regenerates):\n"
                                               << diff(expected, r.err));
    int status = expected.find(": error: ") != std::string::npos ? 1 : 0;
    CHECK_MESSAGE(r.status == status, "exit status " << r.status << ", expected " << status);
  }
}

TEST_CASE("error suite: every spec has its own .expected file") {
  std::map<std::string, std::vector<std::string>> by_name;
  for (const std::string& spec : cases()) {
    CAPTURE(spec);
    CHECK_MESSAGE(fs::exists(expected_path(spec)),
                  "no " << expected_path(spec).filename().string());
    by_name[fs::path(spec).stem().string()].push_back(spec);
  }
  // NAME.expected belongs to one spec: two formats of one NAME would share (and fight over) it.
  for (const auto& entry : by_name) {
    const std::string& name = entry.first;  // named variables: CAPTURE takes them in a lambda
    const std::vector<std::string>& specs = entry.second;
    CAPTURE(name);
    CHECK_MESSAGE(specs.size() == 1,
                  "several specs share " << name << ".expected: " << specs[0] << ", " << specs[1]);
  }
  for (const fs::directory_entry& e : fs::directory_iterator(kErrors)) {
    if (e.path().extension() != ".expected") continue;
    CAPTURE(e.path().filename().string());
    bool has_spec = false;
    for (const char* ext : {".xml", ".yaml", ".yml"})
      has_spec = has_spec || fs::exists(fs::path(e.path()).replace_extension(ext));
    CHECK_MESSAGE(has_spec, "an .expected file without a spec");
  }
}

TEST_CASE("error suite: at least 40 cases, in both formats") {
  std::vector<std::string> all = cases();
  CHECK(all.size() >= 40);
  auto count = [&](const char* ext) {
    return std::count_if(all.begin(), all.end(),
                         [&](const std::string& s) { return fs::path(s).extension() == ext; });
  };
  CHECK(count(".xml") > 0);
  CHECK(count(".yaml") + count(".yml") > 0);
}

// 100,000 errors in one file: every diagnostic finds its line in a line index (not by scanning
// the file from its start), and only the first 100 are printed, then their count. The time is
// reported, not asserted (these machines are shared); before the index this took about a minute.
TEST_CASE("error suite: a spec with 100000 errors is reported at once, the first 100 shown") {
  constexpr int kErrorsWanted = 100000;
  fs::path dir = fs::temp_directory_path() / ("stepgen_many_errors_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path spec = dir / "many.xml";
  {
    std::ofstream out(spec, std::ios::binary);
    out << "<stencil name=\"many\">\n";
    // Each array is an error of the model (its type); names stay valid and distinct.
    for (int i = 0; i < kErrorsWanted; ++i)
      out << "  <array name=\"A" << i << "\" type=\"flot\" size=\"16\"/>\n";
    out << "</stencil>\n";
  }
  fs::path err_file = dir / "stderr";
  std::string command = quoted(STEPGEN_BINARY) + " check " + quoted(spec.string()) +
                        " >/dev/null 2>" + quoted(err_file.string());
  auto start = std::chrono::steady_clock::now();
  int raw = std::system(command.c_str());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("stepgen check of " << kErrorsWanted << " errors took " << seconds << " s");
  std::string err = read(err_file);
  fs::remove_all(dir);
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 1);
  std::size_t shown = 0;
  for (std::size_t at = err.find(": error: "); at != std::string::npos;
       at = err.find(": error: ", at + 1))
    ++shown;
  // 100,000 unknown types, plus "no kernel" and "no iterate" at the root.
  CHECK(shown == 100);
  CHECK(err.find("many.xml: note: " + std::to_string(kErrorsWanted + 2 - 100) +
                 " more errors not shown (only the first 100 errors of a file are)\n") !=
        std::string::npos);
  CHECK(err.find("many.xml:2:26: error: unknown type 'flot' (did you mean 'float'?)") !=
        std::string::npos);
}

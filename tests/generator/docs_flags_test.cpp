// The docs against the tools: every `--flag` that README.md and docs/*.md name must be one that
// the tool it is given to accepts, as its --help lists it: `stepgen SUBCOMMAND ... --flag` in
// SUBCOMMAND's help, `build/NAME --flag` (a generated program) in the programs' usage text
// (rt::print_usage, rt::ooc::print_usage and rt::print_io_usage, what every program prints
// for --help), and a flag
// named in prose in one of the two. The defaults that docs/generated.md's table of the programs'
// flags gives are compared with the usage text's. Flags of other tools (cmake, mpirun, Slurm,
// nvcc) are known by name below.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/driver.hpp"
#include "stepgen/exec/io/program_io.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/program.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = STEPGEN_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool flag_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

struct Flag {
  std::string name;  ///< "--devices"
  std::size_t pos;   ///< where it starts in its line
};

// The long flags of `text` ("--name", lowercase), in order.
std::vector<Flag> flags_of(const std::string& text) {
  std::vector<Flag> out;
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] != '-' || text[i + 1] != '-' || (i > 0 && flag_char(text[i - 1])) ||
        !std::islower(static_cast<unsigned char>(text[i + 2])))
      continue;
    std::size_t end = i + 2;
    while (end < text.size() && flag_char(text[end])) ++end;
    while (text[end - 1] == '-') --end;
    out.push_back({text.substr(i, end - i), i});
    i = end - 1;
  }
  return out;
}

std::set<std::string> flag_set(const std::string& text) {
  std::set<std::string> s;
  for (const Flag& f : flags_of(text)) s.insert(f.name);
  return s;
}

/// What the tools say they accept.
struct Helps {
  std::map<std::string, std::string> stepgen;  ///< subcommand -> its --help
  std::string program;                         ///< a generated program's --help
};

std::string stepgen_help(std::vector<const char*> args) {
  args.insert(args.begin(), "stepgen");
  args.push_back("--help");
  std::ostringstream out, err;
  const int status = stepgen::cli::run(static_cast<int>(args.size()), args.data(), out, err);
  REQUIRE(status == 0);
  return out.str();
}

std::string program_help() {
  const stepgen::rt::ProgramInfo info{"prog", "prog.xml", "opencl", "all", 0, 100, {"A", "B"}, {}};
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  stepgen::rt::print_usage(info, f);
  stepgen::rt::ooc::print_usage(f);
  stepgen::rt::print_io_usage(stepgen::rt::IoSpec{}, f);
  std::string text(static_cast<std::size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  const std::size_t got = std::fread(text.data(), 1, text.size(), f);
  std::fclose(f);
  text.resize(got);
  return text;
}

Helps real_helps() {
  Helps h;
  h.stepgen["check"] = stepgen_help({"check"});
  h.stepgen["generate"] = stepgen_help({"generate"});
  h.stepgen["plan"] = stepgen_help({"plan"});
  h.stepgen["schema"] = stepgen_help({"schema"});
  h.stepgen["dump"] = stepgen_help({"dump"});
  h.stepgen["templates"] = stepgen_help({"templates"}) + stepgen_help({"templates", "export"});
  h.stepgen[""] = stepgen_help({});
  h.program = program_help();
  return h;
}

// Flags of other tools that the docs name, with the tool.
const std::map<std::string, std::string> kForeign = {
    {"--build", "cmake"},          {"--install", "cmake"},
    {"--prefix", "cmake"},         {"--output-on-failure", "ctest"},
    {"--map-by", "mpirun"},        {"--bind-to", "mpirun"},
    {"--oversubscribe", "mpirun"}, {"--allow-run-as-root", "mpirun"},
    {"--nodes", "Slurm"},          {"--ntasks-per-node", "Slurm"},
    {"--gpus-per-node", "Slurm"},  {"--gpus-per-task", "Slurm"},
    {"--gpu-bind", "Slurm"},       {"--fmad", "nvcc"},
    {"--noout", "xmllint"},        {"--schema", "xmllint"}};
const std::set<std::string> kForeignTools = {"cmake", "ctest",       "mpirun",  "mpiexec",
                                             "srun",  "sbatch",      "#SBATCH", "nvcc",
                                             "git",   "clang-format"};
const std::set<std::string> kSubcommands = {"check", "dump",   "generate",
                                            "plan",  "schema", "templates"};

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A generated program on a command line: `.../build/NAME` or `./NAME`.
bool is_program(const std::string& w) {
  std::size_t slash = w.rfind('/');
  if (slash == std::string::npos || slash + 1 == w.size()) return false;
  const std::string dir = w.substr(0, slash), name = w.substr(slash + 1);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return dir == "." || dir == "build" || ends_with(dir, "/build");
}

/// Whose flag `line[pos...]` is: "stepgen SUB", "program", a foreign tool, or "" (unknown: prose).
std::string context_of(const std::string& line, std::size_t pos) {
  // The command the flag belongs to starts after the last "`", "|", "&&", ";" or "$ " before it.
  std::size_t start = 0;
  for (const char* sep : {"`", "|", "&&", ";", "$ ", "("}) {
    std::size_t at = line.rfind(sep, pos);
    if (at != std::string::npos && at + std::string(sep).size() > start)
      start = at + std::string(sep).size();
  }
  const std::vector<std::string> w = words(line.substr(start, pos - start));
  std::string context;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "stepgen" || ends_with(w[i], "/stepgen")) {
      if (i + 1 < w.size() && kSubcommands.count(w[i + 1])) {
        context = "stepgen " + w[i + 1];
      } else if (i + 1 < w.size() && (ends_with(w[i + 1], ".xml") || ends_with(w[i + 1], ".yaml") ||
                                      ends_with(w[i + 1], ".yml") || w[i + 1] == "SPEC")) {
        context = "stepgen generate";
      } else if (i + 1 == w.size()) {
        context = "stepgen ";
      }
    } else if (kForeignTools.count(w[i])) {
      context = w[i];
    } else if (is_program(w[i])) {
      context = "program";
    }
  }
  return context;
}

// The first word after "default" in `text` (after ':', spaces and backticks), "" when none.
std::string default_in(const std::string& text) {
  std::size_t at = text.find("default");
  if (at == std::string::npos) return "";
  std::size_t i = at + 7;
  while (i < text.size() && (text[i] == ':' || text[i] == ' ' || text[i] == '`')) ++i;
  std::size_t end = i;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                               text[end] == '-' || text[end] == '.'))
    ++end;
  return text.substr(i, end - i);
}

// The entry of `flag` in a usage text: from "  --flag" to the next line that starts a flag.
std::string usage_entry(const std::string& usage, const std::string& flag) {
  std::size_t at = usage.find("  " + flag + " ");
  if (at == std::string::npos) return "";
  std::size_t end = usage.find("\n  -", at + 2);
  std::size_t blank = usage.find("\n\n", at + 2);
  end = std::min(end, blank);
  return usage.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

/// Every disagreement between the markdown `text` (named `file`) and the tools' help.
std::vector<std::string> problems(const std::string& file, const std::string& text,
                                  const Helps& h) {
  std::set<std::string> stepgen_all, program = flag_set(h.program);
  for (const auto& [sub, help] : h.stepgen) {
    std::set<std::string> f = flag_set(help);
    stepgen_all.insert(f.begin(), f.end());
  }
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line, heading;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line[0] == '#' && line.rfind("#SBATCH", 0) != 0) heading = line;
    const std::string where = file + ":" + std::to_string(number) + ": ";
    // The table of a generated program's flags (docs/generated.md, "### Flags").
    const bool program_table = heading == "### Flags" && line.rfind("| `--", 0) == 0;
    for (const Flag& f : flags_of(line)) {
      std::string context = context_of(line, f.pos);
      if (program_table && f.pos == 3) context = "program";
      if (context.rfind("stepgen ", 0) == 0) {
        std::string sub = context.substr(8);
        const std::set<std::string> accepted = flag_set(h.stepgen.at(sub));
        if (!accepted.count(f.name))
          out.push_back(where + "`" + context + "` does not accept " + f.name +
                        " (not in its --help)");
      } else if (context == "program") {
        if (!program.count(f.name))
          out.push_back(where + "the generated programs do not accept " + f.name +
                        " (not in their --help)");
      } else if (context.empty()) {
        if (!stepgen_all.count(f.name) && !program.count(f.name) && !kForeign.count(f.name))
          out.push_back(where + "names " + f.name +
                        ", which neither stepgen nor the generated programs accept");
      }
      // Defaults: the table's "default X" against the usage text's.
      if (program_table && f.pos == 3 && program.count(f.name)) {
        const std::string documented = default_in(line);
        const std::string entry = usage_entry(h.program, f.name);
        const std::string helped = default_in(entry);
        // "the spec's ...": the program's default comes from its spec (filled in --help).
        if (!documented.empty() && documented != "the" && documented != helped)
          out.push_back(where + f.name + ": the docs give the default '" + documented +
                        "', --help '" + (helped.empty() ? "(none)" : helped) + "'");
      }
    }
  }
  return out;
}

std::vector<fs::path> doc_files() {
  std::vector<fs::path> files{kSource / "README.md"};
  for (const fs::directory_entry& e : fs::directory_iterator(kSource / "docs"))
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("docs: every --flag they name is in the --help of the tool it is given to") {
  const Helps h = real_helps();
  // The help texts themselves are read right: a few flags each must be found.
  CHECK(flag_set(h.stepgen.at("generate")).count("--distribution"));
  CHECK(flag_set(h.stepgen.at("plan")).count("--device-memory"));
  CHECK(flag_set(h.program).count("--verify"));
  CHECK(flag_set(h.program).count("--band-sharing"));
  CHECK(default_in(usage_entry(h.program, "--ooc-buffers")) == "3");
  std::size_t named = 0;
  for (const fs::path& file : doc_files()) {
    const std::string text = read(file);
    named += flags_of(text).size();
    for (const std::string& p : problems(fs::relative(file, kSource).string(), text, h))
      FAIL_CHECK(p);
  }
  CHECK(named > 100);  // the docs were read
}

TEST_CASE("docs: the flag check catches a flag that does not exist, or given to the wrong tool") {
  const Helps h = real_helps();
  auto count = [&](const std::string& doc) { return problems("x.md", doc, h).size(); };
  // Right: flags where they belong, foreign tools' flags, prose naming either.
  CHECK(count("`stepgen plan SPEC --devices 4 --device-memory 8GiB`\n") == 0);
  CHECK(count("$ stepgen jacobi2d.xml --target cuda -o out\n") == 0);
  CHECK(count("out/j/build/j --devices 2 --verify && cmake --build out/j/build\n") == 0);
  CHECK(count("use `--ooc-buffers` or `--check`; mpirun --oversubscribe -np 2 ./j --steps 3\n") ==
        0);
  // Wrong.
  CHECK(count("run with `--frobnicate`\n") == 1);
  CHECK(count("stepgen plan spec.xml --force\n") == 1);  // a generate flag
  CHECK(count("$ out/j/build/j --target cuda\n") == 1);  // a stepgen flag
  CHECK(count("stepgen generate spec.xml --no-such-flag\n") == 1);
  // Defaults in the programs' flag table.
  CHECK(count("### Flags\n| `--ooc-buffers B` | slots (default 3) |\n") == 0);
  CHECK(count("### Flags\n| `--ooc-buffers B` | slots (default 4) |\n") == 1);
  CHECK(count("### Flags\n| `--pinned on\\|off` | page-locked (default off) |\n") == 1);
  CHECK(count("### Flags\n| `--strategy S` | split (default: min-exchange) |\n") ==
        (default_in(usage_entry(h.program, "--strategy")) == "min-exchange" ? 0 : 1));
  CHECK(count("### Flags\n| `--devices N` | devices (default: the spec's count) |\n") == 0);
}

// The command line: exit codes, --version, help, and `stepgen SPEC` meaning generate.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/driver.hpp"

namespace {
struct Result {
  int status;
  std::string out, err;
};
Result run(std::vector<const char*> args) {
  args.insert(args.begin(), "stepgen");
  std::ostringstream out, err;
  int status = stepgen::cli::run(static_cast<int>(args.size()), args.data(), out, err);
  return {status, out.str(), err.str()};
}
}  // namespace

TEST_CASE("--version prints the version and exits 0") {
  Result r = run({"--version"});
  CHECK(r.status == 0);
  CHECK(r.out == "stepgen " STEPGEN_VERSION "\n");
}

TEST_CASE("--help lists the subcommands") {
  Result r = run({"--help"});
  CHECK(r.status == 0);
  CHECK(r.out.find("check") != std::string::npos);
  CHECK(r.out.find("generate") != std::string::npos);
  CHECK(r.out.find("plan") != std::string::npos);
}

TEST_CASE("usage errors exit 2") {
  CHECK(run({}).status == 2);
  CHECK(run({"check"}).status == 2);
  CHECK(run({"plan", "x.xml", "--devices", "0"}).status == 2);
  CHECK(run({"generate", "x.xml", "--bogus"}).status == 2);
}

TEST_CASE("a missing spec file is a spec error (exit 1) naming the file") {
  Result r = run({"check", "no-such-spec.xml"});
  CHECK(r.status == 1);
  CHECK(r.err.find("no-such-spec.xml") != std::string::npos);
}

TEST_CASE("an unknown backend is a usage error listing the backends") {
  Result r = run({"generate", "no-such-spec.xml", "--target", "vulkan"});
  CHECK(r.status == 2);
  CHECK(r.err.find("opencl") != std::string::npos);
}

// The command line: exit codes, --version, help, and `stepgen SPEC` meaning generate.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/driver.hpp"
#include "spec/reader.hpp"

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

TEST_CASE("a spec that is not a regular file is refused before it is read") {
  // /dev/zero was read until memory ran out (std::bad_alloc); a FIFO blocked for ever.
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    Result r = run({"check", dev});
    CHECK(r.status == 1);
    CHECK(r.err ==
          std::string(dev) + ": error: the spec file is not a regular file (a character device)\n");
  }
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("stepgen_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "folder.xml");
  std::string fifo = (dir / "fifo.xml").string(), folder = (dir / "folder.xml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  Result f = run({"check", fifo.c_str()});  // no writer: opening it would wait for one
  CHECK(f.status == 1);
  CHECK(f.err == fifo + ": error: the spec file is not a regular file (a FIFO)\n");
  Result d = run({"generate", folder.c_str(), "-o", (dir / "out").string().c_str()});
  CHECK(d.status == 1);
  CHECK(d.err == folder + ": error: the spec file is not a regular file (a directory)\n");
  CHECK(!std::filesystem::exists(dir / "out"));
  // Larger than the limit: refused by its size, never read whole.
  std::filesystem::path big = dir / "big.xml";
  std::ofstream(big).close();
  std::filesystem::resize_file(big, stepgen::spec::kMaxSpecBytes + 1);
  Result b = run({"check", big.string().c_str()});
  CHECK(b.status == 1);
  CHECK(b.err.find("the spec file is too large (16777217 bytes; at most 16777216 are read)") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
  CHECK(run({"check", "no-such-spec.xml"}).err ==
        "no-such-spec.xml: error: the spec file does not exist\n");
}

TEST_CASE("an unknown backend is a usage error listing the backends") {
  Result r = run({"generate", "no-such-spec.xml", "--target", "vulkan"});
  CHECK(r.status == 2);
  CHECK(r.err.find("opencl") != std::string::npos);
}

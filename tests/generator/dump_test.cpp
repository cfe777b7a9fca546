// `stepgen dump`: each stage of a spec printed in order, values at their line:col, and the first
// stage with errors ends it (exit 1, the stages before it printed).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/driver.hpp"

namespace {

struct Dumped {
  int status;
  std::string out, err;
};

Dumped dump(std::vector<std::string> args) {
  args.insert(args.begin(), {"stepgen", "dump"});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int status = stepgen::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

const std::string kExample = std::string(STEPGEN_SOURCE_DIR) + "/examples/grayscott/grayscott.xml";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("dump: all three stages in order, each saying what that stage knows") {
  Dumped d = dump({kExample});
  REQUIRE(d.status == 0);
  const std::size_t spec = d.out.find("== spec ==\n"), model = d.out.find("== model ==\n"),
                    plan = d.out.find("== plan (opencl) ==\n");
  REQUIRE(spec == 0);
  REQUIRE(model != std::string::npos);
  REQUIRE(plan != std::string::npos);
  CHECK(spec < model);
  CHECK(model < plan);
  // The spec as read: text with positions (grayscott.xml line 8: <array name="U" ...>).
  CHECK(has(d.out, "array 'U' @8:16: type 'float' @8:25, size ['NX' @8:38, 'NY' @8:41]"));
  // The model: constants evaluated, the group's boundary resolved, halos merged.
  CHECK(has(d.out, "stencil grayscott: 2D grid 128x64"));
  CHECK(has(d.out, "boundary periodic: U V U2 V2 in x y"));
  CHECK(has(d.out, "arg 0: array U read, halo lo 1x1 hi 1x1, points {-1,0} {0,-1} {0,1} {1,0}"));
  // The plan: groups, the loop's actions and the partition request.
  CHECK(has(d.out, "array U: group {U U2}, split over the devices"));
  CHECK(has(d.out, "launch grayscott, overlapping the exchange after it"));
  CHECK(has(d.out, "partition request: granule 16x8, ghost lo 1x1 hi 1x1"));
}

TEST_CASE("dump: --stage prints one stage, with no heading; --target and --distribution") {
  Dumped spec = dump({"--stage", "spec", kExample});
  CHECK(spec.status == 0);
  CHECK(spec.out.rfind("stencil 'grayscott' @", 0) == 0);
  CHECK(!has(spec.out, "=="));
  Dumped model = dump({"--stage", "model", kExample});
  CHECK(model.out.rfind("stencil grayscott: 2D", 0) == 0);
  CHECK(!has(model.out, "partition request"));
  Dumped plan = dump({"--stage", "plan", "--distribution", "mpi", kExample});
  CHECK(plan.out.rfind("backend: ", 0) == 0);
  CHECK(has(plan.out, "one MPI rank per device"));
  CHECK(dump({"--stage", "lowered", kExample}).status == 2);
  CHECK(dump({"--target", "fortran", kExample}).status == 2);
}

TEST_CASE("dump: the first stage with errors ends it, the stages before it printed") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "stepgen-dump-test";
  std::filesystem::create_directories(dir);
  std::ifstream in(kExample);
  std::stringstream text;
  text << in.rdbuf();
  std::string bad = text.str();
  bad.replace(bad.find("kernel=\"grayscott\""), 18, "kernel=\"greyscott\"");
  const std::string path = (dir / "grayscott.xml").string();
  std::ofstream(path) << bad;
  Dumped d = dump({path});
  CHECK(d.status == 1);
  CHECK(has(d.out, "== spec ==\n"));
  CHECK(has(d.out, "launch @"));
  CHECK(!has(d.out, "== model =="));
  CHECK(has(d.err, "greyscott"));
  std::filesystem::remove_all(dir);
}

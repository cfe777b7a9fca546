// The main program's pipeline (runtime/stepgen/exec/main.hpp) on the host backend: the phases a
// generated program runs (options, devices, probe, partition, run in or out of core, report,
// verify, save) over one process (rt::OneProcess, a communicator of size 1), without OpenCL or
// CUDA. The engine test's Jacobi case (jacobi_case.hpp): its --save equals the plain loop's
// bits on any number of devices and parts, in core and out of core, --verify agrees, and bad
// command lines are usage errors before any run; a checkpoint of one split restarts on
// another, in and out of core.
#include <doctest/doctest.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "jacobi_case.hpp"
#include "stepgen/exec/engine_host.hpp"
#include "stepgen/exec/main.hpp"

// A namespace of its own (not an anonymous one): the unity build (scripts/setup.sh) compiles
// the engine tests as one file.
namespace pipeline_test {

using namespace engine_case;
using Backend = host::Backend;
using Run = rt::OneProcess<Backend>;

void launch_jacobi(const host::Launch& at) {
  jacobi(at);
}

const rt::KernelEntry<Backend> kKernels[] = {
    {rt::ProbeKernel{"jacobi",
                     {{kA, rt::ArgAccess::kRead, five_point()},
                      {kB, rt::ArgAccess::kWrite, rt::Halo::from_points(2, {})}},
                     rt::kFollowsX | rt::kFollowsY,
                     rt::SlabUse::kOnSlabs},
     launch_jacobi},
};

rt::PartitionRequest partition_request(int devices, const std::vector<double>& weights) {
  return request(devices, rt::Strategy::kMinExchange, 1, weights);
}

std::vector<HostArray> make_host_arrays(const Box& box, const rt::HostAllocator& alloc,
                                        const std::vector<bool>& held) {
  std::vector<HostArray> host;
  for (const rt::ArrayInfo& a : kInfo)
    host.push_back(rt::host_array(a, box, alloc, held, host.size()));
  rt::fill_random<float>(host[kA], kGrid, 7u);
  if (host[kB].held) host[kB].bytes = host[kA].bytes;
  return host;
}

template <class R>
void time_step(R& run, std::int64_t step) {
  run.launch_and_exchange(launch_jacobi, kLaunches[0], {kB}, step);
  run.swap({kA, kB});
}

template <class R>
void time_loop(R& run, std::int64_t steps) {
  for (std::int64_t step = run.first_step(); step < steps; ++step) {
    time_step(run, step);
    if (!run.end_of_step(step)) break;
  }
}

rt::Program<Backend> program() {
  rt::Program<Backend> p;
  p.info.name = "jacobi";
  p.info.spec = "jacobi.xml";
  p.info.backend = "host";
  p.info.default_steps = kSteps;
  p.info.arrays = {"A", "B"};
  p.problem = problem(1);
  p.grid = kGrid;
  p.kernels = kKernels;
  p.kernel_count = 1;
  p.partition_request = partition_request;
  p.shrink_lo = {1, 1, 0};
  p.shrink_hi = {1, 1, 0};
  p.make_host_arrays = make_host_arrays;
  p.time_step = time_step<rt::ChunkRun<Backend>>;
  p.ooc_trapezoid = true;
  p.io.types = {"float", "float"};
  return p;
}

// Runs the main program's phases with `args` (after the program's name); its exit status.
int run(std::vector<std::string> args) {
  args.insert(args.begin(), "jacobi");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  char** v = argv.data();
  rt::SelfComm comm(argc, v);
  return rt::run_program<Backend, Run>(comm, argc, v, program(), time_loop<Run::Engine>);
}

// Runs `args` as run() does with the program's stdout in `out`; its exit status.
int run_printing(const std::vector<std::string>& args, std::string& out) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("stepgen-pipeline-out-" + std::to_string(::getpid())))
                               .string();
  std::fflush(stdout);
  const int saved = ::dup(1);
  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f);
  ::dup2(::fileno(f), 1);
  int status = -1;
  try {
    status = run(args);
  } catch (...) {
    std::fflush(stdout);
    ::dup2(saved, 1);
    ::close(saved);
    std::fclose(f);
    throw;
  }
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  std::fclose(f);
  std::FILE* in = std::fopen(file.c_str(), "r");
  REQUIRE(in);
  out.clear();
  for (int c; (c = std::fgetc(in)) != EOF;) out += static_cast<char>(c);
  std::fclose(in);
  std::filesystem::remove(file);
  return status;
}

// Whether the file at `path` holds exactly `a`'s bytes.
bool holds(const std::string& path, const HostArray& a) {
  std::vector<unsigned char> bytes(std::filesystem::file_size(path));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f);
  CHECK(std::fread(bytes.data(), 1, bytes.size(), f) == bytes.size());
  std::fclose(f);
  return bytes.size() == a.bytes.size() && std::equal(bytes.begin(), bytes.end(), a.bytes.data());
}

struct Folder {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("stepgen-pipeline-" + std::to_string(::getpid()));
  Folder() { std::filesystem::create_directories(path); }
  ~Folder() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

TEST_CASE("pipeline: one process's phases give the plain loop's bits on any devices and parts") {
  const std::vector<HostArray> expected = serial();
  Folder dir;
  const std::vector<std::vector<std::string>> modes = {
      {},
      {"--devices", "2"},
      {"--devices", "2", "--parts", "3"},
      {"--devices", "3", "--parts", "8", "--strategy", "min-exchange"},
      {"--devices", "2", "--out-of-core", "on", "--ooc-chunks", "3"},
      {"--out-of-core", "on", "--ooc-chunks", "4", "--steps-per-pass", "2"},
  };
  for (const std::vector<std::string>& mode : modes) {
    std::string name;
    for (const std::string& m : mode) name += m + " ";
    CAPTURE(name);
    std::vector<std::string> args = mode;
    const std::string a = dir.file("A.raw"), b = dir.file("B.raw");
    for (const char* more : {"--verify", "--save"}) args.push_back(more);
    args.push_back("A=" + a);
    args.push_back("--save");
    args.push_back("B=" + b);
    std::string out;
    REQUIRE(run_printing(args, out) == 0);
    CAPTURE(out);
    CHECK(holds(a, expected[kA]));
    CHECK(holds(b, expected[kB]));
    CHECK(out.find("verify: OK") != std::string::npos);
    // The phases ran as asked: the split, in or out of core.
    const bool ooc = name.find("--out-of-core on") != std::string::npos;
    CHECK((out.find("pass(es)") != std::string::npos) == ooc);
    if (name.find("--parts 8") != std::string::npos)
      CHECK(out.find("8 part(s) on 3 device(s)") != std::string::npos);
  }
}

TEST_CASE("pipeline: a checkpoint of one split restarts on another, in and out of core") {
  const std::vector<HostArray> expected = serial();
  Folder dir;
  const std::string ckpt = dir.file("run.ckpt"), a = dir.file("A.raw");
  // Checkpoints after steps 3 and 6 of 7 on 2 devices; the restart from step 6 on 3 parts,
  // then out of core on 1 device, ends as the straight run.
  REQUIRE(run({"--quiet", "--devices", "2", "--checkpoint", ckpt, "--checkpoint-every", "3"}) == 0);
  REQUIRE(std::filesystem::exists(ckpt));
  for (const std::vector<std::string>& again :
       {std::vector<std::string>{"--parts", "3"},
        std::vector<std::string>{"--out-of-core", "on", "--ooc-chunks", "2"}}) {
    std::vector<std::string> args = {"--restart", ckpt, "--save", "A=" + a};
    args.insert(args.end(), again.begin(), again.end());
    std::string out;
    REQUIRE(run_printing(args, out) == 0);
    CAPTURE(out);
    CHECK(out.find("restart: from '" + ckpt + "' at step 6") != std::string::npos);
    CHECK(holds(a, expected[kA]));
  }
}

TEST_CASE("pipeline: bad command lines are usage errors before any run") {
  CHECK_THROWS_AS(run({"--devices", "2", "--parts", "1"}), rt::UsageError);
  CHECK_THROWS_AS(run({"--no-such-flag"}), rt::UsageError);
  // A device with several parts runs them in core only: out of core is refused, naming why.
  CHECK_THROWS_WITH_AS(run({"--parts", "2", "--out-of-core", "on", "--quiet"}),
                       doctest::Contains("runs them in core only"), rt::RunError);
  CHECK(run({"--help"}) == 0);
}

}  // namespace pipeline_test

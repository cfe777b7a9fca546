// The command line: exit codes, --version, help, and `stepgen SPEC` meaning generate.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
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

TEST_CASE("plan --devices outside 1..1024 is a usage error naming the range") {
  // 0 printed a 300-digit range (CLI11's PositiveNumber is a double range).
  for (const char* n : {"0", "-3", "1025", "4294967297"}) {
    CAPTURE(n);
    Result r = run({"plan", "x.xml", "--devices", n});
    CHECK(r.status == 2);
    CHECK(r.err == std::string("stepgen: error: --devices: Value ") + n +
                       " not in range 1 to 1024\n(see stepgen --help)\n");
  }
}

TEST_CASE("plan: an out-of-core plan that cannot fit points at <out_of_core>") {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("stepgen_cli_ooc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.cl") << "__kernel void k(__global const float* a, __global float* b) {}\n";
  std::ofstream(dir / "ooc.xml") << R"spec(<stencil name="ooc">
  <array name="A" type="float" size="256 256" init="random(1)"/>
  <array name="B" type="float" size="256 256"/>
  <kernel name="k" source="k.cl">
    <arg array="A" access="read" halo="-1,0 1,0 0,-1 0,1"/>
    <arg array="B" access="write"/>
  </kernel>
  <iterate steps="4">
    <launch kernel="k"/>
    <swap a="A" b="B"/>
  </iterate>
  <out_of_core device_memory="1KiB"/>
</stencil>
)spec";
  std::string spec = (dir / "ooc.xml").string();
  Result r = run({"plan", spec.c_str()});
  CHECK(r.status == 1);
  CHECK(r.err == spec +
                     ":12:3: error: out-of-core: one chunk with its halos cannot fit: the "
                     "smallest plan (255 chunk(s) of 1 step(s) per pass) needs 18.00 KiB of chunk "
                     "buffers per device, more than the budget of 1.00 KiB; give more "
                     "--device-memory\n"
                     "  <out_of_core device_memory=\"1KiB\"/>\n"
                     "  ^\n");
  // Fewer steps per pass is suggested only where the smallest plan has more than one.
  {
    std::ifstream in(spec);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "device_memory=\"1KiB\"";
    text.replace(text.find(from), from.size(), "device_memory=\"1KiB\" steps_per_pass=\"3\"");
    std::ofstream(spec) << text;
  }
  Result k3 = run({"plan", spec.c_str()});
  CHECK(k3.status == 1);
  CHECK(k3.err.find("of 3 step(s) per pass) needs") != std::string::npos);
  CHECK(k3.err.find("give more --device-memory or fewer --steps-per-pass\n") != std::string::npos);
  // With enough memory, the same spec plans.
  CHECK(run({"plan", spec.c_str(), "--device-memory", "100MiB"}).status == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan: the out-of-core plan says which figures it assumed and takes stated ones") {
  const std::string spec = std::string(STEPGEN_SOURCE_DIR) + "/examples/heat3d/heat3d.xml";
  Result r = run({"plan", spec.c_str(), "--device-memory", "2MiB"});
  CHECK(r.status == 0);
  CHECK(r.out.find("(model), ") != std::string::npos);
  CHECK(r.out.find("figures: h2d 10.00 GB/s (assumed), d2h 10.00 GB/s (assumed), bidirectional "
                   "15.00 GB/s (assumed); kernels 1.000 ns per cell-step (assumed)") !=
        std::string::npos);

  const std::string file =
      (std::filesystem::temp_directory_path() / ("stepgen_cli_calib_" + std::to_string(::getpid())))
          .string();
  std::ofstream(file) << "out-of-core: on (...)\n  calibration: h2d=20,d2h=21,bidir=30,kernel=0.25,"
                         "d2d=900\n";
  r = run({"plan", spec.c_str(), "--device-memory", "2MiB", "--calibration", file.c_str(), "--link",
           "d2h=5", "--steps", "40"});
  CHECK(r.status == 0);
  CHECK(r.out.find("figures: h2d 20.00 GB/s (" + file + "), d2h 5.00 GB/s (--link)") !=
        std::string::npos);
  CHECK(r.out.find("kernels 0.250 ns per cell-step (" + file + ")") != std::string::npos);
  CHECK(r.out.find("for 40 step(s)") != std::string::npos);
  std::filesystem::remove(file);

  r = run({"plan", spec.c_str(), "--link", "h2d=fast"});
  CHECK(r.status == 2);
  CHECK(r.err.find("--link: h2d expects a positive number, got 'fast'") != std::string::npos);
  r = run({"plan", spec.c_str(), "--target", "vulkan"});
  CHECK(r.status == 2);
}

TEST_CASE("an unknown backend is a usage error listing the backends") {
  Result r = run({"generate", "no-such-spec.xml", "--target", "vulkan"});
  CHECK(r.status == 2);
  CHECK(r.err.find("opencl") != std::string::npos);
}

TEST_CASE("generate --target cuda without a cuda-source points at the kernel, file:line:col") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("stepgen_cli_cu_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ifstream in(std::string(STEPGEN_SOURCE_DIR) + "/examples/jacobi2d/jacobi2d.xml");
  std::string spec((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string attr = " cuda-source=\"jacobi2d.cu\"";
  REQUIRE(spec.find(attr) != std::string::npos);
  spec.erase(spec.find(attr), attr.size());
  std::filesystem::copy_file(std::string(STEPGEN_SOURCE_DIR) + "/examples/jacobi2d/jacobi2d.cl",
                             dir / "jacobi2d.cl");
  const std::string path = (dir / "nocu.xml").string(), out = (dir / "out").string();
  std::ofstream(path) << spec;
  Result r = run({"generate", path.c_str(), "--target", "cuda", "-o", out.c_str()});
  CHECK(r.status == 1);
  CHECK(r.err.rfind(path + ":7:17: error: kernel 'jacobi' has no CUDA source: add cuda-source=",
                    0) == 0);
  CHECK(r.err.find("<kernel name=\"jacobi\" source=\"jacobi2d.cl\">") != std::string::npos);
  CHECK(!std::filesystem::exists(out));  // nothing written
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan: out of core, the steps per pass divide the reductions' every, as the program's") {
  // `stepgen plan` proposes only what the program accepts: with reductions computed every 2, 4
  // and 8 steps, a divisor of 2 (the program refuses 3).
  const std::string spec = std::string(STEPGEN_SOURCE_DIR) + "/tests/reduce/reduce.xml";
  Result chosen = run({"plan", spec.c_str(), "--out-of-core", "on", "--device-memory", "64KiB"});
  CHECK(chosen.status == 0);
  const auto at = chosen.out.find(" step(s) per pass");
  REQUIRE(at != std::string::npos);
  const std::string k =
      chosen.out.substr(chosen.out.rfind(' ', at - 1) + 1, at - chosen.out.rfind(' ', at - 1) - 1);
  CHECK((k == "1" || k == "2"));
  Result three = run({"plan", spec.c_str(), "--out-of-core", "on", "--device-memory", "64KiB",
                      "--steps-per-pass", "3"});
  CHECK(three.status == 1);
  CHECK(three.err.find("3 steps per pass (the spec's steps_per_pass or --steps-per-pass) do not "
                       "divide 2") != std::string::npos);
  Result given = run({"plan", spec.c_str(), "--out-of-core", "on", "--device-memory", "64KiB",
                      "--steps-per-pass", "2", "--ooc-chunks", "3"});
  CHECK(given.status == 0);
  CHECK(given.out.find("3 chunk(s), 2 step(s) per pass,") != std::string::npos);
}

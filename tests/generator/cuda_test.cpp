// The CUDA backend's tree (in memory; compiling it with nvcc is tests/cuda.cmake's job): which
// files, which kernel file each kernel runs (source when CUDA, else cuda-source), the launch
// configuration, the CMake options, and the error for a kernel without a CUDA version.
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
const auto load = test_support::load_model;

Tree generate_cuda(const stepgen::model::Model& m) {
  auto emitter = stepgen::emit::make_emitter("cuda");
  REQUIRE(emitter);
  return stepgen::emit::generate_files(m, *emitter, {}).files();
}

std::string example(const std::string& name, const std::string& ext = "xml") {
  return std::string(STEPGEN_SOURCE_DIR) + "/examples/" + name + "/" + name + "." + ext;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("cuda: the tree holds the host program, CMakeLists, the .cu kernels and the runtime") {
  auto m = load(example("twostage"));
  Tree t = generate_cuda(*m);
  for (const char* f : {"twostage.cu", "CMakeLists.txt", ".clang-format", "kernels/twostage.cu",
                        "runtime/stepgen/exec/cuda.hpp", "runtime/stepgen/exec/program.hpp",
                        "runtime/stepgen/plan/partition.hpp", "runtime/stepgen/plan/exchange.hpp",
                        "runtime/stepgen/plan/box.hpp", "runtime/stepgen/description/init.hpp"}) {
    CAPTURE(f);
    CHECK(t.count(f) == 1);
  }
  CHECK(t.count("kernels/twostage.cl") == 0);  // OpenCL C is not shipped to the CUDA target
  CHECK(t.at("kernels/twostage.cu") ==
        read_text(std::string(STEPGEN_SOURCE_DIR) + "/examples/twostage/twostage.cu"));
  const std::string& host = t.at("twostage.cu");
  CHECK(has(host, "#include \"kernels/twostage.cu\""));
  CHECK(has(host, "STEPGEN_LAUNCH(::laplacian, grid, block, at.d.stream(at.on))("));
  CHECK(has(host, "STEPGEN_LAUNCH(::hyperdiffuse, grid, block, at.d.stream(at.on))("));
  CHECK_FALSE(has(host, "<<<"));  // launches go through STEPGEN_LAUNCH: nvcc or the CPU emulation
  CHECK(has(host, "static_cast<int>(extent(array::T, 0))"));  // scalar int passed as int
  CHECK(has(host, "p.info.backend = \"cuda\";"));
  // The engine runs the time loop (runtime/stepgen/exec/engine.hpp), main.hpp's pipeline the
  // program over one process's distribution (one_process.hpp).
  CHECK(has(host, "using Run = rt::OneProcess<Backend>;"));
  CHECK(has(host, "return rt::main_program<Run>(argc, argv, p, time_loop<Run::Engine>);"));
  const std::string& cmake = t.at("CMakeLists.txt");
  CHECK(has(cmake, "enable_language(CUDA)"));
  CHECK(has(cmake, "find_package(CUDAToolkit REQUIRED)"));
  CHECK(has(cmake, "set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING"));
  CHECK(has(cmake, "option(TWOSTAGE_FMAD"));
  CHECK(has(cmake, "--fmad=false"));
  CHECK(t.at("runtime/stepgen/exec/cuda.hpp") ==
        read_text(std::string(STEPGEN_SOURCE_DIR) + "/runtime/include/stepgen/exec/cuda.hpp"));
}

TEST_CASE("cuda: float scalars are passed as float, and the spec's block or the default is used") {
  auto heat = load(example("heat3d"));
  const std::string host = generate_cuda(*heat).at("heat3d.cu");
  CHECK(has(host, "static_cast<float>(0.125)"));
  CHECK(has(host, "const size_t local[3] = {8, 4, 2};"));
  CHECK(has(host, "cuda::block_of(3, local)"));
  auto blur = load(example("blur9"));
  CHECK(has(generate_cuda(*blur).at("blur9.cu"), "cuda::block_of(2, nullptr)"));  // 32x8
}

TEST_CASE("cuda: XML and YAML specs give the same tree but for the spec's name") {
  for (const char* name : {"jacobi2d", "acoustic", "twostage"}) {
    CAPTURE(name);
    Tree x = generate_cuda(*load(example(name, "xml")));
    Tree y = generate_cuda(*load(example(name, "yaml")));
    REQUIRE(x.size() == y.size());
    for (auto& entry : y) {
      const std::string& path = entry.first;  // a named variable: CAPTURE takes it in a lambda
      std::string fixed = entry.second;
      const std::string from = std::string(name) + ".yaml", to = std::string(name) + ".xml";
      for (std::size_t at = fixed.find(from); at != std::string::npos; at = fixed.find(from, at))
        fixed.replace(at, from.size(), to);
      // The header's hash covers the spec's bytes: the XML and YAML specs differ there.
      CAPTURE(path);
      CHECK(test_support::without_hash(fixed) == test_support::without_hash(x.at(path)));
    }
  }
}

TEST_CASE("cuda: a kernel with only an OpenCL source is an error naming the fix") {
  auto m = load(example("jacobi2d"));
  m->kernels[0].cuda_source.clear();
  auto emitter = stepgen::emit::make_emitter("cuda");
  stepgen::emit::OutputSet out;
  try {
    out = stepgen::emit::generate_files(*m, *emitter, {});
    FAIL("expected an EmitError");
  } catch (const stepgen::emit::EmitError& e) {
    CHECK(std::string(e.what()) ==
          "kernel 'jacobi' has no CUDA source: add cuda-source=\"jacobi2d.cu\" (YAML: cuda_source) "
          "to it "
          "(the cuda target cannot run OpenCL C)");
  }
  CHECK(out.files().empty());
}

TEST_CASE("cuda: a kernel whose source is CUDA runs that file") {
  auto m = load(example("jacobi2d"));
  m->kernels[0].language = stepgen::model::Language::kCuda;
  m->kernels[0].source = "jacobi2d.cu";
  m->kernels[0].cuda_source.clear();
  Tree t = generate_cuda(*m);
  CHECK(t.count("kernels/jacobi2d.cu") == 1);
}

TEST_CASE(
    "cuda: a launch followed by an exchange overlaps the two when its kernel can run on slabs") {
  // jacobi2d: the kernel's global size and its ny argument follow extent(A, 1).
  Tree t = generate_cuda(*load(example("jacobi2d")));
  const std::string& host = t.at("jacobi2d.cu");
  CHECK(has(host, "run.launch_and_exchange(launch_jacobi, kLaunches[0], {array::B}, step);"));
  // Its launch table entry: the kernel, what later launches read, its reach below and above
  // along the slowest dimension, its work-group size there.
  CHECK(
      has(host,
          "kLaunches = {{kernel::jacobi, {0, 0, 0}, {0, 0, 0}, rt::Reach{1, 1}, rt::Group{8}}};"));
  CHECK(has(host, "const char* const kNoOverlap = \"\";"));
  // advect reads 1 below and nothing above along y.
  Tree a = generate_cuda(*load(example("advect")));
  CHECK(has(a.at("advect.cu"),
            "run.launch_and_exchange(launch_advect, kLaunches[0], {array::V}, step);"));
  CHECK(
      has(a.at("advect.cu"),
          "kLaunches = {{kernel::advect, {0, 0, 0}, {0, 0, 0}, rt::Reach{1, 0}, rt::Group{4}}};"));
  // twostage: both launches are followed by an exchange (T, then V).
  Tree two = generate_cuda(*load(example("twostage")));
  CHECK(has(two.at("twostage.cu"),
            "run.launch_and_exchange(launch_laplacian, kLaunches[0], {array::T}, step);"));
  CHECK(has(two.at("twostage.cu"),
            "run.launch_and_exchange(launch_hyperdiffuse, kLaunches[1], {array::V}, step);"));

  SUBCASE("a global size that does not follow extent() along the slowest dimension") {
    auto m = load(example("jacobi2d"));
    m->kernels[0].global[1] = m->kernels[0].global[0];
    Tree g = generate_cuda(*m);
    const std::string& text = g.at("jacobi2d.cu");
    CHECK(!has(text, "launch_and_exchange(launch_jacobi"));
    CHECK(
        has(text,
            "kNoOverlap = \"kernel 'jacobi': its global size along the slowest dimension does not "
            "follow extent(X, 1)\";"));
  }
  SUBCASE("no argument gives the slab's extent") {
    auto m = load(example("jacobi2d"));
    m->kernels[0].args[3].value = m->kernels[0].args[2].value;
    Tree g = generate_cuda(*m);
    CHECK(has(g.at("jacobi2d.cu"), "kernel 'jacobi' is given no extent(X, 1) argument"));
  }
  SUBCASE("deep halos compute then exchange") {
    auto m = load(example("jacobi2d"));
    m->exchange_every = 3;
    Tree g = generate_cuda(*m);
    CHECK(!has(g.at("jacobi2d.cu"), "launch_and_exchange(launch_jacobi"));
    // The report prints "overlap: off (REASON): compute then exchange": REASON must not say it
    // again (it did: "off (deep halos (exchange every 3 steps) compute then exchange): ...").
    CHECK(has(g.at("jacobi2d.cu"), "kNoOverlap = \"deep halos, exchanged every 3 steps\";"));
    CHECK(has(g.at("jacobi2d.cu"), "run.launch(launch_jacobi, kLaunches[0], step);"));
    CHECK(has(g.at("jacobi2d.cu"),
              "if ((step + 1) % kExchangeEvery == 0) run.exchange({array::A, array::B});"));
  }
}

TEST_CASE("the cuda and opencl targets are both listed") {
  auto names = stepgen::emit::emitter_names();
  CHECK(names == std::vector<std::string>{"cuda", "opencl"});
}

TEST_CASE(
    "cuda: distribution mpi gives the MPI program, sharing sections 1-3 with the one-process one") {
  auto m = load(example("jacobi2d"));
  Tree one = generate_cuda(*m);
  m->mpi = true;
  Tree t = generate_cuda(*m);
  for (const char* f :
       {"jacobi2d.cu", "CMakeLists.txt", "kernels/jacobi2d.cu", "runtime/stepgen/exec/mpi.hpp",
        "runtime/stepgen/exec/mpi_cuda.hpp", "runtime/stepgen/exec/cuda.hpp"}) {
    CAPTURE(f);
    CHECK(t.count(f) == 1);
  }
  CHECK(one.count("runtime/stepgen/exec/mpi_cuda.hpp") == 0);
  const std::string& host = t.at("jacobi2d.cu");
  CHECK(has(host, "#include \"stepgen/exec/engine_mpi_cuda.hpp\""));
  CHECK(t.count("runtime/stepgen/exec/ranks.hpp") == 1);
  CHECK(t.count("runtime/stepgen/exec/mpi_main.hpp") == 0);  // one main program (main.hpp) for both
  // The runtime's main program runs the same time loop over the ranks' distribution (ranks.hpp)
  // on one rank's engine.
  CHECK(has(host, "using Run = rt::Ranks<Backend, cuda::MpiRank>;"));
  CHECK(has(host, "return rt::main_program<Run>(argc, argv, p, time_loop<Run::Engine>);"));
  CHECK(has(host, "launch_and_exchange(launch_jacobi,"));
  CHECK(!has(host, "mpi::Session session"));  // MPI is started by the runtime
  // The same file as the one-process program but for its includes and the end of main.
  auto part = [](const std::string& text, const char* from, const char* to) {
    const std::size_t a = text.find(from), b = text.find(to, a);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    return text.substr(a, b - a);
  };
  const std::string& single = one.at("jacobi2d.cu");
  CHECK(part(host, "namespace {", "  p.ooc_trapezoid") ==
        part(single, "namespace {", "  p.ooc_trapezoid"));
  const std::string& cmake = t.at("CMakeLists.txt");
  CHECK(has(cmake, "find_package(MPI REQUIRED COMPONENTS CXX)"));
  CHECK(has(cmake, "target_link_libraries(jacobi2d PRIVATE MPI::MPI_CXX)"));
  CHECK(has(cmake, "enable_language(CUDA)"));
  CHECK(!has(one.at("CMakeLists.txt"), "find_package(MPI"));
}

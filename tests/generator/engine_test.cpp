// The generated programs hold the spec's problem and its time step; the machinery is the
// runtime's (engine.hpp, main.hpp over one_process.hpp or ranks.hpp). Both backends, one process
// and MPI: the time step is one line per spec action, run by the engine in core and on each chunk
// out of core, and the MPI program is the one-process file run over another distribution.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "emit/emitter.hpp"
#include "emit/provenance.hpp"
#include "model/model.hpp"
#include "test_support.hpp"

namespace {

using test_support::Tree;
const auto load = test_support::load_model;

Tree generate(const std::string& target, const stepgen::model::Model& m, bool mpi = false) {
  auto emitter = stepgen::emit::make_emitter(target);
  REQUIRE(emitter);
  stepgen::emit::GenerateOptions options;
  options.mpi = mpi;
  return stepgen::emit::generate_files(m, *emitter, options).files();
}

std::string example(const std::string& name) {
  return std::string(STEPGEN_SOURCE_DIR) + "/examples/" + name + "/" + name + ".xml";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The text from `from` up to (not including) `to`.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const std::size_t a = text.find(from);
  REQUIRE(a != std::string::npos);
  const std::size_t b = text.find(to, a);
  REQUIRE(b != std::string::npos);
  return text.substr(a, b - a);
}

}  // namespace

TEST_CASE("engine: the time loop is one line per spec action, the same on both backends") {
  for (const char* target : {"opencl", "cuda"}) {
    CAPTURE(target);
    auto m = load(example("twostage"));
    Tree t = generate(target, *m);
    const std::string& host = t.at(std::string("twostage.") + (target[0] == 'o' ? "cpp" : "cu"));
    // One time step, run by both engines (in core and on out-of-core chunks), and the loop.
    const std::string body =
        between(host, "template <class Run>\nvoid time_step(", "// clang-format on");
    CHECK(body ==
          "template <class Run>\n"
          "void time_step(Run& run, std::int64_t step) {\n"
          "  run.launch_and_exchange(launch_laplacian, kLaunches[0], {array::T}, step);\n"
          "  run.launch_and_exchange(launch_hyperdiffuse, kLaunches[1], {array::V}, step);\n"
          "  run.swap({array::U, array::V});\n"
          "}\n"
          "\n"
          "/// The steps in core, from the first (a restart's), end_of_step after each "
          "(docs/io.md).\n"
          "template <class Run>\n"
          "void time_loop(Run& run, std::int64_t steps) {\n"
          "  for (std::int64_t step = run.first_step(); step < steps; ++step) {\n"
          "    time_step(run, step);\n"
          "    if (!run.end_of_step(step)) break;\n"
          "  }\n"
          "}\n");
    // The chunk step and the out-of-core driver are the runtime's, not the generated file's.
    CHECK(!has(host, "chunk_step"));
    CHECK(!has(host, "run_in_or_out_of_core"));
    CHECK(has(host, "p.time_step = time_step<rt::ChunkRun<Backend>>;"));
    CHECK(t.count("runtime/stepgen/exec/engine.hpp") == 1);
    // No exchange or overlap code is left in the generated file.
    CHECK(!has(host, "class Run {"));
    CHECK(!has(host, "overlap_views"));
  }
}

TEST_CASE("engine: the MPI programs run the same time loop on one rank's engine") {
  for (const char* target : {"opencl", "cuda"}) {
    CAPTURE(target);
    const std::string file = std::string("jacobi2d.") + (target[0] == 'o' ? "cpp" : "cu");
    auto m = load(example("jacobi2d"));
    Tree one = generate(target, *m);
    Tree t = generate(target, *m, true);
    const std::string& host = t.at(file);
    CHECK(has(host, target[0] == 'o' ? "using Run = rt::Ranks<Backend, cl::MpiRank>;"
                                     : "using Run = rt::Ranks<Backend, cuda::MpiRank>;"));
    CHECK(has(host, "time_loop<Run::Engine>"));  // the engine over one rank's parts
    CHECK(t.count(target[0] == 'o' ? "runtime/stepgen/exec/engine_mpi_opencl.hpp"
                                   : "runtime/stepgen/exec/engine_mpi_cuda.hpp") == 1);
    CHECK(!has(host, "class RankRun"));
    // Sections 1-3 and the time step and loop are the same text as in the one-process program.
    CHECK(between(host, "// 1. The problem", "// 2. Initial values") ==
          between(one.at(file), "// 1. The problem", "// 2. Initial values"));
    CHECK(between(host, "// 3. Kernels", "// 4. ") ==
          between(one.at(file), "// 3. Kernels", "// 4. "));
    CHECK(between(host, "void time_step(", "// clang-format on") ==
          between(one.at(file), "void time_step(", "// clang-format on"));
    // The description main fills is the same too (both backends run out of core under MPI).
    CHECK(between(host, "  p.info.name", "  using Run") ==
          between(one.at(file), "  p.info.name", "  using Run"));
    CHECK(has(host, "rt::ChunkRun<Backend>"));
  }
}

// Issue 51: the generated host file stays the problem plus its visible time loop; the runtime's
// headers it includes are its backend and its main program (they include the rest).
TEST_CASE("engine: the generated jacobi2d is at most 250 lines on each backend, MPI included") {
  for (const char* target : {"opencl", "cuda"})
    for (bool mpi : {false, true}) {
      CAPTURE(target);
      CAPTURE(mpi);
      auto m = load(example("jacobi2d"));
      Tree t = generate(target, *m, mpi);
      const std::string& host = t.at(std::string("jacobi2d.") + (target[0] == 'o' ? "cpp" : "cu"));
      CHECK(std::count(host.begin(), host.end(), '\n') <= 250);
    }
}

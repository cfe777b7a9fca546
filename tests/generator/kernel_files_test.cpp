// Kernel files in the output tree: each file once, under kernels/ by its name, and files of one
// name from different folders under as many of their folders as tell them apart, so that the
// program gets every kernel (issue 21, item 6). tests/e2e/kernel_folders_test.sh builds and runs
// such a program on PoCL.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "emit/emitter.hpp"
#include "emit/output.hpp"
#include "emit/provenance.hpp"
#include "emit/view.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

using test_support::Tree;

struct Folder {
  fs::path root =
      fs::temp_directory_path() / ("stepgen_kernel_files_" + std::to_string(::getpid()));
  Folder() { fs::create_directories(root); }
  ~Folder() { fs::remove_all(root); }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((root / name).parent_path());
    std::ofstream(root / name, std::ios::binary) << text;
  }
};

// Two kernels, each in its own k.cl (and k.cu), and a third that names the first file again.
const char* const kSpec = R"spec(<stencil name="two">
  <array name="A" type="float" size="64" init="value(1)"/>
  <array name="B" type="float" size="64"/>
  <kernel name="ka" source="a/k.cl" cuda-source="a/k.cu">
    <arg array="A" access="read"/>
    <arg array="B" access="write"/>
  </kernel>
  <kernel name="kb" source="b/k.cl" cuda-source="b/k.cu">
    <arg array="B" access="read"/>
    <arg array="A" access="write"/>
  </kernel>
  <kernel name="kc" source="./a/../a/k.cl" cuda-source="a/k.cu">
    <arg array="B" access="read"/>
    <arg array="A" access="write"/>
  </kernel>
  <iterate steps="2">
    <launch kernel="ka"/>
    <launch kernel="kb"/>
    <launch kernel="kc"/>
  </iterate>
</stencil>
)spec";

Tree generate(const stepgen::model::Model& m, const char* target) {
  auto emitter = stepgen::emit::make_emitter(target);
  REQUIRE(emitter);
  return stepgen::emit::generate_files(m, *emitter, {}).files();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("kernel files of one name in two folders both reach the program") {
  Folder f;
  f.write("a/k.cl", "__kernel void ka(__global const float* a, __global float* b) {}\n");
  f.write("b/k.cl", "__kernel void kb(__global const float* a, __global float* b) {}\n");
  f.write("a/k.cu", "__global__ void ka(const float* a, float* b) {}\n");
  f.write("b/k.cu", "__global__ void kb(const float* a, float* b) {}\n");
  f.write("two.xml", kSpec);
  auto m = test_support::load_model((f.root / "two.xml").string());

  Tree cl = generate(*m, "opencl");
  CHECK(cl.count("kernels/k.cl") == 0);
  REQUIRE(cl.count("kernels/a/k.cl") == 1);
  REQUIRE(cl.count("kernels/b/k.cl") == 1);
  CHECK(has(cl.at("kernels/a/k.cl"), "void ka("));
  CHECK(has(cl.at("kernels/b/k.cl"), "void kb("));
  // Both are compiled into the program, each once (kc's ./a/../a/k.cl is a/k.cl), and the list
  // reaches the embedding script as one argument.
  const std::string& cmake = cl.at("CMakeLists.txt");
  CHECK(has(cmake, "set(KERNEL_FILES \"kernels/a/k.cl\" \"kernels/b/k.cl\")\n"));
  CHECK(has(cmake, "VERBATIM)"));
  CHECK(has(cl.at("two.cpp"), "kernels of a/k.cl, b/k.cl"));

  Tree cu = generate(*m, "cuda");
  REQUIRE(cu.count("kernels/a/k.cu") == 1);
  REQUIRE(cu.count("kernels/b/k.cu") == 1);
  CHECK(has(cu.at("kernels/a/k.cu"), "void ka("));
  CHECK(has(cu.at("two.cu"), "#include \"kernels/a/k.cu\""));
  CHECK(has(cu.at("two.cu"), "#include \"kernels/b/k.cu\""));
}

TEST_CASE("kernel files: a unique name stays kernels/NAME; deeper folders only as needed") {
  Folder f;
  for (const char* p : {"x/one/k.cl", "y/one/k.cl", "z/k.cl", "solo.cl"})
    f.write(p, std::string("__kernel void k_") +
                   std::to_string(std::hash<std::string>{}(p) % 1000) + "() {}\n");
  stepgen::model::Model m;
  m.spec_dir = f.root.string();
  for (const char* p : {"x/one/k.cl", "y/one/k.cl", "z/k.cl", "solo.cl"}) {
    stepgen::model::Kernel k;
    k.source = p;
    m.kernels.push_back(k);
  }
  std::vector<stepgen::emit::KernelFile> files =
      stepgen::emit::kernel_files(m, [](const stepgen::model::Kernel& k) { return k.source; });
  REQUIRE(files.size() == 4);
  CHECK(files[0].target == "kernels/x/one/k.cl");
  CHECK(files[1].target == "kernels/y/one/k.cl");
  CHECK(files[2].target == "kernels/z/k.cl");
  CHECK(files[3].target == "kernels/solo.cl");
}

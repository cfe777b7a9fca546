// <output> and <checkpoint> (XML) and outputs: / checkpoint: (YAML) become the same model, and
// the generated program's tables carry them (docs/spec.md, docs/io.md).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace {

struct Folder {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("stepgen_io_model_test." + std::to_string(::getpid()));
  Folder() {
    std::filesystem::create_directories(path);
    std::ofstream(path / "k.cl")
        << "__kernel void k(__global const float* a, __global float* b) {}\n";
  }
  ~Folder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

const char* const kXml = R"spec(<stencil name="t">
  <array name="A" type="float" size="16 16" init="random(1)"/>
  <array name="B" type="float" size="16 16"/>
  <kernel name="k" source="k.cl">
    <arg array="A" access="read" halo="-1,0 1,0"/>
    <arg array="B" access="write"/>
  </kernel>
  <output arrays="A, B" every="2*3" file="out/s.h5" first="true" last="true"/>
  <output arrays="B" every="4" file="b.raw"/>
  <checkpoint every="10" file="run.ckpt"/>
  <iterate steps="20">
    <launch kernel="k"/>
    <swap a="A" b="B"/>
  </iterate>
</stencil>
)spec";

const char* const kYaml = R"spec(stencil: t
arrays:
  - {name: A, type: float, size: [16, 16], init: random(1)}
  - {name: B, type: float, size: [16, 16]}
kernels:
  - name: k
    source: k.cl
    args:
      - {array: A, access: read, halo: [[-1, 0], [1, 0]]}
      - {array: B, access: write}
outputs:
  - {arrays: [A, B], every: 2*3, file: out/s.h5, first: true, last: true}
  - {arrays: B, every: 4, file: b.raw}
checkpoint: {every: 10, file: run.ckpt}
iterate:
  steps: 20
  body:
    - {launch: k}
    - {swap: [A, B]}
)spec";

}  // namespace

TEST_CASE("io: <output> and <checkpoint> in XML and YAML become the same model") {
  Folder folder;
  for (const std::string& spec : {folder.write("t.xml", kXml), folder.write("t.yaml", kYaml)}) {
    CAPTURE(spec);
    auto m = test_support::load_model(spec);
    REQUIRE(m->outputs.size() == 2);
    const auto& h5 = m->outputs[0];
    CHECK(h5.arrays == std::vector<int>{0, 1});
    CHECK(h5.every == 6);
    CHECK(h5.file == "out/s.h5");
    CHECK(h5.hdf5);
    CHECK(h5.first);
    CHECK(h5.last);
    const auto& raw = m->outputs[1];
    CHECK(raw.arrays == std::vector<int>{1});
    CHECK(raw.every == 4);
    CHECK_FALSE(raw.hdf5);
    CHECK_FALSE(raw.first);
    CHECK_FALSE(raw.last);
    CHECK(m->checkpoint.enabled);
    CHECK(m->checkpoint.every == 10);
    CHECK(m->checkpoint.file == "run.ckpt");
  }
}

TEST_CASE("io: a spec without <output> or <checkpoint> has none") {
  Folder folder;
  std::string xml = kXml;
  for (const char* line : {"  <output arrays=\"A, B\" every=\"2*3\" file=\"out/s.h5\" "
                           "first=\"true\" last=\"true\"/>\n",
                           "  <output arrays=\"B\" every=\"4\" file=\"b.raw\"/>\n",
                           "  <checkpoint every=\"10\" file=\"run.ckpt\"/>\n"})
    xml.erase(xml.find(line), std::string(line).size());
  auto m = test_support::load_model(folder.write("plain.xml", xml));
  CHECK(m->outputs.empty());
  CHECK_FALSE(m->checkpoint.enabled);
}

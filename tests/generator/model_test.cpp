// Validation: SpecTrees built by hand (no reader involved) go through build_model; the facts of
// the Model and the exact diagnostics are checked. tests/errors/ covers the checks through files.
#include "model/model.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using stepgen::Diagnostics;
using stepgen::spec::Loc;
using stepgen::spec::Text;
namespace spec = stepgen::spec;
using namespace stepgen::model;

namespace {

// A folder holding k.cl (and data files), so that source and file checks find real files. One
// per process: ctest runs each test case as its own process, in parallel, and a shared folder's
// files were rewritten (truncated) by one while another read their sizes.
struct TempFolder {
  std::filesystem::path path;
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};
std::string spec_folder() {
  static const TempFolder folder{std::filesystem::temp_directory_path() /
                                 ("stepgen_model_test." + std::to_string(::getpid()))};
  static const std::string dir = [] {
    const std::filesystem::path& d = folder.path;
    std::filesystem::create_directories(d);
    std::ofstream(d / "k.cl") << "__kernel void k(__global const float* a, __global float* b) {}\n";
    std::ofstream(d / "k.cu") << "__global__ void k(const float* a, float* b) {}\n";
    std::ofstream(d / "ok.bin", std::ios::binary) << std::string(16 * 16 * 4, '\0');
    return d.generic_string();
  }();
  return dir;
}

// Values sit on their own line (line = a running number), column 1.
int next_line = 1;
Text t(const std::string& v) {
  return {v, {next_line++, 1}, true};
}

spec::Array array(const std::string& name, const std::string& type, std::vector<std::string> size,
                  const std::string& init = "") {
  spec::Array a;
  a.loc = {next_line, 1};
  a.name = t(name);
  a.type = t(type);
  for (const std::string& s : size) a.size.push_back(t(s));
  if (!init.empty()) a.init = t(init);
  return a;
}

spec::KernelArg arg(const std::string& name, const std::string& access,
                    std::vector<std::vector<std::string>> halo = {}) {
  spec::KernelArg a;
  a.loc = {next_line, 1};
  a.array = t(name);
  a.access = t(access);
  for (const auto& point : halo) {
    spec::HaloPoint p;
    p.loc = {next_line, 1};
    for (const std::string& o : point) p.offsets.push_back(t(o));
    a.halo.push_back(p);
  }
  return a;
}

spec::Step launch(const std::string& kernel) {
  spec::Step s;
  s.loc = {next_line, 1};
  s.kernel = t(kernel);
  return s;
}

spec::Step swap(const std::string& a, const std::string& b) {
  spec::Step s;
  s.kind = spec::Step::Kind::kSwap;
  s.loc = {next_line, 1};
  s.arrays = {t(a), t(b)};
  return s;
}

// A valid 16x16 Jacobi-like spec: A read with a 4-point halo, B written, swapped.
spec::SpecTree base() {
  next_line = 1;
  spec::SpecTree tree;
  tree.path = spec_folder() + "/jacobi.xml";
  tree.loc = {1, 1};
  tree.name = t("jacobi");
  tree.constants.push_back({t("N"), t("16"), {next_line, 1}});
  tree.arrays.push_back(array("A", "float", {"N", "N"}, "random(7)"));
  tree.arrays.push_back(array("B", "float", {"N", "N"}, "copy(A)"));
  spec::Kernel k;
  k.loc = {next_line, 1};
  k.name = t("k");
  k.source = t("k.cl");
  k.args.push_back(arg("A", "read", {{"-1", "0"}, {"1", "0"}, {"0", "-1"}, {"0", "1"}}));
  k.args.push_back(arg("B", "write"));
  tree.kernels.push_back(k);
  tree.iterate.present = true;
  tree.iterate.loc = {next_line, 1};
  tree.iterate.steps = t("10");
  tree.iterate.body = {launch("k"), swap("A", "B")};
  return tree;
}

struct Built {
  std::optional<Model> model;
  std::vector<std::string> messages;  // "LINE: severity: MESSAGE"
};

Built build(const spec::SpecTree& tree) {
  Diagnostics diags(tree.path, "");
  Built b;
  b.model = build_model(tree, diags);
  for (const stepgen::Diagnostic& d : diags.all())
    b.messages.push_back(std::to_string(d.loc.line) + ": " +
                         (d.severity == stepgen::Severity::kError ? "error: " : "warning: ") +
                         d.message);
  CHECK(b.model.has_value() == !diags.has_errors());
  return b;
}

// The line a value was given on, as messages print it.
std::string at(const Text& text) {
  return std::to_string(text.loc.line);
}

std::string only(const Built& b) {
  REQUIRE_MESSAGE(b.messages.size() == 1, [&] {
    std::string all;
    for (const std::string& m : b.messages) all += m + "\n";
    return all;
  }());
  return b.messages[0];
}

}  // namespace

TEST_CASE("a valid spec becomes a model with every name resolved") {
  Built b = build(base());
  REQUIRE(b.messages.empty());
  REQUIRE(b.model);
  const Model& m = *b.model;
  CHECK(m.name == "jacobi");
  CHECK(m.spec_dir == spec_folder());
  CHECK(m.dims == 2);
  CHECK(m.domain == std::array<std::int64_t, 3>{16, 16, 1});
  REQUIRE(m.constants.size() == 1);
  CHECK(m.constants[0].text == "16");
  REQUIRE(m.arrays.size() == 2);
  CHECK(m.arrays[0].init.kind == Init::Kind::kRandom);
  CHECK(m.arrays[0].init.seed == 7);
  CHECK(m.arrays[1].init.kind == Init::Kind::kCopy);
  CHECK(m.arrays[1].init.source == 0);
  CHECK(m.arrays[0].read);
  CHECK_FALSE(m.arrays[0].written);
  CHECK(m.arrays[1].written);
  CHECK(m.arrays[0].read_halo.lo == std::array<int, 3>{1, 1, 0});
  CHECK(m.arrays[0].read_halo.hi == std::array<int, 3>{1, 1, 0});
  CHECK(m.arrays[0].read_halo.points.size() == 4);
  CHECK(m.arrays[1].read_halo.empty());
  REQUIRE(m.kernels.size() == 1);
  const Kernel& k = m.kernels[0];
  CHECK(k.language == Language::kOpenCL);
  // The default global size: the first written array's local extents.
  REQUIRE(k.global.size() == 2);
  CHECK(k.global[1].kind == Expr::Kind::kArrayDim);
  CHECK(k.global[1].text == "extent");
  CHECK(k.global[1].array == 1);
  CHECK(k.global[1].dim == 1);
  CHECK(k.local.empty());
  CHECK(m.steps == 10);
  REQUIRE(m.body.size() == 2);
  CHECK(m.body[0].kernel == 0);
  CHECK(m.body[1].arrays == std::vector<int>{0, 1});
  CHECK(m.find_array("B") == 1);
  CHECK(m.find_kernel("nope") == -1);
}

TEST_CASE("the read halo is the union of every reading argument's halo") {
  spec::SpecTree tree = base();
  spec::Kernel k2 = tree.kernels[0];
  k2.name = t("k2");
  k2.args[0] = arg("A", "read", {{"-2", "0"}, {"1", "0"}});
  tree.kernels.push_back(k2);
  tree.iterate.body.insert(tree.iterate.body.begin() + 1, launch("k2"));
  Built b = build(tree);
  REQUIRE(b.model);
  const Halo& h = b.model->arrays[0].read_halo;
  CHECK(h.lo == std::array<int, 3>{2, 1, 0});
  CHECK(h.hi == std::array<int, 3>{1, 1, 0});
  CHECK(h.points.size() == 5);  // {1,0} is in both
  // Given as widths, a halo reads the whole box: the union is a box too. (In place with a
  // halo: a wavefront's launch, said so; without in-place it is refused, tests/errors.)
  spec::KernelArg widths = arg("A", "readwrite");
  widths.halo_lo = {t("0"), t("3")};
  widths.halo_hi = {t("0"), t("0")};
  widths.in_place = t("wavefront");
  tree.kernels[1].args[0] = widths;
  b = build(tree);
  REQUIRE(b.model);
  CHECK(b.model->kernels[1].args[0].wavefront);
  CHECK(b.model->arrays[0].read_halo.points.empty());
  CHECK(b.model->arrays[0].read_halo.lo == std::array<int, 3>{1, 3, 0});
  CHECK(b.model->arrays[0].written);
}

TEST_CASE("the shadow applies to read arguments without a halo of their own") {
  spec::SpecTree tree = base();
  tree.kernels[0].args[0] = arg("A", "read");
  spec::HaloPoint p;
  p.loc = {next_line, 1};
  p.offsets = {t("-10"), t("0")};
  tree.shadow.push_back(p);
  p.offsets = {t("0"), t("1")};
  tree.shadow.push_back(p);
  Built b = build(tree);
  REQUIRE(b.model);
  const Kernel& k = b.model->kernels[0];
  CHECK(k.args[0].halo.lo == std::array<int, 3>{10, 0, 0});
  CHECK(k.args[0].halo.hi == std::array<int, 3>{0, 1, 0});
  CHECK(k.args[1].halo.empty());  // written: no halo
  // An argument's own halo wins.
  tree.kernels[0].args[0] = arg("A", "read", {{"1", "0"}});
  b = build(tree);
  REQUIRE(b.model);
  CHECK(b.model->kernels[0].args[0].halo.lo == std::array<int, 3>{0, 0, 0});
  CHECK(b.model->kernels[0].args[0].halo.hi == std::array<int, 3>{1, 0, 0});
}

TEST_CASE("exchange every, chunks and steps per pass take constant expressions") {
  // <exchange every="EX"/> takes a constant expression, as an output's every does.
  spec::SpecTree tree = base();
  tree.constants.push_back({t("EX"), t("2"), {1, 1}});
  tree.exchange = {t("EX"), {1, 1}, true};
  tree.out_of_core = {t("EX * 3"), t("EX + 1"), t("true"), t("8GiB"), {1, 1}, true};
  Built b = build(tree);
  REQUIRE(b.model);
  CHECK(b.model->exchange_every == 2);
  CHECK(b.model->out_of_core.chunks == 6);
  CHECK(b.model->out_of_core.steps_per_pass == 3);
}

TEST_CASE("run settings are parsed") {
  spec::SpecTree tree = base();
  tree.devices = {t("gpu"), t("3"), t("1 2.5,1"), {1, 1}, true};
  tree.exchange = {t("4"), {1, 1}, true};
  tree.out_of_core = {t("auto"), t("8"), t("false"), t("8GiB"), {1, 1}, true};
  tree.distribution = {t("mpi"), {1, 1}, true};
  Built b = build(tree);
  REQUIRE(b.model);
  const Model& m = *b.model;
  CHECK(m.devices.type == Devices::Type::kGpu);
  CHECK(m.devices.count == 3);
  CHECK(m.devices.weights == std::vector<double>{1, 2.5, 1});
  CHECK(m.exchange_every == 4);
  CHECK(m.out_of_core.enabled);
  CHECK(m.out_of_core.chunks == 0);
  CHECK(m.out_of_core.steps_per_pass == 8);
  CHECK_FALSE(m.out_of_core.region_sharing);
  CHECK(m.out_of_core.device_memory == (std::int64_t{8} << 30));
  CHECK(m.mpi);
  for (auto [text, bytes] :
       std::vector<std::pair<std::string, std::int64_t>>{{"512MiB", std::int64_t{512} << 20},
                                                         {"1000", 1000},
                                                         {"3 GB", 3000000000},
                                                         {"auto", 0}}) {
    tree.out_of_core.device_memory = t(text);
    b = build(tree);
    REQUIRE(b.model);
    CHECK(b.model->out_of_core.device_memory == bytes);
  }
}

TEST_CASE("constants may use earlier constants; floats keep a C++ literal") {
  spec::SpecTree tree = base();
  tree.constants.push_back({t("M"), t("N * 2 + 1"), {1, 1}});
  tree.constants.push_back({t("DT"), t("1.0 / 4"), {1, 1}});
  tree.constants.push_back({t("C"), t("2.0"), {1, 1}});
  Built b = build(tree);
  REQUIRE(b.model);
  CHECK(b.model->constant_values.at("M").i == 33);
  CHECK(b.model->constants[2].text == "0.25");
  CHECK(b.model->constants[3].text == "2.0");
}

TEST_CASE("every error of a spec is reported, each at its value") {
  spec::SpecTree tree = base();
  tree.arrays[1].type = t("flot");
  tree.kernels[0].args[1].array = t("C");
  tree.iterate.steps = t("-4");
  tree.iterate.body[0].kernel = t("kk");
  Built b = build(tree);
  CHECK_FALSE(b.model);
  CHECK(b.messages ==
        std::vector<std::string>{
            at(tree.arrays[1].type) + ": error: unknown type 'flot' (did you mean 'float'?)",
            at(tree.kernels[0].args[1].array) +
                ": error: array 'C' is not declared (did you mean 'A'?)",
            at(tree.iterate.steps) + ": error: steps must be a positive integer, got -4",
            at(tree.iterate.body[0].kernel) +
                ": error: kernel 'kk' is not declared (did you mean 'k'?)",
        });
}

TEST_CASE("names: identifiers, keywords, duplicates, one namespace") {
  spec::SpecTree tree = base();
  tree.arrays.push_back(array("A", "float", {"16", "16"}));
  std::string first = at(base().arrays[0].name);
  CHECK(only(build(tree)) == at(tree.arrays[2].name) +
                                 ": error: duplicate array 'A' (first defined at line " + first +
                                 ")");
  tree = base();
  tree.arrays.push_back(array("N", "float", {"16", "16"}));
  CHECK(only(build(tree)) == at(tree.arrays[2].name) +
                                 ": error: array 'N' has the same name as constant 'N' (line " +
                                 at(tree.constants[0].name) +
                                 "); constants, arrays, tables and kernels share one namespace");
  tree = base();
  tree.arrays[1].name = t("float");
  tree.arrays[1].init = t("zero");
  tree.iterate.body.pop_back();
  tree.kernels[0].args[1].array = t("float");
  CHECK(only(build(tree)) ==
        at(tree.arrays[1].name) +
            ": error: 'float' cannot be an array name: it is a keyword of C, C++ or OpenCL C");
  tree = base();
  tree.kernels[0].name = t("step");
  tree.iterate.body[0].kernel = t("step");
  CHECK(only(build(tree)) ==
        at(tree.kernels[0].name) +
            ": error: 'step' cannot be a kernel name: expressions give it a meaning");
  tree = base();
  tree.constants.push_back({t("2N"), t("1"), {1, 1}});
  CHECK(only(build(tree)) ==
        at(tree.constants[1].name) +
            ": error: '2N' is not a valid constant name: expected a C identifier (letters, "
            "digits and '_', not starting with a digit)");
}

TEST_CASE("swap checks types, sizes and identity") {
  spec::SpecTree tree = base();
  tree.arrays[1].type = t("double");
  tree.arrays[1].init = t("zero");
  CHECK(only(build(tree)) ==
        at(tree.iterate.body[1].arrays[1]) +
            ": error: cannot swap 'A' (float) with 'B' (double): their types differ");
  tree = base();
  tree.arrays[1].init = t("zero");
  tree.arrays[1].size = {t("8"), t("16")};
  Built built = build(tree);
  CHECK(built.messages ==
        std::vector<std::string>{
            at(tree.kernels[0].args[1].array) +
                ": error: array 'B' has size 8x16 but the grid is 16x16; every array a kernel "
                "takes must have the grid's size",
            at(tree.iterate.body[1].arrays[1]) +
                ": error: cannot swap 'A' (16x16) with 'B' (8x16): their sizes differ"});
  tree = base();
  tree.iterate.body[1] = swap("A", "A");
  CHECK(only(build(tree)) ==
        at(tree.iterate.body[1].arrays[1]) + ": error: swap of array 'A' with itself");
}

TEST_CASE("local sizes: count, divisibility of constant and per-device global sizes") {
  spec::SpecTree tree = base();
  tree.kernels[0].local = {t("16")};
  CHECK(only(build(tree)) ==
        at(tree.kernels[0].local[0]) + ": error: local has 1 size but the grid has 2 dimensions");
  tree = base();
  tree.kernels[0].global = {t("20"), t("N")};
  tree.kernels[0].local = {t("8"), t("8")};
  CHECK(only(build(tree)) ==
        at(tree.kernels[0].local[0]) +
            ": error: local size 8 does not divide the global size 20 in dimension 0 (x)");
  tree = base();
  tree.kernels[0].local = {t("5"), t("8")};
  CHECK(only(build(tree)) ==
        at(tree.kernels[0].local[0]) +
            ": warning: local size 5 does not divide 16, the global size over the whole grid "
            "in dimension 0 (x); the kernel must guard its index");
  tree.kernels[0].global = {t("round_up(extent(A, 0), 8)"), t("extent(A, 1)")};
  tree.kernels[0].local = {t("8"), t("8")};
  CHECK(build(tree).messages.empty());
}

TEST_CASE("init: copy, value, file and random are checked against the array") {
  spec::SpecTree tree = base();
  tree.arrays[1].init = t("copy(B)");
  CHECK(only(build(tree)) ==
        at(tree.arrays[1].init) + ": error: array 'B' cannot be initialised as a copy of itself");
  tree = base();
  tree.arrays[1].init = t("value(300)");
  tree.arrays[1].type = t("uchar");
  tree.arrays[0].type = t("uchar");
  CHECK(only(build(tree)) ==
        at(tree.arrays[1].init) +
            ": error: value '300' is not a valid uchar for array 'B': expected an integer from "
            "0 to 255");
  tree = base();
  tree.arrays[1].init = t("value(1.5e-3)");
  CHECK(build(tree).messages.empty());
  tree.arrays[1].init = t("file(ok.bin)");
  CHECK(build(tree).messages.empty());
  tree.arrays[0].type = t("double");
  tree.arrays[1].type = t("double");
  CHECK(only(build(tree)) ==
        at(tree.arrays[1].init) +
            ": error: file 'ok.bin' has 1024 bytes but array 'B' needs 2048 (16x16 double)");
  tree = base();
  tree.arrays[0].init = t("random(x)");
  CHECK(only(build(tree)) ==
        at(tree.arrays[0].init) + ": error: random seed must be a non-negative integer, got 'x'");
  tree = base();
  tree.arrays[0].init = t("copy(B)");
  CHECK(only(build(tree)) ==
        at(tree.arrays[0].init) +
            ": error: init copies form a cycle: 'A' copies 'B', 'B' copies 'A'");
}

TEST_CASE("the language comes from the source's extension or must match it") {
  spec::SpecTree tree = base();
  tree.kernels[0].source = t("k.cu");
  Built b = build(tree);
  REQUIRE(b.model);
  CHECK(b.model->kernels[0].language == Language::kCuda);
  tree.kernels[0].language = t("opencl");
  CHECK(only(build(tree)) ==
        at(tree.kernels[0].language) +
            ": error: language 'opencl' does not match the source 'k.cu', a CUDA file");
}

TEST_CASE("usage warnings: unused arrays, lost results, kernels never launched") {
  spec::SpecTree tree = base();
  tree.arrays.push_back(array("C", "float", {"16", "16"}));
  CHECK(only(build(tree)) ==
        at(tree.arrays[2].name) + ": warning: array 'C' is never used by a kernel");
  tree = base();
  tree.iterate.body.pop_back();  // no swap: B is written and never read
  tree.arrays[1].save = t("false");
  CHECK(only(build(tree)) ==
        at(tree.arrays[1].name) +
            ": warning: array 'B' is written but never read, and save is false: its values are "
            "lost");
  tree = base();
  spec::Kernel k2 = tree.kernels[0];
  k2.name = t("k2");
  tree.kernels.push_back(k2);
  CHECK(only(build(tree)) == at(k2.name) + ": warning: kernel 'k2' is never launched");
}

TEST_CASE("a kernel that writes nothing cannot be launched") {
  spec::SpecTree tree = base();
  tree.kernels[0].args[1].access = t("read");
  CHECK(only(build(tree)) ==
        at(tree.iterate.body[0].kernel) +
            ": error: kernel 'k' writes no array: nothing to compute (an array argument needs "
            "access write or readwrite)");
}

TEST_CASE("missing values of a hand-built tree are reported") {
  spec::SpecTree tree = base();
  tree.arrays[0].type = Text{{}, {40, 3}, false};
  tree.iterate.steps = Text{{}, {41, 3}, false};
  Built b = build(tree);
  CHECK(b.messages ==
        std::vector<std::string>{
            "40: error: missing type for array 'A': expected float, double, int, uint, long, "
            "ulong, short, ushort, char or uchar",
            "41: error: missing steps: expected the number of time steps"});
}

TEST_CASE("sources and init files that are not regular files say so, not 'does not exist'") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(spec_folder()) / "not_regular";
  fs::create_directories(dir / "src.cl");  // a folder named like a source
  fs::remove(dir / "in.fifo");
  REQUIRE(::mkfifo((dir / "in.fifo").c_str(), 0600) == 0);

  spec::SpecTree tree = base();
  tree.kernels[0].source = t("not_regular/src.cl");
  CHECK(only(build(tree)) ==
        at(tree.kernels[0].source) +
            ": error: kernel source 'not_regular/src.cl' is not a regular file "
            "(a directory) (looked for " +
            spec_folder() + "/not_regular/src.cl)");
  tree = base();
  tree.kernels[0].source = t("/dev/zero");
  tree.kernels[0].language = t("opencl");
  CHECK(only(build(tree)) == at(tree.kernels[0].source) +
                                 ": error: kernel source '/dev/zero' is not a regular file (a "
                                 "character device) (looked for /dev/zero)");
  tree = base();
  tree.arrays[1].init = t("file(not_regular/in.fifo)");
  CHECK(only(build(tree)) == at(tree.arrays[1].init) +
                                 ": error: file 'not_regular/in.fifo' is not a regular file (a "
                                 "FIFO) (looked for " +
                                 spec_folder() + "/not_regular/in.fifo)");
  tree = base();
  tree.arrays[1].init = t("file(missing.bin)");
  CHECK(only(build(tree)).find("file 'missing.bin' does not exist") != std::string::npos);
  fs::remove_all(dir);
}

// Tables (<table>): not grid-shaped, their own sizes and inits, passed by <arg table>; extent()
// and offset() of a table are constants; tables count in Model::table_bytes.
TEST_CASE("tables: sizes, inits, table arguments and extent() of a table") {
  spec::SpecTree tree = base();
  auto table = [](const std::string& name, const std::string& type, std::vector<std::string> size,
                  const std::string& init) {
    spec::Table tb;
    tb.loc = {next_line, 1};
    tb.name = t(name);
    tb.type = t(type);
    for (const std::string& s : size) tb.size.push_back(t(s));
    if (!init.empty()) tb.init = t(init);
    return tb;
  };
  tree.tables.push_back(table("w", "float", {"N / 2", "3"}, "random(3)"));
  tree.tables.push_back(table("v", "float", {"8", "3"}, "copy(w)"));
  tree.tables.push_back(table("d", "double", {"5"}, "value(0.5)"));
  spec::KernelArg ta;
  ta.kind = spec::KernelArg::Kind::kTable;
  ta.loc = {next_line, 1};
  ta.table = t("v");
  tree.kernels[0].args.push_back(ta);
  spec::KernelArg s;
  s.kind = spec::KernelArg::Kind::kScalar;
  s.loc = {next_line, 1};
  s.scalar_type = t("int");
  s.value = t("extent(w, 1) * 10 + global_extent(d, 0) + offset(v, 0)");
  tree.kernels[0].args.push_back(s);
  Built b = build(tree);
  REQUIRE(b.messages.empty());
  REQUIRE(b.model);
  const Model& m = *b.model;
  REQUIRE(m.tables.size() == 3);
  CHECK(m.tables[0].dims == 2);
  CHECK(m.tables[0].size == std::array<std::int64_t, 3>{8, 3, 1});
  CHECK(m.tables[0].init.kind == Init::Kind::kRandom);
  CHECK(m.tables[1].init.kind == Init::Kind::kCopy);
  CHECK(m.tables[1].init.source == 0);
  CHECK(m.tables[2].init.value == "0.5");
  CHECK(m.table_bytes() == 8 * 3 * 4 * 2 + 5 * 8);
  CHECK(m.find_table("d") == 2);
  CHECK(m.arrays.size() == 2);  // tables are not grid arrays
  const Kernel& k = m.kernels[0];
  REQUIRE(k.args.size() == 4);
  CHECK(k.args[2].kind == KernelArg::Kind::kTable);
  CHECK(k.args[2].table == 1);
  CHECK(k.args[2].access == Access::kRead);
  // A table's extent is a constant: the scalar folds to 3 * 10 + 5 + 0.
  CHECK_FALSE(k.args[3].value.is_runtime());
  std::optional<Value> v = eval(k.args[3].value, m.constant_values, nullptr);
  REQUIRE(v);
  CHECK(v->i == 35);
}

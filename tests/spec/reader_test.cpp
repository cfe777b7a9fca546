// Readers: XML and YAML give the same tree, values keep their positions, mistakes are reported at
// the right character with suggestions, and no input makes a reader crash or hang.

#include "spec/reader.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace stepgen;
using namespace stepgen::spec;

namespace {

// Every value of a tree (positions left out), one per line, so that two trees compare as text.
std::string values(const SpecTree& t) {
  std::ostringstream o;
  auto text = [&](const char* what, const Text& x) {
    o << what << '=' << (x.present ? "'" + x.value + "'" : "-") << ' ';
  };
  auto list = [&](const char* what, const std::vector<Text>& xs) {
    o << what << "=[";
    for (const Text& x : xs) o << x.value << ';';
    o << "] ";
  };
  auto points = [&](const char* what, const std::vector<HaloPoint>& ps) {
    o << what << "=[";
    for (const HaloPoint& p : ps) {
      o << '{';
      for (const Text& x : p.offsets) o << x.value << ',';
      o << '}';
    }
    o << "] ";
  };
  text("stencil", t.name);
  o << '\n';
  for (const Constant& c : t.constants) {
    text("constant", c.name);
    text("value", c.value);
    o << '\n';
  }
  for (const Array& a : t.arrays) {
    text("array", a.name);
    text("type", a.type);
    list("size", a.size);
    text("init", a.init);
    text("save", a.save);
    o << '\n';
  }
  for (const Kernel& k : t.kernels) {
    text("kernel", k.name);
    text("source", k.source);
    text("language", k.language);
    list("global", k.global);
    list("local", k.local);
    o << '\n';
    for (const KernelArg& a : k.args) {
      o << (a.kind == KernelArg::Kind::kArray ? "  array-arg " : "  scalar-arg ");
      text("array", a.array);
      text("access", a.access);
      points("halo", a.halo);
      list("lo", a.halo_lo);
      list("hi", a.halo_hi);
      text("type", a.scalar_type);
      text("value", a.value);
      o << '\n';
    }
  }
  o << "iterate " << t.iterate.present << ' ';
  text("steps", t.iterate.steps);
  o << '\n';
  for (const Step& s : t.iterate.body) {
    o << "  step " << static_cast<int>(s.kind) << ' ';
    text("kernel", s.kernel);
    list("arrays", s.arrays);
    o << '\n';
  }
  o << "devices " << t.devices.present << ' ';
  text("type", t.devices.type);
  text("count", t.devices.count);
  text("weights", t.devices.weights);
  o << "\nexchange " << t.exchange.present << ' ';
  text("every", t.exchange.every);
  o << "\nout_of_core " << t.out_of_core.present << ' ';
  text("chunks", t.out_of_core.chunks);
  text("steps_per_pass", t.out_of_core.steps_per_pass);
  text("region_sharing", t.out_of_core.region_sharing);
  text("device_memory", t.out_of_core.device_memory);
  o << "\ndistribution " << t.distribution.present << ' ';
  text("engine", t.distribution.engine);
  o << '\n';
  points("shadow", t.shadow);
  return o.str();
}

struct Result {
  std::optional<SpecTree> tree;
  std::string printed;  // Diagnostics::print output
  int errors = 0;
};

Result read(const std::string& path, const std::string& text) {
  Diagnostics diags(path, text);
  Result r;
  r.tree = read_spec(path, text, diags);
  std::ostringstream o;
  diags.print(o);
  r.printed = o.str();
  r.errors = diags.error_count();
  return r;
}

std::string at(const Text& t) {
  return std::to_string(t.loc.line) + ":" + std::to_string(t.loc.col) + " " + t.value;
}

const char* const kJacobiXml = R"spec(<stencil name="jacobi2d">
  <constant name="NX" value="4098"/>
  <array name="A" type="float" size="NX 1026" init="random(7)"/>   <!-- optional attr save="true|false" -->
  <array name="B" type="float" size="NX 1026" init="copy(A)" save="true"/>
  <kernel name="jacobi" source="jacobi.cl" language="opencl">
    <arg array="A" access="read" halo="-10,0 10,0 0,1 0,-1"/>
    <arg array="B" access="write" halo-lo="10 1" halo_hi="10 1"/>
    <arg scalar="int" value="extent(A,0)"/>
    <arg scalar="float" value="0.25"/>
    <global size="extent(A,0) extent(A,1)"/>
    <local size="64 16"/>
  </kernel>
  <iterate steps="50">
    <launch kernel="jacobi"/>
    <swap a="A" b="B"/>
    <rotate arrays="p1 p2 p3"/>
  </iterate>
  <devices type="all" count="all" weights="1 1"/>
  <exchange every="1"/>
  <out_of_core chunks="auto" steps_per_pass="auto" region_sharing="true" device_memory="auto"/>
  <distribution engine="none"/>
</stencil>
)spec";

const char* const kJacobiYaml = R"spec(stencil: jacobi2d
constants: {NX: 4098}
arrays:
  - {name: A, type: float, size: [NX, 1026], init: random(7)}
  - {name: B, type: float, size: [NX, 1026], init: copy(A), save: true}
kernels:
  - name: jacobi
    source: jacobi.cl
    language: opencl
    args:
      - {array: A, access: read, halo: [[-10,0],[10,0],[0,1],[0,-1]]}
      - {array: B, access: write, halo_lo: [10, 1], halo-hi: [10, 1]}
      - {scalar: int, value: "extent(A,0)"}
      - {scalar: float, value: 0.25}
    global: ["extent(A,0)", "extent(A,1)"]
    local: [64, 16]
iterate:
  steps: 50
  body:
    - {launch: jacobi}
    - {swap: [A, B]}
    - {rotate: [p1, p2, p3]}
devices: {type: all, count: all, weights: [1, 1]}
exchange: {every: 1}
out_of_core: {chunks: auto, steps_per_pass: auto, region_sharing: true, device_memory: auto}
distribution: {engine: none}
)spec";

}  // namespace

TEST_CASE("readers: the XML and YAML forms of one spec give the same tree") {
  Result x = read("jacobi.xml", kJacobiXml);
  Result y = read("jacobi.yaml", kJacobiYaml);
  CHECK(x.printed == "");
  CHECK(y.printed == "");
  REQUIRE(x.tree);
  REQUIRE(y.tree);
  CHECK(values(*x.tree) == values(*y.tree));

  const SpecTree& t = *x.tree;
  CHECK(t.name.value == "jacobi2d");
  REQUIRE(t.arrays.size() == 2);
  REQUIRE(t.kernels.size() == 1);
  REQUIRE(t.kernels[0].args.size() == 4);
  CHECK(t.kernels[0].args[0].halo.size() == 4);
  CHECK(t.kernels[0].args[2].kind == KernelArg::Kind::kScalar);
  REQUIRE(t.iterate.body.size() == 3);
  CHECK(t.iterate.body[1].kind == Step::Kind::kSwap);
  CHECK(t.iterate.body[2].arrays.size() == 3);
  CHECK(t.devices.weights.value == "1 1");
  CHECK(y.tree->devices.weights.value == "1 1");
  CHECK(t.out_of_core.present);
  CHECK_FALSE(t.arrays[0].save.present);
  CHECK(t.arrays[1].save.value == "true");
}

TEST_CASE("readers: values keep the position where they start") {
  Result x = read("jacobi.xml", kJacobiXml);
  REQUIRE(x.tree);
  const SpecTree& t = *x.tree;
  CHECK(at(t.name) == "1:16 jacobi2d");
  CHECK(at(t.arrays[0].size[0]) == "3:38 NX");
  CHECK(at(t.arrays[0].size[1]) == "3:41 1026");
  CHECK(at(t.kernels[0].args[0].halo[1].offsets[0]) == "6:46 10");
  CHECK(at(t.kernels[0].args[0].halo[3].offsets[1]) == "6:57 -1");
  CHECK(at(t.kernels[0].global[1]) == "10:31 extent(A,1)");
  CHECK(t.arrays[0].loc.line == 3);
  CHECK(t.arrays[0].loc.col == 3);        // the '<'
  CHECK(t.arrays[0].save.loc.line == 3);  // absent: at its element

  Result y = read("jacobi.yaml", kJacobiYaml);
  REQUIRE(y.tree);
  const SpecTree& u = *y.tree;
  CHECK(at(u.name) == "1:10 jacobi2d");
  CHECK(at(u.constants[0].value) == "2:17 4098");
  CHECK(at(u.arrays[1].size[1]) == "5:39 1026");
  CHECK(at(u.kernels[0].args[2].value) == "13:31 extent(A,0)");  // past the quote
  CHECK(at(u.kernels[0].args[0].halo[3].offsets[1]) == "11:65 -1");
  CHECK(at(u.iterate.body[2].arrays[2]) == "22:25 p3");
}

TEST_CASE("readers: lists split at blanks outside parentheses; entities keep positions") {
  Result r = read("t.xml",
                  "<stencil name='t'>\n"
                  "  <array name='a' type='float' size='extent(b, 0)  16\tmax(1, 2)'/>\n"
                  "  <array name='b' type='float' size='&#x4E;&lt;2 X'/>\n"
                  "</stencil>\n");
  REQUIRE(r.tree);
  CHECK(r.printed == "");
  const auto& size = r.tree->arrays[0].size;
  REQUIRE(size.size() == 3);
  CHECK(at(size[0]) == "2:38 extent(b, 0)");
  CHECK(at(size[1]) == "2:52 16");
  CHECK(at(size[2]) == "2:55 max(1, 2)");
  const auto& other = r.tree->arrays[1].size;
  REQUIRE(other.size() == 2);
  CHECK(at(other[0]) == "3:38 N<2");
  CHECK(at(other[1]) == "3:50 X");
}

TEST_CASE("readers: unknown names are reported with a suggestion") {
  Result x = read("t.xml",
                  "<stencil name='t'>\n"
                  "  <arrray name='a'/>\n"
                  "  <array name='a' type='float' sise='4'/>\n"
                  "</stencil>\n");
  CHECK(x.printed ==
        "t.xml:2:3: error: unknown element <arrray> in <stencil> (did you mean 'array'?)\n"
        "  <arrray name='a'/>\n"
        "  ^\n"
        "t.xml:3:32: error: unknown attribute 'sise' on <array> (did you mean 'size'?)\n"
        "  <array name='a' type='float' sise='4'/>\n"
        "                               ^\n");
  REQUIRE(x.tree);  // such errors leave a tree

  Result y = read("t.yaml", "stencil: t\narrays:\n  - {name: a, type: float, sise: [4]}\n");
  CHECK(y.printed ==
        "t.yaml:3:28: error: unknown key 'sise' in array (did you mean 'size'?)\n"
        "  - {name: a, type: float, sise: [4]}\n"
        "                           ^\n");
}

TEST_CASE("readers: missing, repeated and wrongly shaped entries") {
  Result x = read("t.xml",
                  "<stencil>\n"
                  "  <array name='a' name='b' type='float' size='4'/>\n"
                  "  <kernel name='k' source='k.cl'><arg array='a'/><arg scalar='int'/></kernel>\n"
                  "</stencil>\n");
  CHECK(x.errors == 4);
  CHECK(x.printed.find("t.xml:1:1: error: <stencil> needs attribute 'name'") != std::string::npos);
  CHECK(x.printed.find("t.xml:2:19: error: duplicate attribute 'name' on <array>") !=
        std::string::npos);
  CHECK(x.printed.find("t.xml:3:34: error: <arg> needs attribute 'access'") != std::string::npos);
  CHECK(x.printed.find("t.xml:3:50: error: <arg> needs attribute 'value'") != std::string::npos);

  Result y = read("t.yaml",
                  "stencil: t\n"
                  "arrays:\n"
                  "  - {name: a, size: 4}\n"
                  "  - {name: b, name: c, type: int, size: [4]}\n");
  CHECK(y.errors == 3);
  CHECK(y.printed.find("t.yaml:3:5: error: array needs key 'type'") != std::string::npos);
  CHECK(y.printed.find("t.yaml:3:21: error: 'size' must be a list") != std::string::npos);
  CHECK(y.printed.find("t.yaml:4:15: error: duplicate key 'name' in array") != std::string::npos);
}

TEST_CASE("readers: malformed halo points point at the fault") {
  Result x = read("t.xml",
                  "<stencil name='t'><kernel name='k' source='k.cl'>\n"
                  "<arg array='a' access='read' halo='1,,0 1,2,3,4 {2,0'/>\n"
                  "</kernel></stencil>\n");
  CHECK(x.errors == 3);
  CHECK(x.printed.find("t.xml:2:38: error: malformed halo point '1,,0': empty offset") !=
        std::string::npos);
  CHECK(x.printed.find("t.xml:2:49: error: malformed halo point '{2,0': missing '}'") !=
        std::string::npos);
  CHECK(x.printed.find("t.xml:2:47: error: halo point '1,2,3,4' has more than 3 offsets") !=
        std::string::npos);
}

TEST_CASE("readers: syntax errors give their position") {
  Result x = read("t.xml", "<stencil name='t'>\n  <array name='a'>\n</stencil>\n");
  CHECK_FALSE(x.tree);
  CHECK(x.printed ==
        "t.xml:3:3: error: XML syntax error: Start-end tags mismatch\n"
        "</stencil>\n"
        "  ^\n");

  // yaml-cpp alone would take an unclosed double-quoted string to run to the end of the file.
  Result open = read("q.yaml", "stencil: t\narrays:\n  - name: \"a\n    type: int\n");
  CHECK_FALSE(open.tree);
  CHECK(open.printed ==
        "q.yaml:3:11: error: YAML syntax error: missing closing '\"'\n"
        "  - name: \"a\n"
        "          ^\n");

  Result y = read("t.yaml", "stencil: t\narrays: [{name: a, size: [4}]\n");
  CHECK_FALSE(y.tree);
  CHECK(y.printed ==
        "t.yaml:2:28: error: YAML syntax error: illegal flow end\n"
        "arrays: [{name: a, size: [4}]\n"
        "                           ^\n");
}

TEST_CASE("readers: the STEPOCL paper's form") {
  // Listings 2 and 3 pasted with no root element.
  const char* listing = R"spec(<argument>
  <name>A</name>
  <property>output</property>
  <dataType>float</dataType>
  <cl_mem>l</cl_mem>
  <arg_size>
    <dim_size>4098</dim_size>
    <dim_size>1026</dim_size>
  </arg_size>
</argument>
<kernel>
  <name>stencil.cl</name>
  <global>
    <g_size>4096</g_size>
    <g_size>256</g_size>
  </global>
  <local>
    <l_size>64</l_size>
    <l_size>16</l_size>
  </local>
</kernel>
<shadow>
  <point>{-10,0}</point>
  <point>{10,0}</point>
  <point>{0,1}</point>
  <point>{0,-1}</point>
</shadow>
)spec";
  Result r = read("listing.xml", listing);
  CHECK(r.printed == "");
  REQUIRE(r.tree);
  const SpecTree& t = *r.tree;
  CHECK(t.name.value == "stencil");
  REQUIRE(t.arrays.size() == 1);
  CHECK(at(t.arrays[0].name) == "2:9 A");
  CHECK(t.arrays[0].type.value == "float");
  REQUIRE(t.arrays[0].size.size() == 2);
  CHECK(at(t.arrays[0].size[1]) == "8:15 1026");
  REQUIRE(t.kernels.size() == 1);
  const Kernel& k = t.kernels[0];
  CHECK(at(k.name) == "12:9 stencil");
  CHECK(k.source.value == "stencil.cl");
  CHECK(k.global.size() == 2);
  CHECK(k.local.size() == 2);
  CHECK(at(k.local[1]) == "19:13 16");
  REQUIRE(k.args.size() == 1);
  CHECK(k.args[0].array.value == "A");
  CHECK(at(k.args[0].access) == "3:13 write");
  REQUIRE(t.shadow.size() == 4);
  CHECK(at(t.shadow[0].offsets[0]) == "23:11 -10");
  CHECK(at(t.shadow[3].offsets[1]) == "26:13 -1");

  // The same inside <stencil>, beside native elements.
  Result s = read("s.xml",
                  "<stencil name='s'><argument><name>A</name><property>input</property>"
                  "<dataType>int</dataType><arg_size><dim_size>8</dim_size></arg_size></argument>"
                  "<kernel><name>dir/k.cl</name></kernel><iterate steps='2'><launch kernel='k'/>"
                  "</iterate></stencil>");
  CHECK(s.printed == "");
  REQUIRE(s.tree);
  CHECK(s.tree->name.value == "s");
  CHECK(s.tree->kernels[0].name.value == "k");
  CHECK(s.tree->kernels[0].args[0].access.value == "read");

  // <argument> needs exactly one kernel to belong to.
  Result two = read("two.xml",
                    "<stepocl><argument><name>A</name><property>input</property>"
                    "<dataType>int</dataType><arg_size><dim_size>8</dim_size></arg_size>"
                    "</argument><kernel><name>a.cl</name></kernel>"
                    "<kernel><name>b.cl</name></kernel></stepocl>");
  CHECK(two.printed.find("STEPOCL <argument> needs exactly one <kernel>") != std::string::npos);

#ifdef STEPGEN_SOURCE_DIR
  std::string text, error;
  std::string path = std::string(STEPGEN_SOURCE_DIR) + "/specs/stepocl_listing.xml";
  REQUIRE_MESSAGE(load_spec_text(path, text, error), error);
  Result f = read(path, text);
  CHECK(f.printed == "");
  REQUIRE(f.tree);
  CHECK(f.tree->arrays.size() == 2);
  CHECK(f.tree->kernels.at(0).args.size() == 2);
  CHECK(f.tree->shadow.size() == 4);
  CHECK(f.tree->iterate.body.size() == 2);
#endif
}

TEST_CASE("readers: read_spec picks the reader by extension, else by the first character") {
  CHECK(read("a.yml", "stencil: t\n").printed == "");
  CHECK(read("a.spec", "  \n<stencil name='t'/>").printed == "");
  CHECK(read("a.spec", "stencil: t\n").printed == "");
  CHECK(read("a.XML", "<stencil name='t'/>").printed == "");
}

TEST_CASE("readers: hostile input is refused, never a crash") {
  CHECK(read("big.xml", std::string(kMaxSpecBytes + 1, ' ')).errors == 1);
  CHECK(read("nul.yaml", std::string("stencil: t\0\n", 12)).printed.find("NUL byte") !=
        std::string::npos);
  CHECK(read("big.yaml", "stencil: t\n" + std::string(kMaxYamlSpecBytes, '#'))
            .printed.find("YAML spec is too large") != std::string::npos);
  CHECK_FALSE(read("empty.yaml", "").tree);
  CHECK_FALSE(read("empty.xml", "").tree);

  // Deep nesting: flow collections are checked before yaml-cpp sees them (it would buffer
  // gigabytes), block nesting stops at yaml-cpp's depth limit; pugixml does not recurse.
  Result deep = read("deep.yaml", "stencil: t\nx: " + std::string(100000, '['));
  CHECK_FALSE(deep.tree);
  CHECK(deep.printed.find("deep.yaml:2:68: error: YAML nests too deeply here") !=
        std::string::npos);
  std::string dashes;
  for (int i = 0; i < 100000; ++i) dashes += "- ";
  CHECK_FALSE(read("dashes.yaml", dashes).tree);
  CHECK(read("deep.xml", "<stencil name='t'>" + std::string(50000, '<') + "</stencil>").errors >=
        1);
  std::string nested = "<stencil name='t'>";
  for (int i = 0; i < 20000; ++i) nested += "<a>";
  for (int i = 0; i < 20000; ++i) nested += "</a>";
  nested += "</stencil>";
  CHECK(read("nested.xml", nested).errors == 1);  // one unknown element; its inside is not read

  // yaml-cpp 0.7 alone would loop for ever here, making nodes until memory runs out.
  Result loop = read("loop.yaml", "[0],\n");
  CHECK_FALSE(loop.tree);
  CHECK(loop.printed.find("loop.yaml:1:4: error: YAML syntax error: the parser cannot get past") !=
        std::string::npos);

  // Aliases name one node many times: the budget stops the reader.
  std::string bomb = "stencil: t\nkernels:\n  - &k {name: k, source: k.cl, args: [";
  bomb += "{array: a, access: read, halo: [";
  for (int i = 0; i < 4000; ++i) bomb += "[1, 2, 3],";
  bomb += "]}]}\n  - *k\n";
  for (int i = 0; i < 400; ++i) bomb += "  - *k\n";
  Result r = read("bomb.yaml", bomb);
  CHECK(r.printed.find("spec is too large to read") != std::string::npos);

  // Lists are capped.
  CHECK(read("dims.yaml", "stencil: t\narrays: [{name: a, type: int, size: [1, 2, 3, 4]}]\n")
            .printed.find("'size' has 4 items; at most 3 dimensions are supported") !=
        std::string::npos);

  // Many errors: every one is counted, the first kMaxErrorsShown are printed, then the count.
  std::string many = "<stencil name='t'>";
  for (int i = 0; i < 200; ++i) many += "<x/>";
  many += "</stencil>";
  Result m = read("many.xml", many);
  CHECK(m.errors == 200);
  CHECK(m.printed.find("many.xml: note: 100 more errors not shown") != std::string::npos);
}

TEST_CASE("readers: lines end at CR LF, LF or a lone CR") {
  // Old Mac line ends: each '\r' ends a line, as XML and YAML both say.
  for (std::string e : {"\n", "\r\n", "\r"}) {
    std::string name = e == "\r" ? "CR" : e == "\n" ? "LF" : "CRLF";
    CAPTURE(name);
    std::string xml = "<stencil name='t'>" + e + "  <array name='A' type='float'" + e +
                      "     size='16 16'/>" + e + "  <bogus/>" + e + "</stencil>" + e;
    Result x = read("t.xml", xml);
    REQUIRE(x.tree);
    REQUIRE(x.tree->arrays.size() == 1);
    CHECK(at(x.tree->arrays[0].type) == "2:25 float");
    CHECK(at(x.tree->arrays[0].size[1]) == "3:15 16");
    CHECK(x.printed.find("t.xml:4:3: error: unknown element <bogus>") != std::string::npos);
    CHECK(x.printed.find("\n  <bogus/>\n  ^\n") != std::string::npos);

    std::string yaml = "stencil: t" + e + "arrays:" + e + "  - {name: A, type: float," + e +
                       "     size: [16, 16]}" + e + "bogus: 1" + e;
    Result y = read("t.yaml", yaml);
    REQUIRE(y.tree);
    REQUIRE(y.tree->arrays.size() == 1);
    CHECK(at(y.tree->arrays[0].type) == "3:21 float");
    CHECK(at(y.tree->arrays[0].size[1]) == "4:17 16");
    CHECK(y.printed.find("t.yaml:5:1: error: unknown key 'bogus'") != std::string::npos);
    CHECK(y.printed.find("\nbogus: 1\n^\n") != std::string::npos);
  }
}

TEST_CASE("diagnostics: one line index; a long line is shown around the column") {
  LineIndex lines("ab\ncd\r\nef\rgh");
  CHECK(lines.line_count() == 4);
  auto loc = [&](std::size_t offset) {
    Loc l = lines.loc(offset);
    return std::to_string(l.line) + ":" + std::to_string(l.col);
  };
  CHECK(loc(0) == "1:1");
  CHECK(loc(2) == "1:3");  // the '\n' belongs to the line it ends
  CHECK(loc(3) == "2:1");
  CHECK(loc(6) == "2:4");  // the '\n' of "\r\n"
  CHECK(loc(7) == "3:1");
  CHECK(loc(10) == "4:1");
  CHECK(loc(99) == "4:3");  // past the end: the end
  CHECK(lines.line_range(2) == std::pair<std::size_t, std::size_t>{3, 5});
  CHECK(lines.line_range(5) == std::pair<std::size_t, std::size_t>{0, 0});
  Loc in_value = lines.loc_from(Loc{7, 10}, 4);
  CHECK(in_value.line == 8);
  CHECK(in_value.col == 2);

  std::string line(10000, 'x');
  line[5000] = '!';
  Diagnostics d("long.xml", line);
  d.error(Loc{1, 5001}, "here");
  std::ostringstream o;
  d.print(o);
  std::string shown = "..." + std::string(80, 'x') + "!" + std::string(79, 'x') + "...\n";
  CHECK(o.str() == "long.xml:1:5001: error: here\n" + shown + std::string(83, ' ') + "^\n");
}

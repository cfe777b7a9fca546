// The spec language's schema table (spec/schema.hpp). docs/spec.md's table of elements and keys
// is held to it by tests/spec/schema_test.cpp; `stepgen schema` exports it (schema_export.cpp).
#include "spec/schema.hpp"

#include <algorithm>
#include <stdexcept>

namespace stepgen::spec::schema {

namespace {

std::string underscored(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// An attribute spelt `name` in XML; its YAML key has '_' for '-', and where the two differ each
// form accepts the other's spelling too.
Attribute make(const std::string& name, Value value, Need need, const std::string& doc) {
  Attribute a;
  a.name = name;
  a.yaml = underscored(name);
  if (a.yaml != name) a.aliases = {a.yaml};
  a.value = value;
  a.need = need;
  a.doc = doc;
  return a;
}

Attribute req(const std::string& name, Value value, const std::string& doc) {
  return make(name, value, Need::kRequired, doc);
}

Attribute opt(const std::string& name, Value value, const std::string& doc,
              const std::string& default_value = "") {
  Attribute a = make(name, value, Need::kOptional, doc);
  a.default_value = default_value;
  return a;
}

Attribute dep(const std::string& name, Value value, const std::string& doc) {
  return make(name, value, Need::kDepends, doc);
}

Attribute choice(Attribute a, std::vector<std::string> choices) {
  a.value = Value::kChoice;
  a.choices = std::move(choices);
  return a;
}

Attribute only(Attribute a, Form form) {
  a.form = form;
  return a;
}

Attribute yaml_key(Attribute a, const std::string& key) {
  a.yaml = key;
  return a;
}

Element make_element(const std::string& name, const std::string& yaml, Shape shape, bool many,
                     const std::string& parent, const std::string& doc,
                     std::vector<Attribute> attributes) {
  Element e;
  e.name = name;
  e.yaml = yaml;
  e.shape = shape;
  e.many = many;
  if (!parent.empty()) e.parents = {parent};
  e.doc = doc;
  e.attributes = std::move(attributes);
  return e;
}

// A step of <iterate> (YAML: an item of `body` whose key carries `value_attribute`).
Element step(const std::string& name, const std::string& value_attribute, const std::string& doc,
             std::vector<Attribute> attributes) {
  Element e = make_element(name, name, Shape::kStep, true, "iterate", doc, std::move(attributes));
  e.value_attribute = value_attribute;
  return e;
}

// STEPOCL's elements that hold text (<name>A</name>).
Element text_element(const std::string& name, std::vector<std::string> parents,
                     const std::string& doc) {
  Element e = make_element(name, "", Shape::kXmlOnly, true, "", doc, {});
  e.parents = std::move(parents);
  e.text = true;
  return e;
}

const std::vector<std::string> kTypes = {"float", "double", "int",    "uint", "long",
                                         "ulong", "short",  "ushort", "char", "uchar"};
const std::vector<std::string> kBoolText = {"true", "false"};

std::vector<Element> root_and_data() {
  std::vector<Element> out;
  Element root = make_element(
      "stencil", "", Shape::kRoot, false, "", "A stencil program: its arrays, kernels and loop",
      {yaml_key(dep("name", Value::kName,
                    "the program's name: letters, digits, _, - and . (required, but for "
                    "STEPOCL's root <stepocl>)"),
                "stencil")});
  out.push_back(root);

  Element constant =
      make_element("constant", "constants", Shape::kNameMap, true, "stencil",
                   "A named constant, usable in later expressions",
                   {req("name", Value::kName, "the constant's name"),
                    req("value", Value::kExpr, "a number, or an expression of earlier constants")});
  constant.name_attribute = "name";
  constant.value_attribute = "value";
  out.push_back(constant);

  out.push_back(make_element(
      "array", "arrays", Shape::kList, true, "stencil", "An array of the grid's shape",
      {req("name", Value::kName, "the array's name"),
       choice(req("type", Value::kChoice, "the element type (OpenCL C's names)"), kTypes),
       req("size", Value::kDims, "1 to 3 constant expressions, x first"),
       opt("init", Value::kText, "zero, random(seed), value(v), copy(X), file(path) or none",
           "zero"),
       choice(opt("save", Value::kChoice,
                  "false: a scratch array, not kept at the end (--save, --verify)", "true"),
              kBoolText)}));
  out.push_back(make_element(
      "table", "tables", Shape::kList, true, "stencil",
      "A read-only array of any size, copied whole to every device",
      {req("name", Value::kName, "the table's name"),
       choice(req("type", Value::kChoice, "the element type, as arrays"), kTypes),
       req("size", Value::kDims, "1 to 3 constant expressions, x first"),
       opt("init", Value::kText, "zero, random(seed), value(v), copy(T) or file(path)", "zero")}));
  out.push_back(
      make_element("boundary", "boundaries", Shape::kList, true, "stencil",
                   "A frame of ghost cells past the grid's edge",
                   {req("arrays", Value::kNames, "the arrays (and their swap/rotate groups)"),
                    req("dims", Value::kNames, "the dimensions: x, y, z"),
                    req("kind", Value::kText, "periodic, mirror, copy or value(v)")}));
  Element shadow = make_element(
      "shadow", "shadow", Shape::kValue, false, "stencil",
      "Halo points for every array argument read with offsets that has none of its own",
      {only(opt("points", Value::kHalo, "the halo points"), Form::kYaml)});
  shadow.value_attribute = "points";
  out.push_back(shadow);
  out.push_back(text_element("point", {"shadow"}, "One halo point, such as {-1,0}"));
  return out;
}

std::vector<Element> kernels() {
  std::vector<Element> out;
  out.push_back(make_element(
      "kernel", "kernels", Shape::kList, true, "stencil", "A kernel and its arguments",
      {dep("name", Value::kName,
           "the kernel function's name (STEPOCL's form: the source file's stem by default)"),
       dep("source", Value::kPath,
           "the kernel's source, relative to the spec (STEPOCL's form: <name>file.cl</name>)"),
       choice(opt("language", Value::kChoice, "the source's language", "from the file's extension"),
              {"opencl", "cuda"}),
       opt("cuda-source", Value::kPath, "a CUDA version of the kernel (.cu), for --target cuda"),
       only(opt("local_candidates", Value::kText,
                "with local: auto, the shapes to try (\"32 8; 16 16\"); XML: <local "
                "candidates>"),
            Form::kYaml)}));
  out.push_back(make_element(
      "arg", "args", Shape::kList, true, "kernel",
      "One kernel argument, in the kernel's order: an array, a scalar or a table",
      {dep("array", Value::kName, "an array argument: the array"),
       dep("scalar", Value::kName, "a scalar argument: its type (int, float, ...)"),
       dep("table", Value::kName, "a table argument: the table"),
       choice(dep("access", Value::kChoice, "an array argument: how the kernel uses it (required)"),
              {"read", "write", "readwrite"}),
       opt("halo", Value::kHalo, "the cells read around each written one, as offsets"),
       opt("halo-lo", Value::kDims, "the halo's width below, per dimension"),
       opt("halo-hi", Value::kDims, "the halo's width above, per dimension"),
       dep("value", Value::kExpr, "a scalar argument: its value (required)"),
       choice(opt("in-place", Value::kChoice,
                  "wavefront: a readwrite argument with a halo updated in place"),
              {"wavefront"})}));
  Element global = make_element(
      "global", "global", Shape::kValue, false, "kernel",
      "The global work size, one expression per dimension (default: the first written array's)",
      {dep("size", Value::kDims, "one expression per dimension (STEPOCL's form: <g_size>)")});
  global.value_attribute = "size";
  out.push_back(global);
  Element local = make_element(
      "local", "local", Shape::kValue, false, "kernel",
      "The work-group (CUDA block) size, or auto: tuned at start-up",
      {dep("size", Value::kDimsOrAuto, "constant integers, or auto (STEPOCL's form: <l_size>)"),
       only(opt("candidates", Value::kText,
                "with size=\"auto\", the shapes to try (\"32 8; 16 16\"); YAML: "
                "local_candidates"),
            Form::kXml)});
  local.value_attribute = "size";
  out.push_back(local);
  out.push_back(text_element("g_size", {"global"}, "STEPOCL: one dimension of the global size"));
  out.push_back(text_element("l_size", {"local"}, "STEPOCL: one dimension of the local size"));
  // STEPOCL's <argument>: an array and an argument of the single kernel.
  out.push_back(make_element("argument", "", Shape::kXmlOnly, true, "stencil",
                             "STEPOCL: one array and one argument of the spec's single kernel",
                             {}));
  out.push_back(text_element("name", {"kernel", "argument"},
                             "STEPOCL: the array's name; in <kernel>, its source file"));
  out.push_back(text_element("property", {"argument"}, "STEPOCL: input, output or inout"));
  out.push_back(text_element("dataType", {"argument"}, "STEPOCL: the array's type"));
  out.push_back(text_element("cl_mem", {"argument"}, "STEPOCL: accepted and ignored"));
  out.push_back(make_element("arg_size", "", Shape::kXmlOnly, false, "argument",
                             "STEPOCL: the array's size, one <dim_size> per dimension", {}));
  out.push_back(text_element("dim_size", {"arg_size"}, "STEPOCL: one dimension of the size"));
  return out;
}

std::vector<Element> loop() {
  std::vector<Element> out;
  out.push_back(make_element(
      "iterate", "iterate", Shape::kMapping, false, "stencil", "The time loop and its body",
      {req("steps", Value::kExpr, "the number of steps, a constant expression"),
       opt("until", Value::kText, "a condition over reductions and step that stops the loop")}));
  out.push_back(step("launch", "kernel", "Runs a kernel on every device",
                     {req("kernel", Value::kName, "the kernel")}));
  out.push_back(step("swap", "arrays", "Exchanges the names of two buffers",
                     {only(req("a", Value::kName, "the first array"), Form::kXml),
                      only(req("b", Value::kName, "the second array"), Form::kXml),
                      only(req("arrays", Value::kNames, "the two arrays, [A, B]"), Form::kYaml)}));
  out.push_back(step("rotate", "arrays", "Shifts names left: A gets B's buffer, ..., the last A's",
                     {req("arrays", Value::kNames, "two or more arrays")}));
  out.push_back(
      step("reduce", "name", "A reduction at this point of the body",
           {req("name", Value::kName, "the reduction's name, usable in until and the monitor"),
            choice(req("op", Value::kChoice, "the reduction"), {"sum", "min", "max", "l2", "linf"}),
            req("array", Value::kName, "the array reduced"),
            opt("minus", Value::kName, "an array subtracted from it first"),
            opt("every", Value::kExpr, "steps between computations", "1")}));
  out.push_back(
      step("inject", "array", "A source: adds a value to one cell every step",
           {req("array", Value::kName, "the array"), req("at", Value::kPoints, "the cell, x first"),
            req("value", Value::kText, "an expression of step, or file(wavelet.raw)")}));
  out.push_back(step("record", "array", "Receivers: samples cells into a trace file",
                     {req("array", Value::kName, "the array"),
                      req("at", Value::kPoints, "the cells, or file(points.txt)"),
                      opt("every", Value::kExpr, "steps between samples", "1"),
                      req("file", Value::kPath, "the trace: .csv, or .h5 for HDF5")}));
  return out;
}

std::vector<Element> settings() {
  std::vector<Element> out;
  out.push_back(make_element(
      "devices", "devices", Shape::kMapping, false, "stencil", "Which devices, how many",
      {choice(opt("type", Value::kChoice, "the kind of device", "all"), {"all", "gpu", "cpu"}),
       opt("count", Value::kAutoOrExpr, "all, or N >= 1", "all"),
       opt("weights", Value::kNumbers, "relative speeds, one per device", "equal, or measured")}));
  out.push_back(make_element("exchange", "exchange", Shape::kMapping, false, "stencil",
                             "Deep halos: exchange every k steps",
                             {opt("every", Value::kExpr, "k >= 1, a constant expression", "1")}));
  out.push_back(make_element(
      "out_of_core", "out_of_core", Shape::kMapping, false, "stencil",
      "Stream each device's part through device memory in chunks",
      {opt("chunks", Value::kAutoOrExpr, "auto or N >= 1: chunks per part", "auto"),
       opt("steps_per_pass", Value::kAutoOrExpr, "auto or K >= 1: steps per pass", "auto"),
       choice(
           opt("region_sharing", Value::kChoice, "consecutive chunks share their overlap", "true"),
           kBoolText),
       opt("device_memory", Value::kText, "auto, or a size such as 8GiB", "auto")}));
  out.push_back(make_element(
      "distribution", "distribution", Shape::kMapping, false, "stencil",
      "How devices are driven: one process, or one MPI rank each",
      {choice(opt("engine", Value::kChoice, "none or mpi", "none"), {"none", "mpi"})}));
  out.push_back(make_element(
      "monitor", "monitor", Shape::kMapping, false, "stencil",
      "A table line of the reductions every k steps, and a CSV file",
      {opt("every", Value::kExpr, "k >= 1"), opt("file", Value::kPath, "a CSV file")}));
  out.push_back(make_element(
      "output", "outputs", Shape::kList, true, "stencil", "Snapshots of arrays every N steps",
      {req("arrays", Value::kNames, "arrays of the grid's shape"),
       req("every", Value::kExpr, "N >= 1: after every N steps"),
       req("file", Value::kPath, ".h5/.hdf5 (HDF5 + XDMF) or .raw"),
       choice(opt("first", Value::kChoice, "also the initial state (step 0)", "false"), kBoolText),
       choice(opt("last", Value::kChoice, "also the state after the last step", "false"),
              kBoolText)}));
  out.push_back(
      make_element("checkpoint", "checkpoint", Shape::kMapping, false, "stencil",
                   "A checkpoint every N steps, to restart from",
                   {req("every", Value::kExpr, "N >= 1"), req("file", Value::kPath, "where")}));
  return out;
}

std::vector<Element> build() {
  std::vector<Element> out;
  for (auto part : {root_and_data, kernels, loop, settings})
    for (Element& e : part()) out.push_back(std::move(e));
  // Booleans are choices to the readers; the exported schemas also take YAML's true/false.
  for (Element& e : out)
    for (Attribute& a : e.attributes)
      if (a.choices == kBoolText) a.value = Value::kBool;
  return out;
}

bool in_xml(Form f) {
  return f != Form::kYaml;
}
bool in_yaml(Form f) {
  return f != Form::kXml;
}

}  // namespace

const std::vector<Element>& elements() {
  static const std::vector<Element> all = build();
  return all;
}

const Element* find_element(const std::string& name) {
  for (const Element& e : elements())
    if (e.name == name) return &e;
  return nullptr;
}

const Element& element(const std::string& name) {
  if (const Element* e = find_element(name)) return *e;
  throw std::logic_error("spec schema: no element <" + name + ">");
}

const Attribute* find_attribute(const Element& e, const std::string& attribute) {
  for (const Attribute& a : e.attributes) {
    if (a.name == attribute || a.yaml == attribute) return &a;
    if (std::find(a.aliases.begin(), a.aliases.end(), attribute) != a.aliases.end()) return &a;
  }
  return nullptr;
}

std::vector<std::string> xml_attributes(const Element& e) {
  std::vector<std::string> out;
  for (const Attribute& a : e.attributes) {
    if (!in_xml(a.form)) continue;
    out.push_back(a.name);
    for (const std::string& alias : a.aliases) out.push_back(alias);
  }
  return out;
}

std::vector<const Element*> children(const std::string& parent) {
  std::vector<const Element*> out;
  for (const Element& e : elements())
    if (std::find(e.parents.begin(), e.parents.end(), parent) != e.parents.end()) out.push_back(&e);
  return out;
}

std::vector<std::string> xml_children(const std::string& parent) {
  std::vector<std::string> out;
  for (const Element* c : children(parent)) out.push_back(c->name);
  return out;
}

std::vector<std::string> yaml_spellings(const Attribute& a) {
  std::vector<std::string> out = {a.yaml};
  for (const std::string& alias : a.aliases)
    if (alias != a.yaml) out.push_back(alias);
  if (a.yaml != a.name && underscored(a.name) == a.yaml) out.push_back(a.name);  // halo-lo
  return out;
}

std::vector<std::string> yaml_keys(const Element& e) {
  std::vector<std::string> out;
  if (e.shape == Shape::kStep) out.push_back(e.yaml);
  for (const Attribute& a : e.attributes) {
    if (!in_yaml(a.form) || a.name == e.value_attribute) continue;
    for (const std::string& k : yaml_spellings(a)) out.push_back(k);
  }
  bool body = false;
  for (const Element* c : children(e.name)) {
    if (c->shape == Shape::kStep)
      body = true;
    else if (c->shape != Shape::kXmlOnly)
      out.push_back(c->yaml);
  }
  if (body) out.push_back("body");
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace stepgen::spec::schema

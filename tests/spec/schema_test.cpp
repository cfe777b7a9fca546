// The schema table against the readers and the docs: every attribute and key the schema lists is
// accepted by its reader (each spelling), every required one is reported when missing, a
// misspelt one is offered the schema's name, and docs/spec.md's table of elements and keys names
// exactly the schema's.

#include "spec/schema.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "model/model.hpp"
#include "spec/reader.hpp"

using namespace stepgen;
namespace schema = stepgen::spec::schema;

namespace {

using Shape = schema::Shape;
using Values = std::map<std::string, std::string>;  // attribute or key -> value

bool in_xml(const schema::Attribute& a) {
  return a.form != schema::Form::kYaml;
}
bool in_yaml(const schema::Attribute& a) {
  return a.form != schema::Form::kXml;
}

// A value of the right form for `a`: XML text, or a YAML (JSON) value.
std::string xml_value(const schema::Attribute& a) {
  return a.choices.empty() ? "1" : a.choices.front();
}
std::string yaml_value(const schema::Attribute& a) {
  using V = schema::Value;
  switch (a.value) {
    case V::kDims:
    case V::kDimsOrAuto:
    case V::kPoints:
      return "[\"1\"]";
    case V::kHalo:
      return "[[\"1\"]]";
    case V::kNames:
      return "[\"a\"]";
    default:
      return "\"" + (a.choices.empty() ? std::string("1") : a.choices.front()) + "\"";
  }
}

// The required attributes of `e` in one form, with values; of those some forms need
// (Need::kDepends), the ones a kernel (name, source) and an array argument (array, access) need.
Values required_of(const schema::Element& e, bool xml) {
  const std::set<std::string> depends = {"kernel.name", "kernel.source", "arg.array", "arg.access"};
  Values out;
  for (const schema::Attribute& a : e.attributes) {
    bool needed = a.need == schema::Need::kRequired ||
                  (a.need == schema::Need::kDepends && depends.count(e.name + "." + a.name));
    if (needed && (xml ? in_xml(a) : in_yaml(a)) && (xml || a.name != e.value_attribute))
      out[xml ? a.name : a.yaml] = xml ? xml_value(a) : yaml_value(a);
  }
  return out;
}

// An XML spec holding `target` with `attrs`, inside its first parents (each with its required
// attributes).
std::string xml_spec(const schema::Element& target, const Values& attrs) {
  std::string inner;
  const schema::Element* e = &target;
  Values values = attrs;
  while (true) {
    std::string tag = "<" + e->name;
    for (const auto& [k, v] : values) tag += " " + k + "=\"" + v + "\"";
    inner = inner.empty() ? tag + "/>" : tag + ">" + inner + "</" + e->name + ">";
    if (e->parents.empty()) break;
    e = &schema::element(e->parents.front());
    values = required_of(*e, true);
  }
  return "<?xml version=\"1.0\"?>\n" + inner + "\n";
}

std::string json_object(const Values& values) {
  std::string out = "{";
  for (const auto& [k, v] : values) out += (out.size() > 1 ? ", " : "") + ("\"" + k + "\": ") + v;
  return out + "}";
}

// A YAML spec (as JSON) holding `target` with `keys`.
std::string yaml_spec(const schema::Element& target, const Values& keys) {
  std::string inner = json_object(keys);
  const schema::Element* e = &target;
  while (!e->parents.empty()) {
    const schema::Element& parent = schema::element(e->parents.front());
    Values p = required_of(parent, false);
    if (parent.shape == Shape::kRoot) p["stencil"] = "\"t\"";
    switch (e->shape) {
      case Shape::kList:
        p[e->yaml] = "[" + inner + "]";
        break;
      case Shape::kStep:
        p["body"] = "[" + inner + "]";
        break;
      default:
        p[e->yaml] = inner;
    }
    inner = json_object(p);
    e = &parent;
  }
  return inner + "\n";
}

// The messages of reading `text` (XML or YAML by its form).
std::string messages(const std::string& text, bool xml) {
  Diagnostics diags(xml ? "t.xml" : "t.yaml", text);
  if (xml)
    spec::read_xml("t.xml", diags.source(), diags);
  else
    spec::read_yaml("t.yaml", diags.source(), diags);
  std::string out;
  for (const auto& d : diags.all()) out += d.message + "\n";
  return out;
}

// The messages of reading and validating `text` (YAML).
std::string model_messages(const std::string& text) {
  Diagnostics diags("t.yaml", text);
  if (auto tree = spec::read_yaml("t.yaml", diags.source(), diags))
    model::build_model(*tree, diags);
  std::string out;
  for (const auto& d : diags.all()) out += d.message + "\n";
  return out;
}

// The elements written with attributes in both forms (not STEPOCL's, not the root).
std::vector<const schema::Element*> ordinary() {
  std::vector<const schema::Element*> out;
  for (const schema::Element& e : schema::elements())
    if (e.shape != Shape::kRoot && e.shape != Shape::kXmlOnly && !e.text) out.push_back(&e);
  return out;
}

}  // namespace

TEST_CASE("schema: every attribute and key it lists, in each spelling, is accepted") {
  for (const schema::Element* e : ordinary()) {
    if (e->shape == Shape::kValue || e->shape == Shape::kNameMap) continue;
    for (const schema::Attribute& a : e->attributes) {
      std::vector<std::string> spellings = {a.name};
      for (const std::string& alias : a.aliases) spellings.push_back(alias);
      for (const std::string& s : spellings) {
        if (in_xml(a)) {
          Values v = required_of(*e, true);
          v[s] = xml_value(a);
          std::string m = messages(xml_spec(*e, v), true);
          INFO("<" << e->name << " " << s << ">: " << m);
          CHECK(m.find("unknown") == std::string::npos);
        }
        if (in_yaml(a) && a.name != e->value_attribute) {
          Values v = required_of(*e, false);
          if (e->shape == Shape::kStep)
            v[e->yaml] = yaml_value(*schema::find_attribute(*e, e->value_attribute));
          std::string key = s == a.name && a.yaml != a.name && !a.aliases.empty() ? a.name : s;
          v[key] = yaml_value(a);
          std::string m = messages(yaml_spec(*e, v), false);
          INFO(e->name << " key " << key << ": " << m);
          CHECK(m.find("unknown") == std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("schema: a required attribute or key left out is reported by name") {
  for (const schema::Element* e : ordinary()) {
    for (bool xml : {true, false}) {
      Values all = required_of(*e, xml);
      if (!xml && e->shape == Shape::kStep)
        all[e->yaml] = yaml_value(*schema::find_attribute(*e, e->value_attribute));
      if (!xml && (e->shape == Shape::kValue || e->shape == Shape::kNameMap)) continue;
      for (const auto& [name, value] : required_of(*e, xml)) {
        Values v = all;
        v.erase(name);
        std::string text = xml ? xml_spec(*e, v) : yaml_spec(*e, v);
        std::string m = messages(text, xml);
        INFO(text << m);
        CHECK(m.find((xml ? "needs attribute '" : "needs key '") + name + "'") !=
              std::string::npos);
      }
    }
  }
}

TEST_CASE("schema: a misspelt attribute or key is offered the schema's name") {
  for (const schema::Element* e : ordinary()) {
    for (const schema::Attribute& a : e->attributes) {
      if (a.name.size() < 5 || a.name == e->value_attribute) continue;
      const std::string wrong = a.name.substr(0, a.name.size() - 1);
      if (in_xml(a)) {
        Values v = required_of(*e, true);
        v[wrong] = "1";
        std::string m = messages(xml_spec(*e, v), true);
        INFO(m);
        CHECK(m.find("unknown attribute '" + wrong + "'") != std::string::npos);
        CHECK(m.find("did you mean '" + a.name + "'") != std::string::npos);
      }
    }
  }
}

TEST_CASE("schema: docs/spec.md's table of elements and keys names exactly the schema's") {
  std::ifstream in(std::string(STEPGEN_SOURCE_DIR) + "/docs/spec.md");
  std::stringstream all;
  all << in.rdbuf();
  const std::string docs = all.str();
  std::size_t begin = docs.find("\n## Elements and keys");
  REQUIRE(begin != std::string::npos);
  std::size_t end = docs.find("\n## ", begin + 1);
  std::istringstream table(docs.substr(begin, end - begin));

  std::map<std::string, std::set<std::string>> xml_named;  // element -> attributes
  std::set<std::string> yaml_named;
  const std::regex tag(R"(<([a-z_]+)((?:\s+[a-z_-]+(?:="[^"]*")?)*)\s*/?>)");
  const std::regex attr(R"(([a-z_-]+)(?:="[^"]*")?)");
  const std::regex key(R"(([a-z_]+):)");
  std::string line;
  bool in_table = false;
  while (std::getline(table, line)) {
    if (line.rfind("| XML | YAML |", 0) == 0) in_table = true;
    if (in_table && line.rfind("|", 0) != 0) break;  // the table's end
    if (!in_table || line.rfind("| `", 0) != 0) continue;
    std::size_t bar = line.find('|', 1);
    std::string xml = line.substr(1, bar - 1);
    std::string yaml = line.substr(bar + 1, line.find('|', bar + 1) - bar - 1);
    INFO(line);
    std::smatch m;
    REQUIRE(std::regex_search(xml, m, tag));
    const schema::Element* e = schema::find_element(m[1]);
    REQUIRE(e);
    std::string attrs = m[2];
    xml_named[e->name];  // an element with no attributes is named too
    for (std::sregex_iterator it(attrs.begin(), attrs.end(), attr), stop; it != stop; ++it) {
      const schema::Attribute* a = schema::find_attribute(*e, (*it)[1]);
      CHECK_MESSAGE(a, "docs name attribute '" << (*it)[1] << "' of <" << e->name << ">");
      if (a) xml_named[e->name].insert(a->name);
    }
    for (std::sregex_iterator it(yaml.begin(), yaml.end(), key), stop; it != stop; ++it)
      yaml_named.insert((*it)[1]);
    // Bare keys of a {a, b, c} list: items whose innermost bracket is a brace.
    const std::regex bare(R"([{,]\s*([a-z_]+)\s*(?=[,}]))");
    for (std::sregex_iterator it(yaml.begin(), yaml.end(), bare), stop; it != stop; ++it) {
      std::vector<char> open;
      for (long i = 0; i < it->position(1); ++i) {
        char c = yaml[static_cast<std::size_t>(i)];
        if (c == '{' || c == '[') open.push_back(c);
        if ((c == '}' || c == ']') && !open.empty()) open.pop_back();
      }
      if (!open.empty() && open.back() == '{') yaml_named.insert((*it)[1]);
    }
  }
  std::set<std::string> yaml_schema;
  for (const schema::Element& e : schema::elements()) {
    if (e.shape == Shape::kXmlOnly || e.text) continue;
    std::set<std::string> xml_attrs;
    for (const schema::Attribute& a : e.attributes)
      if (in_xml(a)) xml_attrs.insert(a.name);
    INFO("<" << e.name << ">");
    CHECK(xml_named.count(e.name) == 1);
    CHECK(xml_named[e.name] == xml_attrs);
    if (!e.yaml.empty()) yaml_schema.insert(e.yaml);
    for (const schema::Attribute& a : e.attributes)
      if (in_yaml(a) && a.name != e.value_attribute) yaml_schema.insert(a.yaml);
  }
  yaml_schema.insert("body");
  std::string only_docs, only_schema;
  for (const std::string& k : yaml_named)
    if (!yaml_schema.count(k)) only_docs += " " + k;
  for (const std::string& k : yaml_schema)
    if (!yaml_named.count(k)) only_schema += " " + k;
  CHECK_MESSAGE(only_docs.empty(), "YAML keys in docs/spec.md, not in the schema:" << only_docs);
  CHECK_MESSAGE(only_schema.empty(),
                "YAML keys in the schema, not in docs/spec.md:" << only_schema);
}

TEST_CASE("schema: the run settings' and outputs' tables name attributes the schema has") {
  std::ifstream in(std::string(STEPGEN_SOURCE_DIR) + "/docs/spec.md");
  std::string line;
  const std::regex row(R"(^\| `([a-z_]+)\.([a-z_]+)` \|)");
  int rows = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    ++rows;
    const schema::Element* e = schema::find_element(m[1]);
    INFO(line);
    REQUIRE(e);
    CHECK(schema::find_attribute(*e, m[2]));
  }
  CHECK(rows >= 10);
}

TEST_CASE("schema: the model takes every value a choice lists, and no other") {
  int checked = 0;
  for (const schema::Element* e : ordinary()) {
    for (const schema::Attribute& a : e->attributes) {
      if (a.value != schema::Value::kChoice || !in_yaml(a)) continue;
      std::vector<std::string> values = a.choices;
      values.push_back("zzz");
      for (const std::string& v : values) {
        Values keys = required_of(*e, false);
        if (e->shape == Shape::kStep)
          keys[e->yaml] = yaml_value(*schema::find_attribute(*e, e->value_attribute));
        keys[a.yaml] = "\"" + v + "\"";
        std::string m = model_messages(yaml_spec(*e, keys));
        INFO(e->name << "." << a.yaml << " = " << v << ":\n" << m);
        // Refused: a message names the value; taken: no message calls it unknown.
        bool named = false, unknown = false;
        std::istringstream lines(m);
        for (std::string line; std::getline(lines, line);) {
          bool names = line.find("'" + v + "'") != std::string::npos;
          named = named || names;
          unknown = unknown || (names && line.find("unknown") != std::string::npos);
        }
        if (v == "zzz")
          CHECK(named);
        else
          CHECK(!unknown);
        ++checked;
      }
    }
  }
  CHECK(checked > 20);
  CHECK(schema::find_attribute(schema::element("array"), "type")->choices == model::type_names());
}

// `stepgen schema`: the schema table (spec/schema.cpp) as a JSON Schema for YAML specs (draft-07,
// what yaml-language-server and Python's jsonschema read) and as an XSD for XML specs (what
// xmllint --schema and editors' XML support read). Both say what may be written where; values'
// meaning (an expression's names, a kind's form) is left to `stepgen check`.
#include <sstream>

#include "spec/schema.hpp"

namespace stepgen::spec::schema {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

std::string described(const Attribute& a) {
  std::string d = a.doc;
  if (a.need == Need::kRequired) d += " (required)";
  if (!a.default_value.empty()) d += " (default: " + a.default_value + ")";
  return d;
}

// The JSON Schema of one value; `doc` becomes its description.
std::string json_value(Value v, const std::vector<std::string>& choices, const std::string& doc) {
  std::string body;
  switch (v) {
    case Value::kName:
    case Value::kPath:
      body = "\"type\": \"string\"";
      break;
    case Value::kNames:
      body = "\"$ref\": \"#/definitions/names\"";
      break;
    case Value::kExpr:
    case Value::kAutoOrExpr:
    case Value::kText:
      body = "\"$ref\": \"#/definitions/expr\"";
      break;
    case Value::kDims:
      body = "\"$ref\": \"#/definitions/dims\"";
      break;
    case Value::kDimsOrAuto:
      body = "\"anyOf\": [{\"$ref\": \"#/definitions/dims\"}, {\"const\": \"auto\"}]";
      break;
    case Value::kHalo:
      body = "\"$ref\": \"#/definitions/halo\"";
      break;
    case Value::kPoints:
      body = "\"$ref\": \"#/definitions/points\"";
      break;
    case Value::kNumbers:
      body = "\"$ref\": \"#/definitions/numbers\"";
      break;
    case Value::kBool:
      body = "\"$ref\": \"#/definitions/bool\"";
      break;
    case Value::kChoice:
      body = "\"enum\": " + json_list(choices);
      break;
  }
  return "{\"description\": " + json_string(doc) + ", " + body + "}";
}

std::string json_attribute(const Attribute& a) {
  return json_value(a.value, a.choices, described(a));
}

// The properties and required keys of `e`'s mapping (a step's own key included).
std::string json_object(const Element& e) {
  std::vector<std::string> props;
  std::vector<std::string> required;
  if (e.shape == Shape::kStep) {
    props.push_back(json_string(e.yaml) + ": " +
                    json_attribute(*find_attribute(e, e.value_attribute)));
    required.push_back(e.yaml);
  }
  for (const Attribute& a : e.attributes) {
    if (a.form == Form::kXml || a.name == e.value_attribute) continue;
    for (const std::string& k : yaml_spellings(a))
      props.push_back(json_string(k) + ": " + json_attribute(a));
    if (a.need == Need::kRequired) required.push_back(a.yaml);
  }
  bool body = false;
  for (const Element* c : children(e.name)) {
    if (c->shape == Shape::kXmlOnly) continue;
    if (c->shape == Shape::kStep) {
      body = true;
      continue;
    }
    std::string ref = "{\"$ref\": \"#/definitions/" + c->name + "\"}";
    std::string value;
    if (c->shape == Shape::kList)
      value = "{\"description\": " + json_string(c->doc) +
              ", \"type\": \"array\", \"items\": " + ref + "}";
    else
      value = ref;
    props.push_back(json_string(c->yaml) + ": " + value);
  }
  if (body) {
    std::string steps;
    for (const Element* c : children(e.name))
      if (c->shape == Shape::kStep)
        steps += std::string(steps.empty() ? "" : ", ") + "{\"$ref\": \"#/definitions/" + c->name +
                 "\"}";
    props.push_back(
        "\"body\": {\"description\": \"the steps, in order\", \"type\": \"array\", "
        "\"items\": {\"oneOf\": [" +
        steps + "]}}");
  }
  std::string out = "{\"description\": " + json_string(e.doc) +
                    ", \"type\": \"object\", \"additionalProperties\": false, \"properties\": {";
  for (std::size_t i = 0; i < props.size(); ++i) out += (i ? ",\n    " : "\n    ") + props[i];
  out += "}";
  if (!required.empty()) out += ", \"required\": " + json_list(required);
  return out + "}";
}

std::string json_definition(const Element& e) {
  if (e.shape == Shape::kValue) return json_attribute(*find_attribute(e, e.value_attribute));
  if (e.shape == Shape::kNameMap)
    return "{\"description\": " + json_string(e.doc) +
           ", \"type\": \"object\", \"additionalProperties\": " +
           json_attribute(*find_attribute(e, e.value_attribute)) + "}";
  return json_object(e);
}

// XSD -----------------------------------------------------------------------------------------

std::string xml_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string annotation(const std::string& doc, const std::string& indent) {
  return indent + "<xs:annotation><xs:documentation>" + xml_escaped(doc) +
         "</xs:documentation></xs:annotation>\n";
}

void xsd_attribute(std::ostringstream& out, const Attribute& a, const std::string& name,
                   const std::string& indent) {
  out << indent << "<xs:attribute name=\"" << name << "\"";
  bool required = a.need == Need::kRequired && name == a.name;
  if (required && a.aliases.empty()) out << " use=\"required\"";
  std::vector<std::string> choices =
      a.value == Value::kBool ? std::vector<std::string>{"true", "false"} : a.choices;
  if (choices.empty()) {
    out << " type=\"xs:string\">\n" << annotation(described(a), indent + "  ");
  } else {
    out << ">\n" << annotation(described(a), indent + "  ");
    // xs:token: blanks around the value are dropped, as the reader does.
    out << indent << "  <xs:simpleType><xs:restriction base=\"xs:token\">";
    for (const std::string& c : choices) out << "<xs:enumeration value=\"" << c << "\"/>";
    out << "</xs:restriction></xs:simpleType>\n";
  }
  out << indent << "</xs:attribute>\n";
}

void xsd_element(std::ostringstream& out, const Element& e, const std::string& name,
                 const std::string& indent) {
  out << indent << "<xs:element name=\"" << name << "\">\n";
  out << annotation(e.doc, indent + "  ");
  if (e.text) {
    out << indent << "  <xs:simpleType><xs:restriction base=\"xs:string\"/></xs:simpleType>\n";
    out << indent << "</xs:element>\n";
    return;
  }
  out << indent << "  <xs:complexType>\n";
  std::vector<const Element*> kids = children(e.name);
  if (!kids.empty()) {
    out << indent << "    <xs:choice minOccurs=\"0\" maxOccurs=\"unbounded\">\n";
    for (const Element* c : kids) xsd_element(out, *c, c->name, indent + "      ");
    out << indent << "    </xs:choice>\n";
  }
  for (const Attribute& a : e.attributes) {
    if (a.form == Form::kYaml) continue;
    xsd_attribute(out, a, a.name, indent + "    ");
    for (const std::string& alias : a.aliases) xsd_attribute(out, a, alias, indent + "    ");
  }
  out << indent << "  </xs:complexType>\n";
  out << indent << "</xs:element>\n";
}

}  // namespace

std::string json_schema() {
  const Element& root = elements().front();
  std::ostringstream out;
  out << "{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n"
      << "  \"title\": \"stepgen spec (YAML)\",\n"
      << "  \"description\": \"Written by stepgen schema --format json; docs/spec.md\",\n";
  std::string top = json_object(root);
  out << "  " << top.substr(1, top.size() - 2) << ",\n";  // the root's members, at top level
  out << "  \"definitions\": {\n"
      << "    \"expr\": {\"type\": [\"string\", \"number\"]},\n"
      << "    \"names\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"array\", \"items\": "
         "{\"type\": \"string\"}}]},\n"
      << "    \"dims\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/definitions/expr\"}, "
         "\"minItems\": 1, \"maxItems\": 3},\n"
      << "    \"halo\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/definitions/dims\"}},\n"
      << "    \"points\": {\"anyOf\": [{\"$ref\": \"#/definitions/dims\"}, {\"type\": \"array\", "
         "\"items\": {\"$ref\": \"#/definitions/dims\"}}, {\"type\": \"string\", \"pattern\": "
         "\"^file\\\\(.+\\\\)$\"}]},\n"
      << "    \"numbers\": {\"anyOf\": [{\"type\": [\"string\", \"number\"]}, {\"type\": "
         "\"array\", \"items\": {\"type\": \"number\"}}]},\n"
      << "    \"bool\": {\"anyOf\": [{\"type\": \"boolean\"}, {\"enum\": [\"true\", "
         "\"false\"]}]}";
  for (const Element& e : elements()) {
    if (e.shape == Shape::kRoot || e.shape == Shape::kXmlOnly) continue;
    out << ",\n    " << json_string(e.name) << ": " << json_definition(e);
  }
  out << "\n  }\n}\n";
  return out.str();
}

std::string xsd() {
  const Element& root = elements().front();
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<!-- Written by stepgen schema (format xsd): the XML form of a stepgen spec "
         "(docs/spec.md). -->\n"
      << "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n";
  // <stencil>, and STEPOCL's <stepocl> root of the same content.
  xsd_element(out, root, "stencil", "  ");
  xsd_element(out, root, "stepocl", "  ");
  out << "</xs:schema>\n";
  return out.str();
}

}  // namespace stepgen::spec::schema

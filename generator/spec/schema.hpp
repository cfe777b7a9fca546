#pragma once
/// \file
/// The spec language's one schema: every element (XML) and key (YAML), its attributes, their
/// kinds of value, defaults, other spellings and one-line docs. Both readers take from it the
/// names they accept, which are required and what to suggest for a misspelt one;
/// `stepgen schema` writes it as a JSON Schema (YAML specs) and an XSD (XML specs); a test holds
/// docs/spec.md's table of elements and keys to it. Meaning (numbers, expressions, names) is
/// still given by model/; the schema says only what may be written where.

#include <string>
#include <vector>

namespace stepgen::spec::schema {

/// What an attribute's value is, as the exported schemas check it (the readers keep text).
enum class Value {
  kName,        ///< a name
  kNames,       ///< names: XML blank-separated, YAML a list (or one string)
  kExpr,        ///< an expression (YAML: a number or a string)
  kAutoOrExpr,  ///< `auto` or an expression
  kDims,        ///< 1 to 3 expressions: XML blank-separated, YAML a list
  kDimsOrAuto,  ///< kDims, or `auto`
  kHalo,        ///< halo points: XML "{-1,0} {1,0}", YAML [[-1, 0], [1, 0]]
  kPoints,      ///< cells: XML "x y; x y" or file(PATH), YAML [x, y], [[x, y], ...] or file(PATH)
  kNumbers,     ///< numbers: XML blank-separated, YAML a list (or one string)
  kText,        ///< text given meaning by model/ (init forms, boundary kinds, conditions)
  kPath,        ///< a file path, relative to the spec's folder
  kBool,        ///< true or false
  kChoice,      ///< one of Attribute::choices
};

/// Whether an attribute must be given. kDepends: in some forms only; the reader decides and
/// Attribute::doc says when.
enum class Need { kOptional, kRequired, kDepends };

/// Which spec form knows the attribute or element.
enum class Form { kBoth, kXml, kYaml };

/// How an element is written in YAML.
enum class Shape {
  kRoot,     ///< the document's mapping
  kMapping,  ///< `key: {attributes...}`, once
  kList,     ///< `key: [{attributes...}, ...]`
  kNameMap,  ///< `key: {NAME: VALUE, ...}`: each entry one element (constants)
  kValue,    ///< `key: VALUE` in the parent's mapping: VALUE is the attribute value_attribute
  kStep,     ///< an item of the parent's `body`: `{key: VALUE, attributes...}`
  kXmlOnly,  ///< no YAML form (STEPOCL's elements)
};

struct Attribute {
  std::string name;  ///< the XML spelling
  std::string yaml;  ///< the YAML key
  Value value = Value::kText;
  Need need = Need::kOptional;
  Form form = Form::kBoth;
  std::vector<std::string> aliases;  ///< other spellings, accepted in both forms
  std::vector<std::string> choices;  ///< kChoice: the values
  std::string default_value;         ///< as docs/spec.md states it; empty: none
  std::string doc;                   ///< one line
};

struct Element {
  std::string name;  ///< the XML element
  std::string yaml;  ///< its key in the parent's YAML mapping (kStep: the step's key)
  std::vector<std::string> parents;  ///< XML parents
  Shape shape = Shape::kMapping;
  bool many = false;  ///< may be given more than once
  std::vector<Attribute> attributes;
  std::string value_attribute;  ///< kValue, kStep, kNameMap (the value): the YAML value's attribute
  std::string name_attribute;   ///< kNameMap: the attribute the entry's key is
  bool text = false;            ///< XML: holds text (STEPOCL's <name>A</name>, <point>)
  std::string doc;              ///< one line
};

/// Every element, the root first.
const std::vector<Element>& elements();

/// The element named `name` (XML spelling); throws std::logic_error for a name not in the
/// schema: the readers ask only for names they handle.
const Element& element(const std::string& name);

/// The element named `name`, or nullptr.
const Element* find_element(const std::string& name);

/// `name`'s attribute `attribute` (either spelling), or nullptr.
const Attribute* find_attribute(const Element& e, const std::string& attribute);

/// The XML attribute names `e` accepts: each attribute's name and aliases.
std::vector<std::string> xml_attributes(const Element& e);

/// The XML elements `parent` may hold.
std::vector<std::string> xml_children(const std::string& parent);

/// The YAML keys `a` may be written as: its key, then its other spellings (`halo_lo`, `halo-lo`).
std::vector<std::string> yaml_spellings(const Attribute& a);

/// The keys `e`'s YAML mapping accepts (attributes, aliases, children's keys, `body`; a step's
/// own key first).
std::vector<std::string> yaml_keys(const Element& e);

/// The elements whose XML parent is `parent`.
std::vector<const Element*> children(const std::string& parent);

/// `stepgen schema --format json`: a JSON Schema (draft 2020-12) of the YAML form.
std::string json_schema();

/// `stepgen schema --format xsd`: an XML Schema (1.0) of the XML form.
std::string xsd();

}  // namespace stepgen::spec::schema

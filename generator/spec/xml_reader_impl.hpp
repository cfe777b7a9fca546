// The XML spec reader's class (spec/xml_reader.cpp: read_xml, the start-tag scanning, attributes,
// lists and halo points; spec/xml_elements.cpp: one method per element). Internal to the two.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <pugixml.hpp>
#include <set>

#include "spec/reader.hpp"
#include "spec/schema.hpp"
#include "spec/xml_text.hpp"

namespace stepgen::spec::xml_detail {

using namespace xml_text;

// A name or value for a message: shortened, so that a huge input cannot make a huge message.
inline std::string shown(const std::string& s) {
  constexpr std::size_t kMax = 40;
  return s.size() <= kMax ? s : s.substr(0, kMax) + "...";
}

inline std::string suggest(const std::string& word, const std::vector<std::string>& candidates) {
  return word.size() <= 64 ? did_you_mean(word, candidates) : std::string();
}

// 'X' out of did_you_mean's " (did you mean 'X'?)"; empty for no suggestion.
inline std::string suggested_name(const std::string& hint) {
  std::size_t b = hint.find('\'');
  std::size_t e = hint.rfind('\'');
  return b == std::string::npos || e <= b ? std::string() : hint.substr(b + 1, e - b - 1);
}

inline std::string file_stem(const std::string& path) {
  std::size_t slash = path.find_last_of("/\\");
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

class XmlReader {
 public:
  XmlReader(const std::string& path, const std::string& text, Diagnostics& diags)
      : path_(path), text_(text), diags_(diags), lines_(text) {}

  std::optional<SpecTree> read();

 private:
  struct Attr {
    std::string name;
    std::size_t name_offset = 0;
    Span value;
  };
  struct Element {
    pugi::xml_node node;
    std::string name;
    Loc loc;  // of its '<'
    std::vector<Attr> attrs;
    // Names offered for unknown attributes: missing, they are not reported a second time.
    mutable std::set<std::string> suggested;
  };
  Loc loc(std::size_t offset) const { return lines_.loc(std::min(offset, text_.size())); }
  void error(Loc where, std::string message);

  Element open(pugi::xml_node node) const;
  bool scan_start_tag(std::size_t name_offset, Element& el) const;
  // The schema's element for `el` (STEPOCL's root <stepocl> is <stencil>).
  const schema::Element& schema_of(const Element& el) const;
  // Reports unknown attributes (those the schema does not give `el`) and repeated ones.
  void check_attributes(const Element& el);
  const Attr* find(const Element& el, const std::string& name) const;
  const Attr* find_either(const Element& el, const std::string& a, const std::string& b) const;
  Text text_of(const Span& s, std::size_t b, std::size_t e) const;
  Text value(const Element& el, const Attr* a) const;
  // An attribute's value; when the schema says it is required, its absence is reported.
  Text attr(const Element& el, const std::string& name);
  // An attribute the schema says some forms need (Need::kDepends), in one that does.
  Text required_attr(const Element& el, const std::string& name);
  std::vector<Text> list(const Attr& a, bool dims);
  // Visits `parent`'s element children, reporting those the schema does not give it.
  void for_each_child(const Element& parent, const std::function<void(const Element&)>& visit);
  void once(const Element& el, const Element& parent, std::set<std::string>& seen);
  Span node_span(pugi::xml_node node) const;
  Text element_text(const Element& el);
  std::optional<HaloPoint> halo_point(const Span& s, std::size_t b, std::size_t e);
  std::vector<HaloPoint> halo_points(const Attr& a);
  void trace_step(const Element& el, Step& s);

  void stencil(const Element& root, pugi::xml_node container, bool name_required);
  void constant(const Element& el);
  void array(const Element& el);
  void table(const Element& el);
  void boundary(const Element& el);
  void kernel(const Element& el);
  void kernel_size(const Element& el, const char* item, std::vector<Text>& out);
  void arg(const Element& el, Kernel& k);
  void iterate(const Element& el);
  void argument(const Element& el);
  void shadow(const Element& el);
  void output(const Element& el);  // io

  const std::string& path_;
  const std::string& text_;
  Diagnostics& diags_;
  LineIndex lines_;
  SpecTree tree_;
  std::vector<KernelArg> pending_;  // STEPOCL <argument>s, waiting for their kernel
  Loc first_argument_;
};

}  // namespace stepgen::spec::xml_detail

// XML spec reader (pugixml).
//
// Native form: a root <stencil name="..."> holding <constant>, <array>, <kernel> (with <arg>,
// <global size>, <local size>), <iterate> (with <launch>, <swap>, <rotate>), <devices>,
// <exchange>, <out_of_core>, <distribution>, <boundary>s; docs/spec.md lists every attribute.
//
// STEPOCL form (Li, Brunet, Namyst, HPCC 2013, Listings 2 and 3). Its elements may stand inside
// <stencil> beside native ones, inside a root <stepocl> (same content as <stencil>, 'name'
// optional), or with no root at all (the listings pasted one after another). Mapping:
//   <argument>                      one Array, and one array argument of the spec's single kernel
//     <name>A</name>                  Array::name and KernelArg::array
//     <property>output</property>     KernelArg::access: input -> read, output -> write,
//                                     inout -> readwrite
//     <dataType>float</dataType>      Array::type
//     <cl_mem>l</cl_mem>              accepted and ignored (the paper does not define it)
//     <arg_size><dim_size>N</dim_size>...</arg_size>   Array::size, one dim_size per dimension
//   <kernel>
//     <name>stencil.cl</name>         Kernel::source; Kernel::name is the file's stem ("stencil")
//                                     unless the element also has a 'name' attribute
//     <global><g_size>N</g_size>...</global>   Kernel::global
//     <local><l_size>N</l_size>...</local>     Kernel::local
//   <shadow><point>{-10,0}</point>...</shadow> SpecTree::shadow (top level only)
// <argument>s become the kernel's arguments in document order, after any native <arg>s; they
// need exactly one kernel in the spec. Without a 'name' on <stepocl> (or without a root), the
// stencil is named after that kernel (its stem), else after the spec file's stem. Arrays from
// <argument> have no 'init' (Array::init is absent). The paper has no time loop: add a native
// <iterate> for one, as specs/stepocl_listing.xml does.
//
// Positions: pugixml gives the offset of an element's name; the start tag is scanned from there
// to find each attribute's name and value, and values are decoded (spec/xml_text.hpp: entities,
// whitespace) so that every byte of a value keeps its source offset. List items and halo offsets
// thus point at their own first character.

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
#include "spec/xml_text.hpp"

namespace stepgen::spec {

namespace {

using namespace xml_text;

// A name or value for a message: shortened, so that a huge input cannot make a huge message.
std::string shown(const std::string& s) {
  constexpr std::size_t kMax = 40;
  return s.size() <= kMax ? s : s.substr(0, kMax) + "...";
}

std::string suggest(const std::string& word, const std::vector<std::string>& candidates) {
  return word.size() <= 64 ? did_you_mean(word, candidates) : std::string();
}

// 'X' out of did_you_mean's " (did you mean 'X'?)"; empty for no suggestion.
std::string suggested_name(const std::string& hint) {
  std::size_t b = hint.find('\'');
  std::size_t e = hint.rfind('\'');
  return b == std::string::npos || e <= b ? std::string() : hint.substr(b + 1, e - b - 1);
}

std::string file_stem(const std::string& path) {
  std::size_t slash = path.find_last_of("/\\");
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

const std::vector<std::string> kStencilChildren = {
    "constant", "array",       "kernel",       "iterate",  "devices",
    "exchange", "out_of_core", "distribution", "argument", "shadow",
    "table",    "monitor",     "boundary",     "output",   "checkpoint"};

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
  void check_attributes(const Element& el, const std::vector<std::string>& allowed);
  const Attr* find(const Element& el, const std::string& name) const;
  const Attr* find_either(const Element& el, const std::string& a, const std::string& b) const;
  Text text_of(const Span& s, std::size_t b, std::size_t e) const;
  Text value(const Element& el, const Attr* a) const;
  Text optional_attr(const Element& el, const std::string& name) {
    return value(el, find(el, name));
  }
  Text required_attr(const Element& el, const std::string& name);
  std::vector<Text> list(const Attr& a, bool dims);
  void for_each_child(const Element& parent, const std::vector<std::string>& allowed,
                      const std::function<void(const Element&)>& visit);
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

void XmlReader::error(Loc where, std::string message) {
  diags_.error(where, std::move(message));
}

// Finds each attribute's name and value in the source, starting from the element's name.
bool XmlReader::scan_start_tag(std::size_t p, Element& el) const {
  const std::size_t n = text_.size();
  if (p + el.name.size() > n || text_.compare(p, el.name.size(), el.name) != 0) return false;
  p += el.name.size();
  for (;;) {
    while (p < n && is_space(text_[p])) ++p;
    if (p >= n) return false;
    if (text_[p] == '/' || text_[p] == '>') return true;
    Attr a;
    a.name_offset = p;
    while (p < n && !is_space(text_[p]) && text_[p] != '=' && text_[p] != '/' && text_[p] != '>')
      ++p;
    if (p == a.name_offset) return false;
    a.name = text_.substr(a.name_offset, p - a.name_offset);
    while (p < n && is_space(text_[p])) ++p;
    if (p >= n || text_[p] != '=') return false;
    ++p;
    while (p < n && is_space(text_[p])) ++p;
    if (p >= n || (text_[p] != '"' && text_[p] != '\'')) return false;
    std::size_t close = text_.find(text_[p], p + 1);
    if (close == std::string::npos) return false;
    a.value = decode(text_, p + 1, close, true, true);
    el.attrs.push_back(std::move(a));
    p = close + 1;
  }
}

XmlReader::Element XmlReader::open(pugi::xml_node node) const {
  Element el;
  el.node = node;
  el.name = node.name();
  std::ptrdiff_t off = node.offset_debug();
  std::size_t name_offset = off > 0 ? static_cast<std::size_t>(off) : 0;
  el.loc = loc(name_offset > 0 && text_[name_offset - 1] == '<' ? name_offset - 1 : name_offset);

  // The scan must agree with pugixml; where it cannot (it always should), pugixml's decoded
  // values are kept and every position falls back to the element's.
  bool agrees = off > 0 && scan_start_tag(name_offset, el);
  if (agrees) {
    std::size_t i = 0;
    for (pugi::xml_attribute a : node.attributes()) {
      if (i >= el.attrs.size() || el.attrs[i].name != a.name()) {
        agrees = false;
        break;
      }
      ++i;
    }
    agrees = agrees && i == el.attrs.size();
  }
  if (!agrees) {
    el.attrs.clear();
    for (pugi::xml_attribute a : node.attributes()) {
      Attr attr;
      attr.name = a.name();
      attr.name_offset = name_offset;
      attr.value.value = a.value();
      attr.value.at.assign(attr.value.value.size(), name_offset);
      attr.value.end = name_offset;
      el.attrs.push_back(std::move(attr));
    }
  }
  return el;
}

// Reports unknown attributes and attributes given twice ('halo-lo' and 'halo_lo' are one).
void XmlReader::check_attributes(const Element& el, const std::vector<std::string>& allowed) {
  auto canonical = [](std::string name) {
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
  };
  std::map<std::string, std::string> first;  // canonical name -> as first written
  for (const Attr& a : el.attrs) {
    Loc where = loc(a.name_offset);
    if (std::find(allowed.begin(), allowed.end(), a.name) == allowed.end()) {
      std::string hint = suggest(a.name, allowed);
      error(where, "unknown attribute '" + shown(a.name) + "' on <" + el.name + ">" + hint);
      el.suggested.insert(suggested_name(hint));
      continue;
    }
    auto [it, inserted] = first.emplace(canonical(a.name), a.name);
    if (!inserted) {
      std::string also = it->second != a.name ? " (also given as '" + it->second + "')" : "";
      error(where, "duplicate attribute '" + a.name + "' on <" + el.name + ">" + also);
    }
  }
}

const XmlReader::Attr* XmlReader::find(const Element& el, const std::string& name) const {
  for (const Attr& a : el.attrs)
    if (a.name == name) return &a;
  return nullptr;
}

const XmlReader::Attr* XmlReader::find_either(const Element& el, const std::string& a,
                                              const std::string& b) const {
  const Attr* found = find(el, a);
  return found ? found : find(el, b);
}

Text XmlReader::text_of(const Span& s, std::size_t b, std::size_t e) const {
  return Text{s.value.substr(b, e - b), loc(s.pos(b)), true};
}

// An attribute's value without surrounding blanks; absent (at the element) when `a` is null.
Text XmlReader::value(const Element& el, const Attr* a) const {
  if (!a) return Text{{}, el.loc, false};
  auto [b, e] = trimmed(a->value.value, 0, a->value.value.size());
  if (b == e) return Text{{}, loc(a->value.pos(0)), true};
  return text_of(a->value, b, e);
}

Text XmlReader::required_attr(const Element& el, const std::string& name) {
  const Attr* a = find(el, name);
  if (!a && !el.suggested.count(name))
    error(el.loc, "<" + el.name + "> needs attribute '" + name + "'");
  return value(el, a);
}

// A blank-separated list attribute; `dims` caps it at kMaxDims items.
std::vector<Text> XmlReader::list(const Attr& a, bool dims) {
  std::vector<Text> out;
  auto items = split_items(a.value.value);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (dims && i == kMaxDims) {
      error(loc(a.value.pos(items[i].first)),
            "'" + a.name + "' has " + std::to_string(items.size()) + " items; at most " +
                std::to_string(kMaxDims) + " dimensions are supported");
      break;
    }
    out.push_back(text_of(a.value, items[i].first, items[i].second));
  }
  return out;
}

// The text content of a pcdata or CDATA node, decoded, with source offsets.
Span XmlReader::node_span(pugi::xml_node node) const {
  std::ptrdiff_t off = node.offset_debug();
  if (off >= 0 && static_cast<std::size_t>(off) <= text_.size()) {
    std::size_t b = static_cast<std::size_t>(off);
    bool cdata = node.type() == pugi::node_cdata;
    std::size_t e = cdata ? text_.find("]]>", b) : text_.find('<', b);
    if (e == std::string::npos) e = text_.size();
    return decode(text_, b, e, !cdata, false);
  }
  Span s;
  s.value = node.value();
  s.at.assign(s.value.size(), 0);
  return s;
}

// Visits the element children of `parent`, reporting unknown ones and stray text.
void XmlReader::for_each_child(const Element& parent, const std::vector<std::string>& allowed,
                               const std::function<void(const Element&)>& visit) {
  for (pugi::xml_node child : parent.node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      Span s = node_span(child);
      auto [b, e] = trimmed(s.value, 0, s.value.size());
      if (b < e)
        error(loc(s.pos(b)),
              "unexpected text '" + shown(s.value.substr(b, e - b)) + "' in <" + parent.name + ">");
      continue;
    }
    if (child.type() != pugi::node_element) continue;  // comments, processing instructions
    Element el = open(child);
    if (std::find(allowed.begin(), allowed.end(), el.name) == allowed.end()) {
      error(el.loc, "unknown element <" + shown(el.name) + "> in <" + parent.name + ">" +
                        suggest(el.name, allowed));
      continue;
    }
    visit(el);
  }
}

void XmlReader::once(const Element& el, const Element& parent, std::set<std::string>& seen) {
  if (!seen.insert(el.name).second)
    error(el.loc, "duplicate element <" + el.name + "> in <" + parent.name + ">");
}

// The text of an element that holds only text, such as STEPOCL's <name>A</name>.
Text XmlReader::element_text(const Element& el) {
  check_attributes(el, {});
  Span s;
  bool any = false;
  for (pugi::xml_node child : el.node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      append(s, node_span(child));
      any = true;
    } else if (child.type() == pugi::node_element) {
      Element inner = open(child);
      error(inner.loc, "unknown element <" + shown(inner.name) + "> in <" + el.name + ">");
    }
  }
  auto [b, e] = trimmed(s.value, 0, s.value.size());
  if (!any || b == e) return Text{{}, el.loc, true};
  return text_of(s, b, e);
}

// One halo point such as "-10,0" or "{-10,0}" at s.value[b, e).
std::optional<HaloPoint> XmlReader::halo_point(const Span& s, std::size_t b, std::size_t e) {
  const std::string whole = s.value.substr(b, e - b);
  auto malformed = [&](std::size_t at, const std::string& why) {
    error(loc(s.pos(at)), "malformed halo point '" + shown(whole) + "': " + why);
    return std::nullopt;
  };
  HaloPoint p;
  p.loc = loc(s.pos(b));
  if (s.value[b] == '{') {
    if (e - b < 2 || s.value[e - 1] != '}') return malformed(b, "missing '}'");
    ++b;
    --e;
  } else if (s.value[e - 1] == '}') {
    return malformed(e - 1, "'}' without '{'");
  }
  int depth = 0;
  std::size_t start = b;
  for (std::size_t i = b; i <= e; ++i) {
    if (i < e && is_open(s.value[i])) ++depth;
    if (i < e && is_close(s.value[i]) && --depth < 0) return malformed(i, "unbalanced brackets");
    if (i == e || (depth == 0 && s.value[i] == ',')) {
      auto [pb, pe] = trimmed(s.value, start, i);
      if (pb == pe) return malformed(pb, "empty offset (write points as 'x,y', such as '-1,0')");
      if (p.offsets.size() == kMaxDims) {
        error(loc(s.pos(pb)), "halo point '" + shown(whole) + "' has more than " +
                                  std::to_string(kMaxDims) + " offsets");
        return std::nullopt;
      }
      p.offsets.push_back(text_of(s, pb, pe));
      start = i + 1;
    }
  }
  if (depth != 0) return malformed(b, "unbalanced brackets");
  return p;
}

std::vector<HaloPoint> XmlReader::halo_points(const Attr& a) {
  std::vector<HaloPoint> out;
  for (auto [b, e] : split_items(a.value.value)) {
    if (out.size() == kMaxHaloPoints) {
      error(loc(a.value.pos(b)),
            "too many halo points (at most " + std::to_string(kMaxHaloPoints) + ")");
      break;
    }
    if (auto p = halo_point(a.value, b, e)) out.push_back(std::move(*p));
  }
  return out;
}

std::optional<SpecTree> XmlReader::read() {
  if (!check_spec_text(text_, diags_)) return std::nullopt;
  pugi::xml_document doc;
  pugi::xml_parse_result result =
      doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!result) {
    std::size_t at = result.offset > 0 ? static_cast<std::size_t>(result.offset) : 0;
    error(loc(at), std::string("XML syntax error: ") + result.description());
    return std::nullopt;
  }
  tree_.path = path_;

  std::vector<pugi::xml_node> roots;
  for (pugi::xml_node n : doc.children())
    if (n.type() == pugi::node_element) roots.push_back(n);
  if (roots.empty()) {  // pugixml reports this itself; kept for safety
    error(Loc{1, 1}, "XML syntax error: No document element found");
    return std::nullopt;
  }
  Element first = open(roots.front());
  bool is_root = first.name == "stencil" || first.name == "stepocl";
  bool bare = !is_root && std::find(kStencilChildren.begin(), kStencilChildren.end(), first.name) !=
                              kStencilChildren.end();
  if (bare) {
    // The STEPOCL listings with no root: the document itself holds the elements.
    Element doc_el;
    doc_el.node = doc;
    doc_el.name = "stepocl";
    doc_el.loc = first.loc;
    stencil(doc_el, doc, false);
  } else {
    if (!is_root)
      error(first.loc, "root element must be <stencil> (found <" + shown(first.name) + ">)" +
                           suggest(first.name, {"stencil", "stepocl"}));
    for (std::size_t i = 1; i < roots.size(); ++i) {
      Element extra = open(roots[i]);
      error(extra.loc, "a spec has one root element; unexpected <" + shown(extra.name) +
                           "> after <" + first.name + ">");
    }
    stencil(first, first.node, first.name != "stepocl");
  }
  return std::move(tree_);
}

void XmlReader::stencil(const Element& root, pugi::xml_node container, bool name_required) {
  tree_.loc = root.loc;
  if (container == root.node) {
    check_attributes(root, {"name"});
    tree_.name = name_required ? required_attr(root, "name") : optional_attr(root, "name");
  }
  Element parent = root;
  parent.node = container;
  std::set<std::string> seen;
  for_each_child(parent, kStencilChildren, [&](const Element& el) {
    if (el.name == "constant") {
      constant(el);
    } else if (el.name == "array") {
      array(el);
    } else if (el.name == "table") {
      table(el);
    } else if (el.name == "kernel") {
      kernel(el);
    } else if (el.name == "argument") {
      argument(el);
    } else if (el.name == "boundary") {
      boundary(el);
    } else if (el.name == "output") {
      output(el);
    } else {
      once(el, root, seen);
      if (el.name == "iterate") {
        iterate(el);
      } else if (el.name == "shadow") {
        shadow(el);
      } else if (el.name == "devices") {
        check_attributes(el, {"type", "count", "weights"});
        tree_.devices = {optional_attr(el, "type"), optional_attr(el, "count"),
                         optional_attr(el, "weights"), el.loc, true};
      } else if (el.name == "exchange") {
        check_attributes(el, {"every"});
        tree_.exchange = {optional_attr(el, "every"), el.loc, true};
      } else if (el.name == "out_of_core") {
        check_attributes(el, {"chunks", "steps_per_pass", "region_sharing", "device_memory"});
        tree_.out_of_core = {optional_attr(el, "chunks"),
                             optional_attr(el, "steps_per_pass"),
                             optional_attr(el, "region_sharing"),
                             optional_attr(el, "device_memory"),
                             el.loc,
                             true};
      } else if (el.name == "distribution") {
        check_attributes(el, {"engine"});
        tree_.distribution = {optional_attr(el, "engine"), el.loc, true};
      } else if (el.name == "monitor") {
        check_attributes(el, {"every", "file"});
        tree_.monitor = {optional_attr(el, "every"), optional_attr(el, "file"), el.loc, true};
      } else if (el.name == "checkpoint") {  // io
        check_attributes(el, {"every", "file"});
        tree_.checkpoint = {required_attr(el, "every"), required_attr(el, "file"), el.loc, true};
      }
      if (el.name != "iterate" && el.name != "shadow")
        for_each_child(el, {}, [](const Element&) {});
    }
  });

  if (!pending_.empty()) {
    if (tree_.kernels.size() == 1) {
      for (KernelArg& a : pending_) tree_.kernels.front().args.push_back(std::move(a));
    } else {
      error(first_argument_,
            "STEPOCL <argument> needs exactly one <kernel> to belong to (the spec has " +
                std::to_string(tree_.kernels.size()) + ")");
    }
  }
  if (!tree_.name.present) {
    // STEPOCL's form names no stencil: take the kernel's name, else the file's.
    if (tree_.kernels.size() == 1 && !tree_.kernels.front().name.value.empty())
      tree_.name = tree_.kernels.front().name;
    else
      tree_.name = Text{file_stem(path_), root.loc, true};
  }
}

void XmlReader::constant(const Element& el) {
  check_attributes(el, {"name", "value"});
  for_each_child(el, {}, [](const Element&) {});
  tree_.constants.push_back({required_attr(el, "name"), required_attr(el, "value"), el.loc});
}

// <boundary arrays="U V" dims="x y" kind="periodic"/>: several may be given.
void XmlReader::boundary(const Element& el) {
  check_attributes(el, {"arrays", "dims", "kind"});
  for_each_child(el, {}, [](const Element&) {});
  Boundary b;
  b.loc = el.loc;
  required_attr(el, "arrays");
  if (const Attr* arrays = find(el, "arrays")) b.arrays = list(*arrays, false);
  required_attr(el, "dims");
  if (const Attr* dims = find(el, "dims")) b.dims = list(*dims, true);
  b.kind = required_attr(el, "kind");
  tree_.boundaries.push_back(std::move(b));
}

void XmlReader::array(const Element& el) {
  check_attributes(el, {"name", "type", "size", "init", "save"});
  for_each_child(el, {}, [](const Element&) {});
  Array a;
  a.loc = el.loc;
  a.name = required_attr(el, "name");
  a.type = required_attr(el, "type");
  required_attr(el, "size");
  if (const Attr* size = find(el, "size")) a.size = list(*size, true);
  a.init = optional_attr(el, "init");
  a.save = optional_attr(el, "save");
  tree_.arrays.push_back(std::move(a));
}

// <table name type size init>: like <array>, without 'save'.
void XmlReader::table(const Element& el) {
  check_attributes(el, {"name", "type", "size", "init"});
  for_each_child(el, {}, [](const Element&) {});
  Table t;
  t.loc = el.loc;
  t.name = required_attr(el, "name");
  t.type = required_attr(el, "type");
  required_attr(el, "size");
  if (const Attr* size = find(el, "size")) t.size = list(*size, true);
  t.init = optional_attr(el, "init");
  tree_.tables.push_back(std::move(t));
}

// <global>/<local>: a 'size' list attribute, or STEPOCL's <g_size>/<l_size> children.
void XmlReader::kernel_size(const Element& el, const char* item, std::vector<Text>& out) {
  if (el.name == "local")
    check_attributes(el, {"size", "candidates"});
  else
    check_attributes(el, {"size"});
  const Attr* size = find(el, "size");
  if (size) out = list(*size, true);
  bool items = false;
  for_each_child(el, {item}, [&](const Element& child) {
    if (size && !items)
      error(child.loc, "<" + el.name + "> gives its size twice ('size' and <" + item + ">)");
    items = true;
    if (size) return;
    if (out.size() == kMaxDims) {
      error(child.loc, "<" + el.name + "> has more than " + std::to_string(kMaxDims) + " <" + item +
                           "> items; at most " + std::to_string(kMaxDims) +
                           " dimensions are supported");
      return;
    }
    out.push_back(element_text(child));
  });
  if (!size && !items) error(el.loc, "<" + el.name + "> needs attribute 'size'");
}

void XmlReader::kernel(const Element& el) {
  check_attributes(el, {"name", "source", "language", "cuda-source", "cuda_source"});
  Kernel k;
  k.loc = el.loc;
  Text paper_name;  // STEPOCL: <name>file.cl</name>
  std::set<std::string> seen;
  for_each_child(el, {"arg", "global", "local", "name"}, [&](const Element& child) {
    if (child.name == "arg") {
      arg(child, k);
      return;
    }
    once(child, el, seen);
    if (child.name == "global") kernel_size(child, "g_size", k.global);
    if (child.name == "local") {
      kernel_size(child, "l_size", k.local);
      k.local_candidates = optional_attr(child, "candidates");
    }
    if (child.name == "name") paper_name = element_text(child);
  });
  const Attr* name = find(el, "name");
  const Attr* source = find(el, "source");
  k.language = optional_attr(el, "language");
  k.cuda_source = value(el, find_either(el, "cuda-source", "cuda_source"));
  if (paper_name.present) {
    if (source)
      error(loc(source->name_offset),
            "<kernel> gives its source twice (attribute 'source' and element <name>)");
    k.source = paper_name;
    if (name) {
      k.name = value(el, name);
    } else {
      std::string stem = file_stem(paper_name.value);
      k.name = Text{stem, paper_name.loc, true};
    }
  } else {
    k.name = required_attr(el, "name");
    k.source = required_attr(el, "source");
  }
  tree_.kernels.push_back(std::move(k));
}

void XmlReader::arg(const Element& el, Kernel& k) {
  check_attributes(el, {"array", "scalar", "table", "access", "halo", "halo-lo", "halo-hi",
                        "halo_lo", "halo_hi", "value", "in-place", "in_place"});
  for_each_child(el, {}, [](const Element&) {});
  KernelArg a;
  a.loc = el.loc;
  for (Text* t : {&a.array, &a.access, &a.scalar_type, &a.value, &a.table}) t->loc = el.loc;
  // <arg table="T"/>: a table, read whole; 'access', when given, is checked by the model.
  if (const Attr* table = find(el, "table")) {
    a.kind = KernelArg::Kind::kTable;
    a.table = value(el, table);
    a.access = optional_attr(el, "access");
    for (const Attr& other : el.attrs)
      if (other.name != "table" && other.name != "access")
        error(loc(other.name_offset),
              "attribute '" + other.name + "' does not apply to a table <arg>");
    k.args.push_back(std::move(a));
    return;
  }
  const Attr* array = find(el, "array");
  const Attr* scalar = find(el, "scalar");
  if (array && scalar) error(loc(scalar->name_offset), "<arg> takes 'array' or 'scalar', not both");
  if (!array && !scalar) error(el.loc, "<arg> needs attribute 'array', 'scalar' or 'table'");
  const Attr* halo_lo = find_either(el, "halo-lo", "halo_lo");
  const Attr* halo_hi = find_either(el, "halo-hi", "halo_hi");
  if (scalar && !array) {
    a.kind = KernelArg::Kind::kScalar;
    a.scalar_type = value(el, scalar);
    a.value = required_attr(el, "value");
    for (const Attr& other : el.attrs)
      if (other.name != "scalar" && other.name != "value")  // access, halo*, in-place
        error(loc(other.name_offset),
              "attribute '" + other.name + "' does not apply to a scalar <arg>");
  } else {
    a.kind = KernelArg::Kind::kArray;
    a.array = value(el, array);
    if (array) a.access = required_attr(el, "access");
    if (const Attr* v = find(el, "value"))
      error(loc(v->name_offset), "attribute 'value' does not apply to an array <arg>");
    if (const Attr* halo = find(el, "halo")) a.halo = halo_points(*halo);
    if (halo_lo) a.halo_lo = list(*halo_lo, true);
    if (halo_hi) a.halo_hi = list(*halo_hi, true);
    if (const Attr* ip = find_either(el, "in-place", "in_place")) a.in_place = value(el, ip);
  }
  k.args.push_back(std::move(a));
}

void XmlReader::iterate(const Element& el) {
  check_attributes(el, {"steps", "until"});
  Iterate& it = tree_.iterate;
  it.present = true;
  it.loc = el.loc;
  it.steps = required_attr(el, "steps");
  it.until = optional_attr(el, "until");
  if (const Attr* until = find(el, "until")) {
    auto [b, e] = trimmed(until->value.value, 0, until->value.value.size());
    for (std::size_t i = b; i < e; ++i) it.until_locs.push_back(loc(until->value.pos(i)));
  }
  for_each_child(el, {"launch", "swap", "rotate", "inject", "record", "reduce"},
                 [&](const Element& child) {
                   for_each_child(child, {}, [](const Element&) {});
                   if (child.name == "reduce") {
                     check_attributes(child, {"name", "op", "array", "minus", "every"});
                     Reduce r;
                     r.loc = child.loc;
                     r.name = required_attr(child, "name");
                     r.op = required_attr(child, "op");
                     r.array = required_attr(child, "array");
                     r.minus = optional_attr(child, "minus");
                     r.every = optional_attr(child, "every");
                     r.position = it.body.size();
                     it.reductions.push_back(std::move(r));
                     return;
                   }
                   Step s;
                   s.loc = child.loc;
                   s.kernel.loc = child.loc;
                   if (child.name == "inject" || child.name == "record") {
                     trace_step(child, s);
                   } else if (child.name == "launch") {
                     check_attributes(child, {"kernel"});
                     s.kind = Step::Kind::kLaunch;
                     s.kernel = required_attr(child, "kernel");
                   } else if (child.name == "swap") {
                     check_attributes(child, {"a", "b"});
                     s.kind = Step::Kind::kSwap;
                     s.arrays = {required_attr(child, "a"), required_attr(child, "b")};
                   } else {
                     check_attributes(child, {"arrays"});
                     s.kind = Step::Kind::kRotate;
                     required_attr(child, "arrays");
                     if (const Attr* arrays = find(child, "arrays"))
                       s.arrays = list(*arrays, false);
                   }
                   it.body.push_back(std::move(s));
                 });
}

// --- <inject> and <record> (sources and receivers) ------------------------------------------

// <inject array="p" at="x y z" value="EXPR"/> and <record array="p" at="x y z; x y z" every="1"
// file="traces.csv"/>: `at` is points separated by ';', each blank-separated coordinates, or
// file(points.txt).
void XmlReader::trace_step(const Element& el, Step& s) {
  const bool inject = el.name == "inject";
  if (inject)
    check_attributes(el, {"array", "at", "value"});
  else
    check_attributes(el, {"array", "at", "every", "file"});
  s.kind = inject ? Step::Kind::kInject : Step::Kind::kRecord;
  s.arrays = {required_attr(el, "array")};
  s.at = required_attr(el, "at");
  if (inject) {
    s.value = required_attr(el, "value");
  } else {
    s.every = optional_attr(el, "every");
    s.file = required_attr(el, "file");
  }
  const Attr* at = find(el, "at");
  if (!at) return;
  const std::string& v = at->value.value;
  auto [b0, e0] = trimmed(v, 0, v.size());
  if (v.compare(b0, 5, "file(") == 0) {
    std::size_t close = v.rfind(')', e0);
    if (close == std::string::npos || close + 1 != e0 || close <= b0 + 5)
      error(loc(at->value.pos(b0)),
            "malformed 'at': expected file(PATH), got '" + shown(v.substr(b0, e0 - b0)) + "'");
    else
      s.at_file = text_of(at->value, b0 + 5, close);
    return;
  }
  // Empty pieces (a trailing ';') are skipped; no point at all is the model's error.
  std::size_t b = 0;
  while (b <= v.size()) {
    std::size_t e = v.find(';', b);
    if (e == std::string::npos) e = v.size();
    auto [pb, pe] = trimmed(v, b, e);
    if (pb < pe) {
      TracePoint p;
      p.loc = loc(at->value.pos(pb));
      for (auto [ib, ie] : split_items(v.substr(pb, pe - pb)))
        p.coords.push_back(text_of(at->value, pb + ib, pb + ie));
      s.points.push_back(std::move(p));
    }
    b = e + 1;
  }
}

void XmlReader::argument(const Element& el) {
  check_attributes(el, {});
  if (pending_.empty()) first_argument_ = el.loc;
  Array a;
  a.loc = el.loc;
  for (Text* t : {&a.name, &a.type, &a.init, &a.save}) t->loc = el.loc;
  Text property;
  std::set<std::string> seen;
  for_each_child(el, {"name", "property", "dataType", "cl_mem", "arg_size"},
                 [&](const Element& child) {
                   once(child, el, seen);
                   if (child.name == "name") a.name = element_text(child);
                   if (child.name == "property") property = element_text(child);
                   if (child.name == "dataType") a.type = element_text(child);
                   if (child.name == "cl_mem") element_text(child);  // not defined by the paper
                   if (child.name != "arg_size") return;
                   check_attributes(child, {});
                   for_each_child(child, {"dim_size"}, [&](const Element& dim) {
                     if (a.size.size() == kMaxDims) {
                       error(dim.loc, "<arg_size> has more than " + std::to_string(kMaxDims) +
                                          " <dim_size> items; at most " + std::to_string(kMaxDims) +
                                          " dimensions are supported");
                       return;
                     }
                     a.size.push_back(element_text(dim));
                   });
                 });
  for (const char* required : {"name", "property", "dataType", "arg_size"}) {
    if (!seen.count(required))
      error(el.loc, std::string("<argument> needs element <") + required + ">");
  }

  KernelArg arg;
  arg.loc = el.loc;
  for (Text* t : {&arg.array, &arg.access, &arg.scalar_type, &arg.value}) t->loc = el.loc;
  arg.kind = KernelArg::Kind::kArray;
  arg.array = a.name;
  if (property.present) {
    static const std::vector<std::string> kProperties = {"input", "output", "inout"};
    arg.access = property;
    if (property.value == "input") {
      arg.access.value = "read";
    } else if (property.value == "output") {
      arg.access.value = "write";
    } else if (property.value == "inout") {
      arg.access.value = "readwrite";
    } else {
      error(property.loc, "unknown property '" + shown(property.value) +
                              "' (expected input, output or inout)" +
                              suggest(property.value, kProperties));
      arg.access.value = "readwrite";  // reported here; keeps later stages from repeating it
    }
  } else {
    arg.access.loc = el.loc;
  }
  tree_.arrays.push_back(std::move(a));
  pending_.push_back(std::move(arg));
}

void XmlReader::shadow(const Element& el) {
  check_attributes(el, {});
  int too_many = 0;
  for_each_child(el, {"point"}, [&](const Element& child) {
    if (tree_.shadow.size() == kMaxHaloPoints) {
      if (!too_many++)
        error(child.loc, "too many halo points (at most " + std::to_string(kMaxHaloPoints) + ")");
      return;
    }
    check_attributes(child, {});
    Span s;
    for (pugi::xml_node n : child.node.children()) {
      if (n.type() == pugi::node_pcdata || n.type() == pugi::node_cdata) append(s, node_span(n));
      if (n.type() == pugi::node_element)
        error(open(n).loc, "unknown element <" + shown(n.name()) + "> in <point>");
    }
    auto [b, e] = trimmed(s.value, 0, s.value.size());
    if (b == e) {
      error(child.loc, "<point> needs a halo point such as {-1,0}");
      return;
    }
    if (auto p = halo_point(s, b, e)) tree_.shadow.push_back(std::move(*p));
  });
}

// io: <output arrays=".." every=".." file=".." first=".." last=".."/> (any number).
void XmlReader::output(const Element& el) {
  check_attributes(el, {"arrays", "every", "file", "first", "last"});
  for_each_child(el, {}, [](const Element&) {});
  Output o;
  o.loc = el.loc;
  o.arrays = required_attr(el, "arrays");
  o.every = required_attr(el, "every");
  o.file = required_attr(el, "file");
  o.first = optional_attr(el, "first");
  o.last = optional_attr(el, "last");
  tree_.outputs.push_back(std::move(o));
}

}  // namespace

std::optional<SpecTree> read_xml(const std::string& path, const std::string& text,
                                 Diagnostics& diags) {
  try {
    return XmlReader(path, text, diags).read();
  } catch (const std::exception& e) {  // std::bad_alloc and the like: report, never crash
    diags.error({}, std::string("cannot read the XML spec: ") + e.what());
    return std::nullopt;
  }
}

}  // namespace stepgen::spec

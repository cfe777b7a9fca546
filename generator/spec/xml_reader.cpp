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
#include "spec/xml_reader_impl.hpp"

namespace stepgen::spec {

namespace xml_detail {

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

const schema::Element& XmlReader::schema_of(const Element& el) const {
  // The root is <stencil> whatever its name (a wrong one is reported): STEPOCL's <stepocl>, or
  // the document itself in STEPOCL's listings without a root.
  bool root =
      el.node.type() == pugi::node_document || el.node.parent().type() == pugi::node_document;
  if (root && (el.name == "stepocl" || !schema::find_element(el.name)))
    return schema::element("stencil");
  return schema::element(el.name);
}

// Reports unknown attributes and attributes given twice ('halo-lo' and 'halo_lo' are one).
void XmlReader::check_attributes(const Element& el) {
  const std::vector<std::string> allowed = schema::xml_attributes(schema_of(el));
  auto canonical = [](std::string name) {
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
  };
  std::map<std::string, std::string> first;  // canonical name -> as first written
  for (const Attr& a : el.attrs) {
    Loc where = loc(a.name_offset);
    // Namespace declarations and the schema instance's attributes (xsi:noNamespaceSchemaLocation,
    // which points an editor at `stepgen schema --format xsd`) are the XML processor's.
    if (a.name == "xmlns" || a.name.rfind("xmlns:", 0) == 0 || a.name.rfind("xsi:", 0) == 0)
      continue;
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

Text XmlReader::attr(const Element& el, const std::string& name) {
  const schema::Attribute* known = schema::find_attribute(schema_of(el), name);
  if (!known) throw std::logic_error("spec schema: <" + el.name + "> has no attribute " + name);
  if (known->need == schema::Need::kRequired) return required_attr(el, name);
  return value(el, find(el, name));
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
void XmlReader::for_each_child(const Element& parent,
                               const std::function<void(const Element&)>& visit) {
  const std::vector<std::string> allowed = schema::xml_children(schema_of(parent).name);
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
  check_attributes(el);
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
  const std::vector<std::string> top = schema::xml_children("stencil");
  bool bare = !is_root && std::find(top.begin(), top.end(), first.name) != top.end();
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

}  // namespace xml_detail

std::optional<SpecTree> read_xml(const std::string& path, const std::string& text,
                                 Diagnostics& diags) {
  try {
    return xml_detail::XmlReader(path, text, diags).read();
  } catch (const std::exception& e) {  // std::bad_alloc and the like: report, never crash
    diags.error({}, std::string("cannot read the XML spec: ") + e.what());
    return std::nullopt;
  }
}

}  // namespace stepgen::spec

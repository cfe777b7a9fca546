// The XML spec reader's elements, one method each (the reader's mechanics: xml_reader.cpp).
#include "spec/xml_reader_impl.hpp"

namespace stepgen::spec::xml_detail {

void XmlReader::stencil(const Element& root, pugi::xml_node container, bool name_required) {
  tree_.loc = root.loc;
  if (container == root.node) {
    check_attributes(root);
    tree_.name = name_required ? required_attr(root, "name") : attr(root, "name");
  }
  Element parent = root;
  parent.node = container;
  std::set<std::string> seen;
  for_each_child(parent, [&](const Element& el) {
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
        check_attributes(el);
        tree_.devices = {attr(el, "type"), attr(el, "count"), attr(el, "weights"), el.loc, true};
      } else if (el.name == "exchange") {
        check_attributes(el);
        tree_.exchange = {attr(el, "every"), el.loc, true};
      } else if (el.name == "out_of_core") {
        check_attributes(el);
        tree_.out_of_core = {attr(el, "chunks"),
                             attr(el, "steps_per_pass"),
                             attr(el, "region_sharing"),
                             attr(el, "device_memory"),
                             el.loc,
                             true};
      } else if (el.name == "distribution") {
        check_attributes(el);
        tree_.distribution = {attr(el, "engine"), el.loc, true};
      } else if (el.name == "monitor") {
        check_attributes(el);
        tree_.monitor = {attr(el, "every"), attr(el, "file"), el.loc, true};
      } else if (el.name == "checkpoint") {  // io
        check_attributes(el);
        tree_.checkpoint = {attr(el, "every"), attr(el, "file"), el.loc, true};
      }
      if (el.name != "iterate" && el.name != "shadow") for_each_child(el, [](const Element&) {});
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
  check_attributes(el);
  for_each_child(el, [](const Element&) {});
  tree_.constants.push_back({attr(el, "name"), attr(el, "value"), el.loc});
}

// <boundary arrays="U V" dims="x y" kind="periodic"/>: several may be given.
void XmlReader::boundary(const Element& el) {
  check_attributes(el);
  for_each_child(el, [](const Element&) {});
  Boundary b;
  b.loc = el.loc;
  attr(el, "arrays");
  if (const Attr* arrays = find(el, "arrays")) b.arrays = list(*arrays, false);
  attr(el, "dims");
  if (const Attr* dims = find(el, "dims")) b.dims = list(*dims, true);
  b.kind = attr(el, "kind");
  tree_.boundaries.push_back(std::move(b));
}

void XmlReader::array(const Element& el) {
  check_attributes(el);
  for_each_child(el, [](const Element&) {});
  Array a;
  a.loc = el.loc;
  a.name = attr(el, "name");
  a.type = attr(el, "type");
  attr(el, "size");
  if (const Attr* size = find(el, "size")) a.size = list(*size, true);
  a.init = attr(el, "init");
  a.save = attr(el, "save");
  tree_.arrays.push_back(std::move(a));
}

// <table name type size init>: like <array>, without 'save'.
void XmlReader::table(const Element& el) {
  check_attributes(el);
  for_each_child(el, [](const Element&) {});
  Table t;
  t.loc = el.loc;
  t.name = attr(el, "name");
  t.type = attr(el, "type");
  attr(el, "size");
  if (const Attr* size = find(el, "size")) t.size = list(*size, true);
  t.init = attr(el, "init");
  tree_.tables.push_back(std::move(t));
}

// <global>/<local>: a 'size' list attribute, or STEPOCL's <g_size>/<l_size> children.
void XmlReader::kernel_size(const Element& el, const char* item, std::vector<Text>& out) {
  check_attributes(el);
  const Attr* size = find(el, "size");
  if (size) out = list(*size, true);
  bool items = false;
  for_each_child(el, [&](const Element& child) {
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
  check_attributes(el);
  Kernel k;
  k.loc = el.loc;
  Text paper_name;  // STEPOCL: <name>file.cl</name>
  std::set<std::string> seen;
  for_each_child(el, [&](const Element& child) {
    if (child.name == "arg") {
      arg(child, k);
      return;
    }
    once(child, el, seen);
    if (child.name == "global") kernel_size(child, "g_size", k.global);
    if (child.name == "local") {
      kernel_size(child, "l_size", k.local);
      k.local_candidates = attr(child, "candidates");
    }
    if (child.name == "name") paper_name = element_text(child);
  });
  const Attr* name = find(el, "name");
  const Attr* source = find(el, "source");
  k.language = attr(el, "language");
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
  check_attributes(el);
  for_each_child(el, [](const Element&) {});
  KernelArg a;
  a.loc = el.loc;
  for (Text* t : {&a.array, &a.access, &a.scalar_type, &a.value, &a.table}) t->loc = el.loc;
  // <arg table="T"/>: a table, read whole; 'access', when given, is checked by the model.
  if (const Attr* table = find(el, "table")) {
    a.kind = KernelArg::Kind::kTable;
    a.table = value(el, table);
    a.access = attr(el, "access");
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
  check_attributes(el);
  Iterate& it = tree_.iterate;
  it.present = true;
  it.loc = el.loc;
  it.steps = attr(el, "steps");
  it.until = attr(el, "until");
  if (const Attr* until = find(el, "until")) {
    auto [b, e] = trimmed(until->value.value, 0, until->value.value.size());
    for (std::size_t i = b; i < e; ++i) it.until_locs.push_back(loc(until->value.pos(i)));
  }
  for_each_child(el, [&](const Element& child) {
    for_each_child(child, [](const Element&) {});
    if (child.name == "reduce") {
      check_attributes(child);
      Reduce r;
      r.loc = child.loc;
      r.name = attr(child, "name");
      r.op = attr(child, "op");
      r.array = attr(child, "array");
      r.minus = attr(child, "minus");
      r.every = attr(child, "every");
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
      check_attributes(child);
      s.kind = Step::Kind::kLaunch;
      s.kernel = attr(child, "kernel");
    } else if (child.name == "swap") {
      check_attributes(child);
      s.kind = Step::Kind::kSwap;
      s.arrays = {attr(child, "a"), attr(child, "b")};
    } else {
      check_attributes(child);
      s.kind = Step::Kind::kRotate;
      attr(child, "arrays");
      if (const Attr* arrays = find(child, "arrays")) s.arrays = list(*arrays, false);
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
  check_attributes(el);
  s.kind = inject ? Step::Kind::kInject : Step::Kind::kRecord;
  s.arrays = {attr(el, "array")};
  s.at = attr(el, "at");
  if (inject) {
    s.value = attr(el, "value");
  } else {
    s.every = attr(el, "every");
    s.file = attr(el, "file");
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
  check_attributes(el);
  if (pending_.empty()) first_argument_ = el.loc;
  Array a;
  a.loc = el.loc;
  for (Text* t : {&a.name, &a.type, &a.init, &a.save}) t->loc = el.loc;
  Text property;
  std::set<std::string> seen;
  for_each_child(el, [&](const Element& child) {
    once(child, el, seen);
    if (child.name == "name") a.name = element_text(child);
    if (child.name == "property") property = element_text(child);
    if (child.name == "dataType") a.type = element_text(child);
    if (child.name == "cl_mem") element_text(child);  // not defined by the paper
    if (child.name != "arg_size") return;
    check_attributes(child);
    for_each_child(child, [&](const Element& dim) {
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
  check_attributes(el);
  int too_many = 0;
  for_each_child(el, [&](const Element& child) {
    if (tree_.shadow.size() == kMaxHaloPoints) {
      if (!too_many++)
        error(child.loc, "too many halo points (at most " + std::to_string(kMaxHaloPoints) + ")");
      return;
    }
    check_attributes(child);
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
  check_attributes(el);
  for_each_child(el, [](const Element&) {});
  Output o;
  o.loc = el.loc;
  o.arrays = attr(el, "arrays");
  o.every = attr(el, "every");
  o.file = attr(el, "file");
  o.first = attr(el, "first");
  o.last = attr(el, "last");
  tree_.outputs.push_back(std::move(o));
}

}  // namespace stepgen::spec::xml_detail

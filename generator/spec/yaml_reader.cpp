// YAML spec reader (yaml-cpp).
//
// The document is one mapping: `stencil` (the name), `constants` (a mapping of name: value),
// `arrays`, `kernels` (each with `args`, `global`, `local`), `iterate` (`steps`, `body` of
// {launch: K} / {swap: [A, B]} / {rotate: [A, B, C]}), `devices`, `exchange`, `out_of_core`,
// `distribution`, `boundaries` (a list of {arrays, dims, kind}), and `shadow` (a list of points,
// as STEPOCL's <shadow>); docs/spec.md lists every key. `halo_lo`/`halo_hi` may also be spelled
// `halo-lo`/`halo-hi`. `devices.weights` may be a list or a blank-separated string: SpecTree keeps
// it as one text, items joined by single spaces.
//
// Positions: yaml-cpp marks are zero-based and point at a node's first character; a quoted
// scalar's position is moved past its opening quote, so that it is where the value starts.
// Aliases let a small file name the same node many times, so every node visited counts against a
// budget (kMaxNodes) and lists are capped as in the XML reader.

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <sstream>

#include "spec/reader.hpp"
#include "spec/schema.hpp"

namespace stepgen::spec {

namespace {

// Most nodes the reader visits in one file, aliases counted at each use.
constexpr long kMaxNodes = 1L << 20;

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

std::string canonical_key(std::string key) {
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

// yaml-cpp 0.7 loops for ever on some inputs (such as "[0],"), making nodes until memory runs
// out. A first pass over the parser's events, before any node is built, stops that: a file of n
// bytes has fewer than 4n + 64 events (each needs at least one character, bar a few).
class EventBudget : public YAML::EventHandler {
 public:
  explicit EventBudget(std::size_t bytes) : left_(4 * bytes + 64) {}
  void OnDocumentStart(const YAML::Mark& m) override { spend(m); }
  void OnDocumentEnd() override { spend(last_); }
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { spend(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { spend(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    spend(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    spend(m);
  }
  void OnSequenceEnd() override { spend(last_); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    spend(m);
  }
  void OnMapEnd() override { spend(last_); }

 private:
  void spend(const YAML::Mark& m) {
    last_ = m;
    if (left_-- == 0) throw YAML::ParserException(m, "the parser cannot get past this point");
  }
  std::size_t left_;
  YAML::Mark last_ = YAML::Mark::null_mark();
};

// Where flow collections ([...], {...}) nest deeper than kMaxFlowDepth, if anywhere. yaml-cpp
// buffers tokens ahead inside flow collections and stops only at depth 2000, by then holding
// gigabytes for a file of megabytes. Quoted scalars and comments are skipped; a bracket inside a
// plain scalar counts too, which can only make the check stricter.
std::optional<std::size_t> too_deep(const std::string& text) {
  constexpr int kMaxFlowDepth = 64;
  int depth = 0;
  auto starts_token = [&](std::size_t i) {
    if (i == 0) return true;
    char p = text[i - 1];
    return p == ' ' || p == '\t' || p == '\n' || p == '\r' || p == '[' || p == '{' || p == ',' ||
           p == ':';
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#' && starts_token(i)) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if ((c == '"' || c == '\'') && starts_token(i)) {
      for (++i; i < text.size() && text[i] != c; ++i)
        if (c == '"' && text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxFlowDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// Runs the parser over `text` without building nodes; throws where it would never finish.
void check_progress(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  EventBudget budget(text.size());
  while (parser.HandleNextDocument(budget)) {
  }
}

class YamlReader {
 public:
  YamlReader(const std::string& path, const std::string& text, Diagnostics& diags)
      : path_(path), text_(text), diags_(diags), lines_(text) {}

  std::optional<SpecTree> read();

 private:
  // One key of a mapping, with its value.
  struct Entry {
    std::string key;  // as written
    Loc key_loc;
    YAML::Node value;
  };
  // The keys of one mapping, by canonical name, and the names offered for unknown keys (missing,
  // those are not reported a second time).
  struct Unclosed {};  // thrown past the walk over the tree on an unclosed string
  struct Fields : std::map<std::string, Entry> {
    std::set<std::string> suggested;
  };

  Loc loc(const YAML::Mark& mark) const;
  Loc loc(const YAML::Node& node) const { return loc(node.Mark()); }
  Text text(const YAML::Node& scalar);
  void error(Loc where, std::string message);
  bool tick();

  Fields fields(const YAML::Node& map, const std::string& context,
                const std::vector<std::string>& allowed);
  // The keys of `e`'s mapping: those the schema gives it.
  Fields fields(const YAML::Node& map, const schema::Element& e) {
    return fields(map, e.shape == schema::Shape::kRoot ? "spec" : e.name, schema::yaml_keys(e));
  }
  bool kind_ok(const Entry& e, bool ok, const char* kind);
  Text scalar(const Entry& e);
  Text scalar_of(const Fields& f, const std::string& key, Loc owner);
  bool need(const Fields& f, const std::string& key, const std::string& context, Loc owner);
  Text required(const Fields& f, const std::string& key, const std::string& context, Loc owner);
  // Key `key` of `e`'s mapping; when the schema says it is required, its absence is reported.
  Text key(const Fields& f, const schema::Element& e, const std::string& name, Loc owner);
  std::vector<Text> scalar_list(const Entry& e, bool dims);
  std::optional<HaloPoint> halo_point(const YAML::Node& node);
  std::vector<HaloPoint> halo_points(const Entry& e);
  template <typename F>
  void for_each_map(const Entry& e, const char* what, F&& visit);

  void walk(const YAML::Node& root);
  void constants(const Entry& e);
  void array(const YAML::Node& node);
  void table(const YAML::Node& node);
  void boundary(const YAML::Node& node);
  void output(const YAML::Node& node);  // io
  void kernel(const YAML::Node& node);
  void arg(const YAML::Node& node, Kernel& k);
  void iterate(const Entry& e);
  void step(const YAML::Node& node);
  void trace_step(const YAML::Node& node, Step& s);

  const std::string& path_;
  const std::string& text_;
  Diagnostics& diags_;
  LineIndex lines_;  // of text_: its lines are the ones yaml-cpp counts in parsed()
  SpecTree tree_;
  long nodes_ = 0;
  bool stopped_ = false;  // the node budget is spent
};

void YamlReader::error(Loc where, std::string message) {
  if (stopped_) return;
  diags_.error(where, std::move(message));
}

// Counts one node against the budget; false (once reported) when the budget is spent.
bool YamlReader::tick() {
  if (stopped_) return false;
  if (++nodes_ <= kMaxNodes) return true;
  diags_.error({}, "spec is too large to read (more than " + std::to_string(kMaxNodes) +
                       " values, aliases counted at each use)");
  stopped_ = true;
  return false;
}

Loc YamlReader::loc(const YAML::Mark& mark) const {
  if (mark.line < 0 || mark.column < 0) return {};
  Loc l{mark.line + 1, mark.column + 1};
  std::size_t line = static_cast<std::size_t>(mark.line);
  if (line < lines_.line_count()) {
    std::size_t at = lines_.line_start(line) + static_cast<std::size_t>(mark.column);
    if (at < text_.size() && (text_[at] == '"' || text_[at] == '\'')) ++l.col;
  }
  return l;
}

// A scalar's text and position. yaml-cpp takes a double-quoted scalar that is never closed to
// run to the end of the file; that is reported here.
Text YamlReader::text(const YAML::Node& scalar) {
  const YAML::Mark mark = scalar.Mark();
  std::size_t line = static_cast<std::size_t>(std::max(mark.line, 0));
  if (mark.line >= 0 && mark.column >= 0 && line < lines_.line_count()) {
    std::size_t at = lines_.line_start(line) + static_cast<std::size_t>(mark.column);
    if (at < text_.size() && text_[at] == '"') {
      std::size_t i = at + 1;
      while (i < text_.size() && text_[i] != '"') i += text_[i] == '\\' ? 2 : 1;
      if (i >= text_.size()) {
        error(Loc{mark.line + 1, mark.column + 1}, "YAML syntax error: missing closing '\"'");
        throw Unclosed{};  // the rest of the file went into the string: nothing more to say
      }
    }
  }
  return Text{scalar.Scalar(), loc(mark), true};
}

// The keys of a mapping, after reporting unknown and repeated ones.
YamlReader::Fields YamlReader::fields(const YAML::Node& map, const std::string& context,
                                      const std::vector<std::string>& allowed) {
  Fields out;
  for (auto it = map.begin(); it != map.end() && tick(); ++it) {
    // Copies: yaml-cpp's iterator hands out a temporary pair.
    const YAML::Node k = it->first;
    Loc where = loc(k);
    if (!k.IsScalar()) {
      error(where, "keys in " + context + " must be names");
      continue;
    }
    std::string key = k.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string hint = suggest(key, allowed);
      error(where, "unknown key '" + shown(key) + "' in " + context + hint);
      out.suggested.insert(suggested_name(hint));
      continue;
    }
    auto [pos, inserted] = out.emplace(canonical_key(key), Entry{key, where, it->second});
    if (!inserted) {
      std::string also = pos->second.key != key ? " (also given as '" + pos->second.key + "')" : "";
      error(where, "duplicate key '" + key + "' in " + context + also);
    }
  }
  return out;
}

bool YamlReader::kind_ok(const Entry& e, bool ok, const char* kind) {
  if (ok) return true;
  if (e.value.IsNull())
    error(e.key_loc, "'" + shown(e.key) + "' has no value");
  else
    error(loc(e.value), "'" + shown(e.key) + "' must be " + kind);
  return false;
}

Text YamlReader::scalar(const Entry& e) {
  if (!tick() || !kind_ok(e, e.value.IsScalar(), "a single value"))
    return Text{{}, e.key_loc, false};
  return text(e.value);
}

// The value of an optional key; absent (at `owner`) when missing.
Text YamlReader::scalar_of(const Fields& f, const std::string& key, Loc owner) {
  auto it = f.find(canonical_key(key));
  return it == f.end() ? Text{{}, owner, false} : scalar(it->second);
}

bool YamlReader::need(const Fields& f, const std::string& key, const std::string& context,
                      Loc owner) {
  if (f.count(canonical_key(key))) return true;
  if (!f.suggested.count(key)) error(owner, context + " needs key '" + key + "'");
  return false;
}

Text YamlReader::required(const Fields& f, const std::string& key, const std::string& context,
                          Loc owner) {
  need(f, key, context, owner);
  return scalar_of(f, key, owner);
}

Text YamlReader::key(const Fields& f, const schema::Element& e, const std::string& name,
                     Loc owner) {
  const schema::Attribute* known = schema::find_attribute(e, name);
  if (!known) throw std::logic_error("spec schema: " + e.name + " has no key " + name);
  if (known->need == schema::Need::kRequired)
    return required(f, name, e.shape == schema::Shape::kRoot ? "spec" : e.name, owner);
  return scalar_of(f, name, owner);
}

// A list of single values; `dims` caps it at kMaxDims items.
std::vector<Text> YamlReader::scalar_list(const Entry& e, bool dims) {
  std::vector<Text> out;
  if (!kind_ok(e, e.value.IsSequence(), "a list")) return out;
  for (std::size_t i = 0; i < e.value.size() && tick(); ++i) {
    const YAML::Node item = e.value[i];
    if (dims && i == kMaxDims) {
      error(loc(item), "'" + e.key + "' has " + std::to_string(e.value.size()) +
                           " items; at most " + std::to_string(kMaxDims) +
                           " dimensions are supported");
      break;
    }
    if (!item.IsScalar()) {
      error(loc(item), "each item of '" + e.key + "' must be a single value");
      continue;
    }
    out.push_back(text(item));
  }
  return out;
}

std::optional<HaloPoint> YamlReader::halo_point(const YAML::Node& node) {
  if (!node.IsSequence() || node.size() == 0) {
    error(loc(node), "malformed halo point: write it as a list of offsets, such as [-1, 0]");
    return std::nullopt;
  }
  HaloPoint p;
  p.loc = loc(node);
  for (std::size_t i = 0; i < node.size() && tick(); ++i) {
    const YAML::Node item = node[i];
    if (i == kMaxDims) {
      error(loc(item), "halo point has more than " + std::to_string(kMaxDims) + " offsets");
      return std::nullopt;
    }
    if (!item.IsScalar()) {
      error(loc(item), "malformed halo point: each offset must be a single value");
      return std::nullopt;
    }
    p.offsets.push_back(text(item));
  }
  return p;
}

std::vector<HaloPoint> YamlReader::halo_points(const Entry& e) {
  std::vector<HaloPoint> out;
  if (!kind_ok(e, e.value.IsSequence(), "a list")) return out;
  for (std::size_t i = 0; i < e.value.size() && tick(); ++i) {
    if (i == kMaxHaloPoints) {
      error(loc(e.value[i]),
            "too many halo points (at most " + std::to_string(kMaxHaloPoints) + ")");
      break;
    }
    if (auto p = halo_point(e.value[i])) out.push_back(std::move(*p));
  }
  return out;
}

// Visits each mapping of a list of mappings (arrays, kernels, args).
template <typename F>
void YamlReader::for_each_map(const Entry& e, const char* what, F&& visit) {
  if (!kind_ok(e, e.value.IsSequence(), "a list")) return;
  for (std::size_t i = 0; i < e.value.size() && tick(); ++i) {
    const YAML::Node item = e.value[i];
    if (!item.IsMap()) {
      error(loc(item), "each item of '" + e.key + "' must be a mapping (" + what + ")");
      continue;
    }
    visit(item);
  }
}

std::optional<SpecTree> YamlReader::read() {
  if (!check_spec_text(text_, diags_)) return std::nullopt;
  if (text_.size() > kMaxYamlSpecBytes) {
    error({}, "YAML spec is too large (" + std::to_string(text_.size()) +
                  " bytes; YAML specs may have at most " + std::to_string(kMaxYamlSpecBytes) + ")");
    return std::nullopt;
  }
  std::vector<YAML::Node> docs;
  // yaml-cpp ends lines at '\n' alone (so "\r\n" works), not at a lone '\r' as YAML does: it
  // reads a copy with those made '\n'. Offsets stay, and its line numbers become lines_'s.
  std::string parsed = text_;
  for (std::size_t i = 0; i < parsed.size(); ++i)
    if (parsed[i] == '\r' && (i + 1 == parsed.size() || parsed[i + 1] != '\n')) parsed[i] = '\n';
  try {
    if (auto at = too_deep(parsed)) {
      error(lines_.loc(*at), "YAML nests too deeply here (at most 64 levels of [ ] and { })");
      return std::nullopt;
    }
    check_progress(parsed);
    docs = YAML::LoadAll(parsed);
  } catch (const YAML::DeepRecursion& e) {
    error(Loc{e.mark.line + 1, e.mark.column + 1}, "YAML nests too deeply here");
    return std::nullopt;
  } catch (const YAML::ParserException& e) {
    // The mark as it is: a syntax error at a quote is about the quote.
    error(e.mark.line < 0 ? Loc{} : Loc{e.mark.line + 1, e.mark.column + 1},
          "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
  tree_.path = path_;
  if (docs.empty() || docs.front().IsNull()) {
    error(Loc{1, 1}, "spec is empty (expected a mapping with key 'stencil')");
    return std::nullopt;
  }
  for (std::size_t i = 1; i < docs.size(); ++i)
    error(loc(docs[i]), "a spec holds one YAML document; this is another");
  const YAML::Node root = docs.front();
  tree_.loc = loc(root);
  if (!root.IsMap()) {
    error(loc(root), "spec must be a mapping with key 'stencil'");
    return std::nullopt;
  }
  try {
    walk(root);
  } catch (const Unclosed&) {
    return std::nullopt;
  }
  return std::move(tree_);
}

void YamlReader::walk(const YAML::Node& root) {
  const schema::Element& spec = schema::element("stencil");
  Fields f = fields(root, spec);
  tree_.name = required(f, "stencil", "spec", tree_.loc);  // YAML needs the name
  auto has = [&](const char* key) { return f.count(key) > 0; };
  if (has("constants")) constants(f["constants"]);
  if (has("arrays"))
    for_each_map(f["arrays"], "name, type, size, ...", [&](const YAML::Node& n) { array(n); });
  if (has("tables"))
    for_each_map(f["tables"], "name, type, size, ...", [&](const YAML::Node& n) { table(n); });
  if (has("kernels"))
    for_each_map(f["kernels"], "name, source, args, ...", [&](const YAML::Node& n) { kernel(n); });
  if (has("iterate")) iterate(f["iterate"]);
  if (has("shadow")) tree_.shadow = halo_points(f["shadow"]);
  if (has("boundaries"))
    for_each_map(f["boundaries"], "arrays, dims, kind", [&](const YAML::Node& n) { boundary(n); });
  if (has("outputs"))  // io
    for_each_map(f["outputs"], "arrays, every, file, ...", [&](const YAML::Node& n) { output(n); });

  auto section = [&](const char* key, auto&& fill) {
    if (!has(key)) return;
    const Entry& e = f[key];
    if (!kind_ok(e, e.value.IsMap(), "a mapping")) return;
    Fields s = fields(e.value, schema::element(key));
    fill(s, loc(e.value));
  };
  section("devices", [&](Fields& s, Loc at) {
    Devices& d = tree_.devices;
    d = {scalar_of(s, "type", at), scalar_of(s, "count", at), Text{{}, at, false}, at, true};
    auto w = s.find("weights");
    if (w == s.end()) return;
    if (w->second.value.IsSequence()) {
      std::vector<Text> items = scalar_list(w->second, false);
      d.weights = Text{{}, items.empty() ? loc(w->second.value) : items.front().loc, true};
      for (const Text& t : items) d.weights.value += (d.weights.value.empty() ? "" : " ") + t.value;
    } else {
      d.weights = scalar(w->second);
    }
  });
  section("exchange", [&](Fields& s, Loc at) {
    tree_.exchange = {scalar_of(s, "every", at), at, true};
  });
  section("out_of_core", [&](Fields& s, Loc at) {
    tree_.out_of_core = {scalar_of(s, "chunks", at),
                         scalar_of(s, "steps_per_pass", at),
                         scalar_of(s, "region_sharing", at),
                         scalar_of(s, "device_memory", at),
                         at,
                         true};
  });
  section("distribution", [&](Fields& s, Loc at) {
    tree_.distribution = {scalar_of(s, "engine", at), at, true};
  });
  section("monitor", [&](Fields& s, Loc at) {
    tree_.monitor = {scalar_of(s, "every", at), scalar_of(s, "file", at), at, true};
  });
  section("checkpoint", [&](Fields& s, Loc at) {  // io
    const schema::Element& c = schema::element("checkpoint");
    tree_.checkpoint = {key(s, c, "every", at), key(s, c, "file", at), at, true};
  });
}

// io: one item of `outputs`: {arrays: [p, q] (or "p q"), every: 50, file: wave.h5, first: true,
// last: true}.
void YamlReader::output(const YAML::Node& node) {
  Output o;
  o.loc = loc(node);
  const schema::Element& se = schema::element("output");
  Fields f = fields(node, se);
  if (need(f, "arrays", "output", o.loc)) {
    const Entry& e = f["arrays"];
    if (e.value.IsSequence()) {
      std::vector<Text> items = scalar_list(e, false);
      o.arrays = Text{{}, items.empty() ? loc(e.value) : items.front().loc, true};
      for (const Text& t : items) o.arrays.value += (o.arrays.value.empty() ? "" : " ") + t.value;
      o.array_items = items;
    } else {
      o.arrays = scalar(e);
    }
  }
  o.every = key(f, se, "every", o.loc);
  o.file = key(f, se, "file", o.loc);
  o.first = key(f, se, "first", o.loc);
  o.last = key(f, se, "last", o.loc);
  tree_.outputs.push_back(std::move(o));
}

void YamlReader::constants(const Entry& e) {
  if (!kind_ok(e, e.value.IsMap(), "a mapping of names to values")) return;
  std::set<std::string> names;
  for (auto it = e.value.begin(); it != e.value.end() && tick(); ++it) {
    const YAML::Node key = it->first;
    Loc where = loc(key);
    if (!key.IsScalar()) {
      error(where, "keys in constants must be names");
      continue;
    }
    Constant c;
    c.name = text(key);
    c.loc = where;
    if (!names.insert(c.name.value).second)
      error(where, "duplicate key '" + shown(c.name.value) + "' in constants");
    c.value = scalar(Entry{c.name.value, where, it->second});
    tree_.constants.push_back(std::move(c));
  }
}

// {arrays: [U, V], dims: [x, y], kind: periodic}; a single name may stand for a list of one.
void YamlReader::boundary(const YAML::Node& node) {
  Boundary b;
  b.loc = loc(node);
  const schema::Element& se = schema::element("boundary");
  Fields f = fields(node, se);
  auto names = [&](const char* key, bool dims) {
    const Entry& e = f[key];
    if (e.value.IsScalar()) return std::vector<Text>{scalar(e)};
    return scalar_list(e, dims);
  };
  if (need(f, "arrays", "boundary", b.loc)) b.arrays = names("arrays", false);
  if (need(f, "dims", "boundary", b.loc)) b.dims = names("dims", true);
  b.kind = key(f, se, "kind", b.loc);
  tree_.boundaries.push_back(std::move(b));
}

void YamlReader::array(const YAML::Node& node) {
  Array a;
  a.loc = loc(node);
  const schema::Element& se = schema::element("array");
  Fields f = fields(node, se);
  a.name = key(f, se, "name", a.loc);
  a.type = key(f, se, "type", a.loc);
  if (need(f, "size", "array", a.loc)) a.size = scalar_list(f["size"], true);
  a.init = key(f, se, "init", a.loc);
  a.save = key(f, se, "save", a.loc);
  tree_.arrays.push_back(std::move(a));
}

// {name, type, size, init}: like an array, without 'save'.
void YamlReader::table(const YAML::Node& node) {
  Table t;
  t.loc = loc(node);
  const schema::Element& se = schema::element("table");
  Fields f = fields(node, se);
  t.name = key(f, se, "name", t.loc);
  t.type = key(f, se, "type", t.loc);
  if (need(f, "size", "table", t.loc)) t.size = scalar_list(f["size"], true);
  t.init = key(f, se, "init", t.loc);
  tree_.tables.push_back(std::move(t));
}

void YamlReader::kernel(const YAML::Node& node) {
  Kernel k;
  k.loc = loc(node);
  const schema::Element& se = schema::element("kernel");
  Fields f = fields(node, se);
  k.name = required(f, "name", "kernel", k.loc);
  k.source = required(f, "source", "kernel", k.loc);
  k.language = key(f, se, "language", k.loc);
  k.cuda_source = key(f, se, "cuda_source", k.loc);
  if (f.count("args"))
    for_each_map(f["args"], "array or scalar, ...", [&](const YAML::Node& n) { arg(n, k); });
  if (f.count("global")) k.global = scalar_list(f["global"], true);
  if (f.count("local")) {
    // `local: auto` (a scalar): the program tunes the shape at start-up.
    if (f["local"].value.IsScalar())
      k.local = {text(f["local"].value)};
    else
      k.local = scalar_list(f["local"], true);
  }
  k.local_candidates = key(f, se, "local_candidates", k.loc);
  tree_.kernels.push_back(std::move(k));
}

void YamlReader::arg(const YAML::Node& node, Kernel& k) {
  KernelArg a;
  a.loc = loc(node);
  for (Text* t : {&a.array, &a.access, &a.scalar_type, &a.value, &a.table}) t->loc = a.loc;
  Fields f = fields(node, schema::element("arg"));
  // {table: T}: a table, read whole; 'access', when given, is checked by the model.
  if (f.count("table")) {
    a.kind = KernelArg::Kind::kTable;
    a.table = scalar_of(f, "table", a.loc);
    a.access = scalar_of(f, "access", a.loc);
    for (const auto& [key, e] : f)
      if (key != "table" && key != "access")
        error(e.key_loc, "key '" + e.key + "' does not apply to a table arg");
    k.args.push_back(std::move(a));
    return;
  }
  bool array = f.count("array") > 0;
  bool scalar = f.count("scalar") > 0;
  if (array && scalar) error(f["scalar"].key_loc, "arg takes 'array' or 'scalar', not both");
  if (!array && !scalar) error(a.loc, "arg needs key 'array', 'scalar' or 'table'");
  if (scalar && !array) {
    a.kind = KernelArg::Kind::kScalar;
    a.scalar_type = scalar_of(f, "scalar", a.loc);
    a.value = required(f, "value", "arg", a.loc);
    for (const auto& [key, e] : f)
      if (key != "scalar" && key != "value")  // access, halo*, in_place
        error(e.key_loc, "key '" + e.key + "' does not apply to a scalar arg");
  } else {
    a.kind = KernelArg::Kind::kArray;
    a.array = scalar_of(f, "array", a.loc);
    if (array) a.access = required(f, "access", "arg", a.loc);
    if (f.count("value")) error(f["value"].key_loc, "key 'value' does not apply to an array arg");
    if (f.count("halo")) a.halo = halo_points(f["halo"]);
    if (f.count("halo_lo")) a.halo_lo = scalar_list(f["halo_lo"], true);
    if (f.count("halo_hi")) a.halo_hi = scalar_list(f["halo_hi"], true);
    if (f.count("in_place")) a.in_place = scalar_of(f, "in_place", a.loc);
  }
  k.args.push_back(std::move(a));
}

void YamlReader::iterate(const Entry& e) {
  if (!kind_ok(e, e.value.IsMap(), "a mapping")) return;
  Iterate& it = tree_.iterate;
  it.present = true;
  it.loc = loc(e.value);
  const schema::Element& schema_it = schema::element("iterate");
  Fields f = fields(e.value, schema_it);
  it.steps = key(f, schema_it, "steps", it.loc);
  it.until = key(f, schema_it, "until", it.loc);
  if (!f.count("body")) return;
  const Entry& body = f["body"];
  if (!kind_ok(body, body.value.IsSequence(), "a list")) return;
  for (std::size_t i = 0; i < body.value.size() && tick(); ++i) step(body.value[i]);
}

void YamlReader::step(const YAML::Node& node) {
  Step s;
  s.loc = loc(node);
  s.kernel.loc = s.loc;
  if (!node.IsMap() || node.size() == 0) {
    error(s.loc, "each step of 'body' must be a mapping such as {launch: K}");
    return;
  }
  if (node["inject"] || node["record"]) {
    trace_step(node, s);
    return;
  }
  if (node["reduce"]) {
    // {reduce: NAME, op: .., array: .., minus: .., every: ..}: one mapping, several keys.
    const schema::Element& se = schema::element("reduce");
    Fields r = fields(node, se);
    Reduce red;
    red.loc = s.loc;
    red.name = scalar_of(r, "reduce", s.loc);
    red.op = key(r, se, "op", s.loc);
    red.array = key(r, se, "array", s.loc);
    red.minus = key(r, se, "minus", s.loc);
    red.every = key(r, se, "every", s.loc);
    red.position = tree_.iterate.body.size();
    tree_.iterate.reductions.push_back(std::move(red));
    return;
  }
  // The steps whose mapping has one key, their own: launch, swap, rotate.
  std::vector<std::string> one_key;
  for (const schema::Element* c : schema::children("iterate"))
    if (schema::yaml_keys(*c).size() == 1) one_key.push_back(c->yaml);
  Fields f = fields(node, "step", one_key);
  if (f.empty()) return;  // its only key was unknown: reported
  if (f.size() > 1) {
    error(s.loc, "a step has one key: launch, swap or rotate");
    return;
  }
  const Entry& e = f.begin()->second;
  if (e.key == "launch") {
    s.kind = Step::Kind::kLaunch;
    s.kernel = scalar(e);
  } else if (e.key == "swap") {
    s.kind = Step::Kind::kSwap;
    s.arrays = scalar_list(e, false);
    if (e.value.IsSequence() && e.value.size() != 2)
      error(loc(e.value), "'swap' needs two arrays (found " + std::to_string(e.value.size()) + ")");
  } else {
    s.kind = Step::Kind::kRotate;
    s.arrays = scalar_list(e, false);
  }
  tree_.iterate.body.push_back(std::move(s));
}

// --- inject and record (sources and receivers) ----------------------------------------------

// {inject: p, at: [x, y, z], value: EXPR} and {record: p, at: [[x, y, z], ...], every: 1,
// file: traces.csv}; `at` may also be one point [x, y, z] or file(points.txt).
void YamlReader::trace_step(const YAML::Node& node, Step& s) {
  const bool inject = static_cast<bool>(node["inject"]);
  const std::string what = inject ? "inject" : "record";
  const schema::Element& se = schema::element(what);
  Fields f = fields(node, se);
  if (inject && f.count("record"))
    error(f["record"].key_loc, "a step is inject or record, not both");
  s.kind = inject ? Step::Kind::kInject : Step::Kind::kRecord;
  s.arrays = {required(f, what, what, s.loc)};
  if (inject) {
    s.value = key(f, se, "value", s.loc);
  } else {
    s.every = key(f, se, "every", s.loc);
    s.file = key(f, se, "file", s.loc);
  }
  s.at = Text{{}, s.loc, false};
  if (!need(f, "at", what, s.loc)) {
    tree_.iterate.body.push_back(std::move(s));
    return;
  }
  const Entry& at = f["at"];
  s.at = Text{{}, loc(at.value), true};
  auto point = [&](const YAML::Node& n) {
    TracePoint p;
    p.loc = loc(n);
    for (std::size_t i = 0; i < n.size() && tick(); ++i) {
      if (!n[i].IsScalar()) {
        error(loc(n[i]), "each coordinate of a point in 'at' must be a single value");
        continue;
      }
      p.coords.push_back(text(n[i]));
    }
    s.points.push_back(std::move(p));
  };
  if (at.value.IsScalar()) {
    Text t = text(at.value);
    const std::string& v = t.value;
    if (v.size() > 6 && v.compare(0, 5, "file(") == 0 && v.back() == ')') {
      s.at_file = Text{v.substr(5, v.size() - 6), Loc{t.loc.line, t.loc.col + 5}, true};
    } else {
      error(t.loc, "'at' must be a point [x, y, z], a list of points or file(PATH), got '" +
                       shown(v) + "'");
    }
  } else if (!kind_ok(at, at.value.IsSequence(), "a list")) {
  } else if (at.value.size() > 0 && at.value[0].IsSequence()) {
    for (std::size_t i = 0; i < at.value.size() && tick(); ++i) {
      if (!at.value[i].IsSequence())
        error(loc(at.value[i]), "each point in 'at' must be a list such as [x, y, z]");
      else
        point(at.value[i]);
    }
  } else {
    point(at.value);
  }
  tree_.iterate.body.push_back(std::move(s));
}

}  // namespace

std::optional<SpecTree> read_yaml(const std::string& path, const std::string& text,
                                  Diagnostics& diags) {
  try {
    return YamlReader(path, text, diags).read();
  } catch (const YAML::Exception& e) {
    diags.error(Loc{e.mark.line + 1, e.mark.column + 1}, "YAML error: " + e.msg);
  } catch (const std::exception& e) {  // std::bad_alloc and the like: report, never crash
    diags.error({}, std::string("cannot read the YAML spec: ") + e.what());
  }
  return std::nullopt;
}

}  // namespace stepgen::spec

// Arrays: names, types, sizes, save flags, the grid, and initial values.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "spec/reader.hpp"

namespace stepgen::model::detail {

namespace {

std::string type_list() {
  std::vector<std::string> names = type_names();
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

// True when `s` is a whole integer literal (optional sign, decimal digits); sets `v`.
bool parse_integer(const std::string& s, long double& v) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (std::size_t j = i; j < s.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  v = std::strtold(s.c_str(), nullptr);
  return true;
}

// "NXxNY" of an array whose sizes are parsed.
std::string size_string_of(const Array& a) {
  std::string s;
  for (int d = 0; d < a.dims; ++d)
    s += (d ? "x" : "") + std::to_string(a.size[static_cast<std::size_t>(d)]);
  return s;
}

}  // namespace

void Builder::build_arrays() {
  for (const spec::Array& a : tree_.arrays) {
    if (!declare(a.name, "array")) continue;
    Array arr;
    arr.name = a.name.value;
    arr.loc = a.name.loc;
    ArrayState state;
    state.spec = &a;
    if (require(a.type,
                "missing type for array " + quote(arr.name) + ": expected " + type_list())) {
      if (std::optional<ScalarType> t = parse_type(a.type.value)) {
        arr.type = *t;
        state.type_ok = true;
      } else {
        std::string hint = did_you_mean(a.type.value, type_names());
        diags_.error(a.type.loc, "unknown type " + quote(a.type.value) +
                                     (hint.empty() ? "; expected " + type_list() : hint));
      }
    }
    if (a.size.empty()) {
      form_error(a.loc, "array " + quote(arr.name) +
                            " has no size: expected 1 to 3 sizes, fastest dimension first");
    } else if (a.size.size() > 3) {
      form_error(a.size[3].loc, "array " + quote(arr.name) + " has " +
                                    std::to_string(a.size.size()) +
                                    " sizes; arrays have 1 to 3 dimensions");
    } else {
      arr.dims = static_cast<int>(a.size.size());
      state.size_ok = true;
      for (std::size_t d = 0; d < a.size.size(); ++d) {
        std::optional<std::int64_t> v = constant_int(a.size[d], "size", 1);
        if (v)
          arr.size[d] = *v;
        else
          state.size_ok = false;
      }
      std::int64_t cells = 1;
      bool overflow = false;
      for (std::size_t d = 0; state.size_ok && d < 3; ++d)
        overflow = __builtin_mul_overflow(cells, arr.size[d], &cells) || overflow;
      if (state.size_ok && (overflow || cells > kMaxCells)) {
        diags_.error(a.size[0].loc,
                     "array " + quote(arr.name) + " has " +
                         (overflow ? std::string("more than 2^63") : std::to_string(cells)) +
                         " cells (" + size_string_of(arr) + "); stepgen's limit is 2^48 (" +
                         std::to_string(kMaxCells) + ")");
        state.size_ok = false;
      }
    }
    if (a.save.present) {
      if (std::optional<bool> save = boolean(a.save, "save")) arr.save = *save;
    }
    array_names_.push_back(arr.name);
    array_dims_.push_back(arr.dims);
    array_state_.push_back(state);
    m_.arrays.push_back(arr);
  }
  if (tree_.arrays.empty())
    form_error(tree_.loc, "the spec declares no array: expected at least one");
  if (!m_.arrays.empty() && array_state_[0].size_ok) {
    grid_ok_ = true;
    m_.dims = m_.arrays[0].dims;
    m_.domain = m_.arrays[0].size;
  }
}

void Builder::build_inits() {
  for (std::size_t i = 0; i < m_.arrays.size(); ++i)
    m_.arrays[i].init = parse_init(static_cast<int>(i));

  // Copies are made from the sources' initial values, so they must not go round in a circle.
  std::size_t n = m_.arrays.size();
  for (std::size_t start = 0; start < n; ++start) {
    std::vector<std::size_t> chain{start};
    std::size_t at = start;
    while (chain.size() <= n && m_.arrays[at].init.kind == Init::Kind::kCopy &&
           m_.arrays[at].init.source >= 0) {
      at = static_cast<std::size_t>(m_.arrays[at].init.source);
      chain.push_back(at);
      if (at == start) break;
    }
    // Report each cycle once, from its first array.
    if (at != start || chain.size() < 2 || *std::min_element(chain.begin(), chain.end()) != start)
      continue;
    std::string path;
    for (std::size_t k = 0; k + 1 < chain.size(); ++k)
      path += (k ? ", " : "") + quote(m_.arrays[chain[k]].name) + " copies " +
              quote(m_.arrays[chain[k + 1]].name);
    diags_.error(array_state_[start].spec->init.loc, "init copies form a cycle: " + path);
  }
}

Init Builder::parse_init(int index) {
  const spec::Text& text = array_state_[static_cast<std::size_t>(index)].spec->init;
  Init init;
  if (!text.present) return init;
  const std::string& s = text.value;
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t b = 0, e = s.size();
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  std::size_t open = s.find('(', b);
  if (open >= e) open = std::string::npos;
  std::size_t kind_end = open == std::string::npos ? e : open;
  while (kind_end > b && space(s[kind_end - 1])) --kind_end;
  std::string kind = s.substr(b, kind_end - b);

  std::optional<spec::Text> arg;
  if (open != std::string::npos) {
    if (s[e - 1] != ')') {
      diags_.error(loc_in(text, e), "expected ')' at the end of init " + quote(s.substr(b, e - b)));
      return init;
    }
    std::size_t ab = open + 1, ae = e - 1;
    while (ab < ae && space(s[ab])) ++ab;
    while (ae > ab && space(s[ae - 1])) --ae;
    arg = spec::Text{s.substr(ab, ae - ab), loc_in(text, ab), true};
  }

  struct Kind {
    const char* name;
    Init::Kind kind;
    const char* arg;  ///< what the argument is; nullptr = takes none
  };
  static const Kind kKinds[] = {
      {"zero", Init::Kind::kZero, nullptr}, {"random", Init::Kind::kRandom, "seed"},
      {"value", Init::Kind::kValue, "v"},   {"copy", Init::Kind::kCopy, "X"},
      {"file", Init::Kind::kFile, "path"},  {"none", Init::Kind::kNone, nullptr}};
  const Kind* k = nullptr;
  std::vector<std::string> names;
  for (const Kind& c : kKinds) {
    names.push_back(c.name);
    if (kind == c.name) k = &c;
  }
  if (!k) {
    std::string hint = did_you_mean(kind, names);
    diags_.error(loc_in(text, b), "unknown init " + quote(kind) + hint +
                                      "; expected zero, random(seed), value(v), copy(X), "
                                      "file(path) or none");
    return init;
  }
  if (k->arg && (!arg || arg->value.empty())) {
    diags_.error(arg ? arg->loc : loc_in(text, b),
                 "init " + quote(kind) + " needs " +
                     (std::string(k->arg) == "v" ? "a value" : std::string("a ") + k->arg) + ": " +
                     kind + "(" + k->arg + ")");
    return init;
  }
  if (!k->arg && arg) {
    diags_.error(arg->loc, "init " + quote(kind) + " takes no argument");
    return init;
  }
  init.kind = k->kind;
  switch (k->kind) {
    case Init::Kind::kZero:
    case Init::Kind::kNone:
      break;
    case Init::Kind::kRandom: {
      const std::string& v = arg->value;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), init.seed);
      if (ec != std::errc() || end != v.data() + v.size())
        diags_.error(arg->loc, "random seed must be a non-negative integer, got " + quote(v));
      break;
    }
    case Init::Kind::kValue:
      init_value(index, *arg, init);
      break;
    case Init::Kind::kCopy:
      init_copy(index, *arg, init);
      break;
    case Init::Kind::kFile:
      init_file(index, *arg, init);
      break;
  }
  return init;
}

// init="value(v)": v must be a valid value of the array's type.
void Builder::init_value(int index, const spec::Text& arg, Init& init) {
  const Array& arr = m_.arrays[static_cast<std::size_t>(index)];
  init.value = arg.value;
  if (!array_state_[static_cast<std::size_t>(index)].type_ok) return;
  const TypeInfo& t = type_info(arr.type);
  if (t.is_float) {
    bool whole = is_decimal_number(init.value);
    double v = whole ? std::strtod(init.value.c_str(), nullptr) : 0.0;
    double limit = arr.type == ScalarType::kFloat ? std::numeric_limits<float>::max()
                                                  : std::numeric_limits<double>::max();
    if (!whole || !std::isfinite(v) || std::fabs(v) > limit)
      diags_.error(arg.loc, "value " + quote(init.value) + " is not a valid " + t.name +
                                " for array " + quote(arr.name) +
                                ": expected a number such as 1.5 or -2e-3");
  } else {
    long double v = 0, lo = 0, hi = 0;
    integer_range(arr.type, lo, hi);
    if (!parse_integer(init.value, v) || v < lo || v > hi)
      diags_.error(arg.loc, "value " + quote(init.value) + " is not a valid " + t.name +
                                " for array " + quote(arr.name) + ": expected an integer from " +
                                range_string(lo) + " to " + range_string(hi));
  }
}

// init="copy(X)": X another declared array of the same type and size.
void Builder::init_copy(int index, const spec::Text& arg, Init& init) {
  const Array& arr = m_.arrays[static_cast<std::size_t>(index)];
  const std::string& src = arg.value;
  auto it = std::find(array_names_.begin(), array_names_.end(), src);
  if (it == array_names_.end()) {
    diags_.error(arg.loc,
                 "array " + quote(src) + " is not declared" + did_you_mean(src, array_names_));
    return;
  }
  int source = static_cast<int>(it - array_names_.begin());
  const ArrayState& me = array_state_[static_cast<std::size_t>(index)];
  ArrayState& other = array_state_[static_cast<std::size_t>(source)];
  const Array& from = m_.arrays[static_cast<std::size_t>(source)];
  if (source == index) {
    diags_.error(arg.loc,
                 "array " + quote(arr.name) + " cannot be initialised as a copy of itself");
  } else if (me.type_ok && other.type_ok && from.type != arr.type) {
    diags_.error(arg.loc, "cannot initialise array " + quote(arr.name) + " (" +
                              type_info(arr.type).name + ") as a copy of " + quote(src) + " (" +
                              type_info(from.type).name + "): their types differ");
  } else if (me.size_ok && other.size_ok && (from.dims != arr.dims || from.size != arr.size)) {
    diags_.error(arg.loc, "cannot initialise array " + quote(arr.name) + " (" + size_string(index) +
                              ") as a copy of " + quote(src) + " (" + size_string(source) +
                              "): their sizes differ");
  } else {
    init.source = source;
    other.copy_source = true;
  }
}

// init="file(path)": a readable file of exactly the array's bytes.
void Builder::init_file(int index, const spec::Text& arg, Init& init) {
  const Array& arr = m_.arrays[static_cast<std::size_t>(index)];
  init.path = arg.value;
  std::string full = resolve(init.path);
  std::error_code ec;
  if (std::string problem = spec::file_problem(full); !problem.empty()) {
    diags_.error(arg.loc,
                 "file " + quote(init.path) + " " + problem + " (looked for " + full + ")");
    return;
  }
  const ArrayState& me = array_state_[static_cast<std::size_t>(index)];
  if (!me.type_ok || !me.size_ok) return;
  std::uintmax_t have = std::filesystem::file_size(full, ec);
  std::uintmax_t need = static_cast<std::uintmax_t>(type_info(arr.type).bytes);
  for (int d = 0; d < arr.dims; ++d)
    need *= static_cast<std::uintmax_t>(arr.size[static_cast<std::size_t>(d)]);
  if (!ec && have != need)
    diags_.error(arg.loc, "file " + quote(init.path) + " has " + std::to_string(have) +
                              " bytes but array " + quote(arr.name) + " needs " +
                              std::to_string(need) + " (" + size_string(index) + " " +
                              type_info(arr.type).name + ")");
}

}  // namespace stepgen::model::detail

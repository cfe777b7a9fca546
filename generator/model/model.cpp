#include "model/model.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"

namespace stepgen::model {

namespace {

const TypeInfo kTypes[] = {
    {ScalarType::kFloat, "float", "float", 4, true},
    {ScalarType::kDouble, "double", "double", 8, true},
    {ScalarType::kInt, "int", "std::int32_t", 4, false},
    {ScalarType::kUint, "uint", "std::uint32_t", 4, false},
    {ScalarType::kLong, "long", "std::int64_t", 8, false},
    {ScalarType::kUlong, "ulong", "std::uint64_t", 8, false},
    {ScalarType::kShort, "short", "std::int16_t", 2, false},
    {ScalarType::kUshort, "ushort", "std::uint16_t", 2, false},
    {ScalarType::kChar, "char", "std::int8_t", 1, false},
    {ScalarType::kUchar, "uchar", "std::uint8_t", 1, false},
};

}  // namespace

const TypeInfo& type_info(ScalarType t) {
  return kTypes[static_cast<int>(t)];
}

std::optional<ScalarType> parse_type(const std::string& name) {
  for (const TypeInfo& t : kTypes)
    if (name == t.name) return t.type;
  return std::nullopt;
}

std::vector<std::string> type_names() {
  std::vector<std::string> names;
  for (const TypeInfo& t : kTypes) names.push_back(t.name);
  return names;
}

int Model::find_array(const std::string& n) const {
  for (std::size_t i = 0; i < arrays.size(); ++i)
    if (arrays[i].name == n) return static_cast<int>(i);
  return -1;
}

int Model::find_table(const std::string& n) const {
  for (std::size_t i = 0; i < tables.size(); ++i)
    if (tables[i].name == n) return static_cast<int>(i);
  return -1;
}

std::int64_t Model::table_bytes() const {
  std::int64_t bytes = 0;
  for (const Table& t : tables) bytes += t.elements() * type_info(t.type).bytes;
  return bytes;
}

int Model::find_kernel(const std::string& n) const {
  for (std::size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].name == n) return static_cast<int>(i);
  return -1;
}

std::optional<Model> build_model(const spec::SpecTree& tree, Diagnostics& diags) {
  return detail::Builder(tree, diags).run();
}

namespace detail {

namespace {

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string value_string(const Value& v) {
  if (!v.is_float) return std::to_string(v.i);
  // The shortest form that reads back to the same double, and reads as a float ("16.0").
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.f);
  (void)ec;
  std::string s(buf, end);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

Builder::Builder(const spec::SpecTree& tree, Diagnostics& diags)
    : tree_(tree), diags_(diags), reader_errors_(diags.error_count()) {}

std::optional<Model> Builder::run() {
  m_.spec_path = tree_.path;
  m_.spec_dir = std::filesystem::path(tree_.path).parent_path().generic_string();
  if (tree_.name.present && !blank(tree_.name.value)) {
    m_.name = tree_.name.value;
    // The name becomes file names (NAME.cpp, the folder NAME-TARGET), a CMake project and target,
    // and an option NAME_WERROR: no '..', no leading '-' or '.', no trailing '.'.
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    bool chars = std::all_of(m_.name.begin(), m_.name.end(),
                             [&](char c) { return word(c) || c == '-' || c == '.'; });
    if (!chars)
      diags_.error(tree_.name.loc, "name " + quote(m_.name) +
                                       " may hold only letters, digits, '_', '-' and '.' (it names "
                                       "the generated program)");
    else if (!word(m_.name.front()) || m_.name.back() == '.')
      diags_.error(tree_.name.loc, "name " + quote(m_.name) +
                                       " must start with a letter, digit or '_' and not end with "
                                       "'.' (it names the generated program, its files and its "
                                       "build target)");
    else if (is_reserved_by_cmake(m_.name))
      diags_.error(tree_.name.loc, "name " + quote(m_.name) +
                                       " is a target name CMake reserves (it names the generated "
                                       "program's build target): choose another");
    else if (m_.name.size() > kMaxNameLength)
      diags_.error(tree_.name.loc, "name " + quote(m_.name.substr(0, 20) + "...") + " has " +
                                       std::to_string(m_.name.size()) + " characters; at most " +
                                       std::to_string(kMaxNameLength));
  } else {
    m_.name = std::filesystem::path(tree_.path).stem().string();
  }
  build_constants();
  build_arrays();
  build_inits();
  build_tables();
  build_shadow();
  build_kernels();
  build_loop();
  build_usage();
  build_settings();
  build_reductions();
  build_until();
  build_monitor();
  build_boundaries();
  build_io();
  if (diags_.has_errors()) return std::nullopt;
  return std::move(m_);
}

bool Builder::declare(const spec::Text& name, const std::string& kind) {
  if (!require(name, "missing " + kind + " name")) return false;
  const std::string& n = name.value;
  std::string a_kind = (kind == "array" ? "an " : "a ") + kind;
  if (!is_identifier(n)) {
    diags_.error(name.loc, quote(n) + " is not a valid " + kind +
                               " name: expected a C identifier (letters, digits and '_', not "
                               "starting with a digit)");
  } else if (is_keyword(n)) {
    diags_.error(name.loc, quote(n) + " cannot be " + a_kind +
                               " name: it is a keyword of C, C++ or OpenCL C");
  } else if (is_reserved_by_expressions(n)) {
    diags_.error(name.loc,
                 quote(n) + " cannot be " + a_kind + " name: expressions give it a meaning");
  } else if (is_system_macro(n)) {
    diags_.error(name.loc, quote(n) + " cannot be " + a_kind +
                               " name: it is a macro of the C and C++ headers the generated "
                               "program includes");
  } else if (n == "kCount") {
    diags_.error(name.loc, quote(n) + " cannot be " + a_kind +
                               " name: the generated program counts the " + kind +
                               "s by that name");
  } else if (kind == "kernel" && (n == "program" || n == "tables")) {
    diags_.error(name.loc, quote(n) +
                               " cannot be a kernel name: the generated program's "
                               "struct Kernels holds a member of that name beside the kernels");
  }
  auto it = names_.find(n);
  if (it == names_.end()) {
    names_[n] = {kind, name.loc.line};
    return true;
  }
  if (it->second.kind == kind) {
    diags_.error(name.loc, "duplicate " + kind + " " + quote(n) + " (first defined at line " +
                               std::to_string(it->second.line) + ")");
    return false;
  }
  diags_.error(name.loc, kind + " " + quote(n) + " has the same name as " + it->second.kind + " " +
                             quote(n) + " (line " + std::to_string(it->second.line) +
                             "); constants, arrays, tables and kernels share one namespace");
  return true;
}

std::optional<Expr> Builder::parse(const spec::Text& text, bool allow_runtime,
                                   const std::string& what) {
  ExprScope scope;
  scope.constants = &m_.constant_values;
  scope.arrays = &array_names_;
  scope.array_dims = &array_dims_;
  scope.tables = &table_sizes_;
  scope.allow_runtime = allow_runtime;
  scope.what = what;
  return parse_expr(text, scope, diags_);
}

std::optional<Value> Builder::fold(const spec::Text& text, const std::string& what) {
  std::optional<Expr> e = parse(text, false, what);
  if (!e) return std::nullopt;
  std::string error;
  spec::Loc where = text.loc;
  std::optional<Value> v = eval(*e, m_.constant_values, nullptr, &error, &where);
  if (!v) diags_.error(where, error);
  return v;
}

std::optional<std::int64_t> Builder::constant_int(const spec::Text& text, const std::string& what,
                                                  std::int64_t min) {
  std::string expected = min > 0    ? "a positive integer"
                         : min == 0 ? "a non-negative integer"
                                    : "an integer";
  std::optional<Value> v = fold(text, what);
  if (!v) return std::nullopt;
  if (v->is_float || v->i < min) {
    diags_.error(text.loc, what + " must be " + expected + ", got " + value_string(*v));
    return std::nullopt;
  }
  return v->i;
}

std::optional<std::int64_t> Builder::plain_int(const spec::Text& text, const std::string& what,
                                               std::int64_t min,
                                               const std::vector<std::string>& keywords) {
  const std::string& s = text.value;
  for (const std::string& k : keywords)
    if (s == k) return 0;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size() && !s.empty() && v >= min) return v;
  std::string expected;
  for (const std::string& k : keywords) expected += quote(k) + " or ";
  expected += min > 0 ? "a positive integer" : "a non-negative integer";
  diags_.error(text.loc, what + " must be " + expected + ", got " + quote(s));
  return std::nullopt;
}

std::optional<bool> Builder::boolean(const spec::Text& text, const std::string& what) {
  if (text.value == "true") return true;
  if (text.value == "false") return false;
  diags_.error(text.loc, what + " must be 'true' or 'false', got " + quote(text.value));
  return std::nullopt;
}

bool Builder::require(const spec::Text& text, const std::string& message) {
  if (text.present && !blank(text.value)) return true;
  if (text.present)
    diags_.error(text.loc, message);
  else
    form_error(text.loc, message);
  return false;
}

void Builder::form_error(spec::Loc loc, const std::string& message) {
  if (reader_errors_ == 0) diags_.error(loc, message);
}

std::string Builder::resolve(const std::string& path) const {
  std::filesystem::path p(path);
  if (p.is_absolute() || m_.spec_dir.empty()) return p.generic_string();
  return (std::filesystem::path(m_.spec_dir) / p).generic_string();
}

std::string Builder::size_string(int array) const {
  const Array& a = m_.arrays[static_cast<std::size_t>(array)];
  std::string s;
  for (int d = 0; d < a.dims; ++d)
    s += (d ? "x" : "") + std::to_string(a.size[static_cast<std::size_t>(d)]);
  return s;
}

void Builder::build_constants() {
  for (const spec::Constant& c : tree_.constants) {
    bool fresh = declare(c.name, "constant");
    if (!require(c.value, "missing value for constant " + quote(c.name.value))) continue;
    std::optional<Value> v = fold(c.value, "a constant");
    if (!v || !fresh) continue;
    if (v->is_float && !std::isfinite(v->f)) {
      diags_.error(c.value.loc, "constant " + quote(c.name.value) + " is not a finite number");
      continue;
    }
    Constant constant;
    constant.name = c.name.value;
    constant.value = *v;
    constant.text = value_string(*v);
    if (!v->is_float && v->i == std::numeric_limits<std::int64_t>::min())
      constant.text = "(-9223372036854775807 - 1)";
    m_.constants.push_back(constant);
    m_.constant_values[constant.name] = *v;
  }
}

void merge_halo(Halo& into, const Halo& h) {
  if (h.empty()) return;
  bool box = (!into.empty() && into.points.empty()) || h.points.empty();
  for (std::size_t d = 0; d < 3; ++d) {
    into.lo[d] = std::max(into.lo[d], h.lo[d]);
    into.hi[d] = std::max(into.hi[d], h.hi[d]);
  }
  if (box) {
    into.points.clear();
    return;
  }
  for (const auto& p : h.points)
    if (std::find(into.points.begin(), into.points.end(), p) == into.points.end())
      into.points.push_back(p);
  std::sort(into.points.begin(), into.points.end());
}

}  // namespace detail
}  // namespace stepgen::model

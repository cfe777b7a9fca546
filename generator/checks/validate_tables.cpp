// Tables (<table>, YAML `tables`): read-only 1-3D arrays of any size that every device holds
// whole, and the kernel arguments that pass them (<arg table="T"/>).

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

std::string table_size_string(const Table& t) {
  std::string s;
  for (int d = 0; d < t.dims; ++d)
    s += (d ? "x" : "") + std::to_string(t.size[static_cast<std::size_t>(d)]);
  return s;
}

std::string trimmed(const std::string& s, std::size_t& b, std::size_t& e) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  b = 0;
  e = s.size();
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

}  // namespace

std::string Builder::table_hint(const std::string& name, const std::string& cannot) const {
  if (std::find(table_names_.begin(), table_names_.end(), name) == table_names_.end()) return "";
  return quote(name) + " is a table, not an array: a table cannot be " + cannot +
         " (kernels read it whole, through <arg table=\"" + name + "\"/>)";
}

/// One table's declaration: its type, its sizes (and their limits), the warning for a table
/// of the grid's shape; appended to the model. Says which of its type and sizes are valid.
Builder::TableState Builder::declare_table(const spec::Table& t) {
  Table table;
  table.name = t.name.value;
  table.loc = t.name.loc;
  TableState state;
  if (require(t.type, "missing type for table " + quote(table.name))) {
    if (std::optional<ScalarType> type = parse_type(t.type.value)) {
      table.type = *type;
      state.type_ok = true;
    } else {
      diags_.error(t.type.loc, "unknown type " + quote(t.type.value) +
                                   did_you_mean(t.type.value, type_names()));
    }
  }
  if (t.size.empty()) {
    form_error(t.loc, "table " + quote(table.name) +
                          " has no size: expected 1 to 3 sizes, fastest dimension first");
  } else if (t.size.size() > 3) {
    form_error(t.size[3].loc, "table " + quote(table.name) + " has " +
                                  std::to_string(t.size.size()) +
                                  " sizes; tables have 1 to 3 dimensions");
  } else {
    table.dims = static_cast<int>(t.size.size());
    state.size_ok = true;
    for (std::size_t d = 0; d < t.size.size(); ++d) {
      std::optional<std::int64_t> v = constant_int(t.size[d], "the size of a table", 1);
      if (v)
        table.size[d] = *v;
      else
        state.size_ok = false;
    }
    std::int64_t cells = 1;
    bool overflow = false;
    for (std::size_t d = 0; state.size_ok && d < 3; ++d)
      overflow = __builtin_mul_overflow(cells, table.size[d], &cells) || overflow;
    if (state.size_ok && (overflow || cells > kMaxCells)) {
      diags_.error(t.size[0].loc,
                   "table " + quote(table.name) + " has " +
                       (overflow ? std::string("more than 2^63") : std::to_string(cells)) +
                       " elements; stepgen's limit is 2^48");
      state.size_ok = false;
    }
  }
  // A table of the grid's shape is most likely a per-cell coefficient: a table is neither
  // split nor framed, every device holds it whole from index 0, while a kernel indexes its
  // arrays' buffers from their own first cell, so such a table reads wrong values even on
  // one device under a <boundary> frame (guarded by tests/errors/model_table.xml).
  if (state.size_ok && grid_ok_ && table.dims == m_.dims && table.size == m_.domain)
    diags_.warning(t.name.loc,
                   "table " + quote(table.name) +
                       " has the grid's shape: a table is neither split nor framed, every "
                       "device holds it whole from index 0, so a kernel indexing it as its "
                       "arrays (buffer cells) reads other cells; a per-cell coefficient is an "
                       "<array> no launch writes");
  table_names_.push_back(table.name);
  m_.tables.push_back(table);
  return state;
}

/// Table `table`'s init (`t.init`, present; `at`: its position + 1 among the tables): zero,
/// random(seed), value(v), copy(T) of an earlier table of the same type and size, file(path).
void Builder::table_init(const spec::Table& t, Table& table, const TableState& state,
                         std::size_t at) {
  std::size_t b = 0, e = 0;
  const std::string s = trimmed(t.init.value, b, e);
  std::size_t open = s.find('(');
  std::string kind = s.substr(0, open);
  while (!kind.empty() && std::isspace(static_cast<unsigned char>(kind.back()))) kind.pop_back();
  spec::Text arg{"", loc_in(t.init, b), false};
  if (open != std::string::npos) {
    if (s.back() != ')') {
      diags_.error(loc_in(t.init, e), "expected ')' at the end of init " + quote(s));
      return;
    }
    std::size_t ab = open + 1, ae = s.size() - 1;
    while (ab < ae && std::isspace(static_cast<unsigned char>(s[ab]))) ++ab;
    while (ae > ab && std::isspace(static_cast<unsigned char>(s[ae - 1]))) --ae;
    arg = spec::Text{s.substr(ab, ae - ab), loc_in(t.init, b + ab), true};
  }
  const std::vector<std::string> kinds = {"zero", "random", "value", "copy", "file"};
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    std::string hint = did_you_mean(kind, kinds);
    diags_.error(
        loc_in(t.init, b),
        "unknown init " + quote(kind) + " for table " + quote(table.name) +
            (hint.empty() ? "; expected zero, random(seed), value(v), copy(T) or file(path)"
                          : hint));
    return;
  }
  const bool takes = kind != "zero";
  if (takes && (!arg.present || arg.value.empty())) {
    diags_.error(arg.loc, "init " + quote(kind) + " needs an argument: " + kind + "(...)");
    return;
  }
  if (!takes && arg.present) {
    diags_.error(arg.loc, "init " + quote(kind) + " takes no argument");
    return;
  }
  Init& init = table.init;
  if (kind == "zero") {
    init.kind = Init::Kind::kZero;
  } else if (kind == "random") {
    init.kind = Init::Kind::kRandom;
    const std::string& v = arg.value;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), init.seed);
    if (ec != std::errc() || end != v.data() + v.size())
      diags_.error(arg.loc, "random seed must be a non-negative integer, got " + quote(v));
  } else if (kind == "value") {
    init.kind = Init::Kind::kValue;
    init.value = arg.value;
    if (!state.type_ok) return;
    const TypeInfo& ti = type_info(table.type);
    bool ok = false;
    if (ti.is_float) {
      double v = is_decimal_number(init.value) ? std::strtod(init.value.c_str(), nullptr) : NAN;
      double limit = table.type == ScalarType::kFloat ? std::numeric_limits<float>::max()
                                                      : std::numeric_limits<double>::max();
      ok = std::isfinite(v) && std::fabs(v) <= limit;
    } else {
      long double lo = 0, hi = 0;
      integer_range(table.type, lo, hi);
      const std::string& v = init.value;
      std::size_t i = (!v.empty() && (v[0] == '-' || v[0] == '+')) ? 1 : 0;
      ok = i < v.size() && std::all_of(v.begin() + static_cast<std::ptrdiff_t>(i), v.end(),
                                       [](char c) { return std::isdigit(c) != 0; });
      long double x = ok ? std::strtold(v.c_str(), nullptr) : 0;
      ok = ok && x >= lo && x <= hi;
    }
    if (!ok)
      diags_.error(arg.loc, "value " + quote(init.value) + " is not a valid " + ti.name +
                                " for table " + quote(table.name));
  } else if (kind == "copy") {
    init.kind = Init::Kind::kCopy;
    int source = m_.find_table(arg.value);
    if (source < 0) {
      diags_.error(arg.loc, "table " + quote(arg.value) + " is not declared" +
                                (m_.find_array(arg.value) >= 0
                                     ? std::string(" (a table copies a table, not an array)")
                                     : did_you_mean(arg.value, table_names_)));
      return;
    }
    const Table& from = m_.tables[static_cast<std::size_t>(source)];
    if (&from == &table) {
      diags_.error(arg.loc,
                   "table " + quote(table.name) + " cannot be initialised as a copy of itself");
    } else if (source > static_cast<int>(at - 1)) {
      diags_.error(arg.loc, "table " + quote(table.name) + " copies table " + quote(from.name) +
                                ", declared after it: a table copies an earlier table");
    } else if (from.type != table.type || from.dims != table.dims || from.size != table.size) {
      diags_.error(arg.loc, "cannot initialise table " + quote(table.name) + " (" +
                                table_size_string(table) + " " + type_info(table.type).name +
                                ") as a copy of " + quote(from.name) + " (" +
                                table_size_string(from) + " " + type_info(from.type).name +
                                "): their types or sizes differ");
    } else {
      init.source = source;
    }
  } else {
    init.kind = Init::Kind::kFile;
    init.path = arg.value;
    std::string full = resolve(init.path);
    if (std::string problem = spec::file_problem(full); !problem.empty()) {
      diags_.error(arg.loc,
                   "file " + quote(init.path) + " " + problem + " (looked for " + full + ")");
      return;
    }
    if (!state.type_ok || !state.size_ok) return;
    std::error_code ec;
    std::uintmax_t have = std::filesystem::file_size(full, ec);
    std::uintmax_t need = static_cast<std::uintmax_t>(table.elements()) *
                          static_cast<std::uintmax_t>(type_info(table.type).bytes);
    if (!ec && have != need)
      diags_.error(arg.loc, "file " + quote(init.path) + " has " + std::to_string(have) +
                                " bytes but table " + quote(table.name) + " needs " +
                                std::to_string(need) + " (" + table_size_string(table) + " " +
                                type_info(table.type).name + ")");
  }
}

void Builder::build_tables() {
  std::vector<TableState> states;
  for (const spec::Table& t : tree_.tables)
    if (declare(t.name, "table")) states.push_back(declare_table(t));
  // Initial values, as for arrays: zero, value(v), random(seed), copy(T) of a table of the same
  // type and size, file(path) relative to the spec's folder.
  std::size_t at = 0;
  for (const spec::Table& t : tree_.tables) {
    if (at >= m_.tables.size() || m_.tables[at].name != t.name.value) continue;
    ++at;
    if (t.init.present) table_init(t, m_.tables[at - 1], states[at - 1], at);
  }

  for (const Table& t : m_.tables)
    table_sizes_[t.name] = std::vector<std::int64_t>(t.size.begin(), t.size.begin() + t.dims);
}

KernelArg Builder::build_table_arg(const spec::KernelArg& a, const std::string& which,
                                   const Kernel& kernel) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::kTable;
  arg.access = Access::kRead;
  arg.loc = a.loc;
  if (require(a.table, which + " names no table")) {
    arg.table = m_.find_table(a.table.value);
    if (arg.table < 0)
      diags_.error(a.table.loc, "table " + quote(a.table.value) + " is not declared" +
                                    (m_.find_array(a.table.value) >= 0
                                         ? " (" + quote(a.table.value) +
                                               " is an array: pass it as <arg array=\"" +
                                               a.table.value + "\" access=...>)"
                                         : did_you_mean(a.table.value, table_names_)));
  }
  if (a.access.present && a.access.value != "read")
    diags_.error(a.access.loc, "table " + quote(a.table.value) + " in kernel " +
                                   quote(kernel.name) + " has access " + quote(a.access.value) +
                                   ": tables are read-only (access read, or no access)");
  return arg;
}

}  // namespace stepgen::model::detail

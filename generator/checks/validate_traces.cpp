// Sources and receivers: the <inject> and <record> steps of the time loop's body (their array,
// points, value, every and file), checked into Model::body.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "model/groups.hpp"
#include "spec/reader.hpp"

namespace stepgen::model::detail {

namespace {

// The text inside "file(...)", or nullopt when `text` is not of that form.
std::optional<std::string> file_argument(const std::string& text) {
  if (text.size() < 7 || text.compare(0, 5, "file(") != 0 || text.back() != ')')
    return std::nullopt;
  return text.substr(5, text.size() - 6);
}

// True when `e` uses a term that differs between devices (extent, offset, global_extent).
bool uses_array_dims(const Expr& e) {
  if (e.kind == Expr::Kind::kArrayDim) return true;
  return std::any_of(e.args.begin(), e.args.end(), uses_array_dims);
}

// Why an inject value `v` cannot be added to a cell of `array` ("" when it can): T(v) of a
// float beyond float's range is infinite (and the cell then NaN), of an integer beyond the
// type's range undefined.
std::string out_of_range(double v, const Model& m, int array) {
  if (array < 0) return "";
  const ScalarType t = m.arrays[static_cast<std::size_t>(array)].type;
  const TypeInfo& info = type_info(t);
  const std::string what = "is out of range for " +
                           quote(m.arrays[static_cast<std::size_t>(array)].name) + " (" +
                           info.name + ", ";
  if (info.is_float) {
    const double limit = t == ScalarType::kFloat ? std::numeric_limits<float>::max()
                                                 : std::numeric_limits<double>::max();
    return std::fabs(v) <= limit
               ? ""
               : what + "at most " + value_string(Value{true, 0, limit}) + " in magnitude)";
  }
  long double lo = 0, hi = 0;
  integer_range(t, lo, hi);
  const long double x = std::trunc(static_cast<long double>(v));
  return x >= lo && x <= hi ? "" : what + range_string(lo) + " to " + range_string(hi) + ")";
}

}  // namespace

std::vector<std::array<std::int64_t, 3>> Builder::trace_points(const spec::Step& s, int array) {
  std::vector<std::array<std::int64_t, 3>> out;
  const Array& arr = m_.arrays[static_cast<std::size_t>(array)];
  const bool size_ok = array_state_[static_cast<std::size_t>(array)].size_ok;
  const std::string what = s.kind == spec::Step::Kind::kInject ? "inject" : "record";
  // One point: its coordinates checked against the array's extents. `where` names the point in
  // messages; `loc` is where errors about the point as a whole go.
  auto check = [&](const std::vector<std::int64_t>& c, spec::Loc loc, const std::string& where,
                   const std::vector<spec::Loc>* coord_locs) {
    if (static_cast<int>(c.size()) != arr.dims) {
      diags_.error(loc, where + " has " + std::to_string(c.size()) +
                            (c.size() == 1 ? " coordinate" : " coordinates") + " but array " +
                            quote(arr.name) + " has " + std::to_string(arr.dims) +
                            (arr.dims == 1 ? " dimension" : " dimensions"));
      return;
    }
    std::array<std::int64_t, 3> p{0, 0, 0};
    bool ok = true;
    for (std::size_t d = 0; d < c.size(); ++d) {
      p[d] = c[d];
      if (size_ok && (c[d] < 0 || c[d] >= arr.size[d])) {
        diags_.error(coord_locs ? (*coord_locs)[d] : loc,
                     where + " lies outside the grid: coordinate " + std::to_string(d) + " is " +
                         std::to_string(c[d]) + ", expected 0 to " +
                         std::to_string(arr.size[d] - 1) + " (array " + quote(arr.name) + ", " +
                         size_string(array) + ")");
        ok = false;
      }
    }
    if (ok) out.push_back(p);
  };

  if (s.at_file.present) {
    const std::string full = resolve(s.at_file.value);
    if (std::string problem = spec::file_problem(full); !problem.empty()) {
      diags_.error(s.at_file.loc, "points file " + quote(s.at_file.value) + " " + problem +
                                      " (looked for " + full + ")");
      return out;
    }
    std::ifstream in(full);
    if (!in) {
      diags_.error(s.at_file.loc, "cannot read points file " + quote(s.at_file.value) + ": " +
                                      std::strerror(errno) + " (looked for " + full + ")");
      return out;
    }
    // One point a line: integer coordinates separated by blanks or commas; blank lines and
    // lines starting with '#' are skipped. The first bad line is reported, at the spec's `at`.
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      std::size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      std::vector<std::int64_t> c;
      std::string word;
      bool bad = false;
      for (char& ch : line)
        if (ch == ',' || ch == '\t' || ch == '\r') ch = ' ';
      std::istringstream words(line);
      while (words >> word) {
        char* end = nullptr;
        errno = 0;
        long long v = std::strtoll(word.c_str(), &end, 10);
        if (*end != '\0' || errno != 0 ||
            !(std::isdigit(static_cast<unsigned char>(word[0])) || word[0] == '-' ||
              word[0] == '+')) {
          bad = true;
          break;
        }
        c.push_back(v);
      }
      const std::string where = s.at_file.value + ":" + std::to_string(number);
      if (bad) {
        diags_.error(s.at_file.loc,
                     where + ": expected integer coordinates, got " + quote(line.substr(first)));
        return out;
      }
      const std::size_t before = out.size();
      const int errors = diags_.error_count();
      check(c, s.at_file.loc, "point " + where, nullptr);
      if (out.size() == before && diags_.error_count() > errors) return out;  // one is enough
    }
    if (out.empty() && number >= 0)
      diags_.error(s.at_file.loc, "points file " + quote(s.at_file.value) + " holds no point");
    return out;
  }

  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const spec::TracePoint& tp = s.points[i];
    std::vector<std::int64_t> c;
    std::vector<spec::Loc> locs;
    bool ok = true;
    for (const spec::Text& t : tp.coords) {
      std::optional<std::int64_t> v = constant_int(t, "a coordinate of " + what + "'s 'at'",
                                                   std::numeric_limits<std::int64_t>::min());
      if (!v) ok = false;
      c.push_back(v.value_or(0));
      locs.push_back(t.loc);
    }
    if (ok) check(c, tp.loc, "point " + std::to_string(i + 1) + " of 'at'", &locs);
  }
  if (s.points.empty() && s.at.present)
    form_error(s.at.loc, what +
                             " names no point: expected 'at' as x y z (XML: points separated "
                             "by ';') or file(PATH)");
  return out;
}

void Builder::build_trace_step(const spec::Step& s, Step& step) {
  const bool inject = s.kind == spec::Step::Kind::kInject;
  const std::string what = inject ? "inject" : "record";
  step.kind = inject ? Step::Kind::kInject : Step::Kind::kRecord;
  int array = -1;
  if (s.arrays.empty() || !require(s.arrays.front(), what + " names no array")) {
  } else {
    const spec::Text& name = s.arrays.front();
    array = m_.find_array(name.value);
    if (array < 0) {
      diags_.error(name.loc, "array " + quote(name.value) + " is not declared" +
                                 did_you_mean(name.value, array_names_));
    } else {
      const Array& arr = m_.arrays[static_cast<std::size_t>(array)];
      const ArrayState& st = array_state_[static_cast<std::size_t>(array)];
      if (st.size_ok && grid_ok_ && (arr.dims != m_.dims || arr.size != m_.domain)) {
        diags_.error(name.loc, what + " of array " + quote(arr.name) + " (" + size_string(array) +
                                   "): only arrays of the grid's shape are split over the "
                                   "devices, and " +
                                   what + " needs one");
        array = -1;
      } else {
        step.arrays = {array};
      }
    }
  }
  if (array >= 0 && (s.at.present || s.at_file.present)) {
    step.points = trace_points(s, array);
    if (inject && step.points.size() > 1)
      diags_.error(s.at.loc, "inject takes one point, got " + std::to_string(step.points.size()) +
                                 " (write one inject per source)");
  } else if (!s.at.present && !s.at_file.present) {
    form_error(s.loc, what + " needs 'at': the point(s) it " + (inject ? "adds to" : "samples"));
  }

  if (inject) {
    if (!require(s.value, "inject needs a value: an expression of step, or file(PATH)")) return;
    if (std::optional<std::string> path = file_argument(s.value.value)) {
      step.value_file = *path;
      const std::string full = resolve(*path);
      if (std::string problem = spec::file_problem(full); !problem.empty()) {
        diags_.error(s.value.loc,
                     "value file " + quote(*path) + " " + problem + " (looked for " + full + ")");
        return;
      }
      std::ifstream in(full, std::ios::binary);
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        diags_.error(s.value.loc, "cannot read value file " + quote(*path));
        return;
      }
      if (bytes.size() % sizeof(double) != 0) {
        diags_.error(s.value.loc, "value file " + quote(*path) + " has " +
                                      std::to_string(bytes.size()) +
                                      " bytes, not a whole number of float64 values (8 bytes "
                                      "each, one per step)");
        return;
      }
      step.values.resize(bytes.size() / sizeof(double));
      if (!bytes.empty()) std::memcpy(step.values.data(), bytes.data(), bytes.size());
      if (static_cast<std::int64_t>(step.values.size()) < m_.steps) {
        diags_.error(s.value.loc, "value file " + quote(*path) + " holds " +
                                      std::to_string(step.values.size()) +
                                      " values but the loop runs " + std::to_string(m_.steps) +
                                      " steps: expected one float64 value per step");
        return;
      }
      for (std::size_t i = 0; i < step.values.size(); ++i)
        if (!std::isfinite(step.values[i])) {
          diags_.error(s.value.loc, "value file " + quote(*path) + ": value " + std::to_string(i) +
                                        " (step " + std::to_string(i) + ") is not a finite number");
          return;
        } else if (const std::string range = out_of_range(step.values[i], m_, array);
                   !range.empty()) {
          diags_.error(s.value.loc, "value file " + quote(*path) + ": value " + std::to_string(i) +
                                        " (step " + std::to_string(i) + ") " + range);
          return;
        }
      return;
    }
    if (std::optional<Expr> e = parse(s.value, true, "an inject value")) {
      if (uses_array_dims(*e))
        diags_.error(s.value.loc,
                     "an inject value may use step and constants, not extent, offset or "
                     "global_extent (it is computed once per step on the host)");
      else
        step.value = *e;
    }
    return;
  }

  step.every = 1;
  if (s.every.present)
    if (std::optional<std::int64_t> v = plain_int(s.every, "record every", 1, {})) step.every = *v;
  if (require(s.file, "record needs a file: the trace file it writes (.csv or .h5)")) {
    const std::string& f = s.file.value;
    std::string ext = std::filesystem::path(f).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext != ".csv" && ext != ".h5" && ext != ".hdf5")
      diags_.error(s.file.loc, "record file " + quote(f) +
                                   ": traces are written as CSV or HDF5; expected a name ending "
                                   "in .csv or .h5");
    else if (f.find('"') != std::string::npos || f.find('\\') != std::string::npos)
      diags_.error(s.file.loc, "record file " + quote(f) + " may not hold '\"' or '\\'");
    else
      step.file = f;
  }
}

void Builder::check_trace_steps() {
  // An inject must change an array the program keeps: one some launch writes (or of a
  // swap/rotate group one is written in); a read-only array is not gathered, exchanged or stored
  // back out of core, so the added value would be lost or differ between modes.
  std::set<int> written;
  for (const Step& s : m_.body) {
    if (s.kind != Step::Kind::kLaunch || s.kernel < 0) continue;
    for (const KernelArg& a : m_.kernels[static_cast<std::size_t>(s.kernel)].args)
      if (a.kind == KernelArg::Kind::kArray && a.array >= 0 && a.access != Access::kRead)
        written.insert(a.array);
  }
  for (std::size_t i = 0; i < m_.body.size(); ++i) {
    const Step& s = m_.body[i];
    const spec::Step& src = tree_.iterate.body[i];
    if (s.kind != Step::Kind::kInject || s.arrays.empty()) continue;
    bool ok = false;
    for (int a : array_group(m_, s.arrays.front())) ok = ok || written.count(a) > 0;
    if (!ok)
      diags_.error(src.arrays.front().loc,
                   "inject into array " +
                       quote(m_.arrays[static_cast<std::size_t>(s.arrays.front())].name) +
                       ", which no launch writes: the program keeps only the values of written "
                       "arrays (inject into the array a kernel updates)");
  }
}

}  // namespace stepgen::model::detail

// <boundary>: the frames of ghost cells beyond the grid's edge (docs/spec.md, "Boundaries").

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "model/groups.hpp"
#include "model/overlap.hpp"

namespace stepgen::model::detail {

namespace {

const char* const kKinds = "periodic, value(v), mirror or copy";

// What a boundary value `v` (a decimal number) must be to fill an array of type `t` as
// written: a float or double it does not overflow, an integer in the type's range (no
// fraction: 1.5 would be cut to 1, -1 wrapped to 255 in a uchar). "" when it fits.
std::string value_misfit(const std::string& v, ScalarType t) {
  const TypeInfo& info = type_info(t);
  if (info.is_float) {
    errno = 0;
    const double x = std::strtod(v.c_str(), nullptr);
    const double limit = t == ScalarType::kFloat ? std::numeric_limits<float>::max()
                                                 : std::numeric_limits<double>::max();
    const bool fits = !(errno == ERANGE && std::fabs(x) > 1) && std::fabs(x) <= limit;
    return fits ? "" : "a number of magnitude at most " + value_string(Value{true, 0, limit});
  }
  long double lo = 0, hi = 0;
  integer_range(t, lo, hi);
  const std::string range = "an integer from " + range_string(lo) + " to " + range_string(hi);
  std::size_t i = v[0] == '-' || v[0] == '+' ? 1 : 0;
  for (std::size_t j = i; j < v.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(v[j]))) return range;
  const long double x = std::strtold(v.c_str(), nullptr);
  return x < lo || x > hi ? range : "";
}

int dim_index(const std::string& name) {
  if (name == "x") return 0;
  if (name == "y") return 1;
  if (name == "z") return 2;
  return -1;
}

const char* dim_name(int d) {
  return d == 0 ? "x" : d == 1 ? "y" : "z";
}

}  // namespace

void Builder::build_boundaries() {
  if (tree_.boundaries.empty() || !grid_ok_) return;
  // Which <boundary> first gave each (array, dimension): two on one are an error.
  std::map<std::pair<int, int>, std::size_t> given;
  for (std::size_t index = 0; index < tree_.boundaries.size(); ++index) {
    const spec::Boundary& sb = tree_.boundaries[index];
    Boundary b;
    b.loc = sb.loc;
    BoundaryDims dims;
    bool ok = boundary_kind(sb, b);
    ok = boundary_dims(sb, b, dims) && ok;
    ok = boundary_arrays(sb, index, dims, given, b) && ok;
    if (ok && b.kind != Boundary::Kind::kPeriodic && m_.exchange_every > 1)
      diags_.error(sb.kind.loc, "boundary kind " + quote(sb.kind.value) +
                                    " cannot be used with deep halos (<exchange every=\"" +
                                    std::to_string(m_.exchange_every) +
                                    "\">): the kernels would compute its frame between exchanges; "
                                    "only periodic boundaries can");
    if (ok) m_.boundaries.push_back(std::move(b));
  }
  if (diags_.has_errors()) return;
  check_boundary_launches();
  check_boundary_cover();
}

bool Builder::boundary_kind(const spec::Boundary& sb, Boundary& b) {
  bool ok = true;
  if (require(sb.kind, std::string("missing kind: expected ") + kKinds)) {
    const std::string& k = sb.kind.value;
    if (k == "periodic") {
      b.kind = Boundary::Kind::kPeriodic;
    } else if (k == "mirror") {
      b.kind = Boundary::Kind::kMirror;
    } else if (k == "copy") {
      b.kind = Boundary::Kind::kCopy;
    } else if (k.rfind("value(", 0) == 0 && k.size() > 7 && k.back() == ')') {
      b.kind = Boundary::Kind::kValue;
      std::string v = k.substr(6, k.size() - 7);
      v.erase(0, v.find_first_not_of(' '));
      v.erase(v.find_last_not_of(' ') + 1);
      if (!is_decimal_number(v)) {
        diags_.error(loc_in(sb.kind, 6),
                     "value(v) needs a decimal number, got " + quote(v) + " in " + quote(k));
        ok = false;
      }
      b.value = v;
    } else {
      diags_.error(sb.kind.loc, "unknown boundary kind " + quote(k) + ": expected " + kKinds);
      ok = false;
    }
  } else {
    ok = false;
  }

  return ok;
}

bool Builder::boundary_dims(const spec::Boundary& sb, Boundary& b, BoundaryDims& dims) {
  bool ok = true;
  if (sb.dims.empty()) {
    form_error(sb.loc, "<boundary> names no dimension: expected dims such as \"x y\"");
    ok = false;
  }
  for (const spec::Text& t : sb.dims) {
    const int d = dim_index(t.value);
    if (d < 0) {
      diags_.error(t.loc,
                   "unknown dimension " + quote(t.value) + " in <boundary>: expected x, y or z");
      ok = false;
    } else if (d >= m_.dims) {
      diags_.error(t.loc, "dimension " + quote(t.value) + " is beyond the grid's " +
                              std::to_string(m_.dims) + " dimension" + (m_.dims == 1 ? "" : "s") +
                              " (" +
                              std::string(m_.dims == 1   ? "x"
                                          : m_.dims == 2 ? "x y"
                                                         : "x y z") +
                              ")");
      ok = false;
    } else {
      b.dims[static_cast<std::size_t>(d)] = true;
      dims.push_back({d, &t});
    }
  }

  return ok;
}

// The arrays: each names its swap/rotate group; a value must fit each array's type.
bool Builder::boundary_arrays(const spec::Boundary& sb, std::size_t index, const BoundaryDims& dims,
                              std::map<std::pair<int, int>, std::size_t>& given, Boundary& b) {
  bool ok = true;
  if (sb.arrays.empty()) {
    form_error(sb.loc, "<boundary> names no array: expected arrays such as \"U V\"");
    ok = false;
  }
  for (const spec::Text& t : sb.arrays) {
    const int a = m_.find_array(t.value);
    if (a < 0) {
      diags_.error(t.loc, "unknown array " + quote(t.value) + " in <boundary>");
      ok = false;
      continue;
    }
    const std::vector<int> group = array_group(m_, a);
    const bool halo = std::any_of(group.begin(), group.end(), [&](int g) {
      return !m_.arrays[static_cast<std::size_t>(g)].read_halo.empty();
    });
    if (!halo) {
      diags_.error(t.loc,
                   "array " + quote(t.value) +
                       (group.size() > 1 ? " (nor any member of its swap/rotate group)" : "") +
                       " is read with a halo by no launch: a boundary would fill "
                       "cells no kernel reads");
      ok = false;
      continue;
    }
    for (int g : group) {
      if (std::find(b.arrays.begin(), b.arrays.end(), g) != b.arrays.end()) continue;
      b.arrays.push_back(g);
    }
    for (const auto& [d, text] : dims)
      for (int g : group) {
        auto it = given.find({g, d});
        if (it == given.end()) {
          given.emplace(std::make_pair(g, d), index);
        } else if (it->second != index) {
          const std::string& owner = m_.arrays[static_cast<std::size_t>(g)].name;
          const std::string who = g == a
                                      ? "array " + quote(owner)
                                      : "array " + quote(t.value) +
                                            " (in one swap/rotate group with " + quote(owner) + ")";
          diags_.error(text->loc, who + " has a boundary along " + dim_name(d) +
                                      " already (the <boundary> of line " +
                                      std::to_string(tree_.boundaries[it->second].loc.line) +
                                      "): give one boundary per array and dimension");
          ok = false;
          break;
        }
      }
  }
  std::sort(b.arrays.begin(), b.arrays.end());
  if (b.kind == Boundary::Kind::kValue && is_decimal_number(b.value))
    for (int a : b.arrays) {
      const Array& arr = m_.arrays[static_cast<std::size_t>(a)];
      const std::string expected = value_misfit(b.value, arr.type);
      if (expected.empty()) continue;
      diags_.error(loc_in(sb.kind, sb.kind.value.find(b.value)),
                   "value(" + b.value + ") is not a valid " + type_info(arr.type).name +
                       " for array " + quote(arr.name) + ": expected " + expected);
      ok = false;
      break;
    }

  return ok;
}

void Builder::check_boundary_launches() {
  // A launch must follow its buffer's extent along a boundary dimension: the buffer of a part
  // at the grid's edge holds the frame, which a launch over the grid's size would not cover.
  for (std::size_t k = 0; k < m_.kernels.size(); ++k) {
    if (!kernel_state_[k].launched) continue;
    for (int d = 0; d < m_.dims; ++d) {
      const bool framed =
          std::any_of(m_.boundaries.begin(), m_.boundaries.end(),
                      [&](const Boundary& b) { return b.dims[static_cast<std::size_t>(d)]; });
      if (!framed || follows_extent(m_, m_.kernels[k], d)) continue;
      diags_.error(m_.kernels[k].loc,
                   "kernel " + quote(m_.kernels[k].name) +
                       ": its launch does not follow its "
                       "buffer's extent along " +
                       dim_name(d) + " (a global size of extent(X, " + std::to_string(d) +
                       ") and an argument giving that extent): with a "
                       "<boundary> along " +
                       dim_name(d) +
                       " the buffer holds a frame past the "
                       "grid's edge, which a launch over the grid's size would miss");
      break;
    }
  }
}

void Builder::check_boundary_cover() {
  // Every array read with a halo along a boundary dimension needs a boundary there too: the
  // frame is the grid's (every buffer has it), and a kernel computing an edge cell would read
  // the frame of that array, which nothing fills.
  for (int d = 0; d < m_.dims; ++d) {
    const Boundary* first = nullptr;
    for (const Boundary& b : m_.boundaries)
      if (b.dims[static_cast<std::size_t>(d)]) {
        first = &b;
        break;
      }
    if (!first) continue;
    const auto u = static_cast<std::size_t>(d);
    for (std::size_t i = 0; i < m_.arrays.size(); ++i) {
      const Halo& h = m_.arrays[i].read_halo;
      if (h.lo[u] == 0 && h.hi[u] == 0) continue;
      bool has = false;
      for (const Boundary& b : m_.boundaries)
        has = has || (b.dims[u] && std::find(b.arrays.begin(), b.arrays.end(),
                                             static_cast<int>(i)) != b.arrays.end());
      if (!has)
        diags_.error(first->loc, "array " + quote(m_.arrays[i].name) +
                                     " is read with a halo along " + dim_name(d) +
                                     " but has no boundary along " + dim_name(d) +
                                     ": kernels computing the cells at the grid's edge would read "
                                     "its frame, which nothing fills; give it a <boundary> along " +
                                     dim_name(d) + " too");
    }
  }
}

}  // namespace stepgen::model::detail

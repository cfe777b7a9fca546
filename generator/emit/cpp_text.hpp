#pragma once
/// \file
/// C++ text for the view model: the one writer of fragments (fill, with named substitutions)
/// and the few shapes every part of the view prints (lists, points, halos, the spec's
/// expressions, string literals). Templates get values; the fragments they cannot say in
/// Mustache are written here, never glued together where they are used.

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "model/expr.hpp"
#include "model/model.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::emit::cpp {

/// One named substitution: `{name}` in a pattern becomes `value`.
struct Sub {
  std::string_view name;
  std::string value;
};

/// `pattern` with each `{name}` replaced by its substitution's value; `{{` and `}}` stand for
/// a literal brace. A name in the pattern without a substitution, or a substitution the
/// pattern never names, is an internal EmitError naming it and the pattern.
std::string fill(std::string_view pattern, std::initializer_list<Sub> subs);

/// The items joined with `sep`.
std::string join(const std::vector<std::string>& items, const std::string& sep);
/// `{a, b, c}`: the items as a braced list.
std::string braced(const std::vector<std::string>& items);
/// `{x, y, z}`.
std::string vec3(const rt::Vec3& v);
/// The halo as rt::Halo::from_widths(...) or rt::Halo::from_points(...).
std::string halo(const rt::Halo& h);
/// An expression of the spec as C++ in the generated program, where `extent`, `offset` and
/// `global_extent` are functions of (array, dim) and `step` is in scope.
std::string expr(const model::Model& m, const model::Expr& e);
/// `s` as the inside of a C++ string literal.
std::string escape(const std::string& s);
/// `s` as a C++ string literal, quotes included.
std::string literal(const std::string& s);
/// `array::NAME` of array `a`.
std::string array_id(const model::Model& m, int a);
/// The spec's folder, absolute: where the generated program reads file() initial values.
std::string spec_dir_abs(const model::Model& m);

}  // namespace stepgen::emit::cpp

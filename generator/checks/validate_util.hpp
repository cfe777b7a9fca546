#pragma once
/// \file
/// Private helpers shared by expr.cpp and the model's validation (not part of the model's
/// interface): positions inside a spec value, and the rules for names.

#include <cstddef>
#include <string>

#include "model/model.hpp"
#include "spec/spec_tree.hpp"

namespace stepgen::model::detail {

/// The position of the character at `offset` inside `text`'s value. Values that span lines
/// (YAML block scalars, XML text) move to the next line at each line end (LineIndex). Costs a
/// pass over the value: for many positions in one value, keep a LineIndex of it.
spec::Loc loc_in(const spec::Text& text, std::size_t offset);

/// The range of integer type `t`, as long double so that ulong's top fits.
void integer_range(ScalarType t, long double& lo, long double& hi);

/// An integer bound of integer_range as text.
std::string range_string(long double v);

/// True for letters, digits and '_' not starting with a digit.
bool is_identifier(const std::string& name);

/// True for the keywords of C, C++ and OpenCL C, and OpenCL C's built-in type names (uint,
/// float4, ...): names the generated host code or kernels could not declare.
bool is_keyword(const std::string& name);

/// True for the built-in functions of OpenCL C (mix, clamp, dot, get_global_id, vload4, ...):
/// an OpenCL kernel cannot take their names.
bool is_opencl_builtin(const std::string& name);

/// True for the names the expression language gives a meaning (step, min, extent, ...).
bool is_reserved_by_expressions(const std::string& name);

/// True for object-like macros of the C and C++ headers a generated program includes (NULL,
/// EOF, errno, M_PI, INT_MAX, ...): a spec name spelled so would be replaced in its code.
bool is_system_macro(const std::string& name);

/// True for the target names CMake reserves (all, clean, help, install, test, ...).
bool is_reserved_by_cmake(const std::string& name);

/// True for a C decimal literal without suffix: [+-]digits[.digits][e[+-]digits] or a
/// fraction alone (".5"). strtod alone would also take "inf", "nan" and hexadecimal.
bool is_decimal_number(const std::string& s);

/// `value` quoted for a message: 'value'.
std::string quote(const std::string& value);

}  // namespace stepgen::model::detail

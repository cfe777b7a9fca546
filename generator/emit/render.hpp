#pragma once
/// \file
/// Strict Mustache rendering (kainjow/mustache): no HTML escaping, and a key missing from the
/// view model is an error naming the template and the key, never an empty string.

#include <kainjow/mustache.hpp>
#include <string>

namespace stepgen::emit {

using View = kainjow::mustache::data;

/// Renders the embedded template at `path` (e.g. "templates/opencl/host.cpp.mustache").
/// Throws EmitError on a template syntax error or a missing key.
std::string render(const std::string& path, const View& view);

/// "true"/"false" as Mustache sections understand them.
inline View flag(bool b) { return b ? View(View::type::bool_true) : View(View::type::bool_false); }

}  // namespace stepgen::emit

#pragma once
/// \file
/// Strict Mustache rendering (kainjow/mustache): no HTML escaping, and a key missing from the
/// view model is an error naming the template (file:line) and the key, never an empty string.
/// Templates come from the set built into stepgen or from a folder of custom templates
/// (`stepgen templates export DIR`, then `stepgen generate --templates DIR`).

#include <kainjow/mustache.hpp>
#include <map>
#include <string>
#include <vector>

namespace stepgen::emit {

using View = kainjow::mustache::data;

/// The templates one generation uses: the built-in ones, or a folder laid out like the
/// repository's templates/ folder ("opencl/host.cpp.mustache", "common/...").
class TemplateSet {
 public:
  /// The templates built into stepgen.
  TemplateSet() = default;
  /// The templates under `dir`. Throws EmitError when `dir` is not a folder.
  static TemplateSet from_folder(const std::string& dir);

  /// The text of `path` ("templates/opencl/host.cpp.mustache"). Throws EmitError naming the
  /// file when the set has no such template.
  const std::string& text(const std::string& path) const;
  /// How errors name `path`: the file in the custom folder, or the built-in path.
  std::string display_name(const std::string& path) const;
  /// Every template of the set by path ("templates/..."), sorted.
  const std::map<std::string, std::string>& files() const;
  /// True for a folder of custom templates.
  bool custom() const { return !dir_.empty(); }

 private:
  std::string dir_;
  std::map<std::string, std::string> files_;  // custom templates only
};

/// Renders the template at `path` (e.g. "templates/opencl/host.cpp.mustache") of `set`. Throws
/// EmitError on a template syntax error or a missing key, naming file:line.
std::string render(const TemplateSet& set, const std::string& path, const View& view);

/// Writes every built-in template under `dir` (as "opencl/host.cpp.mustache", ...), creating
/// folders as needed; never overwrites a file that exists. Returns the files written, relative
/// to `dir`. Throws EmitError when a file exists or cannot be written.
std::vector<std::string> export_templates(const std::string& dir);

/// "true"/"false" as Mustache sections understand them.
inline View flag(bool b) {
  return b ? View(View::type::bool_true) : View(View::type::bool_false);
}

}  // namespace stepgen::emit

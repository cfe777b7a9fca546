#pragma once
/// \file
/// Where a generated tree comes from: the spec (named relative to the output folder), a hash of
/// the spec and the templates, the backend. Every generated file's header names them, so the
/// same inputs give the same bytes on any machine and in any folder.

#include <string>
#include <vector>

#include "emit/emitter.hpp"
#include "emit/output.hpp"
#include "emit/render.hpp"
#include "model/model.hpp"

namespace stepgen::emit {

/// What the header of every generated file says.
struct Provenance {
  std::string spec;    ///< the spec's path from the output folder, '/' separated, never absolute
  std::string hash;    ///< 16 hex digits of the hash of the spec's bytes and the template set
  std::string target;  ///< the backend ("" when unknown)
};

/// How one generation runs.
struct GenerateOptions {
  std::string
      output_dir;  ///< where the tree goes ("" = unknown: the spec is named by its file name)
  TemplateSet templates;  ///< built-in unless --templates
};

/// Runs `emitter` for `model` with the options' templates and provenance. Throws EmitError.
OutputSet generate_files(const model::Model& model, const Emitter& emitter,
                         const GenerateOptions& options);

/// The provenance of the running generate_files(), or a default one built from `m` alone (spec
/// by file name, hash of its bytes and the active templates) for callers that run an emitter
/// directly.
Provenance current_provenance(const model::Model& m);

/// The spec's path relative to `output_dir`, or its file name when `output_dir` is empty or the
/// two share no folder below the file-system root (a path through / would name the machine).
std::string spec_path_from(const std::string& spec_path, const std::string& output_dir);

/// The files a generation reads besides the stepgen program: the spec and the kernel sources
/// (as paths usable from the current folder) and, with custom templates, every template file.
std::vector<std::string> generation_inputs(const model::Model& model,
                                           const GenerateOptions& options);

}  // namespace stepgen::emit

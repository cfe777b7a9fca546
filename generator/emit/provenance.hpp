#pragma once
/// \file
/// One generation: the provenance every generated file's header names (emit/emitter.hpp's
/// Provenance), the program plan for the backend, and the emitter run over them.

#include <optional>
#include <string>
#include <vector>

#include "emit/emitter.hpp"
#include "emit/output.hpp"
#include "emit/render.hpp"
#include "model/model.hpp"

namespace stepgen::emit {

/// How one generation runs.
struct GenerateOptions {
  std::string
      output_dir;  ///< where the tree goes ("" = unknown: the spec is named by its file name)
  TemplateSet templates;  ///< built-in unless --templates
  /// One rank per device (MPI): none = the spec's <distribution> (--distribution overrides it).
  std::optional<bool> mpi;
};

/// Builds the program plan of `model` for `emitter`'s backend and runs the emitter with the
/// options' templates and provenance. Throws EmitError.
OutputSet generate_files(const model::Model& model, const Emitter& emitter,
                         const GenerateOptions& options);

/// The spec's path relative to `output_dir`, or its file name when `output_dir` is empty or the
/// two share no folder below the file-system root (a path through / would name the machine).
std::string spec_path_from(const std::string& spec_path, const std::string& output_dir);

/// The files a generation reads besides the stepgen program: the spec and the kernel sources
/// (as paths usable from the current folder) and, with custom templates, every template file.
std::vector<std::string> generation_inputs(const model::Model& model,
                                           const GenerateOptions& options);

}  // namespace stepgen::emit

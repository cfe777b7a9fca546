#pragma once
/// \file
/// One emitter per backend behind one small interface.

#include <memory>
#include <string>
#include <vector>

#include "emit/output.hpp"
#include "emit/render.hpp"
#include "model/model.hpp"
#include "plan/program_plan.hpp"

namespace stepgen::emit {

/// Where a generated tree comes from: the spec (named relative to the output folder), a hash of
/// the spec and the templates, the backend. Every generated file's header names them, so the
/// same inputs give the same bytes on any machine and in any folder.
struct Provenance {
  std::string spec;    ///< the spec's path from the output folder, '/' separated, never absolute
  std::string hash;    ///< 16 hex digits of the hash of the spec's bytes and the template set
  std::string target;  ///< the backend ("" when unknown)
};

/// Everything an emitter reads for one generation (emit::generate_files builds it).
struct EmitInput {
  const model::ProgramPlan& plan;  ///< built for this emitter's caps(); plan.model is the Model
  const Provenance& provenance;
  const TemplateSet& templates;
};

class Emitter {
 public:
  virtual ~Emitter() = default;
  /// The --target name: "opencl", "cuda".
  virtual const char* name() const = 0;
  /// What the backend can do, for the program plan.
  virtual model::BackendCaps caps() const = 0;
  /// Renders the whole generated tree into `out`. Throws EmitError.
  virtual void emit(const EmitInput& in, OutputSet& out) const = 0;
};

/// The emitter for `target`, or nullptr when there is none.
std::unique_ptr<Emitter> make_emitter(const std::string& target);
/// Every target, sorted.
std::vector<std::string> emitter_names();

}  // namespace stepgen::emit

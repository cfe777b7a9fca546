#pragma once
/// \file
/// One emitter per backend behind one small interface.

#include <memory>
#include <string>
#include <vector>

#include "emit/output.hpp"
#include "model/model.hpp"

namespace stepgen::emit {

class Emitter {
 public:
  virtual ~Emitter() = default;
  /// The --target name: "opencl", "cuda".
  virtual const char* name() const = 0;
  /// Renders the whole generated tree into `out`. Throws EmitError.
  virtual void emit(const model::Model& model, OutputSet& out) const = 0;
};

/// The emitter for `target`, or nullptr when there is none.
std::unique_ptr<Emitter> make_emitter(const std::string& target);
/// Every target, sorted.
std::vector<std::string> emitter_names();

}  // namespace stepgen::emit

#pragma once
/// \file
/// `stepgen dump [--stage spec|model|plan|all] SPEC`: what each stage of the generator made of a
/// spec, in order (Halide's lowering log is the model): the reader's tree with every value's
/// line:col, the validated model, the ProgramPlan the emitters read.

#include <iosfwd>
#include <string>

namespace stepgen::cli {

struct DumpRequest {
  std::string stage = "all";  ///< spec | model | plan | all
  std::string target = "opencl";
  std::string distribution;  ///< "none" or "mpi" overrides the spec's; "" = the spec's
};

/// Prints the stages up to `request.stage`; stops at the first with errors (printed to `err`).
int dump(const std::string& spec_path, const DumpRequest& request, std::ostream& out,
         std::ostream& err);

}  // namespace stepgen::cli

#pragma once
/// \file
/// `stepgen dump --stage model|plan`: the validated Model (names resolved to indices, constants
/// evaluated, defaults filled in) and the ProgramPlan built from it for one backend (groups,
/// exchanges, halos and ghost widths, each kernel's decisions and the loop's actions in order),
/// as text a reader can diff between two specs or two versions of stepgen.

#include <string>

#include "model/model.hpp"
#include "plan/program_plan.hpp"

namespace stepgen::model {

std::string dump_model(const Model& m);
std::string dump_plan(const ProgramPlan& p);

}  // namespace stepgen::model

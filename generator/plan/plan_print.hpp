#pragma once
/// \file
/// The three views of a plan that `stepgen plan` prints: a text report, deterministic JSON and
/// an SVG picture. They only read the program plan and the partition plan.

#include <string>

#include "plan/plan.hpp"
#include "plan/program_plan.hpp"

namespace stepgen::model {

/// A table per part (owned, ghost, buffer bytes, neighbours, bytes per step) and totals; out of
/// core also each part's chunk table and per-pass bytes with and without region sharing.
std::string plan_text(const ProgramPlan& pp, const Plan& p);

/// The plan as deterministic JSON (boxes as {"lo":[...],"hi":[...]}, hi exclusive).
std::string plan_json(const ProgramPlan& pp, const Plan& p);

/// A picture of the plan: parts in colours, ghost zones hatched, exchanged regions outlined,
/// chunk boundaries out of core. 2D: x across, y down; 3D: the x-z section through the middle
/// of y; 1D: a strip. About 800 pixels wide; deterministic.
std::string plan_svg(const ProgramPlan& pp, const Plan& p);

}  // namespace stepgen::model

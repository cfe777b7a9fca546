#pragma once
/// \file
/// The parts of the shared view model, one file an entity (view.cpp joins them in
/// common_view): the arrays and tables, the I/O, the kernels and the time loop.

#include "emit/render.hpp"
#include "emit/view.hpp"
#include "model/model.hpp"
#include "plan/program_plan.hpp"

namespace stepgen::emit::view_parts {

/// view_arrays.cpp: the arrays (names, types, flags, halos, initial values on the host and on
/// the devices) and the spec's tables (<table>).
void arrays(const model::ProgramPlan& plan, View& v);
void tables(const model::Model& m, View& v);

/// view_io.cpp: the generated rt::IoSpec (outputs, checkpoint, the spec's hash and folder, the
/// arrays' types, the files read) and whether the program needs HDF5.
void io(const model::Model& m, View& v);

/// view_kernels.cpp: the kernels (their arguments, global and local sizes, probe entries,
/// tuned shapes).
void kernels(const model::ProgramPlan& plan, const BackendNames& names, View& v);

/// view_loop.cpp: the time-loop body (launches, exchanges, swaps, sources and receivers,
/// reductions) and the tables of the reductions, sources and receivers.
void loop(const model::ProgramPlan& plan, View& v);

}  // namespace stepgen::emit::view_parts

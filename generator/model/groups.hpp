#pragma once
/// \file
/// Arrays linked by swap/rotate share their buffers over time, so they share a "group": the
/// facts that decide exchanges and results are facts of the group, not of one name.

#include <vector>

#include "model/model.hpp"

namespace stepgen::model {

/// Indices of the arrays in `array`'s swap/rotate group (itself included), ascending.
std::vector<int> array_group(const Model& m, int array);

/// True when some launch writes an array of the group: the array's final contents are results
/// (gathered, saved, compared by --verify).
bool holds_results(const Model& m, int array);

/// True when the array's ghost cells must be refreshed between devices: its group holds results
/// and, exchanging every step, some member is read with a halo. With deep halos (every > 1),
/// every result array is refreshed, since kernels compute on ghost cells in between.
bool needs_exchange(const Model& m, int array);

}  // namespace stepgen::model

#pragma once
/// \file
/// Whether a launch's exchange can overlap computation. The generated programs then run the
/// kernel on slabs of each part's buffer along the slowest dimension: first the slabs other
/// parts read, whose exchange starts at once, then the interior beside it. A kernel runs on a
/// slab as on a smaller buffer (CUDA: pointers advanced, extent()/offset() the slab's) or over
/// part of its work-items (OpenCL: global_work_offset), so both need the kernel to learn its
/// buffer's extent from its arguments, and the second one work-item per cell. These are facts
/// of one kernel; whether a launch overlaps its exchange is decided once, from them, by the
/// program plan (plan/program_plan.hpp).

#include <cstdint>
#include <string>

#include "model/model.hpp"

namespace stepgen::model {

/// Why kernel `k` cannot run on a slab of its buffer along the slowest dimension; empty when
/// it can: its launch's global size there and some argument follow extent(X, d).
std::string view_obstacle(const Model& m, const Kernel& k);

/// True when `k`'s launch follows its buffer's extent along dimension `d`: its global size
/// there uses extent(X, d) and some scalar argument gives the kernel that extent, so it runs
/// on a smaller buffer of that extent as on the whole grid (the kernel probe's small box).
bool follows_extent(const Model& m, const Kernel& k, int d);

/// True when `e` uses extent(X, dim) of some array.
bool uses_extent(const Expr& e, int dim);

/// True when `k`'s global size along the slowest dimension is extent(X, d) or
/// round_up(extent(X, d), c): work-item i there computes cell i, so a range of work-items is
/// a slab of cells.
bool one_item_per_cell(const Model& m, const Kernel& k);

/// How many cells along dimension `d` one work-item of `k` computes, as its global size says:
/// `c` for extent(X, d) / c, a constant c > 1, anywhere in the global size (a kernel that reads
/// its array through float4 pointers, one work-item per 4 cells), else 1. A rounded-up
/// division, (extent(X, d) + c - 1) / c, is not one: such a kernel guards its partial group.
/// Such a kernel assumes its buffer's extent there is a multiple of c, as the grid's is: the
/// parts must be cut at multiples of c (plan/plan.hpp: granule), and no slab of any other
/// plane count may be cut along the slowest dimension (view_obstacle).
std::int64_t cells_per_item(const Model& m, const Kernel& k, int d);

/// Whether a scalar argument of the kernel is an expression of `step`: the probe then runs it at
/// steps spread over the run (rt::ProbeKernel::uses_step), since its writes may move.
bool scalars_use_step(const Kernel& k);

}  // namespace stepgen::model

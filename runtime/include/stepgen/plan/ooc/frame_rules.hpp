#pragma once
/// \file
/// Out of core, what the <boundary> frames allow (frame_request: how far a pass's reach goes
/// past the grid's edge, which frames the chunks refill, when a pass is one step, when out of
/// core is refused) and where they lie (past_the_edge); the program composes them on the host
/// (ooc/frames.hpp). Standard library only: `stepgen plan` asks the same questions.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/schedule.hpp"

namespace stepgen::rt::ooc {

/// The rules of the <boundary> frames (boundary.hpp) for the runner (Share::frames).
struct FrameRules {
  const BoundaryRule* rules = nullptr;
  int count = 0;
};

/// How each dimension's <boundary> frame is kept through a pass (Request::frame,
/// frame_refilled, periodic_refilled, max_steps_per_pass), from the rules and the request's
/// grid, parts and arrays (`written`). A dimension is:
///  - refilled (every rule there mirror, copy or value(v)): the chunks refill the written
///    arrays' frames after every launch; one step's shrink past the edge.
///  - imaged (a rule there periodic, and no written periodic array beside a physical one): the
///    kernels compute the periodic frames as images of the far side, a pass of k steps reads
///    `k * shrink` past the edge. Exact because every array the kernels read there is periodic
///    (the images are computed from images: translation invariance) or, read-only periodic
///    beside written physical arrays, constant (its snapshot), the physical frames refilled.
///  - mixed (a written array periodic there, another array mirror, copy or value(v)): images
///    are not exact, a periodic image computed past the edge would read the other array's
///    mirror (copy, value) frame where the far side reads its grid cells. Where every part and
///    chunk spans the grid along it (not the chunked dimension, no part split there), the chunks
///    refill the periodic frames too, from the far side inside their window
///    (periodic_refilled), so it is a refilled dimension. Elsewhere (the chunked dimension,
///    parts split along it) the far side's cells at a pass's later steps are computed only by
///    other chunks or parts, so a pass is one step (max_steps_per_pass, its reason in
///    max_steps_why), the frames composed on the host at every pass boundary. Within that
///    step the kernels compute the written periodic frames as images, not exact either: where
///    a launch reads one past the edge after an earlier launch of the step wrote it
///    (Request::frame_read_after_write), out of core is refused (PlanError).
inline void frame_request(const BoundaryRule* rules, int count, Request& r) {
  static const char* const kDim[3] = {"x", "y", "z"};
  const int dims = r.grid.dims;
  std::array<const BoundaryRule*, 3> periodic{}, physical{};  // a written periodic; a physical
  std::array<bool, 3> any_periodic{false, false, false};
  for (int i = 0; i < count; ++i) {
    const BoundaryRule& b = rules[i];
    const auto d = static_cast<std::size_t>(b.dim);
    r.frame[d] = true;
    const auto a = static_cast<std::size_t>(b.array);
    const bool written = a < r.arrays.size() && r.arrays[a].written;
    any_periodic[d] = any_periodic[d] || b.kind == BoundaryKind::kPeriodic;
    if (b.kind == BoundaryKind::kPeriodic && written && !periodic[d]) periodic[d] = &b;
    if (b.kind != BoundaryKind::kPeriodic && !physical[d]) physical[d] = &b;
  }
  for (std::size_t d = 0; d < 3; ++d) {
    r.frame_refilled[d] = r.frame[d] && !any_periodic[d];
    if (!periodic[d] || !physical[d]) continue;
    bool spanned = static_cast<int>(d) < dims - 1;  // not the chunked dimension
    const char* split = spanned ? "split between the parts" : "the dimension the chunks split";
    for (const Box& o : r.owned)
      spanned = spanned && o.lo[d] == r.grid.lo[d] && o.hi[d] == r.grid.hi[d];
    if (spanned) {
      r.frame_refilled[d] = r.periodic_refilled[d] = true;
      continue;
    }
    const auto name = [&](const BoundaryRule* b) {
      const auto a = static_cast<std::size_t>(b->array);
      return a < r.arrays.size() ? r.arrays[a].name : "array " + std::to_string(b->array);
    };
    // Within one step too, a periodic frame written by a launch is the kernels' images there,
    // computed from the other arrays' mirror, copy or value(v) frames: a later launch reading
    // it past the edge would read wrong cells (difftest seed 20059).
    if (!r.frame_read_after_write[d].empty())
      throw PlanError("this program cannot run out of core exactly: " +
                      r.frame_read_after_write[d] + ", and along " + kDim[d] + " " +
                      name(periodic[d]) + " is periodic beside " + name(physical[d]) + "'s " +
                      boundary_kind_name(physical[d]->kind) + " frame (" + kDim[d] + ": " + split +
                      "): that frame is the far side's cells of this step, which other chunks "
                      "or parts compute; run it in core (--out-of-core off), or give every "
                      "array along " +
                      kDim[d] + " a periodic boundary");
    if (r.max_steps_per_pass == 1) continue;  // the first such dimension gives the reason
    r.max_steps_per_pass = 1;
    r.max_steps_why = name(periodic[d]) + " is periodic along " + kDim[d] + " and " +
                      name(physical[d]) + " " + boundary_kind_name(physical[d]->kind) + " (" +
                      kDim[d] + ": " + split + "): a pass of several steps would need " +
                      name(periodic[d]) +
                      "'s images past the edge there, which the kernels compute only where " +
                      "every frame is periodic";
  }
}

/// The cells of `boxes` past the grid's edge (outside `grid`), as disjoint boxes.
inline std::vector<Box> past_the_edge(const std::vector<Box>& boxes, const Box& grid) {
  std::vector<Box> out;
  for (const Box& b : boxes)
    for (const Box& f : subtract(b, grid)) out.push_back(f);
  return coalesce(out);
}

}  // namespace stepgen::rt::ooc

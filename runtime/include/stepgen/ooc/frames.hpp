#pragma once
/// \file
/// Out of core, the <boundary> frames: a part's reach goes on past the grid's edge in the
/// dimensions with a frame (Request::frame, `k * shrink` cells: what a pass reads there), and
/// the cells of its snapshots that lie past the edge are composed on the host at each pass
/// boundary from the host arrays (the whole grid, all of it stored: every pass ends with a
/// barrier) by the rules of boundary.hpp. The chunks load them like any other foreign cell.
///
/// Why that is exact: periodic frame cells are the images of grid cells, and the kernels, run
/// over a chunk whose window reaches into the frame, compute those images at every step of the
/// pass from images (the same operations on the same values: translation-invariant kernels,
/// which is what a kernel with no edge logic is, reading images of every array they read:
/// frame_request says where they do not); so a pass may run several steps. mirror,
/// copy and value(v) frames are not what a stencil computes from the frame: the snapshot gives
/// them at the pass's start, and the chunks refill them on the device after every launch that
/// writes them (rt::ChunkRun::refill, from the cells next to the edge, which a chunk whose
/// window reaches the edge computes at every step: Request::frame_refilled makes that edge a
/// fixed one), so a pass runs any number of steps with them too. Standard library only.

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "stepgen/boundary.hpp"
#include "stepgen/box.hpp"
#include "stepgen/ooc/foreign.hpp"
#include "stepgen/program.hpp"

namespace stepgen::rt::ooc {

/// The rules of the <boundary> frames (boundary.hpp) for the runner (Share::frames).
struct FrameRules {
  const BoundaryRule* rules = nullptr;
  int count = 0;
};

/// Fills the cells of `out.box` of array `array` (id: its rules) from `src`, a host array that
/// holds at least the cells of the grid they map to: cells inside `grid` copied, cells past it
/// mapped dimension by dimension as FrameSources::fill maps them (periodic c mod N, mirror
/// reflected about the edge face, copy the edge cell, value(v): v, the first value dimension,
/// x before y before z), zero where the array has no rule in a dimension the cell lies past.
inline void fill_framed(const HostArray& src, HostArray& out, const Box& grid, const FrameRules& fr,
                        int array) {
  const Box& box = out.box;
  const std::size_t eb = out.element_bytes;
  const BoundaryRule* rule[3] = {find_boundary(fr.rules, fr.count, array, 0),
                                 find_boundary(fr.rules, fr.count, array, 1),
                                 find_boundary(fr.rules, fr.count, array, 2)};
  const Vec3 n = grid.extents();
  // Maps coordinate `c` of dimension d: false when no rule covers it (zero); `value` is set to
  // the rule when it is a value rule (and none was before).
  auto map = [&](std::size_t d, Index c, Index& to, const BoundaryRule*& value) {
    const Index lo = grid.lo[d], hi = grid.hi[d];
    to = c;
    if (c >= lo && c < hi) return true;
    const BoundaryRule* r = rule[d];
    if (!r) return false;
    const Index i = c - lo;
    switch (r->kind) {
      case BoundaryKind::kPeriodic:
        to = lo + ((i % n[d]) + n[d]) % n[d];
        break;
      case BoundaryKind::kMirror:
        to = lo + (i < 0 ? -1 - i : 2 * n[d] - 1 - i);
        if (to < lo || to >= hi)
          throw RunError("out-of-core: a mirror frame " + std::to_string(hi - lo) +
                         " cells wide is too narrow for the cells a pass reads past its edge");
        break;
      case BoundaryKind::kCopy:
        to = i < 0 ? lo : hi - 1;
        break;
      case BoundaryKind::kValue:
        if (!value) value = r;
        break;
    }
    return true;
  };
  const Vec3 se = src.box.extents(), oe = box.extents();
  auto src_at = [&](const Vec3& c) {
    return src.bytes.data() +
           static_cast<std::size_t>(((c[2] - src.box.lo[2]) * se[1] + (c[1] - src.box.lo[1])) *
                                        se[0] +
                                    (c[0] - src.box.lo[0])) *
               eb;
  };
  const Index in_lo = std::max(box.lo[0], grid.lo[0]), in_hi = std::min(box.hi[0], grid.hi[0]);
  for (Index z = box.lo[2]; z < box.hi[2]; ++z)
    for (Index y = box.lo[1]; y < box.hi[1]; ++y) {
      unsigned char* row =
          out.bytes.data() +
          static_cast<std::size_t>(((z - box.lo[2]) * oe[1] + (y - box.lo[1])) * oe[0]) * eb;
      Vec3 s{0, y, z};
      const BoundaryRule* yz_value = nullptr;
      const bool yz_ok = map(1, y, s[1], yz_value) && map(2, z, s[2], yz_value);
      for (Index x = box.lo[0]; x < box.hi[0]; ++x) {
        unsigned char* to = row + static_cast<std::size_t>(x - box.lo[0]) * eb;
        if (x == in_lo && in_lo < in_hi && yz_ok && !yz_value) {  // the row's inside: one copy
          s[0] = x;
          std::memcpy(to, src_at(s), static_cast<std::size_t>(in_hi - in_lo) * eb);
          x = in_hi - 1;
          continue;
        }
        const BoundaryRule* value = nullptr;
        bool ok = map(0, x, s[0], value);
        if (yz_value && !value) value = yz_value;
        ok = ok && yz_ok;
        if (!ok)
          std::memset(to, 0, eb);
        else if (value)
          std::memcpy(to, value->value.data(), eb);
        else if (rule[0] && rule[0]->kind == BoundaryKind::kPeriodic && (x < in_lo || x >= in_hi)) {
          // A periodic run past the edge maps to consecutive cells: one copy up to the edge
          // (or to where the images wrap again).
          const Index end = x < grid.lo[0] ? std::min(box.hi[0], grid.lo[0]) : box.hi[0];
          const Index run = std::min(end - x, grid.hi[0] - s[0]);
          std::memcpy(to, src_at(s), static_cast<std::size_t>(run) * eb);
          x += run - 1;
        } else {
          std::memcpy(to, src_at(s), eb);
        }
      }
    }
}

/// A snapshot box `out` of array `array` refreshed from the host array `src`: the cells inside
/// the grid copied (copy_host_box), those past it composed (fill_framed) when `fr` has rules.
inline void refresh_snapshot(const HostArray& src, HostArray& out, const Box& grid,
                             const FrameRules& fr, int array) {
  if (fr.count == 0 || grid.contains(out.box)) {
    copy_host_box(src, out, out.box);
    return;
  }
  fill_framed(src, out, grid, fr, array);
}

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

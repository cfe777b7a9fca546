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
/// fixed one), so a pass runs any number of steps with them too. (What a pass may do with them:
/// ooc/frame_rules.hpp.)

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "stepgen/exec/ooc/foreign.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/frame_rules.hpp"

namespace stepgen::rt::ooc {

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

}  // namespace stepgen::rt::ooc

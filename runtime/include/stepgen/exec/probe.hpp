#pragma once
/// \file
/// The kernel probe: before the time loop, each kernel runs over a small box of the grid with
/// known values, and the program measures what the kernel really does rather than trusting the
/// spec alone:
///   - the cells it writes: the rim of its buffer it leaves unwritten along each dimension (its
///     own guard, which may be wider than its halo), and whether the written cells form a box;
///     a kernel that uses `step` is run at steps spread over the run, and one that writes other
///     cells at other steps (a wavefront) keeps the spec's halos for its ghost zones;
///   - the neighbours it reads: one input cell at a time is changed, and every written cell
///     whose value changes reads it; the offsets found are compared with the declared halo
///     (probe_reads.hpp), at the steps where it writes near the box's middle;
///   - whether it computes a cell the same wherever its buffer starts (shifted one cell), and
///     whether its cells depend on where its buffer's line starts or ends (a line recurrence).
/// A halo declared too small is an error naming the kernel, the array and an offset it reads
/// (it would give wrong values on several devices); one wider than needed is a warning; a
/// kernel that writes no cell in any probe run cannot be checked and is an error too. The
/// measured rim decides how a kernel may run on a view of its buffer (a slab along the slowest
/// dimension): a launch computing planes [p0, p1) is given those planes grown by the rim, so
/// that the kernel's own guard cuts exactly the cells one whole launch cuts (probe_views.hpp).
/// Backend-neutral: the backend gives a function that runs one kernel over a box with given
/// host values at a given step (upload, launch, download).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/probe_reads.hpp"
#include "stepgen/exec/probe_session.hpp"
#include "stepgen/exec/probe_values.hpp"
#include "stepgen/exec/probe_views.hpp"

namespace stepgen::rt {

namespace detail {

/// Runs the kernel twice over `box` (values `in_a`, then other values everywhere in the
/// session's fill; `out_a` gets the first run's result) and finds the cells of the written
/// arrays it wrote: a cell is written when it changed in either run (a kernel that writes back
/// the value it found, in both runs, is not caught).
inline ProbeWrites probe_writes(ProbeSession& s, const Box& box, const std::vector<HostArray>& in_a,
                                std::vector<HostArray>& out_a) {
  const std::vector<HostArray> in_b = s.values(box, 2);
  std::vector<HostArray> out_b = in_b;
  out_a = in_a;
  s.run(out_a, box, s.ints_zero);
  s.run(out_b, box, s.ints_zero);
  const Index n = box.volume();
  const Vec3 ext = box.extents();
  const int dims = box.dims;
  ProbeWrites w;
  Box common;
  bool first = true;
  w.is_box = true;
  for (int id : s.written) {
    const auto u = static_cast<std::size_t>(id);
    const std::size_t bytes = s.elements[u].bytes;
    Box bb;
    bb.dims = dims;
    bool any = false;
    Index count = 0;
    for (Index i = 0; i < n; ++i) {
      if (!probe_differs(in_a[u], out_a[u], bytes, i) &&
          !probe_differs(in_b[u], out_b[u], bytes, i))
        continue;
      const Vec3 p{i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
      Box cell;
      cell.dims = dims;
      cell.lo = p;
      cell.hi = {p[0] + 1, p[1] + 1, p[2] + 1};
      bb = any ? bounding(bb, cell) : cell;
      any = true;
      ++count;
    }
    if (!any) continue;
    w.wrote = true;
    if (count != bb.volume()) w.is_box = false;
    if (first)
      common = bb;
    else if (common != bb)
      w.is_box = false;
    first = false;
  }
  if (!w.wrote) return w;
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    w.rim_lo[u] = common.lo[u];
    w.rim_hi[u] = ext[u] - common.hi[u];
  }
  return w;
}

/// The rim and shape of the cells the kernel writes at the session's step. The rim measured on
/// the box is the kernel's own guard or the whole grid's boundary, whichever cuts more (rule 3:
/// a kernel decides the grid's edge from offset + index): on a small grid, or with a wide
/// boundary, the probe's box reaches the grid's boundary. Only the kernel's own guard moves
/// with a buffer's edge, and views, ghost zones and chunk windows must be sized by it alone (a
/// view grown by more computes cells beyond the ones it is meant to). The box shrunk by the rim
/// just measured lies that far from the grid's boundary, so only the kernel's own guard acts on
/// it: its rim there is that guard's width. False when it wrote no cell.
inline bool probe_rim(ProbeSession& s) {
  KernelProbe& r = s.r;
  const std::vector<HostArray> in_a = s.values(s.box, 1);
  std::vector<HostArray> out_a;
  const ProbeWrites w = probe_writes(s, s.box, in_a, out_a);
  if (!w.wrote) return false;
  r.wrote = true;
  r.is_box = w.is_box;
  r.rim_lo = w.rim_lo;
  r.rim_hi = w.rim_hi;
  if (!r.is_box) {
    r.why = "the cells it writes are not one box, the same for every array it writes";
    return true;
  }
  Box inner = s.box;
  bool shrunk = false;
  for (int d = 0; d < s.dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (!s.k.follows[u] || (r.rim_lo[u] == 0 && r.rim_hi[u] == 0)) continue;
    inner.lo[u] += r.rim_lo[u];
    inner.hi[u] -= r.rim_hi[u];
    shrunk = true;
  }
  if (shrunk) {
    const std::vector<HostArray> in_i = s.values(inner, 3);
    std::vector<HostArray> out_i;
    const ProbeWrites wi = probe_writes(s, inner, in_i, out_i);
    if (wi.wrote && wi.is_box) {
      r.rim_lo = wi.rim_lo;
      r.rim_hi = wi.rim_hi;
    } else {
      r.rim_undecided = true;
      r.why = "its own rim cannot be told from the grid's boundary on a " + s.box.str() +
              " grid (on " + inner.str() + " it " +
              (wi.wrote ? "writes cells that are not one box" : "writes no cell") + ")";
    }
  }
  if (r.why.empty() && !s.k.views)
    r.why = "it cannot run on a slab (see the report's overlap line)";
  return true;
}

/// The steps a kernel that uses `step` is first run at: 0 to 3, and 64 spread over the run.
inline std::vector<std::int64_t> probe_sample_steps(const ProbeKernel& k) {
  std::set<std::int64_t> steps{0};
  if (k.uses_step && k.steps > 1) {
    for (std::int64_t s = 1; s < std::min<std::int64_t>(4, k.steps); ++s) steps.insert(s);
    for (std::int64_t i = 0; i < 64; ++i) steps.insert(k.steps * i / 64);
  }
  return {steps.begin(), steps.end()};
}

/// The cells the kernel writes at one step (one run, the session's fill) and how near they come
/// to the box's middle (the largest coordinate distance to the nearest; -1: none written).
struct StepWrites {
  std::int64_t step = 0;
  std::vector<char> mask;
  Index distance = -1;
};

inline StepWrites probe_step_writes(ProbeSession& s, std::int64_t step) {
  StepWrites w;
  w.step = s.step = step;
  const std::vector<HostArray> in = s.values(s.box, 1);
  std::vector<HostArray> out = in;
  s.run(out, s.ints_zero);
  w.mask = s.changed(in, out);
  for (Index i = 0; i < s.n; ++i) {
    if (!w.mask[static_cast<std::size_t>(i)]) continue;
    const Vec3 c = s.point(i);
    Index d = 0;
    for (std::size_t u = 0; u < 3; ++u) d = std::max(d, std::abs(c[u] - s.mid[u]));
    w.distance = w.distance < 0 ? d : std::min(w.distance, d);
  }
  return w;
}

/// For a kernel that writes other cells at other steps: the steps at which the read passes run,
/// those at which it writes within 3 cells of the box's middle (the read probe changes the
/// middle cell; a wavefront reads it only from hyperplanes next to it). From the sampled step
/// whose cells come nearest, the step walks one at a time while they come nearer (at most 256
/// runs), then the steps around it are taken while they stay that near (at most 16 steps).
inline std::vector<std::int64_t> probe_read_steps(ProbeSession& s,
                                                  const std::vector<StepWrites>& samples) {
  constexpr Index kNear = 3;
  const StepWrites* best = nullptr;
  for (const StepWrites& w : samples)
    if (w.distance >= 0 && (!best || w.distance < best->distance)) best = &w;
  if (!best) return {};
  StepWrites at = *best;
  for (int walk = 0; walk < 256 && at.distance > 0; ++walk) {
    StepWrites next;
    for (std::int64_t t : {at.step - 1, at.step + 1}) {
      if (t < 0 || t >= s.k.steps) continue;
      StepWrites w = probe_step_writes(s, t);
      if (w.distance >= 0 && w.distance < at.distance &&
          (next.distance < 0 || w.distance < next.distance))
        next = std::move(w);
    }
    if (next.distance < 0) break;
    at = std::move(next);
  }
  std::vector<std::pair<Index, std::int64_t>> near{{at.distance, at.step}};
  for (int dir : {-1, 1})
    for (std::int64_t t = at.step + dir; t >= 0 && t < s.k.steps && near.size() < 32; t += dir) {
      const StepWrites w = probe_step_writes(s, t);
      if (w.distance < 0 || w.distance > kNear) break;
      near.push_back({w.distance, t});
    }
  std::sort(near.begin(), near.end());
  std::vector<std::int64_t> steps;
  for (const auto& [distance, t] : near)
    if (steps.size() < 16) steps.push_back(t);
  std::sort(steps.begin(), steps.end());
  return steps;
}

/// The written cells of a kernel: measured at step 0 with the probe's integers at 1..7, then,
/// where it wrote no cell (a solid mask `if (obst[c] != 0) return;` marks every such cell
/// solid), with its integer arrays at 0. A kernel that uses `step` is run at the sampled steps
/// first: one that writes other cells at other steps (a wavefront, a source that moves, every
/// k-th step) runs on views nowhere, keeps the spec's halos for its ghost zones (its rim is no
/// fixed guard) and has its reads probed at the steps where it writes near the box's middle.
/// Returns the steps the read passes run at; empty: it wrote no cell.
inline std::vector<std::int64_t> probe_written(ProbeSession& s) {
  KernelProbe& r = s.r;
  const std::vector<std::int64_t> samples = probe_sample_steps(s.k);
  for (bool zero : {false, true}) {
    if (zero && !(s.reads_int && env_settings().probe_int_zero)) break;
    s.ints_zero = r.ints_zero = zero;
    std::vector<StepWrites> seen;
    bool same = true, any = false;
    std::int64_t first = 0, other = 0;
    for (std::int64_t t : samples) {
      seen.push_back(probe_step_writes(s, t));
      const StepWrites& w = seen.back();
      if (w.distance >= 0 && !any) first = t;
      any = any || w.distance >= 0;
      if (same && w.mask != seen.front().mask) same = false, other = t;
    }
    if (!any && samples.size() > 1) continue;
    if (same) {
      s.step = first;
      if (probe_rim(s)) return {first};
      continue;
    }
    r.wrote = true;
    r.rim_known = false;
    r.is_box = false;
    r.why = "it writes other cells at step " + std::to_string(seen.front().step) +
            " than at step " + std::to_string(other) +
            " (a wavefront, a source that moves, a kernel computing every k-th step): its "
            "launches run whole, its ghost zones follow the spec's halos";
    return probe_read_steps(s, seen);
  }
  s.ints_zero = r.ints_zero = false;
  return {};
}

/// Translation: the kernel runs again on the box one cell lower along each dimension it follows,
/// with the same values at the same cells of the grid; the cells both runs compute, away from
/// both boxes' edges (their rims and halos), must come out the same. A kernel that takes its
/// local index for the grid's (a red-black parity (x + y) & 1, a pattern by x % 4) computes
/// them differently, and so it would on several devices, out of core and on MPI ranks, whose
/// buffers start anywhere. STEPGEN_PROBE_SHIFT=0 skips it.
inline void probe_translation(ProbeSession& s) {
  KernelProbe& r = s.r;
  const ProbeKernel& k = s.k;
  const Box& box = s.box;
  const int dims = s.dims;
  Index margin = 1;
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    margin = std::max({margin, r.rim_lo[u] + 1, r.rim_hi[u] + 1});
  }
  for (const ProbeArg& a : k.args)
    for (int d = 0; d < dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      margin = std::max({margin, a.halo.lo[u] + 1, a.halo.hi[u] + 1});
    }
  for (int d = 0; d < dims && r.errors.empty(); ++d) {
    const auto u = static_cast<std::size_t>(d);
    const Index by = std::max<Index>(k.shift[u], 1);
    if (!k.follows[u] || box.lo[u] - by < s.grid.lo[u] ||
        box.extent(d) <= 2 * (margin + by - 1) + 1)
      continue;
    Box shifted = box;
    shifted.lo[u] -= by;
    shifted.hi[u] -= by;
    Box both = box;
    both.lo[u] -= by;
    const std::vector<HostArray> all = s.values(both, 4);
    std::vector<HostArray> one = probe_crop(all, box), two = probe_crop(all, shifted);
    s.run(one, box, s.ints_zero);
    s.run(two, shifted, s.ints_zero);
    Box common = box;  // the cells away from both boxes' edges
    for (int e = 0; e < dims; ++e) {
      const auto v = static_cast<std::size_t>(e);
      common.lo[v] = std::max(box.lo[v], shifted.lo[v]) + margin;
      common.hi[v] = std::min(box.hi[v], shifted.hi[v]) - margin;
    }
    if (common.empty()) continue;
    bool same = true;
    for (int w : s.written) {
      const auto wu = static_cast<std::size_t>(w);
      const std::size_t bytes = s.elements[wu].bytes;
      for (Index z = common.lo[2]; same && z < common.hi[2]; ++z)
        for (Index y = common.lo[1]; same && y < common.hi[1]; ++y)
          for (Index x = common.lo[0]; same && x < common.hi[0]; ++x) {
            const Vec3 g{x, y, z};
            same = std::memcmp(one[wu].bytes.data() + probe_at(box, g) * bytes,
                               two[wu].bytes.data() + probe_at(shifted, g) * bytes, bytes) == 0;
          }
    }
    if (!same) {
      static const char* const kAxis[] = {"x", "y", "z"};
      r.errors.push_back(
          "kernel '" + std::string(k.name) +
          "' computes cells differently when its buffer starts " +
          (by == 1 ? std::string("one cell") : std::to_string(by) + " cells") + " lower along " +
          kAxis[u] +
          ": it takes its local index for the grid's (a parity such as (x + y) & 1, a pattern by "
          "x % n, ...), and several devices, out of core or MPI ranks, whose buffers start "
          "anywhere, would give other values; compute such things from offset(X, d) + the "
          "local index (STEPGEN_PROBE_SHIFT=0 skips this check)");
      r.error_arrays.push_back(-1);
    }
  }
}

}  // namespace detail

namespace detail {

/// Line recurrences: along each dimension of three cells or more, and at each side, the kernel
/// runs again on the box one cell shorter there (the cells one work-item computes, where that
/// is more), with the same values at the same cells of the grid. A cell both runs write that
/// changes farther from the new edge than the kernel's rim and declared halo reach there, with
/// the cell halfway to the edge, takes its value from the buffer's whole line (a tridiagonal sweep
/// whose recurrence starts at its buffer's first cell and is substituted back from its last, as
/// PolyBench's adi): on several devices every buffer must hold the grid's whole line there. Where
/// the probe's box is a part of the grid's line, no halo can say so (an error); where it is the
/// whole line, a halo that gives each of two equal parts the whole line is needed (an error
/// otherwise, naming what is needed), and the program checks every buffer of its partition
/// (probe_check_lines).
inline void probe_lines(ProbeSession& s) {
  static const char* const kAxis[] = {"x", "y", "z"};
  KernelProbe& r = s.r;
  for (int d = 0; d < s.dims && r.errors.empty(); ++d) {
    const auto u = static_cast<std::size_t>(d);
    const Index by = std::max<Index>(s.k.shift[u], 1);
    if (s.ext[u] < 3 || s.ext[u] <= 2 * by) continue;
    Index reach[2] = {0, 0};
    int array = -1;  // the read array with the widest declared halo along d
    for (const ProbeArg& a : s.k.args) {
      if (!a.read) continue;
      if (array < 0 || std::max(a.halo.lo[u], a.halo.hi[u]) > std::max(reach[0], reach[1]))
        array = a.array;
      reach[0] = std::max(reach[0], a.halo.lo[u]);
      reach[1] = std::max(reach[1], a.halo.hi[u]);
    }
    for (int side = 0; side < 2 && !r.line[u]; ++side) {
      Box shorter = s.box;
      (side == 0 ? shorter.lo[u] += by : shorter.hi[u] -= by);
      const std::vector<HostArray> all = s.values(s.box, 5);
      std::vector<HostArray> one = all, two = probe_crop(all, shorter);
      s.run(one, s.box, s.ints_zero);
      s.run(two, shorter, s.ints_zero);
      const Index rim = r.rim_known ? (side == 0 ? r.rim_lo[u] : r.rim_hi[u]) : 0;
      const Index limit = std::max(rim, reach[side]) + by;
      Index farthest = -1;
      Vec3 cell{0, 0, 0};
      int array_written = -1;
      for (int w : s.written) {
        const auto wu = static_cast<std::size_t>(w);
        const std::size_t bytes = s.elements[wu].bytes;
        for (Index z = shorter.lo[2]; z < shorter.hi[2]; ++z)
          for (Index y = shorter.lo[1]; y < shorter.hi[1]; ++y)
            for (Index x = shorter.lo[0]; x < shorter.hi[0]; ++x) {
              const Vec3 g{x, y, z};
              const Index from = side == 0 ? g[u] - shorter.lo[u] : shorter.hi[u] - 1 - g[u];
              if (from <= limit || from <= farthest) continue;
              auto differs = [&](const Vec3& at) {
                return std::memcmp(one[wu].bytes.data() + probe_at(s.box, at) * bytes,
                                   two[wu].bytes.data() + probe_at(shorter, at) * bytes,
                                   bytes) != 0;
              };
              // A line: the cell halfway to the edge changes too (a wrap or a read of a fixed
              // cell changes the far cells only: the edges' check names those).
              Vec3 half = g;
              half[u] = side == 0 ? shorter.lo[u] + from / 2 : shorter.hi[u] - 1 - from / 2;
              if (!differs(g) || !differs(half)) continue;
              farthest = from;
              cell = {g[0] - s.box.lo[0], g[1] - s.box.lo[1], g[2] - s.box.lo[2]};
              array_written = w;
            }
      }
      if (farthest < 0) continue;
      const std::string line = s.box.extent(d) == s.grid.extent(d) ? "line" : "part of a line";
      const std::string what =
          "kernel '" + std::string(s.k.name) + "' reads array '" +
          (array >= 0 ? s.elements[static_cast<std::size_t>(array)].name : std::string("?")) +
          "' along " + kAxis[d] + " as far as its buffer goes: on a " + probe_shape(s.box) +
          " buffer (the whole " + line + "), cell " + probe_offset(s.dims, cell) + " of '" +
          s.elements[static_cast<std::size_t>(array_written)].name + "' changes when the buffer " +
          (side == 0 ? "starts" : "ends") + " one cell " + (side == 0 ? "later" : "sooner") +
          " along " + kAxis[d] + " (the same values at the same cells), " +
          std::to_string(farthest + by) + " cells from that edge" + s.at_step() +
          ": a recurrence along the line, which starts or ends at its buffer's edge";
      r.line[u] = true;
      r.line_why[u] = what;
      const Index whole = s.grid.extent(d);
      const Index needed = whole - whole / 2;  // two equal parts, each buffer the whole line
      if (s.box.extent(d) < whole) {
        r.errors.push_back(what +
                           ". No halo describes it here: on several devices, out of core "
                           "and on MPI ranks a buffer is one part of the grid");
        r.error_arrays.push_back(array);
      } else if (reach[side] < needed) {
        r.errors.push_back(what +
                           ". Each device's buffer must then hold the whole line: on 2 "
                           "devices that is a halo of at least " +
                           std::to_string(needed) + " cells along " + kAxis[d] + " (" +
                           (side == 0 ? "halo_lo" : "halo_hi") + "; declared " +
                           std::to_string(reach[side]) + "), one short of it gives wrong values");
        r.error_arrays.push_back(array);
      }
    }
  }
}

}  // namespace detail

/// Probes kernel `k` over a box of `grid` of `cells` cells per dimension it follows
/// (probe_box): its written cells (at the steps it is run at), the neighbours it reads, then
/// the translation and the line checks. A kernel that wrote no cell comes back with `wrote`
/// false (probe_kernel tries larger boxes, then says it cannot be checked).
inline KernelProbe probe_kernel_on(const ProbeKernel& k, const Box& grid,
                                   const std::vector<ProbeElement>& elements,
                                   const ProbeStepRun& run, Index cells) {
  KernelProbe r;
  r.kernel = k.name;
  r.box = probe_box(grid, k.follows, cells);
  // A launch that does not follow its buffer's extent is probed over the whole grid there:
  // only while that stays small.
  if (r.box.volume() > (Index{1} << 22)) {
    r.why = "its launch does not follow its buffer's extent, and the grid is large";
    return r;
  }
  r.probed = true;
  detail::ProbeSession s(k, grid, elements, run, r, r.box);
  r.steps = detail::probe_written(s);
  if (!r.wrote) {
    r.why = "it wrote no cell of a " + r.box.str() + " buffer";
    return r;
  }
  std::vector<detail::ProbeArrayReads> reads = detail::probe_read_arrays(s);
  for (std::int64_t t : r.steps) {
    s.step = t;
    const std::vector<detail::ProbeBase> bases = detail::probe_bases(s);
    for (detail::ProbeArrayReads& a : reads) {
      detail::probe_middle(s, bases, a);
      if (env_settings().probe_edges) detail::probe_edges(s, bases, a);
    }
  }
  for (detail::ProbeArrayReads& a : reads) detail::probe_read_verdict(s, a);
  s.step = r.steps.empty() ? 0 : r.steps.front();
  if (r.rim_known && env_settings().probe_shift) detail::probe_translation(s);
  if (r.errors.empty() && env_settings().probe_lines) detail::probe_lines(s);
  return r;
}

/// Probes kernel `k` over a box of `grid` with `run`: the cells it writes and the neighbours
/// it reads. `elements`: every array's element type, by id. A kernel that writes nothing on 24
/// cells a dimension (a guard wider than 12), or whose rim the 24-cell box cannot tell from the
/// grid's boundary (a guard wider than 6: the box shrunk by it leaves no written cell), is
/// probed again on 64, then 160. One that writes no cell on any of them (with both integer
/// fills, at every step it was run at) cannot be checked: an error that says so, and that
/// `--probe off` runs it unchecked; unless the grid is no wider than its halos reach along a
/// dimension (the probe's box then has no cell a stencil can compute).
inline KernelProbe probe_kernel(const ProbeKernel& k, const Box& grid,
                                const std::vector<ProbeElement>& elements,
                                const ProbeStepRun& run) {
  KernelProbe r;
  int runs = 0;
  for (Index n : {24, 64, 160}) {
    r = probe_kernel_on(k, grid, elements, run, n);
    runs += r.runs;
    if (!r.probed || (r.wrote && !r.rim_undecided) || probe_box(grid, k.follows, n) == grid) break;
  }
  r.runs = runs;
  // A grid no wider than its halos reach along some dimension (a periodic grid 4 rows high read
  // 2 rows away) gives the probe's box no cell a stencil can compute, while the real buffers,
  // grown by boundary frames and ghost cells, have some: the kernel runs unchecked, as before.
  bool thin = false;
  for (int d = 0; d < grid.dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    Index reach = 0;
    for (const ProbeArg& a : k.args) reach = std::max({reach, a.halo.lo[u], a.halo.hi[u]});
    thin = thin || (r.box.extent(d) == grid.extent(d) && grid.extent(d) <= 2 * reach + 1);
  }
  if (r.probed && !r.wrote && thin) r.why += " (a grid no wider than its halos reach: not checked)";
  if (r.probed && !r.wrote && !thin) {
    bool ints = false;
    for (const ProbeArg& a : k.args)
      ints = ints || (a.read && !elements[static_cast<std::size_t>(a.array)].floating);
    const std::vector<std::int64_t> steps = detail::probe_sample_steps(k);
    r.errors.push_back(
        "kernel '" + std::string(k.name) + "' cannot be checked by the kernel probe: it wrote no " +
        "cell in " + std::to_string(runs) + " probe runs (on a " + r.box.str() + " buffer" +
        (ints ? ", its integer arrays at 1..7 and at 0" : "") +
        (steps.size() > 1 ? ", at " + std::to_string(steps.size()) + " steps from 0 to " +
                                std::to_string(steps.back())
                          : std::string(", at step 0")) +
        ")" +
        (ints          ? ": a mask that marks every probe cell solid?"
         : k.uses_step ? ": a kernel that writes only at steps the probe did not run?"
                       : ": a guard wider than the box, or a kernel writing only fixed "
                         "cells?") +
        " Its halos cannot be checked; --probe off runs the program without the probe, "
        "accepting that a halo too small would go unnoticed");
    r.error_arrays.push_back(-1);
  }
  return r;
}
/// The same for a kernel run without a step (step 0): the unit tests' runs.
inline KernelProbe probe_kernel(const ProbeKernel& k, const Box& grid,
                                const std::vector<ProbeElement>& elements, const ProbeRun& run) {
  return probe_kernel(
      k, grid, elements,
      ProbeStepRun([&run](std::vector<HostArray>& a, const Box& b, std::int64_t) { run(a, b); }));
}

}  // namespace stepgen::rt

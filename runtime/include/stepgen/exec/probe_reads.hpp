#pragma once
/// \file
/// The kernel probe's read passes (probe.hpp runs them at each step it probes): the neighbours a
/// kernel reads, seen from the middle cell of each array it reads, and reads across its buffer
/// or along a whole line, seen from the cells at its buffer's edges; then the verdict on each
/// array's declared halo.

#include <cstdlib>
#include <string>
#include <vector>

#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/probe_session.hpp"

namespace stepgen::rt::detail {

/// The bases of the read passes at the session's step. Integer arrays are never 0 in the
/// probe's values (1 + v % 7), so a branch a kernel takes only where one is 0 (a land/sea mask:
/// `if (mask[c] != 0)`) would never run, and one taken only where none is 0 (a solid mask
/// marking every cell solid) would be the only one run: when the kernel reads an integer array,
/// the passes run with both fills. Floating values are all in [1, 2), so a branch on a sign
/// (upwinding, `u[c] > 0 ? q[c-1] : q[c+1]`; wet and dry cells, `h[c] > 0`) would only ever
/// take one side: when the kernel reads a floating array, they run again with every floating
/// value negated.
inline std::vector<ProbeBase> probe_bases(ProbeSession& s) {
  std::vector<ProbeBase> bases;
  auto add = [&](std::vector<HostArray> in, bool zero, std::string how) {
    ProbeBase b{std::move(in), {}, zero, std::move(how)};
    b.out = b.in;
    s.run(b.out, zero);
    bases.push_back(std::move(b));
  };
  const std::vector<HostArray> first = s.values(s.box, 1);
  add(first, s.ints_zero, s.ints_zero ? " with its integer arrays at 0" : "");
  if (s.reads_int && env_settings().probe_int_zero)
    add(probe_values(s.elements, s.box, 1, !s.ints_zero), !s.ints_zero,
        s.ints_zero ? "" : " with its integer arrays at 0");
  if (s.reads_float && env_settings().probe_negative) {
    std::vector<HostArray> in = first;
    for (std::size_t a = 0; a < in.size(); ++a)
      if (s.elements[a].floating) probe_negate(in[a], s.elements[a]);
    add(std::move(in), s.ints_zero, " with its floating values negated");
  }
  return bases;
}

/// Written cell `c` of array `wu` changes with cell `from` of array `e`, along `d`, as far as
/// the buffer goes: the kernel reads a whole line there.
inline std::string probe_line_error(const ProbeSession& s, const ProbeElement& e, int d,
                                    const Vec3& c, std::size_t wu, const Vec3& from,
                                    const char* edge) {
  static const char* const kAxis[] = {"x", "y", "z"};
  return "kernel '" + std::string(s.k.name) + "' reads array '" + e.name + "' along " + kAxis[d] +
         " as far as its buffer goes: on a " + probe_shape(s.box) + " buffer, cell " +
         probe_offset(s.dims, c) + " of '" + s.elements[wu].name + "'" + edge +
         " changes when cell " + probe_offset(s.dims, from) + " of '" + e.name +
         "' does (buffer indices)" + s.at_step() +
         ". A kernel that reads a whole line (a recurrence or a sum along " + kAxis[d] +
         ") depends on where its buffer starts and ends, which no halo describes: on several "
         "devices, out of core and on MPI ranks a buffer is one part of the grid";
}

/// The middle cell of array `a` is changed (twice: a value and a NaN or a far integer) on each
/// base; every written cell that then changes reads it, at the offset middle - cell. A cell at
/// the buffer's edge reading the middle cell, two or more cells away and beyond the declared
/// halo, reads as far as its buffer goes there (a recurrence or a sum along a line, over a
/// dimension its launch follows or loops over), which no halo describes. A stencil leaves such
/// edge cells in its rim, or reads them within its halo (a radius-2 read on a 5-cell grid).
inline void probe_middle(ProbeSession& s, const std::vector<ProbeBase>& bases, ProbeArrayReads& a) {
  const auto u = static_cast<std::size_t>(a.id);
  const ProbeElement& e = s.elements[u];
  for (const ProbeBase& base : bases)
    for (int variant = 0; variant < 2; ++variant) {
      std::vector<HostArray> in = base.in;
      probe_bump(in[u].bytes.data() + static_cast<std::size_t>(s.mid_i) * e.bytes, e, variant != 0);
      std::vector<HostArray> out = in;
      s.run(out, base.zero);
      for (int w : s.written) {
        const auto wu = static_cast<std::size_t>(w);
        const std::size_t bytes = s.elements[wu].bytes;
        for (Index i = 0; i < s.n; ++i) {
          if (!probe_differs(out[wu], base.out[wu], bytes, i)) continue;
          const Vec3 c = s.point(i);
          const Vec3 o{s.mid[0] - c[0], s.mid[1] - c[1], s.mid[2] - c[2]};
          if (a.offsets.insert(o).second) a.where[o] = base.how + s.at_step();
          for (int d = 0; d < s.dims && a.whole_line.empty(); ++d) {
            const auto v = static_cast<std::size_t>(d);
            if ((c[v] != 0 && c[v] != s.ext[v] - 1) || std::abs(o[v]) < 2 ||
                (o[v] < 0 ? -o[v] <= a.declared.lo[v] : o[v] <= a.declared.hi[v]))
              continue;
            a.whole_line = probe_line_error(s, e, d, c, wu, s.mid, " (its edge)");
          }
        }
      }
    }
}

/// Reads across the buffer: the cells at the buffer's low edges (the middle of each other
/// dimension), then at its high edges, are changed together; a written cell that then changes
/// and lies within the declared halo of none of them reads across its buffer (a periodic wrap
/// such as (x + 1) % nx, a read of a fixed cell such as A[0]) and at no offset the middle
/// cell's probe saw. On one device the buffer is the grid and the wrap is right; on several
/// devices, out of core and on MPI ranks a buffer is one part of the grid. Every dimension of
/// three cells or more counts, the launch's or one the kernel loops over (a launch of size 1
/// along z with a loop over z). A near offset the middle cell did not show (an interleaved
/// pair's other element) is an undeclared read, not a wrap; a whole line read from an edge cell
/// (the cell halfway between changes too) is reported as such.
inline void probe_edges(ProbeSession& s, const std::vector<ProbeBase>& bases, ProbeArrayReads& a) {
  const auto u = static_cast<std::size_t>(a.id);
  const ProbeElement& e = s.elements[u];
  const Vec3& ext = s.ext;
  for (const ProbeBase& base : bases) {
    for (int side = 0; side < 2 && a.across.empty(); ++side) {
      std::vector<Vec3> edges;
      for (int d = 0; d < s.dims; ++d) {
        const auto v = static_cast<std::size_t>(d);
        if (ext[v] < 3) continue;
        Vec3 c = s.mid;
        c[v] = side == 0 ? 0 : ext[v] - 1;
        edges.push_back(c);
      }
      if (edges.empty()) continue;
      std::vector<HostArray> in = base.in;
      for (const Vec3& c : edges)
        probe_bump(in[u].bytes.data() + static_cast<std::size_t>(s.index(c)) * e.bytes, e, false);
      std::vector<HostArray> out = in;
      s.run(out, base.zero);
      for (int w : s.written) {
        const auto wu = static_cast<std::size_t>(w);
        const std::size_t bytes = s.elements[wu].bytes;
        for (Index i = 0; i < s.n && a.across.empty(); ++i) {
          if (!probe_differs(out[wu], base.out[wu], bytes, i)) continue;
          const Vec3 c = s.point(i);
          bool near = false;
          for (const Vec3& q : edges) {
            const Vec3 o{q[0] - c[0], q[1] - c[1], q[2] - c[2]};
            near = near || a.offsets.count(o) || probe_declared(a.declared, o);
          }
          if (near) continue;
          // Whether the kernel reads the whole line from edge cell `t` to `c`: the cell halfway
          // between them along their farthest dimension changes too (a recurrence or a sum),
          // not only `c` (a wrap, a fixed cell).
          auto line_from = [&](const Vec3& t) {
            const Vec3 o{t[0] - c[0], t[1] - c[1], t[2] - c[2]};
            std::size_t far = 0;
            for (std::size_t d = 1; d < 3; ++d)
              if (std::abs(o[d]) > std::abs(o[far])) far = d;
            Vec3 half = c;
            half[far] = (t[far] + c[far]) / 2;
            const bool line =
                std::abs(o[far]) >= 2 && probe_differs(out[wu], base.out[wu], bytes, s.index(half));
            return line ? static_cast<int>(far) : -1;
          };
          // The edge cell it most likely reads: one it reads a whole line from, else the one
          // it shares most coordinates with.
          Vec3 q = edges.front();
          int best = -1, line = -1;
          for (const Vec3& t : edges) {
            const int same = (t[0] == c[0]) + (t[1] == c[1]) + (t[2] == c[2]);
            const int along = line_from(t);
            if (line < 0 && (along >= 0 || same > best)) {
              best = same, q = t, line = along;
            }
          }
          const Vec3 o{q[0] - c[0], q[1] - c[1], q[2] - c[2]};
          bool small = true;
          for (int d = 0; d < s.dims; ++d)
            small = small &&
                    2 * std::abs(o[static_cast<std::size_t>(d)]) < ext[static_cast<std::size_t>(d)];
          if (small) {
            if (a.offsets.insert(o).second) a.where[o] = base.how + s.at_step();
            continue;
          }
          if (line >= 0) {  // ends the search (across == whole_line: not a wrap)
            if (a.whole_line.empty()) a.whole_line = probe_line_error(s, e, line, c, wu, q, "");
            a.across = a.whole_line;
            continue;
          }
          a.across = "kernel '" + std::string(s.k.name) + "' reads array '" + e.name +
                     "' across its buffer: on a " + probe_shape(s.box) + " buffer, cell " +
                     probe_offset(s.dims, c) + " of '" + s.elements[wu].name +
                     "' changes when cell " + probe_offset(s.dims, q) + " of '" + e.name +
                     "' does (buffer indices)" + s.at_step() +
                     ". A periodic wrap such as (x + 1) % nx, or a read of a fixed cell, is the "
                     "grid's on one device only: several devices, out of core and MPI ranks "
                     "give a buffer one part of the grid. Compute only cells whose neighbours "
                     "are in the buffer and give the array <boundary kind=\"periodic\"/> "
                     "(STEPGEN_PROBE_EDGES=0 skips this check)";
        }
      }
    }
  }
}

/// The verdict on array `a`'s declared halo, after every base and step: a whole line read
/// (before "add them to the halo": no halo would be right), else every offset read outside the
/// halo (not the first only, each with how it was seen where that was not the plain values:
/// a mask's other side, negated values, a step), else a read across the buffer; declared points
/// never seen read are a warning.
inline void probe_read_verdict(ProbeSession& s, ProbeArrayReads& a) {
  KernelProbe& r = s.r;
  const std::string name = "array '" + s.elements[static_cast<std::size_t>(a.id)].name + "'";
  std::vector<std::string> outside;
  bool seen_plain = false;
  std::string how;
  for (const Vec3& o : a.offsets)
    if (!probe_declared(a.declared, o)) {
      outside.push_back(probe_offset(s.dims, o));
      const std::string& w = a.where[o];
      seen_plain = seen_plain || w.empty();
      if (how.empty()) how = w;
    }
  if (a.across == a.whole_line) a.across.clear();  // a whole line found by the edges
  if (!a.whole_line.empty()) {
    r.errors.push_back(a.whole_line);
    r.error_arrays.push_back(a.id);
  } else if (!outside.empty()) {
    std::string list;
    for (std::size_t i = 0; i < outside.size(); ++i)
      list += (i == 0 ? "" : i + 1 == outside.size() ? " and " : ", ") + outside[i];
    const bool one = outside.size() == 1;
    std::string seen;
    if (!seen_plain && !how.empty())
      seen = " (seen" + how +
             (how.find("integer arrays at 0") != std::string::npos
                  ? ": a branch taken where a mask is 0"
              : how.find("negated") != std::string::npos ? ": a branch on a sign"
                                                         : "") +
             ")";
    r.errors.push_back("kernel '" + std::string(s.k.name) + "' reads " + name + " at offset" +
                       (one ? " " : "s ") + list + ", outside its declared halo" + seen + ": add " +
                       (one ? "the point" : "them") + " to the argument's halo");
    r.error_arrays.push_back(a.id);
  } else if (!a.across.empty()) {  // after an undeclared offset, reads past the buffer may be
    r.errors.push_back(a.across);  // what changes its far cells
    r.error_arrays.push_back(a.id);
  }
  if (!a.declared.points.empty()) {
    std::vector<std::string> unused;
    for (const Vec3& p : a.declared.points)
      if (p != Vec3{0, 0, 0} && !a.offsets.count(p)) unused.push_back(probe_offset(s.dims, p));
    if (!unused.empty()) {
      std::string list;
      for (const std::string& t : unused) list += (list.empty() ? "" : " ") + t;
      r.warnings.push_back("kernel '" + std::string(s.k.name) + "' declares halo points of " +
                           name + " it was not seen to read: " + list);
      r.warning_arrays.push_back(a.id);
    }
  }
}

/// Every array the kernel reads, with its declared halo (the union of its arguments').
inline std::vector<ProbeArrayReads> probe_read_arrays(const ProbeSession& s) {
  std::vector<ProbeArrayReads> all;
  for (int id : s.read) {
    ProbeArrayReads a;
    a.id = id;
    a.declared.dims = s.dims;
    bool first = true;
    for (const ProbeArg& arg : s.k.args)
      if (arg.array == id && arg.read) {
        a.declared = first ? arg.halo : merge(a.declared, arg.halo);
        first = false;
      }
    all.push_back(std::move(a));
  }
  return all;
}

}  // namespace stepgen::rt::detail

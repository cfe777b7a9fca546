#pragma once
/// \file
/// What the kernel probe's findings decide (probe.hpp measures them): how a kernel runs on views
/// of its buffer, how wide ghost zones and chunk windows must be, and the report's lines and
/// verdict.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "stepgen/exec/probe_values.hpp"

namespace stepgen::rt {

/// How a kernel runs on a view along the slowest dimension: the view of planes [p0, p1) is
/// those planes grown by the rim the kernel leaves (`lo`, `hi`), so that its guard cuts exactly
/// what one launch over the whole buffer cuts. `safe` false: only whole launches.
struct ViewRim {
  bool safe = true;
  Index lo = 0, hi = 0;
  std::string why;
};

/// The view rule of a probed kernel that reads `reach_lo`/`reach_hi` along `axis`: views are
/// safe when its written cells form a box and its rim there is at least what it reads (a
/// kernel that computes cells whose stencil leaves its buffer treats its buffer's edge
/// specially, and a view's edge is no buffer edge). Unprobed (`--probe off`): the documented
/// contract, a rim equal to the read halo.
inline ViewRim probe_view_rim(const KernelProbe* p, int axis, Index reach_lo, Index reach_hi) {
  ViewRim v;
  v.lo = reach_lo;
  v.hi = reach_hi;
  if (!p) return v;
  const auto a = static_cast<std::size_t>(axis);
  if (!p->views_safe()) {
    v.safe = false;
    v.why = "kernel '" + p->kernel + "': " + (p->why.empty() ? "not probed" : p->why);
    return v;
  }
  v.lo = p->rim_lo[a];
  v.hi = p->rim_hi[a];
  if (v.lo < reach_lo || v.hi < reach_hi) {
    v.safe = false;
    v.why = "kernel '" + p->kernel + "' computes cells within " +
            std::to_string(std::min(v.lo, v.hi)) + " of its buffer's edge along dimension " +
            std::to_string(axis) + " although it reads " +
            std::to_string(std::max(reach_lo, reach_hi)) +
            " cells away there (edge cells computed differently)";
  }
  return v;
}

// ProbeLaunch (the generated launch table's entries): description.hpp.

/// The probe's findings over the program: one KernelProbe per kernel (by kernel id; empty when
/// the probe is off) and the cells the kernels' rims need beyond what the spec's halos give.
struct Probed {
  std::vector<KernelProbe> kernels;
  /// Per dimension and side, over the probed kernels: the widest rim, and how far from the
  /// buffer's edge a step's results are still wrong because of the rims (`need`: max over
  /// launches of rim + the read halos of the launches after it in the step). For kernels that
  /// keep the documented contract (a rim no wider than their halo) neither exceeds what the
  /// spec's halos give, and the widen functions change nothing.
  Vec3 rim_lo{0, 0, 0}, rim_hi{0, 0, 0};
  Vec3 need_lo{0, 0, 0}, need_hi{0, 0, 0};

  /// In core: ghost widths `lo`/`hi` raised so that no owned cell lies in a rim: to the widest
  /// rim when exchanging every step (each launch's outputs are exchanged or read at their
  /// centre), by need - shrink (the step's read halos) with deep halos. True when raised.
  bool widen_ghosts(Vec3& lo, Vec3& hi, int every, const Vec3& shrink_lo,
                    const Vec3& shrink_hi) const {
    bool raised = false;
    for (std::size_t d = 0; d < 3; ++d) {
      const Index want_lo =
          every > 1 ? lo[d] + std::max<Index>(0, need_lo[d] - shrink_lo[d]) : rim_lo[d];
      const Index want_hi =
          every > 1 ? hi[d] + std::max<Index>(0, need_hi[d] - shrink_hi[d]) : rim_hi[d];
      raised = raised || want_lo > lo[d] || want_hi > hi[d];
      lo[d] = std::max(lo[d], want_lo);
      hi[d] = std::max(hi[d], want_hi);
    }
    return raised;
  }
  /// Out of core: the planes a step costs a chunk's window (`shrink`, the step's read halos)
  /// raised to `need`. True when raised.
  bool widen_shrink(Vec3& lo, Vec3& hi) const {
    bool raised = false;
    for (std::size_t d = 0; d < 3; ++d) {
      raised = raised || need_lo[d] > lo[d] || need_hi[d] > hi[d];
      lo[d] = std::max(lo[d], need_lo[d]);
      hi[d] = std::max(hi[d], need_hi[d]);
    }
    return raised;
  }

  const KernelProbe* find(int kernel) const {
    return kernel >= 0 && static_cast<std::size_t>(kernel) < kernels.size()
               ? &kernels[static_cast<std::size_t>(kernel)]
               : nullptr;
  }
  /// How kernel `kernel` (reading `reach_lo`/`reach_hi` along `axis`) runs on views.
  ViewRim view(int kernel, int axis, Index reach_lo, Index reach_hi) const {
    return probe_view_rim(find(kernel), axis, reach_lo, reach_hi);
  }
  /// Why some kernel of `launches` cannot run on views along `axis` (empty: all can).
  std::string no_views(const std::vector<ProbeLaunch>& launches, int axis) const {
    for (const ProbeLaunch& l : launches) {
      const ViewRim v = view(l.kernel, axis, l.reach_lo, l.reach_hi);
      if (!v.safe) return v.why;
    }
    return {};
  }
};

/// Probed's rims and needs for `launches` (in body order).
inline void probe_needs(Probed& probed, const std::vector<ProbeLaunch>& launches, int dims) {
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    for (const ProbeLaunch& l : launches) {
      const KernelProbe* p = probed.find(l.kernel);
      if (!p || !p->probed || !p->wrote || !p->rim_known) continue;
      probed.rim_lo[u] = std::max(probed.rim_lo[u], p->rim_lo[u]);
      probed.rim_hi[u] = std::max(probed.rim_hi[u], p->rim_hi[u]);
      probed.need_lo[u] = std::max(probed.need_lo[u], p->rim_lo[u] + l.after_lo[u]);
      probed.need_hi[u] = std::max(probed.need_hi[u], p->rim_hi[u] + l.after_hi[u]);
    }
  }
}

/// "3, 5, 7": the steps a kernel was probed at (the first 8).
inline std::string probe_step_list(const std::vector<std::int64_t>& steps) {
  std::string s;
  for (std::size_t i = 0; i < steps.size() && i < 8; ++i)
    s += (i ? ", " : "") + std::to_string(steps[i]);
  return steps.size() > 8 ? s + ", ..." : s;
}

/// A kernel that computes its cells from its buffer's whole line along a dimension (a line
/// recurrence, KernelProbe::line) is right only where every buffer holds the grid's whole line
/// there: an error naming the kernel, the part and what its buffer lacks otherwise. `buffers`:
/// each part's buffer; `grid`: the whole grid.
inline void probe_check_lines(const Probed& probed, const std::vector<Box>& buffers,
                              const Box& grid) {
  static const char* const kAxis[] = {"x", "y", "z"};
  for (const KernelProbe& p : probed.kernels)
    for (int d = 0; d < grid.dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      if (!p.line[u]) continue;
      for (std::size_t i = 0; i < buffers.size(); ++i) {
        const Box& b = buffers[i];
        if (b.lo[u] <= grid.lo[u] && b.hi[u] >= grid.hi[u]) continue;
        throw RunError(
            "the kernel probe found a line recurrence that this partition splits: " +
            p.line_why[u] + ". Part " + std::to_string(i) + "'s buffer is [" +
            std::to_string(b.lo[u]) + "," + std::to_string(b.hi[u]) + ") along " + kAxis[d] +
            ", not the whole line [" + std::to_string(grid.lo[u]) + "," +
            std::to_string(grid.hi[u]) +
            "): it would compute other values than one device. Give the argument a halo along " +
            kAxis[d] + " that reaches the whole line from every part, or run on fewer devices");
      }
    }
}

/// probe_check_lines over the buffers of `partition`'s parts.
inline void probe_check_lines(const Probed& probed, const Partition& partition, const Box& grid) {
  std::vector<Box> buffers;
  for (const Part& q : partition.parts) buffers.push_back(q.ghost);
  probe_check_lines(probed, buffers, grid);
}

/// "lo/hi lo/hi ..." per dimension.
inline std::string probe_sides(int dims, const Vec3& lo, const Vec3& hi) {
  std::string s;
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    s += (d ? " " : "") + std::to_string(lo[u]) + "/" + std::to_string(hi[u]);
  }
  return s;
}

/// One process's partition of `request` with the ghost widths raised to the kernels' rims
/// (Probed::widen_ghosts; the report says so unless `quiet`). A probe result never changes the
/// device count silently: where the widened ghosts leave fewer parts than the declared halos
/// give, an error says so and names the device count that runs, as the MPI program refuses
/// fewer parts than ranks (rank_partition); asked for that many devices, it runs.
inline Partition probe_partition(const Probed& probed, PartitionRequest request, int every,
                                 const Vec3& shrink_lo, const Vec3& shrink_hi, bool quiet) {
  const PartitionRequest declared = request;
  const int dims = request.dims;
  if (!probed.widen_ghosts(request.ghost_lo, request.ghost_hi, every, shrink_lo, shrink_hi))
    return stepgen::rt::partition(request);
  if (!quiet)
    std::printf("probe: ghost widths raised to %s (the kernels' rims)\n",
                probe_sides(dims, request.ghost_lo, request.ghost_hi).c_str());
  Partition widened = stepgen::rt::partition(request);
  const std::size_t parts = stepgen::rt::partition(declared).parts.size();
  if (widened.parts.size() < parts)
    throw RunError("with the ghost widths the kernels' rims need (" +
                   probe_sides(dims, request.ghost_lo, request.ghost_hi) +
                   "), the grid can be split into only " + std::to_string(widened.parts.size()) +
                   " parts (" + widened.rationale + "), not the " + std::to_string(parts) +
                   " the declared halos give: run with --devices " +
                   std::to_string(widened.parts.size()) +
                   ", or give the kernels a guard no wider than their halos");
  return widened;
}

/// The report's lines on the probe, and its verdict: warnings printed (unless `quiet`), errors
/// (a declared halo too small, a kernel computing cells differently on a shifted buffer or
/// reading across it) thrown as one RunError, headed by what they are. `views_overlap`: the
/// backend overlaps exchanges through views (CUDA: a kernel without them runs whole, and the
/// run's exchanges do not overlap); otherwise (OpenCL: boundary slabs by global offsets on the
/// whole buffer) a kernel without views still overlaps, and the line says so.
inline void probe_report(const Probed& probed, int dims, bool quiet, std::FILE* out,
                         bool views_overlap = true) {
  std::string errors;
  bool halos_only = true;
  for (const KernelProbe& p : probed.kernels) {
    for (const std::string& e : p.errors) {
      errors += "\n  " + e;
      halos_only = halos_only && e.find("outside its declared halo") != std::string::npos;
    }
    if (quiet) continue;
    if (!p.probed) {
      std::fprintf(out, "probe: kernel '%s' not probed: %s\n", p.kernel.c_str(), p.why.c_str());
      continue;
    }
    const std::string rim = probe_sides(dims, p.rim_lo, p.rim_hi);
    std::fprintf(out, "probe: kernel '%s' on %s: rim %s%s%s%s\n", p.kernel.c_str(),
                 p.box.str().c_str(), p.wrote && p.rim_known ? rim.c_str() : "-",
                 p.why.empty() ? "" : "; no views: ", p.why.c_str(),
                 p.why.empty()   ? ""
                 : views_overlap ? " (it runs whole: no overlap)"
                                 : " (the overlap needs none: slabs by offsets)");
    if (p.steps.size() > 1 || p.ints_zero)
      std::fprintf(out, "probe: kernel '%s' probed%s at %zu step%s (%s), %d runs\n",
                   p.kernel.c_str(), p.ints_zero ? " with its integer arrays at 0" : "",
                   p.steps.size(), p.steps.size() == 1 ? "" : "s", probe_step_list(p.steps).c_str(),
                   p.runs);
    for (const std::string& w : p.warnings) std::fprintf(out, "probe: warning: %s\n", w.c_str());
  }
  if (!errors.empty())
    throw RunError(halos_only ? "the kernel probe found a declared halo too small:" + errors
                              : "the kernel probe found kernels that would give other values on "
                                "several devices, out of core or on MPI ranks:" +
                                    errors);
}

}  // namespace stepgen::rt

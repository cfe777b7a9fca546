#pragma once
/// \file
/// Halo exchange plans: for an ordered pair of parts (A sends, B receives) the transfer is
/// owned(A) ∩ readzone(B) as disjoint boxes (STEPOCL's formula: write-zone(A) ∩ read-zone(B)),
/// where readzone(B) is what B's kernel reads outside its owned box: the owned box shifted by
/// each halo point (every = 1), or the whole ghost box (deep halos, every > 1: the kernels
/// compute on all of it between exchanges). Nothing that is not read is moved.
///
/// A halo given as widths (no points) at every = 1 reads the owned box grown by those widths,
/// which may be narrower than the partition's ghost box when `halo` is one array's halo and the
/// ghost widths come from the union of all arrays.

#include <algorithm>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

struct Transfer {
  int src = 0;             ///< sending part
  int dst = 0;             ///< receiving part
  std::vector<Box> boxes;  ///< disjoint, in global coordinates
  Index cells() const { return volume(boxes); }
};

/// Cells of `part` that its kernel reads outside its owned box, as disjoint boxes, clipped
/// at the domain.
inline std::vector<Box> read_zone(const Partition& p, const Part& part, const Halo& halo,
                                  int every) {
  return detail::read_zone(p.domain, part.owned, part.ghost, halo, every);
}

/// All transfers, ordered by (src, dst); pairs with nothing to move are left out.
inline std::vector<Transfer> exchange_plan(const Partition& p, const Halo& halo, int every = 1) {
  std::vector<Transfer> out;
  for (const Part& b : p.parts) {
    const std::vector<Box> zone = read_zone(p, b, halo, every);
    if (zone.empty()) continue;
    for (const Part& a : p.parts) {
      if (a.id == b.id) continue;
      Transfer t;
      t.src = a.id;
      t.dst = b.id;
      for (const Box& z : zone) {
        const Box cut = intersect(a.owned, z);
        if (!cut.empty()) t.boxes.push_back(cut);
      }
      if (t.boxes.empty()) continue;
      t.boxes = coalesce(std::move(t.boxes));
      out.push_back(std::move(t));
    }
  }
  std::sort(out.begin(), out.end(), [](const Transfer& x, const Transfer& y) {
    return x.src != y.src ? x.src < y.src : x.dst < y.dst;
  });
  return out;
}

/// Cells part `id` receives in one exchange (its read zone: all of it is owned by others).
inline Index received_cells(const std::vector<Transfer>& plan, int id) {
  Index c = 0;
  for (const Transfer& t : plan)
    if (t.dst == id) c += t.cells();
  return c;
}

/// Cells part `id` sends in one exchange.
inline Index sent_cells(const std::vector<Transfer>& plan, int id) {
  Index c = 0;
  for (const Transfer& t : plan)
    if (t.src == id) c += t.cells();
  return c;
}

/// How one part's launch is cut so that its exchange overlaps computation. `boundary` views
/// compute the cells other parts receive (plus any ghost cells the launch writes), `interior`
/// the rest; together they compute exactly the cells one launch over the whole buffer does,
/// each once. Every view is a slab of the part's buffer (ghost box) along `axis`, the slowest
/// dimension, full in the others: the kernel runs on it as on a buffer of that extent, and,
/// since it skips the rim its stencil would read past (`reach_lo` below, `reach_hi` above
/// along `axis`), computes the slab's middle. The interior reads only owned cells, so copies
/// into ghost cells may run beside it.
struct OverlapViews {
  std::vector<Box> boundary;  ///< run first; the exchange waits for them
  Box interior;               ///< runs beside the exchange (empty: nothing to overlap)
  bool split = false;         ///< false: no cut (`boundary` is the whole buffer)
};

/// The views of part `part` for a launch whose written arrays then exchange by `plans`.
/// No cut (one boundary view of the whole buffer) when the part has ghost cells along another
/// dimension than `axis` (the partition splits that dimension too; a boundary frame does not
/// count: it is filled after the launch from owned cells), or when the slabs would
/// leave no interior. `rim_lo`/`rim_hi`: the planes the kernel leaves unwritten at its
/// buffer's edge along `axis` (its guard, measured by the kernel probe: rt::ViewRim); a view is
/// grown by them, so the kernel computes exactly the planes it is meant to. Negative: the
/// documented contract, the read halo (`reach_lo`, `reach_hi`).
inline OverlapViews overlap_views(const Part& part, int axis, Index reach_lo, Index reach_hi,
                                  const std::vector<const std::vector<Transfer>*>& plans,
                                  Index rim_lo = -1, Index rim_hi = -1) {
  if (rim_lo < 0) rim_lo = reach_lo;
  if (rim_hi < 0) rim_hi = reach_hi;
  const auto a = static_cast<std::size_t>(axis);
  const Box& g = part.ghost;
  const Box& o = part.owned;
  OverlapViews v;
  v.boundary = {g};
  // A boundary frame (past the grid's edge) is filled after the whole launch, from owned cells:
  // it does not stop the cut; ghost cells neighbours send along another dimension do.
  const Box& sent = part.framed ? part.inside : g;
  for (int d = 0; d < g.dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (d != axis && (sent.lo[u] != o.lo[u] || sent.hi[u] != o.hi[u])) return v;
  }
  // The planes sent below end at lower_end, those sent above start at upper_start.
  Index lower_end = o.lo[a], upper_start = o.hi[a];
  for (const std::vector<Transfer>* plan : plans)
    for (const Transfer& t : *plan) {
      if (t.src != part.id) continue;
      for (const Box& b : t.boxes) {
        if (b.lo[a] == o.lo[a]) lower_end = std::max(lower_end, b.hi[a]);
        if (b.hi[a] == o.hi[a]) upper_start = std::min(upper_start, b.lo[a]);
        if (b.lo[a] != o.lo[a] && b.hi[a] != o.hi[a]) return v;  // sent from the middle
      }
    }
  // The launch computes [c0, c1) along the axis; the interior reads owned cells only.
  const Index c0 = g.lo[a] + rim_lo, c1 = g.hi[a] - rim_hi;
  const Index i0 = std::max({lower_end, o.lo[a] + reach_lo, c0});
  const Index i1 = std::min({upper_start, o.hi[a] - reach_hi, c1});
  if (i0 >= i1) return v;
  // The box of the buffer a kernel is given to compute planes [p0, p1).
  auto view = [&](Index p0, Index p1) {
    Box b = g;
    b.lo[a] = std::max(g.lo[a], p0 - rim_lo);
    b.hi[a] = std::min(g.hi[a], p1 + rim_hi);
    return b;
  };
  v.boundary.clear();
  if (i0 > c0) v.boundary.push_back(view(c0, i0));
  if (c1 > i1) v.boundary.push_back(view(i1, c1));
  v.interior = view(i0, i1);
  v.split = true;
  return v;
}

}  // namespace stepgen::rt

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

#include "stepgen/box.hpp"
#include "stepgen/partition.hpp"

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

}  // namespace stepgen::rt

#pragma once
/// \file
/// Out of core, the cells parts read from each other at pass boundaries: who gives whom which
/// cells (the messages of an MPI program, one rank per part; a one-process run's host copies).
/// Standard library only.

#include <cstddef>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/ooc/schedule.hpp"

namespace stepgen::rt::ooc {

/// The exchange between parts at pass boundaries, as transfers between parts (ids: indices of
/// `sc.parts`), ordered by (src, dst): part `src` gives part `dst` the cells of dst's foreign
/// boxes that src owns. Together they cover every foreign cell once. One process copies them
/// through its host arrays (the runners' snapshots); an MPI program sends them as messages, one
/// rank per part.
inline std::vector<Transfer> foreign_plan(const Schedule& sc) {
  std::vector<Transfer> out;
  for (std::size_t src = 0; src < sc.parts.size(); ++src)
    for (std::size_t dst = 0; dst < sc.parts.size(); ++dst) {
      if (src == dst) continue;
      Transfer t;
      t.src = static_cast<int>(src);
      t.dst = static_cast<int>(dst);
      for (const Box& f : sc.parts[dst].foreign) {
        const Box cut = intersect(sc.parts[src].owned, f);
        if (!cut.empty()) t.boxes.push_back(cut);
      }
      if (t.boxes.empty()) continue;
      t.boxes = coalesce(std::move(t.boxes));
      out.push_back(std::move(t));
    }
  return out;
}

}  // namespace stepgen::rt::ooc

#include "model/groups.hpp"

#include <algorithm>

namespace stepgen::model {

std::vector<int> array_group(const Model& m, int array) {
  std::vector<int> group{array};
  // Grow to a fixed point: rotations may chain groups together.
  for (bool grew = true; grew;) {
    grew = false;
    for (const Step& s : m.body) {
      if (s.kind != Step::Kind::kSwap && s.kind != Step::Kind::kRotate) continue;
      bool touches = std::any_of(s.arrays.begin(), s.arrays.end(), [&](int a) {
        return std::find(group.begin(), group.end(), a) != group.end();
      });
      if (!touches) continue;
      for (int a : s.arrays)
        if (std::find(group.begin(), group.end(), a) == group.end()) {
          group.push_back(a);
          grew = true;
        }
    }
  }
  std::sort(group.begin(), group.end());
  return group;
}

bool holds_results(const Model& m, int array) {
  for (int a : array_group(m, array))
    if (m.arrays[static_cast<std::size_t>(a)].written) return true;
  return false;
}

bool needs_exchange(const Model& m, int array) {
  if (!holds_results(m, array)) return false;
  if (m.exchange_every > 1) return true;
  for (int a : array_group(m, array))
    if (!m.arrays[static_cast<std::size_t>(a)].read_halo.empty()) return true;
  return false;
}

}  // namespace stepgen::model

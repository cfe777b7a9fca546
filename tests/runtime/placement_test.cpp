// Parts on devices (--parts, placement.hpp): how many parts each device holds, the part weights
// the partitioner gets, and which device each part of a real partition is placed on.
#include "stepgen/plan/placement.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace stepgen::rt;

namespace {

PartitionRequest slabs_2d(int parts, std::vector<double> weights) {
  PartitionRequest r;
  r.dims = 2;
  r.domain = {64, 60, 1};
  r.halo = Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}});
  r.ghost_lo = {1, 1, 0};
  r.ghost_hi = {1, 1, 0};
  r.devices = parts;
  r.weights = std::move(weights);
  r.strategy = Strategy::kSlabs;
  return r;
}

Index rows(const Part& p) {
  return p.owned.hi[1] - p.owned.lo[1];
}

}  // namespace

TEST_CASE("parts per device: even runs, the first devices take the spare") {
  CHECK(parts_per_device(5, 2) == std::vector<int>{3, 2});
  CHECK(parts_per_device(8, 3) == std::vector<int>{3, 3, 2});
  CHECK(parts_per_device(4, 4) == std::vector<int>{1, 1, 1, 1});
  CHECK(parts_per_device(2, 3) == std::vector<int>{1, 1, 0});
  CHECK(parts_per_device(7, 1) == std::vector<int>{7});
}

TEST_CASE("part weights: a device's weight shared by its parts") {
  // One part per device: the device weights as given, empty for equal.
  CHECK(part_weights({}, 3, 3).empty());
  CHECK(part_weights({1, 3}, 2, 2) == std::vector<double>{1, 3});
  // 5 parts on 2 equal devices: thirds of one half, halves of the other.
  const std::vector<double> w = part_weights({}, 2, 5);
  REQUIRE(w.size() == 5);
  CHECK(w[0] == doctest::Approx(1.0 / 3));
  CHECK(w[2] == doctest::Approx(1.0 / 3));
  CHECK(w[3] == doctest::Approx(0.5));
  CHECK(w[4] == doctest::Approx(0.5));
  // Weights 1 and 3 over 2 + 2 parts.
  CHECK(part_weights({1, 3}, 2, 4) == std::vector<double>{0.5, 0.5, 1.5, 1.5});
}

TEST_CASE("placed parts: each device a run of neighbouring parts, its share of the grid") {
  // 60 rows as 5 slabs on 2 equal devices: 30 rows on each device.
  Partition p = partition(slabs_2d(5, part_weights({}, 2, 5)));
  REQUIRE(p.parts.size() == 5);
  place_parts(p, 2);
  std::vector<int> device;
  for (const Part& part : p.parts) device.push_back(part.device);
  CHECK(device == std::vector<int>{0, 0, 0, 1, 1});
  CHECK(rows(p.parts[0]) + rows(p.parts[1]) + rows(p.parts[2]) == 30);
  CHECK(rows(p.parts[3]) + rows(p.parts[4]) == 30);
  CHECK(shares_devices(p));
  CHECK(devices_used(p) == 2);
  CHECK(parts_text(p) == "5 part(s) on 2 device(s)");
  // Weights 1 and 3: a quarter of the rows on device 0's parts (7.5, 7.5, 22.5, 22.5 rounded
  // by largest remainder, ties to the earlier part: 8, 8, 22, 22).
  Partition q = partition(slabs_2d(4, part_weights({1, 3}, 2, 4)));
  place_parts(q, 2);
  CHECK(rows(q.parts[0]) == 8);
  CHECK(rows(q.parts[1]) == 8);
  CHECK(rows(q.parts[2]) + rows(q.parts[3]) == 44);
}

TEST_CASE("placed parts: one per device leaves the ids as devices") {
  Partition p = partition(slabs_2d(3, {}));
  place_parts(p, 3);
  for (const Part& part : p.parts) CHECK(part.device == part.id);
  CHECK_FALSE(shares_devices(p));
  CHECK(parts_text(p) == "3 device(s)");
}

// Partitioners: STEPOCL's worked example, the min-exchange grid, weights and error messages.
#include "stepgen/plan/partition.hpp"

#include <doctest/doctest.h>

#include "stepgen/plan/exchange.hpp"

using namespace stepgen::rt;

namespace {

// STEPOCL Listing 1's dependent points: (0,1), (0,-1), (10,0), (-10,0).
Halo listing1() {
  return Halo::from_points(2, {{-10, 0, 0}, {10, 0, 0}, {0, 1, 0}, {0, -1, 0}});
}

Halo five_point() {
  return Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}});
}

PartitionRequest request_2d(Index nx, Index ny, Index gx, Index gy, const Halo& h, int devices) {
  PartitionRequest r;
  r.dims = 2;
  r.domain = {nx, ny, 1};
  r.granule = {gx, gy, 1};
  r.halo = h;
  r.ghost_lo = h.lo;
  r.ghost_hi = h.hi;
  r.devices = devices;
  return r;
}

}  // namespace

TEST_CASE("STEPOCL Fig. 1: 20x15 in 5x5 work-groups") {
  // The index-space analysis alone (no ghost): 4 x 3 = 12 work-groups.
  PartitionRequest r = request_2d(20, 15, 5, 5, Halo{}, 12);
  r.halo.dims = 2;
  CHECK(work_groups(r, 0) == 4);
  CHECK(work_groups(r, 1) == 3);
  CHECK(max_parts(r, 0) == 4);
  CHECK(max_parts(r, 1) == 3);
  CHECK(max_devices(r) == 12);
  r.devices = 20;  // more devices than groups: not an error, the extra ones stay idle
  Partition p = partition(r);
  CHECK(p.parts.size() == 12);
  CHECK(p.grid == std::array<int, 3>{4, 3, 1});
  CHECK(p.rationale.find("at most 12") != std::string::npos);
}

TEST_CASE("STEPOCL Listing 1: priority {y, x}, gcd list {1, 2}") {
  const Halo h = listing1();
  CHECK(h.projection(0) == 20);
  CHECK(h.projection(1) == 2);
  CHECK(stepocl_priority(h, 2) == std::vector<int>{1, 0});
  // Listing 1's loop on an index space whose y has an even number of groups (4 x 4).
  PartitionRequest r = request_2d(20, 20, 5, 5, h, 2);
  r.strategy = Strategy::kStepocl;
  Partition p = partition(r);
  CHECK(p.grid == std::array<int, 3>{1, 2, 1});  // x stays whole, y split in two (Fig. 3)
  CHECK(p.priority == std::vector<int>{1, 0});
  REQUIRE(p.parts.size() == 2);
  CHECK(p.parts[0].owned.str() == "[0,20)x[0,10)");
  CHECK(p.parts[1].owned.str() == "[0,20)x[10,20)");
  CHECK(p.parts[0].ghost.str() == "[0,20)x[0,11)");
  CHECK(p.parts[0].neighbours == std::vector<int>{1});
}

TEST_CASE("STEPOCL on Fig. 1's space: y has 3 groups, so the gcd rule splits x") {
  // gcd(3, 2) = 1 along y, then gcd(4, 2) = 2 along x: the paper's {1, 2} needs an even
  // number of groups along y (see docs/plan.md).
  PartitionRequest r = request_2d(20, 15, 5, 5, listing1(), 2);
  r.strategy = Strategy::kStepocl;
  Partition p = partition(r);
  CHECK(p.grid == std::array<int, 3>{2, 1, 1});
  // 5 devices: gcd(3,5) = gcd(4,5) = 1; STEPOCL tries fewer devices and keeps the most used.
  r.halo = Halo{};
  r.halo.dims = 2;
  r.ghost_lo = r.ghost_hi = {0, 0, 0};
  r.devices = 5;
  p = partition(r);
  CHECK(p.parts.size() == 4);
  CHECK(p.grid == std::array<int, 3>{4, 1, 1});
}

TEST_CASE("min-exchange: 8 devices on a square grid take 2x4, not 1x8") {
  PartitionRequest r = request_2d(64, 64, 1, 1, five_point(), 8);
  Partition p = partition(r);
  CHECK(p.grid == std::array<int, 3>{2, 4, 1});
  const Index best = exchanged_cells_per_step(p, r.halo);
  const Index slabs = exchanged_cells_per_step(partition_with_grid(r, {1, 8, 1}), r.halo);
  CHECK(best == 2 * 64 * (1 + 3));
  CHECK(slabs == 2 * 64 * 7);
  CHECK(best < slabs);
  // With STEPOCL's rule the 5-point halo ties, so the slowest dimension takes everything.
  r.strategy = Strategy::kStepocl;
  CHECK(partition(r).grid == std::array<int, 3>{1, 8, 1});
}

TEST_CASE("min-exchange prefers slabs along the slowest dimension on ties") {
  PartitionRequest r = request_2d(64, 64, 1, 1, five_point(), 2);
  CHECK(partition(r).grid == std::array<int, 3>{1, 2, 1});
  // A halo reaching far along y makes cutting x (read only one way, one wide) cheaper.
  r.halo = Halo::from_points(2, {{0, -3, 0}, {0, 3, 0}, {1, 0, 0}});
  r.ghost_lo = r.halo.lo;
  r.ghost_hi = r.halo.hi;
  CHECK(partition(r).grid == std::array<int, 3>{2, 1, 1});
}

TEST_CASE("explicit impossible grids say how many devices fit") {
  PartitionRequest r = request_2d(20, 15, 5, 5, Halo{}, 4);
  r.halo.dims = 2;
  try {
    partition_with_grid(r, {1, 4, 1});
    FAIL("expected a PlanError");
  } catch (const PlanError& e) {
    CHECK(std::string(e.what()) ==
          "at most 12 devices can be used: dimension y has 3 work-groups of 5 (15 cells), so it "
          "can be split into at most 3 parts, not 4");
  }
  r = request_2d(20, 15, 5, 5, listing1(), 4);
  try {
    partition_with_grid(r, {4, 1, 1});
    FAIL("expected a PlanError");
  } catch (const PlanError& e) {
    CHECK(std::string(e.what()) ==
          "at most 6 devices can be used: part 0 would be 5 cells wide along x, thinner than its "
          "ghost width of 10 cells (its ghost would reach past its neighbour); use fewer parts "
          "along that dimension");
  }
  // partition() with 5 devices quietly uses fewer: no grid of 5 fits, 2x2 does.
  r.devices = 5;
  Partition p = partition(r);
  CHECK(p.parts.size() == 4);
  CHECK(p.grid == std::array<int, 3>{2, 2, 1});
  CHECK(p.rationale.find("no grid of 5 parts was feasible") != std::string::npos);
  r.devices = 0;
  CHECK_THROWS_AS(partition(r), PlanError);
  r.devices = 2;
  r.weights = {1.0};
  CHECK_THROWS_WITH(partition(r),
                    "1 device weights given for 2 devices; give one weight per device");
  r.weights = {1.0, -2.0};
  CHECK_THROWS_AS(partition(r), PlanError);
}

TEST_CASE("granularity: split points fall on work-group multiples") {
  PartitionRequest r = request_2d(100, 37, 8, 4, five_point(), 3);
  Partition p = partition_with_grid(r, {3, 1, 1});
  // 13 groups of 8 (the last has 4 cells): 5, 4, 4 groups.
  CHECK(p.parts[0].owned.str() == "[0,40)x[0,37)");
  CHECK(p.parts[1].owned.str() == "[40,72)x[0,37)");
  CHECK(p.parts[2].owned.str() == "[72,100)x[0,37)");
}

TEST_CASE("weighted splits: a fast and a slow device share one grid") {
  PartitionRequest r;
  r.dims = 1;
  r.domain = {100, 1, 1};
  r.granule = {4, 1, 1};
  r.halo = Halo::from_points(1, {{-1, 0, 0}, {1, 0, 0}});
  r.ghost_lo = r.halo.lo;
  r.ghost_hi = r.halo.hi;
  r.devices = 2;
  r.weights = {3.0, 1.0};
  Partition p = partition(r);
  REQUIRE(p.parts.size() == 2);
  CHECK(p.parts[0].owned.str() == "[0,76)");  // 25 groups: 18.75 -> 19 and 6.25 -> 6
  CHECK(p.parts[1].owned.str() == "[76,100)");

  // 2x2 grid, one device three times as fast: slabs along y by summed weight (2 : 4),
  // then each slab along x by its own parts' weights.
  PartitionRequest q;
  q.dims = 2;
  q.domain = {60, 60, 1};
  q.halo = five_point();
  q.ghost_lo = q.halo.lo;
  q.ghost_hi = q.halo.hi;
  q.devices = 4;
  q.weights = {1, 1, 1, 3};
  Partition g = partition_with_grid(q, {2, 2, 1});
  CHECK(g.parts[0].owned.str() == "[0,30)x[0,20)");
  CHECK(g.parts[1].owned.str() == "[30,60)x[0,20)");
  CHECK(g.parts[2].owned.str() == "[0,15)x[20,60)");
  CHECK(g.parts[3].owned.str() == "[15,60)x[20,60)");
  CHECK(g.parts[3].owned.volume() == 3 * g.parts[0].owned.volume());
  CHECK(g.parts[0].neighbours == std::vector<int>{1, 2, 3});  // cuts do not line up
}

TEST_CASE("neighbours include diagonals only when the halo reads them") {
  PartitionRequest r = request_2d(32, 32, 1, 1, five_point(), 4);
  Partition p = partition_with_grid(r, {2, 2, 1});
  CHECK(p.parts[0].neighbours == std::vector<int>{1, 2});
  CHECK(p.parts[3].neighbours == std::vector<int>{1, 2});
  std::vector<Transfer> t = exchange_plan(p, r.halo);
  CHECK(t.size() == 8);
  for (const Transfer& x : t) CHECK(x.src + x.dst != 3);  // nothing between 0-3 and 1-2

  Halo nine = Halo::from_widths(2, {1, 1, 0}, {1, 1, 0});
  CHECK(nine.has_diagonals());
  r.halo = nine;
  p = partition_with_grid(r, {2, 2, 1});
  CHECK(p.parts[0].neighbours == std::vector<int>{1, 2, 3});
  t = exchange_plan(p, r.halo);
  CHECK(t.size() == 12);
  CHECK(received_cells(t, 0) == 16 + 16 + 1);
}

TEST_CASE("deep halos: ghost widths k times the halo, exchanged every k steps") {
  PartitionRequest r = request_2d(32, 32, 1, 1, five_point(), 2);
  r.every = 3;
  r.ghost_lo = {3, 3, 0};
  r.ghost_hi = {3, 3, 0};
  Partition p = partition_with_grid(r, {1, 2, 1});
  CHECK(p.parts[0].ghost.str() == "[0,32)x[0,19)");
  CHECK(exchanged_cells_per_exchange(p, r.halo, 3) == 2 * 3 * 32);
  CHECK(exchanged_cells_per_step(p, r.halo, 3) == 2 * 32);
}

TEST_CASE("halo merge and diagonals") {
  Halo a = Halo::from_points(2, {{1, 0, 0}, {-1, 0, 0}});
  Halo b = Halo::from_points(2, {{0, 2, 0}, {1, 0, 0}});
  Halo m = merge(a, b);
  CHECK(m.points.size() == 3);
  CHECK(m.lo == Vec3{1, 0, 0});
  CHECK(m.hi == Vec3{1, 2, 0});
  CHECK_FALSE(m.has_diagonals());
  Halo w = merge(a, Halo::from_widths(2, {0, 1, 0}, {0, 0, 0}));
  CHECK(w.points.empty());
  CHECK(w.lo == Vec3{1, 1, 0});
  CHECK(merge(Halo{}, a).points.size() == 2);
  CHECK(Halo::from_points(2, {{0, 0, 0}}).empty());
}

TEST_CASE("slabs: every part along the slowest dimension, else the min-exchange grid") {
  PartitionRequest r = request_2d(1024, 1024, 32, 8, five_point(), 4);
  r.strategy = Strategy::kMinExchange;
  CHECK(partition(r).grid == std::array<int, 3>{2, 2, 1});  // fewer bytes than 1x4
  r.strategy = Strategy::kSlabs;
  const Partition p = partition(r);
  CHECK(p.grid == std::array<int, 3>{1, 4, 1});
  CHECK(p.rationale.rfind(
            "slabs: grid 1x4 along the slowest dimension exchanges 24576 bytes per step", 0) == 0);
  for (const Part& part : p.parts) CHECK(part.owned.extent(0) == 1024);
  // 3 rows of 8-row work-groups cannot make 4 slabs: min-exchange's grid, with the reason.
  PartitionRequest thin = request_2d(1024, 24, 32, 8, five_point(), 4);
  thin.strategy = Strategy::kSlabs;
  const Partition q = partition(thin);
  CHECK(q.grid == std::array<int, 3>{4, 1, 1});
  CHECK(q.rationale.rfind("slabs: 4 slabs do not fit the slowest dimension; min-exchange: grid 4x1",
                          0) == 0);
  CHECK(parse_strategy("slabs") == Strategy::kSlabs);
  CHECK_THROWS_WITH(parse_strategy("rows"),
                    "unknown partition strategy 'rows': use min-exchange, slabs or stepocl");
}

TEST_CASE("a dimension of 2^31 work-groups or more: the part counts stay ints") {
  // A 2^31-cell row (local 1): max_parts must not overflow an int, or the plan aborts
  // (std::length_error) or finds no partition.
  const Halo h = Halo::from_widths(2, {1, 0, 0}, {1, 0, 0});
  PartitionRequest r = request_2d(Index{1} << 31, 1, 1, 1, h, 2);
  CHECK(max_parts(r, 0) == (1 << 20));
  const Partition p = partition(r);
  REQUIRE(p.parts.size() == 2);
  CHECK(p.parts[0].owned.extent(0) + p.parts[1].owned.extent(0) == Index{1} << 31);
  r = request_2d(16, Index{1} << 36, 16, 8, Halo::from_widths(2, {0, 1, 0}, {0, 1, 0}), 2);
  CHECK(partition(r).parts.size() == 2);
}

// Boundaries (boundary.hpp): the frame in the partition's ghost boxes, and each kind's mapping
// of frame cells (corners included) composed from the grid's edge slabs.
#include "stepgen/boundary.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "stepgen/exchange.hpp"
#include "stepgen/partition.hpp"

using namespace stepgen::rt;

namespace {

PartitionRequest request(Index nx, Index ny, Index width, std::array<bool, 3> frame) {
  PartitionRequest r;
  r.dims = 2;
  r.domain = {nx, ny, 1};
  r.granule = {1, 1, 1};
  r.halo = Halo::from_widths(2, {width, width, 0}, {width, width, 0});
  r.ghost_lo = {width, width, 0};
  r.ghost_hi = {width, width, 0};
  r.devices = 1;
  r.frame = frame;
  return r;
}

// The frame of a one-part 6x4 grid of cells valued x + 10 y, composed by `rules` (array 0).
std::vector<float> frame_of(const std::vector<BoundaryRule>& rules, Index width, Box* box) {
  const Partition p = partition_with_grid(request(6, 4, width, {true, true, false}), {1, 1, 1});
  FrameSources sources(p, rules.data(), static_cast<int>(rules.size()), {0}, {sizeof(float)});
  for (const FrameSources::Piece& piece : sources.pieces)
    for (Index y = piece.box.lo[1]; y < piece.box.hi[1]; ++y)
      for (Index x = piece.box.lo[0]; x < piece.box.hi[0]; ++x) {
        const float v = static_cast<float>(x + 10 * y);
        const auto at =
            piece.offset +
            sizeof(float) * static_cast<std::size_t>((y - piece.box.lo[1]) * piece.box.extent(0) +
                                                     (x - piece.box.lo[0]));
        std::memcpy(sources.bytes.data() + at, &v, sizeof v);
      }
  *box = p.parts[0].ghost;  // the whole buffer: frame cells composed, grid cells left at -1
  std::vector<float> out(static_cast<std::size_t>(box->volume()), -1.0f);
  sources.fill(0, *box, reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

float at(const std::vector<float>& a, const Box& b, Index x, Index y) {
  return a[static_cast<std::size_t>((y - b.lo[1]) * b.extent(0) + (x - b.lo[0]))];
}

}  // namespace

TEST_CASE("boundary: frame dimensions reach past the grid's edge, the others stay clipped") {
  const Partition p = partition_with_grid(request(8, 8, 1, {true, false, false}), {2, 2, 1});
  CHECK(p.parts[0].ghost.str() == "[-1,5)x[0,5)");
  CHECK(p.parts[1].ghost.str() == "[3,9)x[0,5)");
  CHECK(p.parts[3].ghost.str() == "[3,9)x[3,8)");
  // The exchange between parts is unchanged: read zones stop at the grid.
  const Partition none = partition_with_grid(request(8, 8, 1, {false, false, false}), {2, 2, 1});
  CHECK(none.parts[0].ghost.str() == "[0,5)x[0,5)");
  CHECK(p.parts[0].neighbours == none.parts[0].neighbours);
}

TEST_CASE("boundary: a grid thinner than its frame is refused, naming the dimension") {
  CHECK_THROWS_WITH_AS(partition_with_grid(request(8, 2, 3, {false, true, false}), {1, 1, 1}),
                       "the grid has 2 cells along y, fewer than its boundary frame of 3 cells",
                       PlanError);
}

TEST_CASE("boundary: periodic frames wrap, corners in both dimensions") {
  Box b;
  const std::vector<float> f =
      frame_of({{0, 0, BoundaryKind::kPeriodic, {}}, {0, 1, BoundaryKind::kPeriodic, {}}}, 2, &b);
  CHECK(at(f, b, -1, 0) == 5);    // x = -1 -> 5
  CHECK(at(f, b, -2, 1) == 14);   // x = -2 -> 4
  CHECK(at(f, b, 6, 2) == 20);    // x = 6 -> 0
  CHECK(at(f, b, 2, -1) == 32);   // y = -1 -> 3
  CHECK(at(f, b, 3, 5) == 13);    // y = 5 -> 1
  CHECK(at(f, b, -1, -1) == 35);  // corner -> (5, 3)
  CHECK(at(f, b, 7, 4) == 1);     // corner -> (1, 0)
  CHECK(at(f, b, 2, 2) == -1);    // a grid cell: not part of the frame
}

TEST_CASE("boundary: mirror reflects about the edge face, copy takes the edge cell") {
  Box b;
  const std::vector<float> f =
      frame_of({{0, 0, BoundaryKind::kMirror, {}}, {0, 1, BoundaryKind::kCopy, {}}}, 2, &b);
  CHECK(at(f, b, -1, 1) == 10);  // mirror: -1 -> 0
  CHECK(at(f, b, -2, 1) == 11);  // mirror: -2 -> 1
  CHECK(at(f, b, 7, 2) == 24);   // mirror: 7 -> 4
  CHECK(at(f, b, 3, -2) == 3);   // copy: -2 -> 0
  CHECK(at(f, b, 3, 5) == 33);   // copy: 5 -> 3
  CHECK(at(f, b, -2, -2) == 1);  // corner: mirror x -> 1, copy y -> 0
}

TEST_CASE("boundary: value fills, and wins a corner with another kind") {
  Box b;
  const std::vector<float> f = frame_of({{0, 0, BoundaryKind::kValue, boundary_value<float>(0.5f)},
                                         {0, 1, BoundaryKind::kPeriodic, {}}},
                                        1, &b);
  CHECK(at(f, b, -1, 2) == 0.5f);
  CHECK(at(f, b, 6, 0) == 0.5f);
  CHECK(at(f, b, 2, -1) == 32);     // periodic in y
  CHECK(at(f, b, -1, -1) == 0.5f);  // corner: the value dimension wins
}

TEST_CASE("boundary: a frame along x does not stop slabs along y from overlapping the exchange") {
  PartitionRequest r = request(32, 32, 1, {true, true, false});
  r.halo = Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}});
  const Partition p = partition_with_grid(r, {1, 4, 1});
  const std::vector<Transfer> plan = exchange_plan(p, r.halo);
  for (const Part& part : p.parts) {
    CHECK(part.framed);
    const OverlapViews v = overlap_views(part, 1, 1, 1, {&plan});
    CHECK(v.split);  // the interior runs beside the exchange
    CHECK(v.interior.lo[0] == -1);
    CHECK(v.interior.hi[0] == 33);  // full width, frame included
  }
  // A part split along x too has ghost cells neighbours send along x: no cut.
  const Partition q = partition_with_grid(r, {2, 2, 1});
  const std::vector<Transfer> plan2 = exchange_plan(q, r.halo);
  CHECK_FALSE(overlap_views(q.parts[0], 1, 1, 1, {&plan2}).split);
}

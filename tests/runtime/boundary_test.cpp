// Boundaries (boundary.hpp): the frame in the partition's ghost boxes, and each kind's mapping
// of frame cells (corners included) composed from the grid's edge slabs.
#include "stepgen/plan/boundary.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"

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

// --- Frames filled on the devices (frame_copies) -------------------------------------------

namespace {

// Every part's buffer (its ghost box) after the device copies of frame_copies, the owned and
// inside cells holding the grid's values x + 100 y + 10000 z (+ 0.5), frame cells -1; and the
// same buffers composed on the host (FrameSources::fill). They must be equal cell for cell.
void check_copies_equal_host(PartitionRequest r, const std::array<int, 3>& grid,
                             const std::vector<BoundaryRule>& rules) {
  const Partition p = partition_with_grid(r, grid);
  auto value = [](const Vec3& c) {
    return static_cast<float>(c[0] + 100 * c[1] + 10000 * c[2]) + 0.5f;
  };
  auto index = [](const Box& b, const Vec3& c) {
    return static_cast<std::size_t>(
        ((c[2] - b.lo[2]) * b.extent(1) + (c[1] - b.lo[1])) * b.extent(0) + (c[0] - b.lo[0]));
  };
  std::vector<std::vector<float>> dev, host;
  for (const Part& part : p.parts) {
    std::vector<float> buf(static_cast<std::size_t>(part.ghost.volume()), -1.0f);
    const Box in = intersect(part.ghost, p.domain);
    Vec3 c;
    for (c[2] = in.lo[2]; c[2] < in.hi[2]; ++c[2])
      for (c[1] = in.lo[1]; c[1] < in.hi[1]; ++c[1])
        for (c[0] = in.lo[0]; c[0] < in.hi[0]; ++c[0]) buf[index(part.ghost, c)] = value(c);
    dev.push_back(buf);
    host.push_back(buf);
  }
  const std::vector<FrameCopy> copies =
      frame_copies(p, rules.data(), static_cast<int>(rules.size()), 0);
  std::vector<int> written(0);
  for (const FrameCopy& k : copies) {
    REQUIRE(k.from.extents() == k.to.extents());
    const Box& dst = p.parts[static_cast<std::size_t>(k.dst)].ghost;
    REQUIRE(dst.contains(k.to));
    REQUIRE(intersect(k.to, p.domain).empty());  // frame cells only
    if (k.src >= 0) REQUIRE(p.parts[static_cast<std::size_t>(k.src)].owned.contains(k.from));
    Vec3 c;
    for (c[2] = k.to.lo[2]; c[2] < k.to.hi[2]; ++c[2])
      for (c[1] = k.to.lo[1]; c[1] < k.to.hi[1]; ++c[1])
        for (c[0] = k.to.lo[0]; c[0] < k.to.hi[0]; ++c[0]) {
          float v;
          if (k.src < 0) {
            std::memcpy(&v, k.value.data(), sizeof v);
          } else {
            Vec3 s;
            for (std::size_t d = 0; d < 3; ++d) s[d] = c[d] - k.to.lo[d] + k.from.lo[d];
            v = dev[static_cast<std::size_t>(k.src)]
                   [index(p.parts[static_cast<std::size_t>(k.src)].ghost, s)];
          }
          float& cell = dev[static_cast<std::size_t>(k.dst)][index(dst, c)];
          REQUIRE(cell == -1.0f);  // written once
          cell = v;
        }
  }
  FrameSources sources(p, rules.data(), static_cast<int>(rules.size()), {0}, {sizeof(float)});
  for (const FrameSources::Piece& piece : sources.pieces) {
    Vec3 c;
    std::size_t at = piece.offset;
    for (c[2] = piece.box.lo[2]; c[2] < piece.box.hi[2]; ++c[2])
      for (c[1] = piece.box.lo[1]; c[1] < piece.box.hi[1]; ++c[1])
        for (c[0] = piece.box.lo[0]; c[0] < piece.box.hi[0]; ++c[0], at += sizeof(float)) {
          const float v = value(c);
          std::memcpy(sources.bytes.data() + at, &v, sizeof v);
        }
  }
  for (std::size_t q = 0; q < p.parts.size(); ++q) {
    const Box& g = p.parts[q].ghost;
    for (const Box& f : frame_boxes(p.domain, g)) {
      std::vector<float> out(static_cast<std::size_t>(f.volume()), -1.0f);
      sources.fill(0, f, reinterpret_cast<unsigned char*>(out.data()));
      Vec3 c;
      std::size_t at = 0;
      for (c[2] = f.lo[2]; c[2] < f.hi[2]; ++c[2])
        for (c[1] = f.lo[1]; c[1] < f.hi[1]; ++c[1])
          for (c[0] = f.lo[0]; c[0] < f.hi[0]; ++c[0]) host[q][index(g, c)] = out[at++];
    }
    CHECK(dev[q] == host[q]);
  }
}

}  // namespace

TEST_CASE("boundary: the device copies fill every frame as the host composes it") {
  const BoundaryValue half = boundary_value<float>(0.5f), two = boundary_value<float>(2.0f);
  const std::vector<std::vector<BoundaryRule>> rule_sets = {
      {{0, 0, BoundaryKind::kPeriodic, {}}, {0, 1, BoundaryKind::kPeriodic, {}}},
      {{0, 0, BoundaryKind::kMirror, {}}, {0, 1, BoundaryKind::kCopy, {}}},
      {{0, 0, BoundaryKind::kCopy, {}}, {0, 1, BoundaryKind::kMirror, {}}},
      {{0, 0, BoundaryKind::kValue, half}, {0, 1, BoundaryKind::kPeriodic, {}}},
      {{0, 0, BoundaryKind::kPeriodic, {}}, {0, 1, BoundaryKind::kValue, half}},
      {{0, 0, BoundaryKind::kValue, half}, {0, 1, BoundaryKind::kValue, two}},
      {{0, 0, BoundaryKind::kMirror, {}}, {0, 1, BoundaryKind::kPeriodic, {}}},
      {{0, 1, BoundaryKind::kPeriodic, {}}},  // a frame along x without a rule: left as it is
  };
  // Part grids, thin parts among them: 8 cells split in 4 (2 cells: one frame width of 2, two
  // of 1) and in 8 (1 cell, frame width 1; parts thinner than their ghost width are refused).
  const std::vector<std::array<int, 3>> grids = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1},
                                                 {4, 1, 1}, {1, 4, 1}, {3, 2, 1}, {8, 1, 1}};
  for (Index width : {1, 2})
    for (const auto& rules : rule_sets)
      for (const auto& grid : grids) {
        if (width * std::max(grid[0], grid[1]) > 8) continue;
        CAPTURE(width);
        CAPTURE(grid[0]);
        CAPTURE(grid[1]);
        check_copies_equal_host(request(8, 8, width, {true, true, false}), grid, rules);
      }
  // 3-D: periodic x, mirror y, value z on a 2x2x2 grid of parts.
  PartitionRequest r3;
  r3.dims = 3;
  r3.domain = {6, 6, 6};
  r3.granule = {1, 1, 1};
  r3.halo = Halo::from_widths(3, {1, 1, 1}, {1, 1, 1});
  r3.ghost_lo = {1, 1, 1};
  r3.ghost_hi = {1, 1, 1};
  r3.devices = 1;
  r3.frame = {true, true, true};
  for (const auto& grid : std::vector<std::array<int, 3>>{{1, 1, 1}, {2, 2, 2}, {3, 1, 2}})
    check_copies_equal_host(r3, grid,
                            {{0, 0, BoundaryKind::kPeriodic, {}},
                             {0, 1, BoundaryKind::kMirror, {}},
                             {0, 2, BoundaryKind::kValue, half}});
}

// --- Physical frames refilled within one buffer (refill_copies, out of core) ----------------

namespace {

// One out-of-core chunk's buffer of a 10x8 grid: x whole with a frame of 2 on both sides, y from
// the frame below the grid (2 planes) to plane 5 (the chunk's window ends inside the grid). The
// cells inside the grid and the periodic images (which the kernels compute) hold the grid's
// values x + 100 y + 0.5; every other frame cell -1. After refill_copies' copies every cell
// must hold what the frame rules give (per dimension, as FrameSources::fill), the periodic
// images untouched, but along the dimensions `periodic` names (refilled from the far side).
void check_refill(const std::vector<BoundaryRule>& rules, std::array<bool, 3> periodic = {}) {
  const Box grid = Box::from_extent(2, {10, 8, 1});
  Box buffer = grid;
  buffer.lo[0] = -2;
  buffer.hi[0] = 12;
  buffer.lo[1] = -2;
  buffer.hi[1] = 5;
  const int count = static_cast<int>(rules.size());
  auto index = [&](const Vec3& c) {
    return static_cast<std::size_t>((c[1] - buffer.lo[1]) * buffer.extent(0) +
                                    (c[0] - buffer.lo[0]));
  };
  // What the rules give at c, and whether c is a cell the refill leaves (inside, or past the
  // edge in periodic dimensions only).
  auto expected = [&](const Vec3& c, bool& kept) {
    Vec3 s = c;
    kept = true;
    float value = 0;
    bool is_value = false;
    for (std::size_t d = 0; d < 2; ++d) {
      const Index n = grid.extent(static_cast<int>(d));
      if (c[d] >= 0 && c[d] < n) continue;
      const BoundaryRule* r = find_boundary(rules.data(), count, 0, static_cast<int>(d));
      REQUIRE(r != nullptr);
      if (r->kind != BoundaryKind::kPeriodic || periodic[d]) kept = false;
      switch (r->kind) {
        case BoundaryKind::kPeriodic:
          s[d] = (c[d] % n + n) % n;
          break;
        case BoundaryKind::kMirror:
          s[d] = c[d] < 0 ? -1 - c[d] : 2 * n - 1 - c[d];
          break;
        case BoundaryKind::kCopy:
          s[d] = c[d] < 0 ? 0 : n - 1;
          break;
        case BoundaryKind::kValue:
          if (!is_value) std::memcpy(&value, r->value.data(), sizeof value);
          is_value = true;
          break;
      }
    }
    return is_value ? value : static_cast<float>(s[0] + 100 * s[1]) + 0.5f;
  };
  std::vector<float> buf(static_cast<std::size_t>(buffer.volume()));
  Vec3 c{0, 0, 0};
  for (c[1] = buffer.lo[1]; c[1] < buffer.hi[1]; ++c[1])
    for (c[0] = buffer.lo[0]; c[0] < buffer.hi[0]; ++c[0]) {
      bool kept = false;
      const float v = expected(c, kept);
      buf[index(c)] = kept ? v : -1.0f;
    }
  const std::vector<FrameCopy> copies =
      refill_copies(grid, buffer, rules.data(), count, 0, periodic);
  std::vector<int> written(buf.size(), 0);
  for (const FrameCopy& k : copies) {
    REQUIRE(k.from.extents() == k.to.extents());
    REQUIRE(buffer.contains(k.to));
    REQUIRE(intersect(k.to, grid).empty());  // frame cells only
    if (k.src >= 0) REQUIRE(buffer.contains(k.from));
    Vec3 t{0, 0, 0};
    for (t[1] = k.to.lo[1]; t[1] < k.to.hi[1]; ++t[1])
      for (t[0] = k.to.lo[0]; t[0] < k.to.hi[0]; ++t[0]) {
        ++written[index(t)];
        if (k.src < 0) {
          std::memcpy(&buf[index(t)], k.value.data(), sizeof(float));
        } else {
          const Vec3 s{t[0] - k.to.lo[0] + k.from.lo[0], t[1] - k.to.lo[1] + k.from.lo[1], 0};
          bool kept = false;
          expected(s, kept);
          REQUIRE(kept);  // a source is never a refilled cell: the copies run in any order
          buf[index(t)] = buf[index(s)];
        }
      }
  }
  for (c[1] = buffer.lo[1]; c[1] < buffer.hi[1]; ++c[1])
    for (c[0] = buffer.lo[0]; c[0] < buffer.hi[0]; ++c[0]) {
      bool kept = false;
      INFO("cell " << c[0] << "," << c[1]);
      CHECK(buf[index(c)] == expected(c, kept));
      CHECK(written[index(c)] == (kept ? 0 : 1));  // each refilled cell once, the rest never
    }
}

}  // namespace

TEST_CASE("boundary: a chunk refills its mirror, copy and value frames from its own cells") {
  using K = BoundaryKind;
  check_refill({{0, 0, K::kMirror, {}}, {0, 1, K::kCopy, {}}});
  check_refill({{0, 0, K::kCopy, {}}, {0, 1, K::kMirror, {}}});
  check_refill({{0, 0, K::kValue, boundary_value<float>(0.5f)}, {0, 1, K::kMirror, {}}});
  check_refill({{0, 0, K::kMirror, {}}, {0, 1, K::kValue, boundary_value<float>(2.5f)}});
  // Periodic along one dimension: its images are the kernels' (kept); a corner past a mirror
  // or value edge too is refilled from the image.
  check_refill({{0, 0, K::kPeriodic, {}}, {0, 1, K::kMirror, {}}});
  check_refill({{0, 0, K::kMirror, {}}, {0, 1, K::kPeriodic, {}}});
  check_refill({{0, 0, K::kPeriodic, {}}, {0, 1, K::kValue, boundary_value<float>(0.5f)}});
  // Only periodic: nothing to refill.
  CHECK(
      refill_copies(Box::from_extent(2, {10, 8, 1}), Box::from_extent(2, {10, 8, 1}), nullptr, 0, 0)
          .empty());
}

TEST_CASE("boundary: a chunk spanning x refills a periodic x-frame from the far side") {
  // Out of core, a periodic array beside a physical one along x (ooc::frame_request): the
  // buffer holds the whole grid along x, so the chunk copies the images from the far side.
  using K = BoundaryKind;
  const std::array<bool, 3> x{true, false, false};
  check_refill({{0, 0, K::kPeriodic, {}}, {0, 1, K::kMirror, {}}}, x);
  check_refill({{0, 0, K::kPeriodic, {}}, {0, 1, K::kValue, boundary_value<float>(0.5f)}}, x);
  check_refill({{0, 0, K::kPeriodic, {}}, {0, 1, K::kPeriodic, {}}}, x);  // y: the images
  check_refill({{0, 0, K::kPeriodic, {}}, {0, 1, K::kCopy, {}}}, {true, true, false});
  // A periodic rule along a dimension not named: the kernels' images, no copy.
  CHECK(refill_copies(Box::from_extent(2, {10, 8, 1}), Box{2, {-1, -1, 0}, {11, 9, 1}},
                      std::vector<BoundaryRule>{{0, 0, K::kPeriodic, {}}}.data(), 1, 0,
                      {false, true, false})
            .empty());
}

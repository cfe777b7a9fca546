// Region algebra: boxes, subtraction, coalescing, rect copies.
#include "stepgen/plan/box.hpp"

#include <doctest/doctest.h>

using namespace stepgen::rt;

TEST_CASE("box basics") {
  Box b = Box::from_extent(2, {10, 6, 99});
  CHECK(b.lo == Vec3{0, 0, 0});
  CHECK(b.hi == Vec3{10, 6, 1});
  CHECK(b.volume() == 60);
  CHECK(b.str() == "[0,10)x[0,6)");
  CHECK(b.translated({2, -1, 5}).str() == "[2,12)x[-1,5)");
  CHECK(b.translated({2, -1, 5}).hi[2] == 1);  // unused dimensions never move
  CHECK(b.grown({1, 2, 3}, {4, 5, 6}).str() == "[-1,14)x[-2,11)");
  CHECK(b.contains_point({9, 5, 0}));
  CHECK_FALSE(b.contains_point({10, 5, 0}));
  CHECK(b.contains(Box::from_extent(2, {3, 3, 1})));
  CHECK(intersect(b, b.translated({20, 0, 0})).empty());
  CHECK(intersect(b, b.translated({20, 0, 0})).volume() == 0);
  CHECK(intersect(b, b.translated({5, 3, 0})).str() == "[5,10)x[3,6)");
}

TEST_CASE("bounding: the smallest box holding both") {
  const Box a = Box::from_extent(2, {10, 6, 1});
  CHECK(bounding(a, a.translated({5, -2, 0})).str() == "[0,15)x[-2,6)");
  CHECK(bounding(a, a) == a);
  CHECK(bounding(a, Box::from_extent(2, {0, 0, 1})) == a);  // an empty box adds nothing
  CHECK(bounding(Box::from_extent(2, {0, 0, 1}), a) == a);
  CHECK(bounding(a, a.translated({20, 0, 0})).volume() == 30 * 6);
}

TEST_CASE("subtract cuts the slowest dimension first") {
  Box a = Box::from_extent(2, {10, 10, 1});
  Box hole;
  hole.dims = 2;
  hole.lo = {3, 4, 0};
  hole.hi = {5, 6, 1};
  std::vector<Box> rest = subtract(a, hole);
  REQUIRE(rest.size() == 4);
  CHECK(rest[0].str() == "[0,10)x[0,4)");  // whole rows below: contiguous
  CHECK(rest[1].str() == "[0,10)x[6,10)");
  CHECK(rest[2].str() == "[0,3)x[4,6)");
  CHECK(rest[3].str() == "[5,10)x[4,6)");
  CHECK(volume(rest) == 100 - 4);
  CHECK(disjoint(rest));
  CHECK(subtract(a, a).empty());
  CHECK(subtract(a, a.translated({100, 0, 0})).size() == 1);
}

TEST_CASE("coalesce merges touching slabs") {
  Box a = Box::from_extent(2, {10, 10, 1});
  std::vector<Box> pieces = subtract(a, std::vector<Box>{});
  CHECK(pieces.size() == 1);
  Box left = a, right = a;
  left.hi[0] = 4;
  right.lo[0] = 4;
  std::vector<Box> merged = coalesce({right, left});
  REQUIRE(merged.size() == 1);
  CHECK(merged[0] == a);
  Box off = right;
  off.lo[1] = 1;  // does not line up: stays apart
  CHECK(coalesce({left, off}).size() == 2);
}

TEST_CASE("rect_of: a 3D sub-box of a ghosted buffer") {
  // A part's ghost buffer [2,12)x[3,9)x[5,9) of doubles; copy out the face x in [4,6),
  // y in [3,9) (all rows), z in [6,8).
  Box buffer;
  buffer.dims = 3;
  buffer.lo = {2, 3, 5};
  buffer.hi = {12, 9, 9};
  Box face = buffer;
  face.lo = {4, 3, 6};
  face.hi = {6, 9, 8};
  RectCopy r = rect_of(face, buffer, 8);
  CHECK(r.origin == std::array<std::size_t, 3>{16, 0, 1});
  CHECK(r.region == std::array<std::size_t, 3>{16, 6, 2});
  CHECK(r.row_pitch == 80);
  CHECK(r.slice_pitch == 480);
  CHECK(r.offset() == 16 + 480);
  CHECK(r.bytes() == 16 * 6 * 2);
  CHECK_FALSE(r.contiguous());
  // Whole slices are one contiguous span.
  Box slab = buffer;
  slab.lo[2] = 6;
  slab.hi[2] = 8;
  RectCopy s = rect_of(slab, buffer, 8);
  CHECK(s.contiguous());
  CHECK(s.offset() == 480);
  CHECK(s.bytes() == 960);
  CHECK_THROWS_AS(rect_of(buffer.grown({1, 0, 0}, {0, 0, 0}), buffer, 8), std::invalid_argument);
}

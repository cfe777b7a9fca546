// Out of core, how each dimension's <boundary> frame is kept through a pass
// (rt::ooc::frame_request, ooc/frames.hpp): kernels' images where every rule is periodic,
// refilled on the chunks where no written array is periodic, and where a periodic array meets
// a mirror, copy or value(v) one: refilled from the far side where the chunks span the grid,
// else one step per pass (refused above it, the model's choice capped).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "stepgen/exec/ooc/frames.hpp"
#include "stepgen/plan/ooc/model.hpp"

using namespace stepgen::rt;

namespace {

using K = BoundaryKind;

// A 2D 16x12 grid (y chunked) in `parts` parts, split along y (`along` 1) or x (0); arrays U and
// V written, C read-only.
ooc::Request frames_request(int parts = 1, int along = 1) {
  ooc::Request r;
  r.grid = Box::from_extent(2, {16, 12, 1});
  for (int p = 0; p < parts; ++p) {
    Box b = r.grid;
    const auto d = static_cast<std::size_t>(along);
    b.lo[d] = r.grid.hi[d] * p / parts;
    b.hi[d] = r.grid.hi[d] * (p + 1) / parts;
    r.owned.push_back(b);
  }
  r.shrink_lo = r.shrink_hi = {1, 1, 0};
  r.arrays = {{"U", 4, true}, {"V", 4, true}, {"C", 4, false}};
  r.buffers = 3;
  return r;
}

ooc::Request with_frames(std::vector<BoundaryRule> rules, ooc::Request r = frames_request()) {
  ooc::frame_request(rules.data(), static_cast<int>(rules.size()), r);
  return r;
}

}  // namespace

TEST_CASE("ooc frames: one kind along a dimension keeps the frame as before") {
  // All periodic: the kernels' images, k steps wide; all physical: refilled, any k.
  ooc::Request r = with_frames({{0, 0, K::kPeriodic, {}},
                                {1, 0, K::kPeriodic, {}},
                                {0, 1, K::kMirror, {}},
                                {1, 1, K::kCopy, {}}});
  CHECK(r.frame == std::array<bool, 3>{true, true, false});
  CHECK(r.frame_refilled == std::array<bool, 3>{false, true, false});
  CHECK(r.periodic_refilled == std::array<bool, 3>{false, false, false});
  CHECK(r.max_steps_per_pass == 0);
  // A read-only array periodic beside a written mirror one: its frame is constant (the
  // snapshot), the kernels image no written array: as an all-periodic dimension, any k.
  r = with_frames({{1, 1, K::kMirror, {}}, {2, 1, K::kPeriodic, {}}});
  CHECK(!r.frame_refilled[1]);
  CHECK(!r.periodic_refilled[1]);
  CHECK(r.max_steps_per_pass == 0);
}

TEST_CASE("ooc frames: periodic beside mirror, copy or value along x: refilled from the far side") {
  for (K other : {K::kMirror, K::kCopy, K::kValue}) {
    CAPTURE(static_cast<int>(other));
    for (int reader : {1, 2}) {  // written V or read-only C
      ooc::Request r =
          with_frames({{0, 0, K::kPeriodic, {}}, {reader, 0, other, {}}}, frames_request(2));
      CHECK(r.frame_refilled[0]);
      CHECK(r.periodic_refilled[0]);
      CHECK(r.max_steps_per_pass == 0);
      r.steps_per_pass = 4;
      CHECK_NOTHROW(ooc::check_steps_per_pass(r));
      const ooc::Schedule sc = ooc::schedule(r);
      CHECK(sc.framed.lo[0] == -1);  // one step's frame: the edge is a fixed one
      CHECK(sc.max_steps_why.empty());
    }
  }
}

TEST_CASE("ooc frames: kinds mixed along the chunked dimension or a split one: one step a pass") {
  struct Case {
    ooc::Request r;
    const char* why;
  };
  const std::vector<Case> cases = {
      {with_frames({{0, 1, K::kPeriodic, {}}, {1, 1, K::kMirror, {}}}),
       "U is periodic along y and V mirror (y: the dimension the chunks split)"},
      {with_frames({{0, 1, K::kPeriodic, {}}, {2, 1, K::kValue, boundary_value<float>(3)}}),
       "U is periodic along y and C value (y: the dimension the chunks split)"},
      {with_frames({{0, 0, K::kPeriodic, {}}, {1, 0, K::kCopy, {}}}, frames_request(2, 0)),
       "U is periodic along x and V copy (x: split between the parts)"}};
  for (const Case& c : cases) {
    CAPTURE(c.why);
    ooc::Request r = c.r;
    CHECK(r.max_steps_per_pass == 1);
    CHECK(r.max_steps_why.find(c.why) == 0);
    for (int k : {0, 1}) {
      r.steps_per_pass = k;
      CHECK_NOTHROW(ooc::check_steps_per_pass(r));
    }
    // The model stays at one step even with 10 steps it could fold into a pass.
    r.steps_per_pass = 0;
    r.chunks = 2;
    const ooc::Schedule sc = ooc::choose(r, Index{1} << 30, ooc::Link{}, 10, true);
    CHECK(sc.steps_per_pass == 1);
    CHECK(sc.max_steps_why == r.max_steps_why);
    r.steps_per_pass = 2;
    const std::string refused = "but at most 1 can be exact: " + r.max_steps_why;
    CHECK_THROWS_WITH_AS(ooc::check_steps_per_pass(r), doctest::Contains(refused.c_str()),
                         PlanError);
  }
}

TEST_CASE("ooc frames: a periodic frame read past the edge after a write in the step is refused") {
  // Difftest seed 20059: a launch reads U past the edge along y after an earlier launch wrote
  // it; U periodic beside V's mirror along y. Within the step that frame is the kernels'
  // images, computed from V's mirror frame: where the chunks cannot refill it from the far
  // side (the chunked dimension, a split one), out of core refuses, naming the reads.
  const std::string reads =
      "kernel 'b' reads 'U' past the grid's edge along y after kernel 'a' wrote it in the same "
      "step";
  for (int along : {0, 1}) {
    CAPTURE(along);
    ooc::Request r = frames_request(2, along);
    r.frame_read_after_write[1] = reads;
    std::vector<BoundaryRule> rules = {{0, 1, K::kPeriodic, {}}, {1, 1, K::kMirror, {}}};
    const std::string why = "cannot run out of core exactly: " + reads +
                            ", and along y U is periodic beside V's mirror frame (y: ";
    CHECK_THROWS_WITH_AS(ooc::frame_request(rules.data(), 2, r), doctest::Contains(why.c_str()),
                         PlanError);
  }
  // Along x with the parts split along y, the chunks refill U's frame from the far side their
  // windows hold: exact, no refusal. All periodic: images of images, no refusal either.
  ooc::Request r = frames_request(2, 1);
  r.frame_read_after_write[0] = "kernel 'b' reads 'U' past the grid's edge along x after ...";
  std::vector<BoundaryRule> rules = {{0, 0, K::kPeriodic, {}}, {1, 0, K::kMirror, {}}};
  CHECK_NOTHROW(ooc::frame_request(rules.data(), 2, r));
  CHECK(r.periodic_refilled[0]);
  r = frames_request(2, 1);
  r.frame_read_after_write[1] = "kernel 'b' reads 'U' past the grid's edge along y after ...";
  rules = {{0, 1, K::kPeriodic, {}}, {1, 1, K::kPeriodic, {}}};
  CHECK_NOTHROW(ooc::frame_request(rules.data(), 2, r));
}

// Out-of-core chunk plans: extended PACC's worked example and edge cases.
#include "stepgen/plan/chunk.hpp"

#include <doctest/doctest.h>

using namespace stepgen::rt;

namespace {

// Extended PACC §6.3: four 1160^3 float arrays streamed as 1160 planes in 8 chunks, halo 4
// planes (the 25-point kernel), k = 12 steps per pass. The 1160 computed planes sit between 4
// boundary planes on each side (see docs/plan.md).
ChunkRequest pacc(bool sharing) {
  ChunkRequest r;
  r.plane_lo = 0;
  r.plane_hi = 1160;
  r.domain_planes = 1160;
  r.halo_lo = r.halo_hi = 4;
  r.pad_lo = r.pad_hi = 4;
  r.chunks = 8;
  r.steps_per_pass = 12;
  r.region_sharing = sharing;
  const Index plane = 1160 * 1160 * 4;
  r.arrays = {{plane, false}, {plane, false}, {plane, true}, {plane, true}};
  return r;
}

}  // namespace

TEST_CASE("extended PACC 6.3: 52 and 96 halo planes, 1840 vs 1160 planes sent") {
  ChunkPlan with = chunk_plan(pacc(true));
  REQUIRE(with.chunks.size() == 8);
  CHECK(with.chunks[0].halo_planes() == 52);  // 4 boundary + 4*12
  CHECK(with.chunks[7].halo_planes() == 52);
  for (int c = 1; c < 7; ++c) CHECK(with.chunks[static_cast<std::size_t>(c)].halo_planes() == 96);
  CHECK(with.h2d_planes_without_sharing == 1840);  // 1160 + 52*2 + 96*6
  CHECK(with.h2d_planes_per_pass == 1160);
  CHECK(with.h2d_planes_once == 8);  // the boundary planes, resident
  CHECK(with.d2h_planes_per_pass == 1160);
  CHECK(with.d2d_planes_per_pass == 7 * 96 + 8);
  CHECK(with.max_load_planes == 145 + 96);
  const Index plane = 1160 * 1160 * 4;
  CHECK(with.h2d_bytes_per_pass == 4 * 1160 * plane);
  CHECK(with.h2d_bytes_without_sharing == 4 * 1840 * plane);
  CHECK(with.d2h_bytes_per_pass == 2 * 1160 * plane);  // read-only arrays stay on the host
  CHECK(with.device_bytes == 4 * (3 * 241 + 8) * plane);
  CHECK(with.buffer_bytes == std::vector<Index>(4, 241 * plane));
  CHECK(with.chunks[1].shared_lo == 145 - 48);
  CHECK(with.chunks[1].shared_hi == 145 + 48);
  CHECK(with.chunks[1].h2d_lo == 193);
  CHECK(with.chunks[1].h2d_hi == 290 + 48);

  ChunkPlan without = chunk_plan(pacc(false));
  CHECK(without.h2d_planes_per_pass == 1840);
  CHECK(without.h2d_planes_without_sharing == 1840);
  CHECK(without.d2d_planes_per_pass == 0);
  CHECK(without.h2d_planes_once == 0);
  CHECK(without.device_bytes == 4 * 3 * 241 * plane);
}

TEST_CASE("chunk plan of an interior part and errors") {
  ChunkRequest r;
  r.plane_lo = 10;
  r.plane_hi = 20;
  r.domain_planes = 40;
  r.halo_lo = 1;
  r.halo_hi = 2;
  r.chunks = 3;
  r.steps_per_pass = 2;
  r.arrays = {{100, false}};
  ChunkPlan p = chunk_plan(r);
  CHECK(p.chunks[0].own_lo == 10);
  CHECK(p.chunks[0].own_hi == 14);  // 4, 3, 3: spare planes to the first chunks
  CHECK(p.chunks[0].load_lo == 8);
  CHECK(p.chunks[0].load_hi == 18);
  CHECK(p.chunks[0].h2d_lo == 8);  // the part's ghost planes come from the host
  CHECK(p.chunks[2].load_hi == 24);
  CHECK(p.h2d_planes_per_pass == 24 - 8);
  r.chunks = 11;
  CHECK_THROWS_WITH(chunk_plan(r),
                    "at most 10 chunks can be used: the part has 10 planes along its slowest "
                    "dimension, not 11");
  r.chunks = 0;
  CHECK_THROWS_AS(chunk_plan(r), PlanError);
}

// Out-of-core schedules: chunk boxes, errors, the pipeline's ordering (every hazard ruled out
// by events), the model's choice and the option parser.
#include "stepgen/exec/ooc.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>

using namespace stepgen::rt;

namespace {

// The acoustic example's shape: 64x56x48 floats, radius 4 along every axis, four arrays of
// which one (vel) is read-only.
ooc::Request acoustic(int parts_along_z, int chunks, int k, bool sharing) {
  ooc::Request r;
  r.grid = Box::from_extent(3, {64, 56, 48});
  for (int p = 0; p < parts_along_z; ++p) {
    Box b = r.grid;
    b.lo[2] = 48 * p / parts_along_z;
    b.hi[2] = 48 * (p + 1) / parts_along_z;
    r.owned.push_back(b);
  }
  r.shrink_lo = r.shrink_hi = {4, 4, 4};
  r.arrays = {{"p0", 4, true}, {"p1", 4, true}, {"p2", 4, true}, {"vel", 4, false}};
  r.chunks = chunks;
  r.steps_per_pass = k;
  r.region_sharing = sharing;
  return r;
}

// Happens-before over the ops: waits, stream order (per part and stream) and barriers.
struct Order {
  std::vector<ooc::Op> ops;
  std::vector<std::set<std::size_t>> before;  // indices of ops that happen before op i
  std::map<std::tuple<int, int, Index>, std::size_t> index;  // (part, kind, t) -> op

  explicit Order(std::vector<ooc::Op> o) : ops(std::move(o)), before(ops.size()) {
    std::map<std::pair<int, int>, std::size_t> last_on_stream;
    std::size_t last_barrier = SIZE_MAX;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const ooc::Op& op = ops[i];
      if (op.kind == ooc::Op::Kind::kBarrier) {
        for (std::size_t j = 0; j < i; ++j) before[i].insert(j);
        last_barrier = i;
        continue;
      }
      auto add = [&](std::size_t j) {
        before[i].insert(j);
        before[i].insert(before[j].begin(), before[j].end());
      };
      if (last_barrier != SIZE_MAX) add(last_barrier);
      const auto stream = std::make_pair(op.part, static_cast<int>(op.kind));
      if (last_on_stream.count(stream)) add(last_on_stream[stream]);
      last_on_stream[stream] = i;
      for (const auto& [kind, t] : op.waits) {
        auto it = index.find({op.part, static_cast<int>(kind), t});
        REQUIRE_MESSAGE(it != index.end(), "op waits for an event not issued yet");
        add(it->second);
      }
      index[{op.part, static_cast<int>(op.kind), op.t}] = i;
    }
  }
  std::size_t at(int part, ooc::Op::Kind kind, Index t) const {
    return index.at({part, static_cast<int>(kind), t});
  }
  bool hb(std::size_t a, std::size_t b) const { return before[b].count(a) > 0; }
};

// Checks every hazard of a schedule run for `steps` steps.
void check_hazards(const ooc::Schedule& sc, Index steps) {
  using K = ooc::Op::Kind;
  Order o(ooc::ops(sc, steps));
  const Index n = sc.chunks, total = ooc::passes(steps, sc.steps_per_pass) * n;
  for (std::size_t p = 0; p < sc.parts.size(); ++p) {
    const int part = static_cast<int>(p);
    const auto& chunks = sc.parts[p].chunks;
    for (Index t = 0; t < total; ++t) {
      const ooc::Chunk& c = chunks[static_cast<std::size_t>(t % n)];
      // Each chunk is loaded, computed and stored once, in that order.
      CHECK(o.hb(o.at(part, K::kLoad, t), o.at(part, K::kCompute, t)));
      CHECK(o.hb(o.at(part, K::kCompute, t), o.at(part, K::kStore, t)));
      // Slot reuse: the previous occupant is stored before the slot is written again.
      if (t + sc.buffers < total) {
        CHECK(o.hb(o.at(part, K::kStore, t), o.at(part, K::kLoad, t + sc.buffers)));
        if (sc.region_sharing && (t + sc.buffers) % n != 0)  // shared in by compute(t+B-1)
          CHECK(o.hb(o.at(part, K::kStore, t), o.at(part, K::kCompute, t + sc.buffers - 1)));
      }
      // Region sharing: the next chunk's shared planes are copied from this chunk's input,
      // inside compute(t) before its kernels; the next chunk computes after that.
      if (sc.region_sharing && t % n + 1 < n && t + 1 < total)
        CHECK(o.hb(o.at(part, K::kCompute, t), o.at(part, K::kCompute, t + 1)));
      // Host reads before host writes of the same pass, and host writes before the next
      // pass's reads.
      for (Index u = 0; u < total; ++u) {
        if (u == t) continue;
        const ooc::Chunk& d = chunks[static_cast<std::size_t>(u % n)];
        if (intersect(d.h2d, c.own).empty()) continue;
        if (u / n == t / n)
          CHECK_MESSAGE(o.hb(o.at(part, K::kLoad, u), o.at(part, K::kStore, t)), "load ", u,
                        " reads planes store ", t, " writes");
        else if (u / n == t / n + 1)
          CHECK_MESSAGE(o.hb(o.at(part, K::kStore, t), o.at(part, K::kLoad, u)), "load ", u,
                        " of the next pass reads planes store ", t, " writes");
      }
    }
  }
}

}  // namespace

TEST_CASE("ooc schedule: boxes of one part, with and without region sharing") {
  ooc::Schedule with = ooc::schedule(acoustic(1, 4, 2, true));
  REQUIRE(with.parts.size() == 1);
  const ooc::Part& p = with.parts[0];
  CHECK(p.reach == Box::from_extent(3, {64, 56, 48}));
  CHECK(p.foreign.empty());
  REQUIRE(p.chunks.size() == 4);
  // 12 planes each; k * halo = 8 planes around, clipped at the grid.
  CHECK(p.chunks[0].load.lo[2] == 0);
  CHECK(p.chunks[0].load.hi[2] == 20);
  CHECK(p.chunks[1].load.lo[2] == 4);
  CHECK(p.chunks[1].load.hi[2] == 32);
  CHECK(p.chunks[1].shared.lo[2] == 4);
  CHECK(p.chunks[1].shared.hi[2] == 20);
  CHECK(p.chunks[1].h2d.lo[2] == 20);
  CHECK(p.chunks[1].h2d.hi[2] == 32);
  CHECK(p.chunks[3].own == [] {
    Box b = Box::from_extent(3, {64, 56, 48});
    b.lo[2] = 36;
    return b;
  }());
  // Every plane crosses the bus once per pass with sharing.
  const Index plane = 64 * 56 * 4;
  CHECK(with.h2d_bytes == 48 * plane * 4);
  CHECK(with.d2h_bytes == 48 * plane * 3);  // vel is read-only
  CHECK(with.d2d_bytes == 3 * 16 * plane * 4);
  CHECK(p.buffer_cells == 64 * 56 * 28);
  CHECK(with.device_bytes == 3 * 64 * 56 * 28 * 16);
  ooc::Schedule without = ooc::schedule(acoustic(1, 4, 2, false));
  CHECK(without.h2d_bytes == (20 + 28 + 28 + 20) * plane * 4);
  CHECK(without.h2d_bytes == with.h2d_bytes_without_sharing);
  CHECK(without.d2d_bytes == 0);
  CHECK(without.parts[0].chunks[1].h2d == without.parts[0].chunks[1].load);
}

TEST_CASE("ooc schedule: two parts read their neighbour's cells as foreign boxes") {
  ooc::Schedule sc = ooc::schedule(acoustic(2, 2, 3, true));
  REQUIRE(sc.parts.size() == 2);
  // Part 0 owns planes [0,24); k * halo = 12 planes of part 1 are foreign.
  REQUIRE(sc.parts[0].foreign.size() == 1);
  CHECK(sc.parts[0].foreign[0].lo[2] == 24);
  CHECK(sc.parts[0].foreign[0].hi[2] == 36);
  CHECK(sc.parts[0].chunks[1].load.hi[2] == 36);
  CHECK(sc.parts[1].chunks[0].load.lo[2] == 12);
  // Stores stay inside the owned box.
  for (const ooc::Part& p : sc.parts)
    for (const ooc::Chunk& c : p.chunks) CHECK(p.owned.contains(c.own));
}

TEST_CASE("ooc foreign plan: each part's foreign cells, sent by their owners") {
  // Three parts along z of 16 planes each; k * halo = 8 planes: every neighbour's 8 nearest
  // planes are foreign. Part 1 sends part 0 its planes [16,24) and part 2 its [24,32).
  ooc::Schedule sc = ooc::schedule(acoustic(3, 2, 2, true));
  const std::vector<Transfer> plan = ooc::foreign_plan(sc);
  REQUIRE(plan.size() == 4);
  auto planes = [](Index lo, Index hi) {
    Box b = Box::from_extent(3, {64, 56, 48});
    b.lo[2] = lo;
    b.hi[2] = hi;
    return b;
  };
  CHECK((plan[0].src == 0 && plan[0].dst == 1));
  CHECK(plan[0].boxes == std::vector<Box>{planes(8, 16)});
  CHECK((plan[1].src == 1 && plan[1].dst == 0));
  CHECK(plan[1].boxes == std::vector<Box>{planes(16, 24)});
  CHECK((plan[2].src == 1 && plan[2].dst == 2));
  CHECK(plan[2].boxes == std::vector<Box>{planes(24, 32)});
  CHECK((plan[3].src == 2 && plan[3].dst == 1));
  CHECK(plan[3].boxes == std::vector<Box>{planes(32, 40)});
  // Every foreign cell comes from exactly one owner, and only from cells the sender owns.
  for (std::size_t p = 0; p < sc.parts.size(); ++p) {
    std::vector<Box> received;
    for (const Transfer& t : plan) {
      if (t.dst == static_cast<int>(p))
        received.insert(received.end(), t.boxes.begin(), t.boxes.end());
      for (const Box& b : t.boxes)
        CHECK(sc.parts[static_cast<std::size_t>(t.src)].owned.contains(b));
    }
    CHECK(disjoint(received));
    CHECK(volume(received) == volume(sc.parts[p].foreign));
    CHECK(subtract(sc.parts[p].foreign, received).empty());
  }
  // One part: nothing to send.
  CHECK(ooc::foreign_plan(ooc::schedule(acoustic(1, 2, 2, true))).empty());
}

TEST_CASE("ooc foreign plan: a 2x2 split also sends the corner cells") {
  ooc::Request r = acoustic(1, 1, 1, true);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x) {
      Box b = r.grid;
      b.lo[0] = 32 * x;
      b.hi[0] = 32 * (x + 1);
      b.lo[1] = 28 * y;
      b.hi[1] = 28 * (y + 1);
      r.owned.push_back(b);
    }
  r.owned.erase(r.owned.begin());  // the whole grid acoustic() put first
  ooc::Schedule sc = ooc::schedule(r);
  const std::vector<Transfer> plan = ooc::foreign_plan(sc);
  CHECK(plan.size() == 12);  // every ordered pair, diagonal ones for the corners
  Index to_zero = 0;
  for (const Transfer& t : plan)
    if (t.dst == 0) to_zero += t.cells();
  // Part 0's reach is [0,36)x[0,32): 36*32 - 32*28 cells of every plane are foreign.
  CHECK(to_zero == (36 * 32 - 32 * 28) * 48);
}

TEST_CASE("ooc schedule: a split along x grows the loads along x too") {
  ooc::Request r = acoustic(1, 2, 2, true);
  Box a = r.grid, b = r.grid;
  a.hi[0] = 32;
  b.lo[0] = 32;
  r.owned = {a, b};
  ooc::Schedule sc = ooc::schedule(r);
  CHECK(sc.parts[0].reach.hi[0] == 40);
  CHECK(sc.parts[1].reach.lo[0] == 24);
  CHECK(sc.parts[0].chunks[0].load.hi[0] == 40);
  CHECK(sc.parts[0].chunks[0].own.hi[0] == 32);
}

TEST_CASE("ooc schedule: errors name the cause") {
  // 48 planes in 8 chunks of 6; 2 steps of halo 4 reach 8 planes.
  CHECK_THROWS_WITH_AS(ooc::schedule(acoustic(1, 8, 2, true)),
                       doctest::Contains("owns only 6 planes; use fewer chunks or fewer steps"),
                       PlanError);
  CHECK_THROWS_AS(ooc::schedule(acoustic(1, 49, 1, true)), PlanError);
  ooc::Request r = acoustic(1, 2, 1, true);
  r.buffers = 2;
  CHECK_THROWS_WITH_AS(ooc::schedule(r), "out-of-core needs at least 3 buffer slots per array",
                       PlanError);
}

TEST_CASE("ooc pipeline: every hazard is ordered by events, for sharing on and off") {
  for (bool sharing : {true, false})
    for (int parts : {1, 2})
      for (int chunks : {1, 2, 3, 5})
        for (int k : {1, 2}) {
          if (chunks * (parts == 2 ? 2 : 1) > 6 && k == 2) continue;  // too thin for k = 2
          CAPTURE(sharing);
          CAPTURE(parts);
          CAPTURE(chunks);
          CAPTURE(k);
          ooc::Schedule sc = ooc::schedule(acoustic(parts, chunks, k, sharing));
          check_hazards(sc, 7);  // 7 steps: a shorter last pass when k = 2
        }
}

TEST_CASE("ooc band sharing: boxes, bands, hazards and the model") {
  // acoustic(): halo 4 below and above per step. 3 chunks, k = 3.
  ooc::Request r = acoustic(1, 3, 3, true);
  r.trapezoid = true;
  const ooc::Schedule plain = ooc::schedule(r);
  r.band_sharing = true;
  const ooc::Schedule sc = ooc::schedule(r);
  REQUIRE(sc.band_sharing);
  const ooc::Chunk& first = sc.parts[0].chunks[0];
  const ooc::Chunk& c = sc.parts[0].chunks[1];
  const Index L = c.own_lo;
  // The first chunk is as without bands; a later one loads one halo below its own planes and
  // k above, and the host sends only what lies above k halos.
  CHECK(first.load == plain.parts[0].chunks[0].load);
  CHECK(c.load.lo[2] == L - 4);
  CHECK(c.load.hi[2] == c.own_hi + 12);
  CHECK(c.h2d.lo[2] == L + 12);
  CHECK(c.shared.empty());
  // Bands of a full pass: [C - 4, C + 4) with C = L + 4 (k - 1 - j); the first reaches up to
  // where the host's planes start. Together they cover [L - 4, L + 12) once.
  CHECK(ooc::band(sc, c, 3, 0, 0).lo[2] == L + 4);
  CHECK(ooc::band(sc, c, 3, 0, 0).hi[2] == L + 12);
  CHECK(ooc::band(sc, c, 3, 1, 0).lo[2] == L);
  CHECK(ooc::band(sc, c, 3, 1, 0).hi[2] == L + 8);
  CHECK(ooc::band(sc, c, 3, 2, 0).lo[2] == L - 4);
  CHECK(ooc::band(sc, c, 3, 2, 0).hi[2] == L + 4);
  // A last pass of one step: its only band reaches from one halo below up to the host's.
  CHECK(ooc::band(sc, c, 1, 0, 0).lo[2] == L - 4);
  CHECK(ooc::band(sc, c, 1, 0, 0).hi[2] == L + 12);
  // Where the step starts computing (as the owned box's low side ooc::needed_planes takes).
  CHECK(ooc::band_owned_lo(sc, c, 3, 0) == L + 16);
  CHECK(ooc::band_owned_lo(sc, c, 3, 2) == L);
  Part shifted;
  shifted.owned = c.own;
  shifted.ghost = c.load;
  shifted.owned.lo[2] = ooc::band_owned_lo(sc, c, 3, 0);
  CHECK(ooc::needed_planes(shifted, 2, 2, 4, 4, 0, 0, 1).first + c.load.lo[2] == L + 8);
  // Fewer cells (own planes k times on later chunks), fewer bytes sent, a band store. The last
  // chunk, at the grid's edge, leaves the top halo (4 planes) alone: at step j it computes
  // from own_lo + 4 (k - 1 - j) up to 4 below its top.
  for (std::size_t i = 1; i < sc.parts[0].chunks.size(); ++i) {
    CAPTURE(i);
    const ooc::Chunk& x = sc.parts[0].chunks[i];
    CHECK(ooc::pass_cells(sc, x) < ooc::pass_cells(plain, plain.parts[0].chunks[i]));
    const double plane = static_cast<double>(x.own.volume() / x.own.extent(2));
    const Index own = x.own.extent(2);
    const double want = i + 1 < sc.parts[0].chunks.size()
                            ? 3.0 * plane * static_cast<double>(own)
                            : plane * static_cast<double>((own - 12) + (own - 8) + (own - 4));
    CHECK(ooc::pass_cells(sc, x) == doctest::Approx(want));
  }
  CHECK(sc.parts[0].h2d_bytes == plain.parts[0].h2d_bytes);  // every plane once either way
  CHECK(sc.band_cells > 0);
  // Smaller loads (3 slots of one halo below instead of k), and the band store (k bands).
  CHECK(sc.parts[0].buffer_cells < plain.parts[0].buffer_cells);
  CHECK(sc.device_bytes == (3 * sc.parts[0].buffer_cells + sc.band_cells) * 16);
  CHECK(sc.band_cells == 64 * 56 * (4 + 3 * 4 + 2 * 8));
  // In the store (one plane = 64 * 56 cells), band j of any pass starts at store plane
  // ooc::band_store_plane(j) and ends before band j + 1's place, inside the store; both backends
  // address them through ooc::band_store_box.
  for (Index steps : {1, 2, 3})
    for (Index j = 0; j < steps; ++j) {
      CAPTURE(steps);
      CAPTURE(j);
      const Box band = ooc::band(sc, c, steps, j, 0);
      const Box store = ooc::band_store_box(sc, band, j);
      CHECK(store.volume() == sc.band_cells);
      const RectCopy at = rect_of(band, store, 4);
      CHECK(at.origin[2] == static_cast<std::size_t>(ooc::band_store_plane(sc, j)));
      CHECK(at.origin[2] + at.region[2] <=
            static_cast<std::size_t>(ooc::band_store_plane(sc, j + 1)));
    }
  CHECK(ooc::band_store_plane(sc, 3) * 64 * 56 == sc.band_cells);
  // What a compute command of the middle chunk does, in order (both runners follow
  // ooc::compute): at each step, its band from the store, the next chunk's band into it, then
  // the step on a chunk whose owned box starts where ooc::band_owned_lo says.
  {
    ooc::Op op;
    op.kind = ooc::Op::Kind::kCompute;
    op.chunk = 1;
    op.steps = 3;
    op.first_step = 6;
    op.share_next = true;  // with bands the next chunk shares nothing: share() is not called
    std::vector<std::string> log;
    std::size_t d2d = 0;
    ooc::compute(
        sc, op, d2d,
        [&](std::size_t a, ooc::Buffer from, const RectCopy& src, ooc::Buffer to,
            const RectCopy& dst) {
          CHECK(src.region == dst.region);
          CHECK(from != to);
          if (from == ooc::Buffer::kStore || to == ooc::Buffer::kStore) {
            const RectCopy& in_store = from == ooc::Buffer::kStore ? src : dst;
            const RectCopy& in_chunk = from == ooc::Buffer::kStore ? dst : src;
            CHECK(in_store.origin[2] + in_store.region[2] <=
                  static_cast<std::size_t>(sc.band_cells / (64 * 56)));
            if (a == 0)  // the band's first plane, in global coordinates
              log.push_back(std::string(to == ooc::Buffer::kStore ? "keep " : "take ") +
                            std::to_string(c.load.lo[2] + static_cast<Index>(in_chunk.origin[2])));
          } else {
            log.push_back("share");
          }
        },
        [&](const Part& part, std::int64_t step, std::int64_t remaining) {
          CHECK(part.ghost == c.load);
          log.push_back("step " + std::to_string(step) + " from " +
                        std::to_string(part.owned.lo[2]) + " rem " + std::to_string(remaining));
        });
    const ooc::Chunk& n = sc.parts[0].chunks[2];
    const std::vector<std::string> want = {"take " + std::to_string(L + 4),
                                           "keep " + std::to_string(n.own_lo + 4),
                                           "step 6 from " + std::to_string(L + 16) + " rem 2",
                                           "take " + std::to_string(L),
                                           "keep " + std::to_string(n.own_lo),
                                           "step 7 from " + std::to_string(L + 8) + " rem 1",
                                           "take " + std::to_string(L - 4),
                                           "keep " + std::to_string(n.own_lo - 4),
                                           "step 8 from " + std::to_string(L) + " rem 0"};
    CHECK(log == want);
    // Every band in and out, planes of 64 x 56 cells: the pressures (3 arrays of 4 bytes, the
    // defaults: every band whole) 2 x (8 + 8 + 8) planes; the read-only vel only the first
    // band, as low as the last step reads: [L - 4, L + 12), 2 x 16 planes.
    CHECK(d2d == static_cast<std::size_t>(2 * 64 * 56 * (24 * 12 + 16 * 4)));
    CHECK(d2d == static_cast<std::size_t>(ooc::band_copy_bytes(sc, c, 3)));
  }
  // Off at k = 1, without the trapezoid or without region sharing.
  r.steps_per_pass = 1;
  CHECK_FALSE(ooc::schedule(r).band_sharing);
  r.steps_per_pass = 3;
  r.trapezoid = false;
  CHECK_FALSE(ooc::schedule(r).band_sharing);
  // The pipeline still orders every hazard.
  for (int parts : {1, 2})
    for (int chunks : {2, 3})
      for (int k : {2, 3}) {
        if (parts * chunks * k > 12) continue;  // chunks too thin for k steps' halos
        CAPTURE(parts);
        CAPTURE(chunks);
        CAPTURE(k);
        ooc::Request q = acoustic(parts, chunks, k, true);
        q.trapezoid = q.band_sharing = true;
        check_hazards(ooc::schedule(q), 7);
      }
}

TEST_CASE("ooc pipeline: more buffer slots, and the last pass's steps") {
  ooc::Request r = acoustic(1, 4, 2, true);
  r.buffers = 5;
  ooc::Schedule sc = ooc::schedule(r);
  check_hazards(sc, 5);
  std::vector<ooc::Op> ops = ooc::ops(sc, 5);
  Index computed = 0;
  for (const ooc::Op& op : ops)
    if (op.kind == ooc::Op::Kind::kCompute && op.chunk == 0) computed += op.steps;
  CHECK(computed == 5);  // passes of 2, 2 and 1 steps
}

TEST_CASE("ooc model: picks a plan that fits, prefers fewer passes when the link is the limit") {
  ooc::Request r = acoustic(1, 0, 0, true);
  ooc::Link link;
  link.h2d = link.d2h = 1e9;
  link.bidir = 2e9;
  link.cell_step = 1e-12;  // kernels are nearly free: the link decides
  const Index budget = 3 * 64 * 56 * 24 * 16;
  ooc::Schedule sc = ooc::choose(r, budget, link, 16, true);
  CHECK(sc.device_bytes <= budget);
  CHECK(sc.chunks >= 2);
  CHECK(sc.steps_per_pass > 1);
  // Slow kernels make redundant halo work expensive: k stays small.
  link.cell_step = 1e-6;
  ooc::Schedule slow = ooc::choose(r, budget, link, 16, true);
  CHECK(slow.steps_per_pass <= sc.steps_per_pass);
  // Given values are kept.
  r.chunks = 3;
  r.steps_per_pass = 2;
  ooc::Schedule given = ooc::choose(r, 0, link, 16, true);
  CHECK(given.chunks == 3);
  CHECK(given.steps_per_pass == 2);
  CHECK_THROWS_WITH_AS(ooc::choose(acoustic(1, 0, 0, true), 1000, link, 16, true),
                       doctest::Contains("one chunk with its halos cannot fit: the smallest plan"),
                       PlanError);
}

TEST_CASE("ooc model: the choice plays out few plans and is still the best of all") {
  // Every plan that fits, played out, against the choice, which plays out only the plans
  // whose lower bound is below the best time found: the same time. The lower bound is below
  // the played-out time for every plan, one part or two, overlap or not, a short last pass.
  for (int parts : {1, 2})
    for (bool bands : {false, true})
      for (double cell : {1e-12, 1e-10, 1e-8}) {
        CAPTURE(parts);
        CAPTURE(bands);
        CAPTURE(cell);
        ooc::Request r = acoustic(parts, 0, 0, true);
        r.trapezoid = r.band_sharing = bands;
        ooc::Link link;
        link.h2d = 2e9;
        link.d2h = 1e9;
        link.bidir = 2.5e9;
        link.cell_step = cell;
        link.d2d = 5e10;
        const Index budget = 3 * 64 * 56 * 24 * 16, steps = 11;
        const ooc::Schedule chosen = ooc::choose(r, budget, link, steps, true);
        const double t_chosen = ooc::predict(chosen, link, steps, true);
        double best = -1;
        int plans = 0;
        for (int k = 1; k <= 11; ++k)
          for (int n = 1, first_fit = 0; n <= 48 / parts; ++n) {
            if (first_fit > 0 && n > 8 * first_fit) break;  // as far as the choice looks
            ooc::Request q = r;
            q.chunks = n;
            q.steps_per_pass = k;
            ooc::Schedule sc;
            try {
              sc = ooc::schedule(q);
            } catch (const PlanError&) {
              continue;
            }
            if (sc.device_bytes > budget) continue;
            if (first_fit == 0) first_fit = n;
            ++plans;
            for (bool overlap : {true, false}) {
              const double t = ooc::predict(sc, link, steps, overlap);
              CHECK(ooc::lower_bound(sc, link, steps) <= t * (1 + 1e-12));
              if (overlap && (best < 0 || t < best)) best = t;
            }
          }
        REQUIRE(plans >= 5);
        CHECK(t_chosen == doctest::Approx(best).epsilon(1e-12).scale(0));
      }
}

TEST_CASE("ooc model: region sharing's device copies are charged to the compute queue") {
  ooc::Request r = acoustic(1, 4, 3, true);
  const ooc::Schedule sc = ooc::schedule(r);
  REQUIRE(sc.parts[0].d2d_bytes > 0);
  ooc::Link link;
  link.h2d = link.d2h = 1e12;
  link.bidir = 2e12;
  link.cell_step = 1e-15;
  link.d2d = 1e12;
  const double fast = ooc::predict(sc, link, 6, true);
  link.d2d = 1e6;  // slow copies: they now decide a pass's time
  const double slow = ooc::predict(sc, link, 6, true);
  CHECK(slow > fast);
  CHECK(slow >= 2.0 * static_cast<double>(sc.parts[0].d2d_bytes) / 1e6);  // 2 passes of 3
}

TEST_CASE("ooc model: kernels per computed cell, the fill, and a short last pass") {
  ooc::Request r = acoustic(1, 3, 3, true);
  r.trapezoid = r.band_sharing = true;
  const ooc::Schedule sc = ooc::schedule(r);
  // A step over a probe of 20 planes computes 12 of them (halo 4 at either end).
  CHECK(ooc::computed_planes(sc, 20) == 12);
  CHECK(ooc::computed_planes(sc, 5) == 1);
  // So the kernels' figure is per computed cell: a step taking at least 2 ms over 20 planes
  // costs at least 2 ms over the 12 planes' cells (divided by all 20 it would be 1.2 ms).
  const Box probe = Box::from_extent(3, {64, 56, 20});
  ooc::Link link;
  ooc::measure_device(
      sc, probe, [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); },
      [](std::size_t, const RectCopy&, const RectCopy&) {}, [] {}, link);
  CHECK(link.cell_step * 64.0 * 56.0 * 12.0 >= 2e-3);

  // Compute-bound: a pass is its kernels and device copies; filling and draining add the
  // first chunk's load (its whole window: the chunk after it takes its lower planes from it)
  // and the last chunk's store, not kernels again. (Approx with scale 0: relative, for these
  // small times.)
  link.h2d = link.d2h = 1e12;
  link.bidir = 2e12;
  link.d2d = 1e11;
  link.cell_step = 1e-9;
  auto comp = [&](Index steps) {
    double cells = 0, d2d = 0;
    for (const ooc::Chunk& c : sc.parts[0].chunks) {
      cells += ooc::pass_cells(sc, c, steps);
      d2d += static_cast<double>(c.shared.volume() * 16 + ooc::band_copy_bytes(sc, c, steps));
    }
    return cells * link.cell_step + d2d / link.d2d;
  };
  const ooc::Chunk &first = sc.parts[0].chunks.front(), &last = sc.parts[0].chunks.back();
  CHECK(first.h2d.extent(2) == 16 + 12);  // own planes and k halos above
  const double fill = static_cast<double>(first.h2d.volume() * 16) / link.h2d +
                      static_cast<double>(last.own.volume() * 12) / link.d2h;  // 3 written
  CHECK(fill > static_cast<double>(sc.parts[0].h2d_bytes + sc.parts[0].d2h_bytes) / 3 / 1e12);
  auto near = [](double v) { return doctest::Approx(v).epsilon(1e-9).scale(0); };
  CHECK(ooc::predict(sc, link, 3, true) == near(comp(3) + fill));
  // 4 steps at k = 3: a full pass and one of a single step, charged for that step only.
  CHECK(comp(1) < comp(3) / 2);
  CHECK(ooc::predict(sc, link, 4, true) == near(comp(3) + comp(1) + fill));
  // Link-bound (loads the busiest), the link as fast both ways at once as one way: the loads
  // run back to back (3 chunks, 3 buffer slots: none waits for a slot), each chunk's kernels
  // follow its load and the previous chunk's kernels, its store its kernels and the previous
  // store. The last chunk loads little (most of its window comes in bands), so its store also
  // waits for the one before it.
  link.cell_step = 1e-13;
  link.d2d = 1e15;
  link.h2d = link.d2h = 1e9;
  link.bidir = 2e9;
  double comp_last = 0;
  {
    const double d2d =
        static_cast<double>(last.shared.volume() * 16 + ooc::band_copy_bytes(sc, last, 3));
    comp_last = ooc::pass_cells(sc, last, 3) * link.cell_step + d2d / link.d2d;
  }
  const double in = static_cast<double>(sc.parts[0].h2d_bytes),
               out = static_cast<double>(sc.parts[0].d2h_bytes);
  REQUIRE(sc.parts[0].chunks.size() == 3);
  double load_end = 0, comp_end = 0, store_end = 0;
  for (const ooc::Chunk& c : sc.parts[0].chunks) {
    load_end += static_cast<double>(c.h2d.volume() * 16) / link.h2d;
    const double d2d = static_cast<double>(c.shared.volume() * 16 + ooc::band_copy_bytes(sc, c, 3));
    comp_end =
        std::max(comp_end, load_end) + ooc::pass_cells(sc, c, 3) * link.cell_step + d2d / link.d2d;
    store_end = std::max(store_end, comp_end) + static_cast<double>(c.own.volume() * 12) / link.d2h;
  }
  CHECK(last.h2d.volume() * 16 < sc.parts[0].chunks[1].own.volume() * 12);
  const double free_link = ooc::predict(sc, link, 3, true);
  CHECK(free_link == near(store_end));
  // The same with a link that moves no more both ways at once than one way: while a store
  // runs beside a load both go at half speed, so the run is slower, but no slower than every
  // transfer one after the other, and no faster than the link bound.
  link.bidir = 1e9;
  const double shared_link = ooc::predict(sc, link, 3, true);
  CHECK(shared_link > free_link * 1.01);
  CHECK(shared_link <= (in + out) / 1e9 + comp_last + 1e-12);
  CHECK(shared_link >= ooc::link_bound(in, out, link));
  CHECK(ooc::pass_cells(sc, sc.parts[0].chunks[1], 1) <
        ooc::pass_cells(sc, sc.parts[0].chunks[1]) / 2);
}

TEST_CASE("ooc band sharing: an array no launch writes takes its planes once per pass") {
  // acoustic(): p0, p1, p2 written (a rotation), vel never written. 3 chunks, k = 3, halo 4.
  ooc::Request r = acoustic(1, 3, 3, true);
  r.trapezoid = r.band_sharing = true;
  const ooc::Schedule sc = ooc::schedule(r);
  REQUIRE(sc.band_sharing);
  const ooc::Chunk& c = sc.parts[0].chunks[1];
  const Index L = c.own_lo;
  // vel: all the pass reads below the host's planes, [L - 4, L + 12), with the first band
  // (as for a pass of one step, which the written arrays take whole too); nothing after.
  CHECK(ooc::band(sc, c, 3, 0, 3).lo[2] == L - 4);
  CHECK(ooc::band(sc, c, 3, 0, 3).hi[2] == L + 12);
  CHECK(ooc::band(sc, c, 3, 0, 3) == ooc::band(sc, c, 1, 0, 0));
  CHECK(ooc::band(sc, c, 3, 1, 3).empty());
  CHECK(ooc::band(sc, c, 3, 2, 3).empty());
  CHECK(ooc::band(sc, c, 1, 0, 3) == ooc::band(sc, c, 3, 0, 3));
  // The written arrays take every band whole, the same for each.
  for (Index j = 0; j < 3; ++j)
    for (std::size_t a = 1; a < 3; ++a)
      CHECK(ooc::band(sc, c, 3, j, a) == ooc::band(sc, c, 3, j, 0));
  // It fits the store's first place (a + k b planes).
  const Box band = ooc::band(sc, c, 3, 0, 3);
  const RectCopy at = rect_of(band, ooc::band_store_box(sc, band, 0), 4);
  CHECK(at.origin[2] == 0);
  CHECK(at.origin[2] + at.region[2] == static_cast<std::size_t>(ooc::band_store_plane(sc, 1)));
  // Bytes per pass, planes of 64 x 56 floats, in and out: 3 x 24 planes and vel's 16.
  const Index plane = 64 * 56 * 4;
  CHECK(ooc::band_copy_bytes(sc, c, 3) == 2 * plane * (3 * 24 + 16));
  // ooc::compute copies exactly these, array by array, and nothing for an empty band: vel's
  // only at the first step (this chunk's in, the next one's out).
  ooc::Op op;
  op.kind = ooc::Op::Kind::kCompute;
  op.chunk = 1;
  op.steps = 3;
  std::size_t d2d = 0;
  std::map<std::size_t, std::size_t> vel_at_step;
  std::size_t steps_done = 0;
  ooc::compute(
      sc, op, d2d,
      [&](std::size_t a, ooc::Buffer, const RectCopy& src, ooc::Buffer, const RectCopy&) {
        CHECK(src.region[0] * src.region[1] * src.region[2] > 0);
        if (a == 3) vel_at_step[steps_done] += src.region[0] * src.region[1] * src.region[2];
      },
      [&](const Part&, std::int64_t, std::int64_t) { ++steps_done; });
  const ooc::Chunk& n = sc.parts[0].chunks[2];
  CHECK(d2d == static_cast<std::size_t>(
                   (ooc::band_copy_bytes(sc, c, 3) + ooc::band_copy_bytes(sc, n, 3)) / 2));
  CHECK(vel_at_step.size() == 1);
  CHECK(vel_at_step[0] == static_cast<std::size_t>(2 * 16 * plane));
}

TEST_CASE("ooc model: the device copies' speed is measured between a probe's two halves") {
  Box probe = Box::from_extent(3, {8, 8, 11});
  probe.lo[2] = 5;
  probe.hi[2] = 16;
  std::vector<ooc::Array> arrays = {{"a", 4, true}, {"b", 8, false}};
  int calls = 0;
  Box from_seen, to_seen;
  const double speed = ooc::measure_copies(
      probe, 3,
      [&](const Box& from, const Box& to) {
        ++calls;
        from_seen = from;
        to_seen = to;
      },
      arrays, ooc::Link{});
  CHECK(calls == 4);  // a warm-up and three timed
  CHECK(from_seen.lo[2] == 5);
  CHECK(from_seen.hi[2] == 10);
  CHECK(to_seen.lo[2] == 10);
  CHECK(to_seen.hi[2] == 15);
  CHECK(to_seen.hi[0] == 8);
  CHECK(intersect(from_seen, to_seen).empty());
  CHECK(speed > 0);
  // Too thin to halve: the default.
  Box thin = probe;
  thin.hi[2] = 6;
  CHECK(ooc::measure_copies(
            thin, 3, [&](const Box&, const Box&) { ++calls; }, arrays, ooc::Link{}) ==
        ooc::Link{}.d2d);
  CHECK(calls == 4);
}

TEST_CASE("ooc model: without overlap every command waits for the one before it") {
  // One stream per device: the run is the sum of all commands, each at full speed (nothing
  // shares the link); two passes of 2 steps, and with two parts the slower part per pass.
  ooc::Link link;
  link.h2d = 40e9;
  link.d2h = 20e9;
  link.bidir = 30e9;
  link.cell_step = 1e-11;
  link.d2d = 1e11;
  for (int parts : {1, 2}) {
    CAPTURE(parts);
    const ooc::Schedule sc = ooc::schedule(acoustic(parts, 3, 2, true));
    std::vector<double> per_part(sc.parts.size(), 0);
    for (std::size_t p = 0; p < sc.parts.size(); ++p)
      for (const ooc::Chunk& c : sc.parts[p].chunks) {
        const double d2d =
            static_cast<double>(c.shared.volume() * 16 + ooc::band_copy_bytes(sc, c, 2));
        per_part[p] += static_cast<double>(c.h2d.volume() * 16) / link.h2d +
                       ooc::pass_cells(sc, c, 2) * link.cell_step + d2d / link.d2d +
                       static_cast<double>(c.own.volume() * 12) / link.d2h;
      }
    const double pass = *std::max_element(per_part.begin(), per_part.end());
    CHECK(ooc::predict(sc, link, 4, false) == doctest::Approx(2 * pass).epsilon(1e-9).scale(0));
    // With overlap the streams run at once: faster, but no faster than the busiest stream.
    const double overlapped = ooc::predict(sc, link, 4, true);
    CHECK(overlapped < 2 * pass);
    CHECK(overlapped > 0.2 * 2 * pass);
  }
}

TEST_CASE("ooc model: devices sharing the host link get their share of it") {
  ooc::Link link;
  link.h2d = link.d2h = 50e9;
  link.bidir = 100e9;
  link.cell_step = 1e-15;
  // Unmeasured aggregate: independent links, two parts (each its half) beat one.
  const ooc::Schedule one = ooc::schedule(acoustic(1, 8, 1, true));
  const ooc::Schedule two = ooc::schedule(acoustic(2, 4, 1, true));
  const double t1 = ooc::predict(one, link, 8, true), t2 = ooc::predict(two, link, 8, true);
  CHECK(t2 < 0.9 * t1);
  CHECK(ooc::link_bound(10e9, 10e9, link, 2) == doctest::Approx(0.1));
  // All devices at once move no more than one alone: two parts are no faster than one.
  link.h2d_all = link.d2h_all = 50e9;
  link.bidir_all = 100e9;
  link.devices_all = 2;
  const ooc::Link share = ooc::share(link, 2);
  CHECK(share.h2d == doctest::Approx(25e9));
  CHECK(share.bidir == doctest::Approx(50e9));
  CHECK(ooc::share(link, 1).h2d == doctest::Approx(50e9));
  CHECK(ooc::predict(two, link, 8, true) > t1);
  CHECK(ooc::link_bound(10e9, 10e9, link, 2) == doctest::Approx(0.2));
  CHECK(ooc::link_bound(10e9, 10e9, link, 1) == doctest::Approx(0.2));
  // An aggregate above the sum of the links changes nothing.
  link.h2d_all = link.d2h_all = 500e9;
  link.bidir_all = 1000e9;
  CHECK(ooc::predict(two, link, 8, true) == doctest::Approx(t2).scale(0));  // relative
}

TEST_CASE("ooc probe: the first planes of a box, at least one, at most the box") {
  const Box b = Box::from_extent(3, {10, 20, 30});
  const Box p = ooc::probe_planes(b, 3, 8, 10 * 20 * 8 * 5);
  CHECK(p.extent(2) == 5);
  CHECK(p.extent(0) == 10);
  CHECK(p.lo[2] == b.lo[2]);
  CHECK(ooc::probe_planes(b, 3, 8, 1).extent(2) == 1);
  CHECK(ooc::probe_planes(b, 3, 8, Index{1} << 40).extent(2) == 30);
}

TEST_CASE("ooc snapshot copy: a box between host arrays, by threads when large") {
  // 256x256x160 floats (40 MiB): split over threads where the machine has several cores.
  const Box grid = Box::from_extent(3, {256, 256, 160});
  HostArray src("p", 4, grid);
  for (std::size_t i = 0; i < src.bytes.size(); ++i)
    src.bytes[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  Box box = grid;
  box.lo = {3, 5, 7};
  box.hi = {250, 251, 159};
  HostArray dst("p", 4, box);
  ooc::copy_host_box(src, dst, box);
  bool same = true;
  for (Index z = box.lo[2]; z < box.hi[2] && same; ++z)
    for (Index y = box.lo[1]; y < box.hi[1] && same; ++y)
      same = std::memcmp(
                 dst.bytes.data() +
                     4 * static_cast<std::size_t>(
                             ((z - box.lo[2]) * box.extent(1) + (y - box.lo[1])) * box.extent(0)),
                 src.bytes.data() + 4 * static_cast<std::size_t>((z * 256 + y) * 256 + box.lo[0]),
                 4 * static_cast<std::size_t>(box.extent(0))) == 0;
  CHECK(same);
  // And back into a zeroed whole array: exactly the box's cells change.
  HostArray back("p", 4, grid);
  ooc::copy_host_box(dst, back, box);
  std::size_t nonzero_outside = 0;
  for (Index z = 0; z < 160; ++z)
    for (Index y = 0; y < 256; ++y)
      for (Index x = 0; x < 256; ++x) {
        const bool in = z >= box.lo[2] && z < box.hi[2] && y >= box.lo[1] && y < box.hi[1] &&
                        x >= box.lo[0] && x < box.hi[0];
        const std::size_t at = 4 * static_cast<std::size_t>((z * 256 + y) * 256 + x);
        if (in)
          same = same && std::memcmp(back.bytes.data() + at, src.bytes.data() + at, 4) == 0;
        else
          nonzero_outside += back.bytes[at] != 0;
      }
  CHECK(same);
  CHECK(nonzero_outside == 0);
}

TEST_CASE("ooc options: flags are taken out of argv, sizes parsed") {
  CHECK(ooc::parse_size("--device-memory", "4096") == 4096);
  CHECK(ooc::parse_size("--device-memory", "2KiB") == 2048);
  CHECK(ooc::parse_size("--device-memory", "1.5GiB") == 1610612736);
  CHECK(ooc::parse_size("--device-memory", "3MB") == 3000000);
  CHECK_THROWS_WITH_AS(ooc::parse_size("--device-memory", "lots"),
                       doctest::Contains("expects a size such as 8GiB"), RunError);
  CHECK_THROWS_AS(ooc::parse_size("--device-memory", "-5"), RunError);
  std::vector<std::string> args = {"prog", "--steps",          "3",   "--device-memory",
                                   "1MiB", "--ooc-chunks",     "4",   "--steps-per-pass",
                                   "2",    "--region-sharing", "off", "--overlap",
                                   "off",  "--pinned",         "off", "--quiet"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  ooc::Options o;
  ooc::take_options(argc, argv.data(), o);
  REQUIRE(argc == 4);
  CHECK(std::string(argv[1]) == "--steps");
  CHECK(std::string(argv[3]) == "--quiet");
  CHECK(o.device_memory == 1048576);
  CHECK(o.chunks == 4);
  CHECK(o.steps_per_pass == 2);
  CHECK_FALSE(o.region_sharing);
  CHECK_FALSE(o.overlap);
  CHECK_FALSE(o.pinned);
  CHECK(ooc::Options{}.pinned);
  std::vector<std::string> bad = {"prog", "--region-sharing", "maybe"};
  std::vector<char*> badv;
  for (std::string& a : bad) badv.push_back(a.data());
  int badc = 3;
  CHECK_THROWS_WITH_AS(ooc::take_options(badc, badv.data(), o),
                       "--region-sharing expects on or off, got 'maybe'", RunError);
}

TEST_CASE("host bytes: adopted memory (pinned by a backend) stays put and is freed once") {
  // An allocator like cl::pinned_allocator's: memory from elsewhere, freed by `keep`.
  int frees = 0;
  unsigned char* where = nullptr;
  HostAllocator alloc = [&](std::size_t n, const std::string& name) {
    CHECK(name == "p");
    auto* mem = new unsigned char[n]();
    where = mem;
    return HostBytes(mem, n, std::shared_ptr<void>(mem, [&frees](void* m) {
                       delete[] static_cast<unsigned char*>(m);
                       ++frees;
                     }));
  };
  {
    HostArray a("p", 4, Box::from_extent(2, {8, 4}), alloc);
    REQUIRE(a.bytes.size() == 128);
    CHECK(a.bytes.data() == where);
    CHECK(a.bytes.adopted());
    for (std::size_t i = 0; i < a.bytes.size(); ++i) a.bytes[i] = static_cast<unsigned char>(i);
    // A copy (--verify's initial values) is deep and owned: writing it leaves `a` alone.
    HostArray copy = a;
    CHECK_FALSE(copy.bytes.adopted());
    CHECK(copy.bytes.data() != a.bytes.data());
    CHECK(std::memcmp(copy.bytes.data(), a.bytes.data(), 128) == 0);
    copy.bytes[5] = 200;
    CHECK(a.bytes[5] == 5);
    // Assigned over an array of the same size (an initial value copy(A): B's bytes = A's), the
    // values land in the memory already there: a page-locked array stays page-locked.
    HostArray pinned_b("p", 4, Box::from_extent(2, {8, 4}), alloc);
    unsigned char* pinned_where = where;
    pinned_b.bytes = a.bytes;
    CHECK(pinned_b.bytes.data() == pinned_where);
    CHECK(pinned_b.bytes.adopted());
    CHECK(std::memcmp(pinned_b.bytes.data(), a.bytes.data(), 128) == 0);
    // Of another size, the copy is new owned memory.
    HostArray small("s", 4, Box::from_extent(1, {4}));
    small.bytes = a.bytes;
    CHECK(small.bytes.size() == 128);
    CHECK_FALSE(small.bytes.adopted());
    where = a.bytes.data();  // the first array's memory, for the checks below
    // swap/rotate of host arrays exchange their memory, never copy it.
    HostArray b("p", 4, Box::from_extent(2, {8, 4}));
    unsigned char* b_data = b.bytes.data();
    std::swap(a.bytes, b.bytes);
    CHECK(b.bytes.data() == where);
    CHECK(a.bytes.data() == b_data);
    CHECK(b.bytes[7] == 7);
    // Moves keep the memory (vectors of host arrays grow by moving them).
    std::vector<HostArray> v;
    v.push_back(std::move(b));
    v.reserve(16);
    CHECK(v[0].bytes.data() == where);
    CHECK(frees == 0);
  }
  CHECK(frees == 2);
  // Owned bytes start zeroed, like the vector they were.
  HostArray z("z", 8, Box::from_extent(1, {16}));
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < z.bytes.size(); ++i) nonzero += z.bytes[i] != 0;
  CHECK(nonzero == 0);
  CHECK_FALSE(z.bytes.adopted());
}

TEST_CASE("ooc trapezoid: the planes a step still needs, and the model's cells") {
  // A chunk owning planes [20, 30) of a buffer holding [12, 38) (k = 2, halo 4 per step).
  Part c;
  c.owned = Box::from_extent(3, {8, 8, 10});
  c.owned.lo[2] = 20;
  c.owned.hi[2] = 30;
  c.ghost = c.owned;
  c.ghost.lo[2] = 12;
  c.ghost.hi[2] = 38;
  // The first of 2 steps, one launch: own planes grown by one more step's halo.
  CHECK(ooc::needed_planes(c, 2, 1, 4, 4, 0, 0, 1) == std::pair<Index, Index>{4, 22});
  // The last step: only the own planes, in buffer indices.
  CHECK(ooc::needed_planes(c, 2, 0, 4, 4, 0, 0, 1) == std::pair<Index, Index>{8, 18});
  // A launch followed by another reading 2 below and 1 above within the step.
  CHECK(ooc::needed_planes(c, 2, 0, 4, 4, 2, 1, 1) == std::pair<Index, Index>{6, 19});
  // Never outside the buffer; widened to whole work-groups of 4.
  CHECK(ooc::needed_planes(c, 2, 5, 4, 4, 0, 0, 1) == std::pair<Index, Index>{0, 26});
  CHECK(ooc::needed_planes(c, 2, 0, 4, 4, 0, 0, 4) == std::pair<Index, Index>{8, 20});
  // Asymmetric halos: 3 below, 1 above.
  CHECK(ooc::needed_planes(c, 2, 1, 3, 1, 0, 0, 1) == std::pair<Index, Index>{5, 19});

  // The view a CUDA launch is given: the needed planes grown by the launch's own read halo,
  // in global coordinates, clipped to the buffer; only the slowest dimension changes.
  Box v = ooc::view(c, 2, 0, 4, 4, 0, 0, 4, 4);  // the last step: own [20, 30) + 4 each side
  CHECK(v.lo[2] == 16);
  CHECK(v.hi[2] == 34);
  CHECK(v.lo[0] == c.ghost.lo[0]);
  CHECK(v.hi[1] == c.ghost.hi[1]);
  v = ooc::view(c, 2, 0, 4, 4, 2, 1, 1, 3);  // a later launch reads 2 below, 1 above
  CHECK(v.lo[2] == 17);
  CHECK(v.hi[2] == 34);
  v = ooc::view(c, 2, 1, 4, 4, 0, 0, 4, 4);  // one more step: needed [16, 34) + 4: the buffer
  CHECK(v == c.ghost);

  // The model charges the trapezoid: fewer cells than the whole window every step, and the
  // same when k = 1 (the one step needs every loaded plane that is its own, plus a halo).
  ooc::Request r = acoustic(1, 4, 3, true);
  ooc::Schedule whole = ooc::schedule(r);
  r.trapezoid = true;
  ooc::Schedule trap = ooc::schedule(r);
  for (std::size_t i = 0; i < trap.parts[0].chunks.size(); ++i) {
    const ooc::Chunk& ch = trap.parts[0].chunks[i];
    const double full = ooc::pass_cells(whole, whole.parts[0].chunks[i]);
    // Every step: the window but one step's halo planes (4) at either end.
    const double plane = static_cast<double>(ch.load.volume() / ch.load.extent(2));
    CHECK(full == doctest::Approx(3.0 * plane * static_cast<double>(ch.load.extent(2) - 8)));
    CHECK(ooc::pass_cells(trap, ch) < full);
    CHECK(ooc::pass_cells(trap, ch) >= 3.0 * static_cast<double>(ch.own.volume()));
  }
  ooc::Link link;
  link.h2d = link.d2h = 1e9;
  link.bidir = 2e9;
  link.cell_step = 1e-6;  // compute-bound: the trapezoid predicts a shorter run
  CHECK(ooc::predict(trap, link, 12, true) < ooc::predict(whole, link, 12, true));
}

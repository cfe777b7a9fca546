// Property tests over random boxes, halos, device counts and chunk requests (fixed seeds).
// The checks are brute force, cell by cell, on small domains: slow to write wrong.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

#include "stepgen/plan/chunk.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"

using namespace stepgen::rt;

namespace {

Index pick(std::mt19937& rng, Index lo, Index hi) {
  return std::uniform_int_distribution<Index>(lo, hi)(rng);
}

Box random_box(std::mt19937& rng, int dims) {
  Box b;
  b.dims = dims;
  for (int d = 0; d < dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    b.lo[i] = pick(rng, -5, 5);
    b.hi[i] = b.lo[i] + pick(rng, 0, 8);
  }
  return b;
}

template <typename F>
void for_each_cell(const Box& b, F f) {
  if (b.empty()) return;
  for (Index z = b.lo[2]; z < b.hi[2]; ++z)
    for (Index y = b.lo[1]; y < b.hi[1]; ++y)
      for (Index x = b.lo[0]; x < b.hi[0]; ++x) f(Vec3{x, y, z});
}

Halo random_halo(std::mt19937& rng, int dims) {
  if (pick(rng, 0, 3) == 0) {  // widths
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    for (int d = 0; d < dims; ++d) {
      lo[static_cast<std::size_t>(d)] = pick(rng, 0, 2);
      hi[static_cast<std::size_t>(d)] = pick(rng, 0, 2);
    }
    return Halo::from_widths(dims, lo, hi);
  }
  std::vector<Vec3> pts;
  const Index n = pick(rng, 0, 6);
  for (Index k = 0; k < n; ++k) {
    Vec3 p{0, 0, 0};
    for (int d = 0; d < dims; ++d) p[static_cast<std::size_t>(d)] = pick(rng, -2, 2);
    pts.push_back(p);
  }
  return Halo::from_points(dims, pts);
}

/// Is `c` read by a kernel running on `owned` (brute force from the definition)?
bool read_by(const Partition& p, const Part& b, const Halo& h, int every, const Vec3& c) {
  if (b.owned.contains_point(c) || !p.domain.contains_point(c)) return false;
  if (every > 1) return b.ghost.contains_point(c);
  if (h.empty()) return false;
  if (h.points.empty()) return b.owned.grown(h.lo, h.hi).contains_point(c);
  for (const Vec3& q : h.points) {
    Vec3 src{c[0] - q[0], c[1] - q[1], c[2] - q[2]};
    for (int d = p.dims; d < 3; ++d) src[static_cast<std::size_t>(d)] = 0;
    if (b.owned.contains_point(src)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("property: subtract and intersect volumes agree") {
  std::mt19937 rng(12345);
  for (int n = 0; n < 400; ++n) {
    const int dims = static_cast<int>(pick(rng, 1, 3));
    const Box a = random_box(rng, dims), b = random_box(rng, dims), c = random_box(rng, dims);
    const std::vector<Box> rest = subtract(a, b);
    CHECK(disjoint(rest));
    CHECK(rest.size() <= static_cast<std::size_t>(2 * dims));
    CHECK(volume(rest) + intersect(a, b).volume() == a.volume());
    for (const Box& r : rest) CHECK(intersect(r, b).empty());
    for (const Box& r : rest) CHECK(a.contains(r));
    const std::vector<Box> rest2 = subtract(a, std::vector<Box>{b, c});
    CHECK(disjoint(rest2));
    Index cells = 0;
    for_each_cell(a, [&](const Vec3& p) { cells += !b.contains_point(p) && !c.contains_point(p); });
    CHECK(volume(rest2) == cells);
    const std::vector<Box> merged = coalesce(rest2);
    CHECK(disjoint(merged));
    CHECK(volume(merged) == cells);
    CHECK(merged.size() <= rest2.size());
  }
}

TEST_CASE("property: partitions tile, ghosts and exchanges are exact") {
  std::mt19937 rng(2024);
  int checked = 0;
  for (int n = 0; n < 300; ++n) {
    const int dims = static_cast<int>(pick(rng, 1, 3));
    PartitionRequest r;
    r.dims = dims;
    const Index cap = dims == 1 ? 60 : dims == 2 ? 20 : 9;
    for (int d = 0; d < dims; ++d) {
      const auto i = static_cast<std::size_t>(d);
      r.domain[i] = pick(rng, 1, cap);
      r.granule[i] = pick(rng, 1, 3);
    }
    r.halo = random_halo(rng, dims);
    r.every = static_cast<int>(pick(rng, 1, 3));
    for (std::size_t d = 0; d < 3; ++d) {
      r.ghost_lo[d] = r.every * r.halo.lo[d];
      r.ghost_hi[d] = r.every * r.halo.hi[d];
    }
    r.devices = static_cast<int>(pick(rng, 1, 12));
    r.strategy = pick(rng, 0, 1) ? Strategy::kStepocl : Strategy::kMinExchange;
    if (pick(rng, 0, 2) == 0)
      for (int k = 0; k < r.devices; ++k) r.weights.push_back(static_cast<double>(pick(rng, 1, 5)));
    const Partition p = partition(r);
    CAPTURE(n);
    REQUIRE(!p.parts.empty());
    REQUIRE(static_cast<int>(p.parts.size()) <= r.devices);
    REQUIRE(p.parts.size() == static_cast<std::size_t>(p.grid[0] * p.grid[1] * p.grid[2]));

    // Owned boxes tile the domain exactly once; split points on work-group multiples.
    std::map<Vec3, int> owner;
    for (const Part& part : p.parts) {
      CHECK(!part.owned.empty());
      for (int d = 0; d < dims; ++d) {
        const auto i = static_cast<std::size_t>(d);
        CHECK(part.owned.lo[i] % r.granule[i] == 0);
        CHECK((part.owned.hi[i] % r.granule[i] == 0 || part.owned.hi[i] == r.domain[i]));
      }
      for_each_cell(part.owned, [&](const Vec3& c) { CHECK(owner.emplace(c, part.id).second); });
    }
    CHECK(static_cast<Index>(owner.size()) == p.domain.volume());

    // Every ghost cell is owned by exactly one other part (tiling makes "exactly one" hold
    // as soon as the cell is in the domain and not owned by the part itself).
    for (const Part& part : p.parts) {
      CHECK(p.domain.contains(part.ghost));
      CHECK(part.ghost.contains(part.owned));
      for_each_cell(part.ghost, [&](const Vec3& c) {
        auto it = owner.find(c);
        REQUIRE(it != owner.end());
        if (!part.owned.contains_point(c)) CHECK(it->second != part.id);
      });
    }

    // The exchange boxes cover exactly the cells that are read, each once, from its owner.
    const std::vector<Transfer> plan = exchange_plan(p, r.halo, r.every);
    std::map<std::pair<int, int>, int> seen;
    for (const Transfer& t : plan) {
      CHECK(seen[{t.src, t.dst}]++ == 0);
      CHECK(t.src != t.dst);
      CHECK(disjoint(t.boxes));
    }
    Index moved = 0;
    for (const Part& b : p.parts) {
      std::map<Vec3, int> got;
      std::set<int> from;
      for (const Transfer& t : plan) {
        if (t.dst != b.id) continue;
        from.insert(t.src);
        for (const Box& x : t.boxes)
          for_each_cell(x, [&](const Vec3& c) {
            CHECK(owner[c] == t.src);
            ++got[c];
          });
      }
      Index read = 0;
      for_each_cell(p.domain, [&](const Vec3& c) {
        const bool is_read = read_by(p, b, r.halo, r.every, c);
        read += is_read;
        auto it = got.find(c);
        CHECK((it == got.end() ? 0 : it->second) == (is_read ? 1 : 0));
      });
      moved += read;
      CHECK(std::vector<int>(from.begin(), from.end()) == b.neighbours);
    }
    CHECK(exchanged_cells_per_exchange(p, r.halo, r.every) == moved);
    ++checked;
  }
  CHECK(checked == 300);
}

TEST_CASE("property: chunk plans cover every plane once per pass") {
  std::mt19937 rng(77);
  for (int n = 0; n < 400; ++n) {
    ChunkRequest r;
    r.domain_planes = pick(rng, 1, 80);
    r.plane_lo = pick(rng, 0, r.domain_planes - 1);
    r.plane_hi = pick(rng, r.plane_lo + 1, r.domain_planes);
    r.halo_lo = pick(rng, 0, 3);
    r.halo_hi = pick(rng, 0, 3);
    r.pad_lo = pick(rng, 0, 2);
    r.pad_hi = pick(rng, 0, 2);
    r.chunks = static_cast<int>(pick(rng, 1, r.plane_hi - r.plane_lo));
    r.steps_per_pass = static_cast<int>(pick(rng, 1, 4));
    r.region_sharing = pick(rng, 0, 1) == 1;
    r.arrays = {{pick(rng, 1, 100), false}, {pick(rng, 1, 100), true}};
    CAPTURE(n);
    const ChunkPlan p = chunk_plan(r);
    REQUIRE(p.chunks.size() == static_cast<std::size_t>(r.chunks));
    // Own planes tile the part, in order.
    Index at = r.plane_lo;
    std::map<Index, int> sent;
    for (const Chunk& c : p.chunks) {
      CHECK(c.own_lo == at);
      CHECK(c.own_hi > c.own_lo);
      at = c.own_hi;
      const Index k = r.steps_per_pass;
      CHECK(c.load_lo == std::max(-r.pad_lo, c.own_lo - r.halo_lo * k));
      CHECK(c.load_hi == std::min(r.domain_planes + r.pad_hi, c.own_hi + r.halo_hi * k));
      // What is on the device = shared + host + resident padding, with no overlap.
      CHECK(c.shared_lo == c.load_lo);
      CHECK((c.shared_hi - c.shared_lo) + (c.h2d_hi - c.h2d_lo) + c.pad_planes == c.load_planes());
      CHECK(c.h2d_lo >= c.shared_hi);
      for (Index q = c.h2d_lo; q < c.h2d_hi; ++q) ++sent[q];
    }
    CHECK(at == r.plane_hi);
    for (const auto& [plane, times] : sent) {
      if (r.region_sharing) {
        CHECK(times == 1);  // with sharing, every plane crosses the bus once per pass
        CHECK(plane >= 0);
        CHECK(plane < r.domain_planes);
      }
    }
    if (r.region_sharing) {
      const Index lo = std::max<Index>(0, p.chunks.front().load_lo);
      const Index hi = std::min(r.domain_planes, p.chunks.back().load_hi);
      CHECK(p.h2d_planes_per_pass == hi - lo);
      CHECK(static_cast<Index>(sent.size()) == hi - lo);
    } else {
      CHECK(p.h2d_planes_per_pass == p.h2d_planes_without_sharing);
      CHECK(p.d2d_planes_per_pass == 0);
    }
    CHECK(p.d2h_planes_per_pass == r.plane_hi - r.plane_lo);
    CHECK(p.d2h_bytes_per_pass == p.d2h_planes_per_pass * r.arrays[0].bytes_per_plane);
  }
}

TEST_CASE("property: overlap views compute what one launch computes, exchange-safe") {
  // A kernel over a buffer computes the planes its stencil stays inside along the slowest
  // axis. Cut into views, the boundary views must compute every plane that is sent, the
  // interior must read owned cells only and write no sent or ghost cell, and all views
  // together must compute the same planes as the whole buffer, each once.
  std::mt19937 rng(77);
  int split = 0, whole = 0;
  for (int n = 0; n < 400; ++n) {
    const int dims = static_cast<int>(pick(rng, 1, 3));
    const int axis = dims - 1;
    const auto a = static_cast<std::size_t>(axis);
    PartitionRequest r;
    r.dims = dims;
    for (int d = 0; d < dims; ++d)
      r.domain[static_cast<std::size_t>(d)] = pick(rng, 1, d == axis ? 80 : 6);
    r.halo = random_halo(rng, dims);
    r.ghost_lo = r.halo.lo;
    r.ghost_hi = r.halo.hi;
    r.devices = static_cast<int>(pick(rng, 1, 6));
    const Partition p = partition(r);
    const std::vector<Transfer> plan = exchange_plan(p, r.halo, 1);
    const std::vector<const std::vector<Transfer>*> plans{&plan};
    const Index reach_lo = r.halo.lo[a], reach_hi = r.halo.hi[a];
    CAPTURE(n);
    for (const Part& part : p.parts) {
      const OverlapViews v = overlap_views(part, axis, reach_lo, reach_hi, plans);
      auto computed = [&](const Box& view) {  // planes a launch over `view` computes
        return std::pair<Index, Index>{view.lo[a] + reach_lo, view.hi[a] - reach_hi};
      };
      std::map<Index, int> times;
      auto add = [&](const Box& view) {
        CHECK(part.ghost.contains(view));
        for (int d = 0; d < dims; ++d)
          if (d != axis) CHECK(view.extent(d) == part.ghost.extent(d));
        auto [c0, c1] = computed(view);
        for (Index z = c0; z < c1; ++z) ++times[z];
      };
      for (const Box& b : v.boundary) add(b);
      if (!v.split) {
        CHECK(v.boundary.size() == 1);
        CHECK(v.boundary[0] == part.ghost);
        ++whole;
        continue;
      }
      ++split;
      add(v.interior);
      auto [w0, w1] = computed(part.ghost);
      for (Index z = w0; z < w1; ++z) CHECK(times[z] == 1);
      Index total = 0;
      for (auto [z, t] : times) total += t;
      CHECK(total == std::max<Index>(0, w1 - w0));
      // The interior reads owned planes only and writes no plane another part receives.
      auto [i0, i1] = computed(v.interior);
      CHECK(i0 < i1);
      CHECK(i0 - reach_lo >= part.owned.lo[a]);
      CHECK(i1 + reach_hi <= part.owned.hi[a]);
      for (const Transfer& t : plan)
        if (t.src == part.id)
          for (const Box& b : t.boxes) CHECK((b.hi[a] <= i0 || b.lo[a] >= i1));
    }
  }
  CHECK(split > 50);
  CHECK(whole > 50);
}

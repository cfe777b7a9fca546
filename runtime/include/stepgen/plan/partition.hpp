#pragma once
/// \file
/// Splitting the grid over devices. Two partitioners share one result type:
/// - STEPOCL's (Li, Brunet, Namyst 2013): a priority list of dimensions from the halo's
///   projection, then per dimension the gcd of its work-group count and the devices left;
/// - ours: the device grid that minimises the bytes exchanged per step, with weighted splits
///   for devices of different speed.
/// Split points fall on multiples of the work-group size (no device gets part of a group).
///
/// Weighted splits (both strategies): dimensions are cut slowest first. Along a dimension, the
/// slabs of one region get work-groups in proportion to the summed weights of the parts they
/// hold (largest remainder, at least one group each); each slab is then cut along the next
/// faster dimension by the weights of its own parts. With one split dimension this is exactly
/// proportional; with several it balances every slab, at the price of faster-dimension cuts
/// that need not line up between slabs (neighbours are found geometrically, so that is fine).
/// Equal weights give the plain even grid; the first parts get the spare groups.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// The points a kernel reads around each element (same meaning as the spec's halo).
/// `lo`/`hi` are the non-negative widths below / above per dimension. When `points` is empty
/// the whole box [-lo, hi] is read (a halo given as widths).
struct Halo {
  int dims = 1;
  std::vector<Vec3> points;
  Vec3 lo{0, 0, 0};
  Vec3 hi{0, 0, 0};

  /// Points sorted and made unique; widths from their extreme offsets (origin included).
  static Halo from_points(int dims, const std::vector<Vec3>& points);
  static Halo from_widths(int dims, const Vec3& lo, const Vec3& hi);
  /// True when nothing outside the element itself is read.
  bool empty() const;
  /// True when some point moves in two or more dimensions at once (reads a diagonal). A halo
  /// given as widths reads its corners, so it has diagonals when two dimensions have width.
  bool has_diagonals() const;
  /// STEPOCL's projection of the halo on dimension d: |min offset| + |max offset|, offsets
  /// taken with the origin (so lo[d] + hi[d], the thickness of the ghost region along d).
  Index projection(int d) const;
};

/// The union of two halos (points merged, widths maxed). Merging a point halo with a width
/// halo gives a width halo (a safe over-approximation: the whole box is then read).
Halo merge(const Halo& a, const Halo& b);

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Strategy {
  kStepocl,      ///< the paper's priority list + gcd rule
  kMinExchange,  ///< the device grid with the fewest bytes exchanged per step
  kSlabs,        ///< slabs along the slowest dimension (contiguous halos, whose exchange can
                 ///< overlap the interior's computation), else as kMinExchange
};

/// "stepocl", "min-exchange", "slabs" -> the strategy; throws PlanError naming the choices.
inline Strategy parse_strategy(const std::string& name) {
  if (name == "stepocl") return Strategy::kStepocl;
  if (name == "min-exchange") return Strategy::kMinExchange;
  if (name == "slabs") return Strategy::kSlabs;
  throw PlanError("unknown partition strategy '" + name + "': use min-exchange, slabs or stepocl");
}

struct PartitionRequest {
  int dims = 1;
  Vec3 domain{1, 1, 1};    ///< grid extents
  Vec3 granule{1, 1, 1};   ///< work-group size: split points are multiples of it
  Halo halo;               ///< union of the halos read (drives priorities and costs)
  Vec3 ghost_lo{0, 0, 0};  ///< ghost widths of the local buffers (k * halo for deep halos)
  Vec3 ghost_hi{0, 0, 0};
  int devices = 1;                ///< devices available (the parts asked for, with --parts)
  bool parts_of_devices = false;  ///< `devices` counts parts that share devices (--parts)
  std::vector<double> weights;    ///< relative speeds, one per device; empty = equal
  Strategy strategy = Strategy::kMinExchange;
  Index bytes_per_cell = 4;  ///< bytes exchanged per ghost cell (sum over exchanged arrays)
  int every = 1;             ///< steps between exchanges (deep halos when > 1)
  /// Dimensions with a boundary frame (the spec's <boundary>, boundary.hpp): there the ghost
  /// boxes of the parts at the grid's edge reach past it by the ghost widths.
  std::array<bool, 3> frame{false, false, false};
};

struct Part {
  int id = 0;
  std::array<int, 3> coord{0, 0, 0};  ///< position in the device grid
  Box owned;                          ///< cells this part computes
  Box ghost;                          ///< owned + ghost widths, clipped at the domain
  std::vector<int> neighbours;        ///< parts owning cells this part reads, ascending ids
  /// With a boundary frame (PartitionRequest::frame): `ghost` reaches past the grid, and `inside`
  /// is its part within the grid (the cells neighbours send; the rest is the frame).
  bool framed = false;
  Box inside;
  /// The process's device that runs this part (placement.hpp: several parts may share one,
  /// `--parts`); the part's own id unless placed otherwise.
  int device = 0;
};

struct Partition {
  int dims = 1;
  Box domain;
  std::array<int, 3> grid{1, 1, 1};  ///< parts per dimension; product = parts.size()
  std::vector<int> priority;         ///< dimensions in splitting order (STEPOCL's list)
  Vec3 ghost_lo{0, 0, 0};
  Vec3 ghost_hi{0, 0, 0};
  std::vector<Part> parts;    ///< x-fastest order of the device grid
  std::string rationale;      ///< one line: why this grid (for reports)
  int devices_requested = 1;  ///< devices asked for (parts.size() may be fewer)
  std::array<bool, 3> frame{false, false, false};  ///< the request's frame dimensions
};

/// STEPOCL's priority list: dimensions by increasing halo projection; ties to the slowest.
std::vector<int> stepocl_priority(const Halo& halo, int dims);

/// Work-groups along dimension d (the last one may be partial).
Index work_groups(const PartitionRequest& request, int d);

/// The most parts dimension d can be cut into: one work-group at least per part, and no part
/// (with even splits) thinner than the ghost width along d.
int max_parts(const PartitionRequest& request, int d);

/// The most devices a grid can use: the product of max_parts over the dimensions.
Index max_devices(const PartitionRequest& request);

/// Partitions the domain. Throws PlanError with a message a user can act on (bad request,
/// weights that do not match the devices, ...). Uses min(devices, what fits) parts: more
/// devices than the work-groups allow is not an error, the extra devices stay idle.
Partition partition(const PartitionRequest& request);

/// Owned and ghost boxes for a given device grid (used by partition() and by tests). The grid
/// is taken as asked: throws PlanError when it cannot be built (more parts than work-groups
/// along a dimension, a part thinner than the ghost width).
Partition partition_with_grid(const PartitionRequest& request, const std::array<int, 3>& grid);

/// Cells moved by one exchange: every part receives its read zone (see exchange.hpp), each
/// cell of which is owned by exactly one other part.
Index exchanged_cells_per_exchange(const Partition& p, const Halo& halo, int every = 1);

/// Cells exchanged per step for a partition (sum over ordered pairs of the exchange volume):
/// one exchange's cells divided by `every` (rounded down; exact when every == 1).
Index exchanged_cells_per_step(const Partition& p, const Halo& halo, int every = 1);

namespace detail {

inline const char* dim_name(int d) {
  return d == 0 ? "x" : d == 1 ? "y" : "z";
}

/// Cells `owned` reads outside itself, clipped at `domain`, as disjoint boxes. Point halos at
/// every == 1 read exactly the shifted copies of the owned box; width halos the box of the
/// widths. Deep halos (every > 1) refresh the whole ghost box whatever the array's own halo:
/// between exchanges the kernels compute redundantly on all of it, so even an array read
/// without a halo is read (and goes stale) there.
inline std::vector<Box> read_zone(const Box& domain, const Box& owned, const Box& ghost,
                                  const Halo& halo, int every) {
  if (owned.empty()) return {};
  if (every > 1) return coalesce(subtract(intersect(ghost, domain), owned));
  if (halo.empty()) return {};
  if (halo.points.empty())
    return coalesce(subtract(intersect(owned.grown(halo.lo, halo.hi), domain), owned));
  std::vector<Box> zone;
  for (const Vec3& p : halo.points) {
    std::vector<Box> fresh = subtract(intersect(owned.translated(p), domain), owned);
    fresh = subtract(fresh, zone);
    zone.insert(zone.end(), fresh.begin(), fresh.end());
  }
  return coalesce(zone);
}

/// Splits `groups` work-groups into weights.size() runs of at least one group each, in
/// proportion to the weights (largest remainder; ties to the earlier run).
inline std::vector<Index> distribute(Index groups, const std::vector<double>& weights) {
  const std::size_t n = weights.size();
  double total = 0;
  for (double w : weights) total += w;
  std::vector<double> ideal(n);
  std::vector<Index> count(n);
  Index sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    ideal[j] = static_cast<double>(groups) * weights[j] / total;
    count[j] = std::max<Index>(1, static_cast<Index>(std::floor(ideal[j])));
    sum += count[j];
  }
  while (sum < groups) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < n; ++j)
      if (ideal[j] - static_cast<double>(count[j]) > ideal[best] - static_cast<double>(count[best]))
        best = j;
    ++count[best];
    ++sum;
  }
  while (sum > groups) {  // the at-least-one rule over-filled: take from the most over-served
    std::size_t best = n;
    for (std::size_t j = 0; j < n; ++j) {
      if (count[j] <= 1) continue;
      if (best == n || ideal[j] - static_cast<double>(count[j]) <=
                           ideal[best] - static_cast<double>(count[best]))
        best = j;
    }
    --count[best];
    --sum;
  }
  return count;
}

/// Split points (size runs+1) along one dimension: multiples of the granule, ending at extent.
inline std::vector<Index> split_points(Index extent, Index granule, const std::vector<double>& w) {
  const Index groups = (extent + granule - 1) / granule;
  std::vector<Index> counts = distribute(groups, w);
  std::vector<Index> points{0};
  Index g = 0;
  for (Index c : counts) {
    g += c;
    points.push_back(std::min(extent, g * granule));
  }
  return points;
}

inline std::string grid_str(const std::array<int, 3>& g, int dims) {
  std::string s = std::to_string(g[0]);
  for (int d = 1; d < dims; ++d) s += "x" + std::to_string(g[static_cast<std::size_t>(d)]);
  return s;
}

inline void check_request(const PartitionRequest& r) {
  if (r.dims < 1 || r.dims > 3)
    throw PlanError("the grid has " + std::to_string(r.dims) + " dimensions; 1 to 3 are supported");
  for (int d = 0; d < r.dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (r.domain[i] < 1)
      throw PlanError(std::string("the grid is empty along ") + dim_name(d) + " (extent " +
                      std::to_string(r.domain[i]) + ")");
    if (r.granule[i] < 1)
      throw PlanError(std::string("the work-group size along ") + dim_name(d) + " is " +
                      std::to_string(r.granule[i]) + "; it must be at least 1");
    if (r.ghost_lo[i] < 0 || r.ghost_hi[i] < 0)
      throw PlanError(std::string("negative ghost width along ") + dim_name(d));
  }
  if (r.every < 1) throw PlanError("the exchange interval must be at least 1 step");
  for (int d = 0; d < r.dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    const Index need = std::max(r.ghost_lo[i], r.ghost_hi[i]);
    if (r.frame[i] && need > r.domain[i])
      throw PlanError(std::string("the grid has ") + std::to_string(r.domain[i]) + " cells along " +
                      dim_name(d) + ", fewer than its boundary frame of " + std::to_string(need) +
                      " cells");
  }
  for (double w : r.weights)
    if (!(w > 0) || !std::isfinite(w))
      throw PlanError("device weights must be positive numbers (got " + std::to_string(w) + ")");
}

/// The ghost boxes (owned grown by the request's ghost widths, clipped at the domain but in
/// frame dimensions, where they reach past the grid's edge: boundary.hpp), the part within the
/// grid and the neighbours of every part of `p`, whose owned boxes are set.
inline void finish_parts(Partition& p, const PartitionRequest& r) {
  Box reach = p.domain;
  for (int d = 0; d < r.dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (!r.frame[i]) continue;
    reach.lo[i] -= r.ghost_lo[i];
    reach.hi[i] += r.ghost_hi[i];
  }
  for (Part& part : p.parts) {
    part.ghost = intersect(part.owned.grown(r.ghost_lo, r.ghost_hi), reach);
    part.inside = intersect(part.ghost, p.domain);
    part.framed = part.inside != part.ghost;
    part.neighbours.clear();
  }
  for (Part& b : p.parts) {
    const std::vector<Box> zone = read_zone(p.domain, b.owned, b.ghost, r.halo, r.every);
    for (const Part& a : p.parts) {
      if (a.id == b.id) continue;
      for (const Box& z : zone)
        if (!intersect(a.owned, z).empty()) {
          b.neighbours.push_back(a.id);
          break;
        }
    }
  }
}

/// Builds owned, ghost and neighbours for `grid` with per-part weights; checks nothing.
inline Partition build(const PartitionRequest& r, const std::array<int, 3>& grid,
                       const std::vector<double>& part_weights) {
  Partition p;
  p.dims = r.dims;
  p.domain = Box::from_extent(r.dims, r.domain);
  p.grid = grid;
  p.priority = stepocl_priority(r.halo, r.dims);
  p.ghost_lo = r.ghost_lo;
  p.ghost_hi = r.ghost_hi;
  p.devices_requested = r.devices;
  p.frame = r.frame;
  const int n = grid[0] * grid[1] * grid[2];
  p.parts.resize(static_cast<std::size_t>(n));
  for (int id = 0; id < n; ++id) {
    Part& part = p.parts[static_cast<std::size_t>(id)];
    part.id = id;
    part.device = id;
    part.coord = {id % grid[0], (id / grid[0]) % grid[1], id / (grid[0] * grid[1])};
    part.owned = p.domain;
  }
  // Slowest dimension first: the cuts along d depend on the part's coordinates in slower
  // dimensions only (the slab, row, ... it sits in), so memoise per such prefix.
  for (int d = r.dims - 1; d >= 0; --d) {
    const auto i = static_cast<std::size_t>(d);
    std::map<std::array<int, 3>, std::vector<Index>> cuts;
    for (Part& part : p.parts) {
      std::array<int, 3> key{0, 0, 0};
      for (int e = d + 1; e < 3; ++e)
        key[static_cast<std::size_t>(e)] = part.coord[static_cast<std::size_t>(e)];
      auto it = cuts.find(key);
      if (it == cuts.end()) {
        std::vector<double> slab(static_cast<std::size_t>(grid[i]), 0.0);
        for (int other = 0; other < n; ++other) {
          const Part& q = p.parts[static_cast<std::size_t>(other)];
          bool same = true;
          for (int e = d + 1; e < 3; ++e)
            same = same && q.coord[static_cast<std::size_t>(e)] == key[static_cast<std::size_t>(e)];
          if (same)
            slab[static_cast<std::size_t>(q.coord[i])] +=
                part_weights[static_cast<std::size_t>(other)];
        }
        it = cuts.emplace(key, split_points(r.domain[i], r.granule[i], slab)).first;
      }
      part.owned.lo[i] = it->second[static_cast<std::size_t>(part.coord[i])];
      part.owned.hi[i] = it->second[static_cast<std::size_t>(part.coord[i]) + 1];
    }
  }
  finish_parts(p, r);
  return p;
}

/// Empty when every part is at least as wide as the ghost along every cut dimension; else
/// why not, for an error message.
inline std::string thin_part(const PartitionRequest& r, const Partition& p) {
  for (const Part& part : p.parts)
    for (int d = 0; d < r.dims; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const Index need = std::max(r.ghost_lo[i], r.ghost_hi[i]);
      if (p.grid[i] > 1 && part.owned.extent(d) < need)
        return "part " + std::to_string(part.id) + " would be " +
               std::to_string(part.owned.extent(d)) + " cells wide along " + dim_name(d) +
               ", thinner than its ghost width of " + std::to_string(need) +
               " cells (its ghost would reach past its neighbour)";
    }
  return {};
}

inline std::vector<double> weights_for(const PartitionRequest& r, int parts) {
  if (r.weights.empty()) return std::vector<double>(static_cast<std::size_t>(parts), 1.0);
  return std::vector<double>(r.weights.begin(), r.weights.begin() + parts);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Implementation (inline: the generated programs include this header and nothing else).

inline Halo Halo::from_points(int dims, const std::vector<Vec3>& points) {
  Halo h;
  h.dims = dims;
  h.points = points;
  for (Vec3& p : h.points)
    for (int d = dims; d < 3; ++d) p[static_cast<std::size_t>(d)] = 0;
  std::sort(h.points.begin(), h.points.end());
  h.points.erase(std::unique(h.points.begin(), h.points.end()), h.points.end());
  for (const Vec3& p : h.points)
    for (std::size_t d = 0; d < 3; ++d) {
      h.lo[d] = std::max(h.lo[d], -p[d]);
      h.hi[d] = std::max(h.hi[d], p[d]);
    }
  return h;
}

inline Halo Halo::from_widths(int dims, const Vec3& lo, const Vec3& hi) {
  Halo h;
  h.dims = dims;
  for (int d = 0; d < dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    h.lo[i] = lo[i];
    h.hi[i] = hi[i];
  }
  return h;
}

inline bool Halo::empty() const {
  return lo == Vec3{0, 0, 0} && hi == Vec3{0, 0, 0};
}

inline bool Halo::has_diagonals() const {
  if (points.empty()) {
    int wide = 0;
    for (std::size_t d = 0; d < 3; ++d) wide += (lo[d] + hi[d] > 0) ? 1 : 0;
    return wide >= 2;
  }
  for (const Vec3& p : points) {
    int moved = 0;
    for (std::size_t d = 0; d < 3; ++d) moved += p[d] != 0 ? 1 : 0;
    if (moved >= 2) return true;
  }
  return false;
}

inline Index Halo::projection(int d) const {
  return lo[static_cast<std::size_t>(d)] + hi[static_cast<std::size_t>(d)];
}

inline Halo merge(const Halo& a, const Halo& b) {
  const int dims = std::max(a.dims, b.dims);
  if (a.empty()) {
    Halo r = b;
    r.dims = dims;
    return r;
  }
  if (b.empty()) {
    Halo r = a;
    r.dims = dims;
    return r;
  }
  if (!a.points.empty() && !b.points.empty()) {
    std::vector<Vec3> pts = a.points;
    pts.insert(pts.end(), b.points.begin(), b.points.end());
    return Halo::from_points(dims, pts);
  }
  Vec3 lo, hi;
  for (std::size_t d = 0; d < 3; ++d) {
    lo[d] = std::max(a.lo[d], b.lo[d]);
    hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return Halo::from_widths(dims, lo, hi);
}

inline std::vector<int> stepocl_priority(const Halo& halo, int dims) {
  std::vector<int> order;
  for (int d = dims - 1; d >= 0; --d) order.push_back(d);  // slowest first wins ties
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return halo.projection(a) < halo.projection(b); });
  return order;
}

inline Index work_groups(const PartitionRequest& r, int d) {
  const auto i = static_cast<std::size_t>(d);
  return (r.domain[i] + r.granule[i] - 1) / r.granule[i];
}

inline int max_parts(const PartitionRequest& r, int d) {
  if (d >= r.dims) return 1;
  const auto i = static_cast<std::size_t>(d);
  const Index groups = work_groups(r, d);
  const Index need = std::max(r.ghost_lo[i], r.ghost_hi[i]);
  const Index last = r.domain[i] - (groups - 1) * r.granule[i];  // cells in the last group
  // Even splits give the spare groups to the first parts, so the last part is the thinnest:
  // groups/g groups, its last one possibly partial. At most 2^20 parts a dimension: the counts
  // are ints, which a dimension of 2^31 work-groups would overflow (guarded by the doctest
  // "a dimension of 2^31 work-groups or more: the part counts stay ints").
  for (Index g = std::min<Index>(groups, Index{1} << 20); g > 1; --g)
    if ((groups / g - 1) * r.granule[i] + last >= need) return static_cast<int>(g);
  return 1;
}

inline Index max_devices(const PartitionRequest& r) {
  Index n = 1;
  for (int d = 0; d < r.dims; ++d) n *= max_parts(r, d);
  return n;
}

inline Partition partition_with_grid(const PartitionRequest& r, const std::array<int, 3>& grid) {
  detail::check_request(r);
  const Index most = max_devices(r);
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (grid[i] < 1) throw PlanError("the device grid needs at least one part per dimension");
    if (d >= r.dims && grid[i] != 1)
      throw PlanError("the device grid splits dimension " + std::string(detail::dim_name(d)) +
                      " of a " + std::to_string(r.dims) + "D grid");
    if (d < r.dims && grid[i] > work_groups(r, d))
      throw PlanError("at most " + std::to_string(most) + " devices can be used: dimension " +
                      detail::dim_name(d) + " has " + std::to_string(work_groups(r, d)) +
                      " work-groups of " + std::to_string(r.granule[i]) + " (" +
                      std::to_string(r.domain[i]) + " cells), so it can be split into at most " +
                      std::to_string(work_groups(r, d)) + " parts, not " + std::to_string(grid[i]));
  }
  const int n = grid[0] * grid[1] * grid[2];
  if (!r.weights.empty() && static_cast<int>(r.weights.size()) < n)
    throw PlanError(std::to_string(r.weights.size()) + " device weights given for " +
                    std::to_string(n) + " parts; give one weight per device");
  Partition p = detail::build(r, grid, detail::weights_for(r, n));
  const std::string thin = detail::thin_part(r, p);
  if (!thin.empty())
    throw PlanError("at most " + std::to_string(most) + " devices can be used: " + thin +
                    "; use fewer parts along that dimension");
  p.rationale = "grid " + detail::grid_str(grid, r.dims) + " as requested";
  return p;
}

inline Index exchanged_cells_per_exchange(const Partition& p, const Halo& halo, int every) {
  Index cells = 0;
  for (const Part& b : p.parts)
    cells += volume(detail::read_zone(p.domain, b.owned, b.ghost, halo, every));
  return cells;
}

inline Index exchanged_cells_per_step(const Partition& p, const Halo& halo, int every) {
  return exchanged_cells_per_exchange(p, halo, every) / std::max(every, 1);
}

inline Partition partition(const PartitionRequest& r) {
  detail::check_request(r);
  if (r.devices < 1)
    throw PlanError("at least one device is needed (got " + std::to_string(r.devices) + ")");
  if (!r.weights.empty() && static_cast<int>(r.weights.size()) != r.devices)
    throw PlanError(std::to_string(r.weights.size()) + " device weights given for " +
                    std::to_string(r.devices) + " devices; give one weight per device");
  const Index most = max_devices(r);
  const int top = static_cast<int>(std::min<Index>(r.devices, most));
  std::array<int, 3> cap{max_parts(r, 0), max_parts(r, 1), max_parts(r, 2)};
  auto feasible = [&](const std::array<int, 3>& g, Partition* out) {
    for (std::size_t d = 0; d < 3; ++d)
      if (g[d] > cap[d]) return false;
    Partition p = detail::build(r, g, detail::weights_for(r, g[0] * g[1] * g[2]));
    if (!detail::thin_part(r, p).empty()) return false;  // weighted cuts can be thinner
    *out = std::move(p);
    return true;
  };
  auto used = [&](int n) {
    std::string s = "uses " + std::to_string(n) + " of " + std::to_string(r.devices) + " " +
                    (r.parts_of_devices ? "parts" : "devices");
    if (top < r.devices)
      s += " (at most " + std::to_string(most) + " fit the work-groups and ghost widths)";
    return s;
  };

  if (r.strategy == Strategy::kStepocl) {
    // The paper's rule, trying fewer devices when the gcds leave some idle (STEPOCL decreases
    // the device count "in a certain range" for the same reason): keep the largest product.
    const std::vector<int> prio = stepocl_priority(r.halo, r.dims);
    Partition best;
    int best_n = 0;
    for (int n = top; n > best_n; --n) {
      std::array<int, 3> g{1, 1, 1};
      Index left = n;
      for (int d : prio) {
        const Index c = std::gcd(work_groups(r, d), left);
        g[static_cast<std::size_t>(d)] = static_cast<int>(c);
        left /= c;
      }
      Partition p;
      if (g[0] * g[1] * g[2] > best_n && feasible(g, &p)) {
        best = std::move(p);
        best_n = g[0] * g[1] * g[2];
      }
    }
    std::string prio_s;
    for (int d : prio) prio_s += std::string(prio_s.empty() ? "" : ",") + detail::dim_name(d);
    best.rationale = "stepocl: priority {" + prio_s + "}, gcd grid " +
                     detail::grid_str(best.grid, r.dims) + "; " + used(best_n);
    if (best_n < top) best.rationale += "; the gcd rule leaves the others idle";
    return best;
  }

  // Slabs: all `top` parts along the slowest dimension when that is feasible.
  std::string slab_note;
  if (r.strategy == Strategy::kSlabs) {
    std::array<int, 3> g{1, 1, 1};
    g[static_cast<std::size_t>(r.dims - 1)] = top;
    Partition p;
    if (feasible(g, &p)) {
      p.rationale =
          "slabs: grid " + detail::grid_str(g, r.dims) + " along the slowest dimension exchanges " +
          std::to_string(exchanged_cells_per_step(p, r.halo, r.every) * r.bytes_per_cell) +
          " bytes per step in contiguous slabs; " + used(top);
      return p;
    }
    slab_note = "slabs: " + std::to_string(top) + " slabs do not fit the slowest dimension; ";
  }

  // Min-exchange: every factorisation of n, from the most devices down; the first n with a
  // feasible grid wins. Ties prefer fewer cuts in the fast dimensions (contiguous slabs).
  for (int n = top; n >= 1; --n) {
    Partition best;
    Index best_cost = -1;
    int tried = 0;
    for (int g2 = 1; g2 <= n; ++g2) {
      if (n % g2) continue;
      for (int g1 = 1; g1 <= n / g2; ++g1) {
        if ((n / g2) % g1) continue;
        const std::array<int, 3> g{n / g2 / g1, g1, g2};
        Partition p;
        if (!feasible(g, &p)) continue;
        ++tried;
        const Index cost = exchanged_cells_per_step(p, r.halo, r.every) * r.bytes_per_cell;
        const bool better =
            best_cost < 0 || cost < best_cost ||
            (cost == best_cost &&
             std::array<int, 2>{g[0], g[1]} < std::array<int, 2>{best.grid[0], best.grid[1]});
        if (better) {
          best = std::move(p);
          best_cost = cost;
        }
      }
    }
    if (best_cost >= 0) {
      best.rationale = slab_note + "min-exchange: grid " + detail::grid_str(best.grid, r.dims) +
                       " exchanges " + std::to_string(best_cost) +
                       " bytes per step, the least of " + std::to_string(tried) +
                       " feasible grids of " + std::to_string(n) + " parts; " + used(n);
      if (n < top) best.rationale += "; no grid of " + std::to_string(top) + " parts was feasible";
      return best;
    }
  }
  throw PlanError("no feasible partition (internal error: one part always fits)");
}

}  // namespace stepgen::rt

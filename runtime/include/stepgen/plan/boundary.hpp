#pragma once
/// \file
/// Boundaries (the spec's <boundary>): a frame of ghost cells beyond the grid's edge, as wide
/// as the ghost widths, in the dimensions that have one. A part at the grid's edge holds the
/// frame in its buffer (Part::ghost reaches past the domain there: partition.hpp's `frame`), so
/// the unmodified kernels compute the edge cells as any other. The frame is filled from the
/// grid's cells, each frame cell mapped dimension by dimension:
///   periodic  c -> c mod N            (the opposite side of the grid)
///   mirror    -1-k -> k, N+k -> N-1-k  (reflected about the edge face)
///   copy      c -> the edge cell        (clamped)
///   value(v)  v                         (a frame cell outside in a value dimension is v)
/// A corner cell (outside in several dimensions) is mapped in each; if one of them is a value
/// dimension it takes the first such dimension's value (x before y before z).
///
/// Standard library only (geometry): the engine moves the bytes (engine.hpp: fill_frames).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

enum class BoundaryKind { kPeriodic, kValue, kMirror, kCopy };

inline const char* boundary_kind_name(BoundaryKind k) {
  switch (k) {
    case BoundaryKind::kPeriodic:
      return "periodic";
    case BoundaryKind::kValue:
      return "value";
    case BoundaryKind::kMirror:
      return "mirror";
    case BoundaryKind::kCopy:
      return "copy";
  }
  return "?";
}

/// The bytes of value(v) in an array's element type.
using BoundaryValue = std::array<unsigned char, 8>;
template <typename T>
BoundaryValue boundary_value(T v) {
  static_assert(sizeof(T) <= 8, "boundary values are at most 8 bytes");
  BoundaryValue b{};
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

/// One array's boundary along one dimension (the generated program's boundary table holds one
/// per array of a <boundary>'s groups and dimension).
struct BoundaryRule {
  int array = 0;
  int dim = 0;
  BoundaryKind kind = BoundaryKind::kPeriodic;
  BoundaryValue value{};  ///< kValue
};

/// The rule of `array` along `dim`, nullptr when it has none.
inline const BoundaryRule* find_boundary(const BoundaryRule* rules, int count, int array, int dim) {
  for (int i = 0; i < count; ++i)
    if (rules[i].array == array && rules[i].dim == dim) return &rules[i];
  return nullptr;
}

/// True when `array` has a boundary in some dimension.
inline bool has_boundary(const BoundaryRule* rules, int count, int array) {
  for (int i = 0; i < count; ++i)
    if (rules[i].array == array) return true;
  return false;
}

/// The dimensions with a frame (some array has a boundary there).
inline std::array<bool, 3> frame_dims(const BoundaryRule* rules, int count) {
  std::array<bool, 3> f{false, false, false};
  for (int i = 0; i < count; ++i) f[static_cast<std::size_t>(rules[i].dim)] = true;
  return f;
}

/// The domain cells the frames of an array with these rules are filled from: the slabs of
/// width `width` (the widest ghost) at both ends of each boundary dimension, full in the others.
inline std::vector<Box> frame_sources(const Box& domain, const BoundaryRule* rules, int count,
                                      int array, const Vec3& width) {
  std::vector<Box> out;
  for (int i = 0; i < count; ++i) {
    const BoundaryRule& r = rules[i];
    if (r.array != array || r.kind == BoundaryKind::kValue) continue;
    const auto d = static_cast<std::size_t>(r.dim);
    const Index w = std::min(width[d], domain.extent(r.dim));
    Box lo = domain, hi = domain;
    lo.hi[d] = domain.lo[d] + w;
    hi.lo[d] = domain.hi[d] - w;
    out.push_back(lo);
    out.push_back(hi);
  }
  // Disjoint pieces (overlapping slabs would be copied twice; harmless but wasteful).
  std::vector<Box> disjoint;
  for (const Box& b : out) {
    std::vector<Box> fresh = subtract(b, disjoint);
    disjoint.insert(disjoint.end(), fresh.begin(), fresh.end());
  }
  return coalesce(disjoint);
}

/// The cells the frames of some arrays are filled from, as pieces: each source box
/// (frame_sources) cut by the owned box of every part, ordered by part, then array, then box,
/// their bytes one after the other in `bytes` (so that a part's pieces are contiguous: an MPI
/// rank sends them as one block, `part_bytes` long). `fill` composes a frame from them.
struct FrameSources {
  struct Piece {
    int part = 0;
    int array = 0;  ///< index into the arrays given
    Box box;
    std::size_t offset = 0;  ///< in `bytes`
  };
  Box grid;
  const BoundaryRule* rules = nullptr;
  int count = 0;
  std::vector<int> arrays;  ///< the arrays' ids
  std::vector<std::size_t> element;
  std::vector<Piece> pieces;
  std::vector<std::size_t> part_bytes;  ///< per part
  std::vector<unsigned char> bytes;

  FrameSources(const Partition& p, const BoundaryRule* r, int n, const std::vector<int>& ids,
               const std::vector<std::size_t>& element_bytes)
      : grid(p.domain), rules(r), count(n), arrays(ids), element(element_bytes) {
    const Vec3 width{std::max(p.ghost_lo[0], p.ghost_hi[0]), std::max(p.ghost_lo[1], p.ghost_hi[1]),
                     std::max(p.ghost_lo[2], p.ghost_hi[2])};
    std::vector<std::vector<Box>> boxes;
    for (int id : ids) boxes.push_back(frame_sources(grid, rules, count, id, width));
    std::size_t offset = 0;
    for (const Part& q : p.parts) {
      std::size_t mine = 0;
      for (std::size_t k = 0; k < ids.size(); ++k)
        for (const Box& b : boxes[k]) {
          const Box cut = intersect(b, q.owned);
          if (cut.empty()) continue;
          const std::size_t n_bytes = static_cast<std::size_t>(cut.volume()) * element[k];
          pieces.push_back({q.id, static_cast<int>(k), cut, offset});
          offset += n_bytes;
          mine += n_bytes;
        }
      part_bytes.push_back(mine);
    }
    bytes.assign(offset, 0);
  }

  /// The bytes of cell `c` (inside a source box) of array `k`.
  const unsigned char* cell(int k, const Vec3& c, std::size_t& hint) const {
    for (std::size_t tries = 0; tries < pieces.size(); ++tries, hint = (hint + 1) % pieces.size()) {
      const Piece& piece = pieces[hint];
      if (piece.array != k || !piece.box.contains_point(c)) continue;
      const Vec3 e = piece.box.extents();
      const auto index = static_cast<std::size_t>(
          ((c[2] - piece.box.lo[2]) * e[1] + (c[1] - piece.box.lo[1])) * e[0] +
          (c[0] - piece.box.lo[0]));
      return bytes.data() + piece.offset + index * element[static_cast<std::size_t>(k)];
    }
    return nullptr;
  }

  /// Fills `frame` (cells outside the grid, laid out as a buffer of that box) of array `k` by
  /// its rules. A cell outside in a dimension without a rule, or inside the grid, is left as
  /// it is.
  void fill(int k, const Box& frame, unsigned char* out) const {
    const int array = arrays[static_cast<std::size_t>(k)];
    const std::size_t eb = element[static_cast<std::size_t>(k)];
    const BoundaryRule* rule[3] = {find_boundary(rules, count, array, 0),
                                   find_boundary(rules, count, array, 1),
                                   find_boundary(rules, count, array, 2)};
    const Vec3 n = grid.extents();
    std::size_t hint = 0;
    Vec3 c;
    std::size_t at = 0;
    for (c[2] = frame.lo[2]; c[2] < frame.hi[2]; ++c[2])
      for (c[1] = frame.lo[1]; c[1] < frame.hi[1]; ++c[1])
        for (c[0] = frame.lo[0]; c[0] < frame.hi[0]; ++c[0], at += eb) {
          Vec3 src = c;
          const BoundaryRule* value = nullptr;
          bool skip = false, outside = false;
          for (std::size_t d = 0; d < 3 && !skip; ++d) {
            const Index lo = grid.lo[d], hi = grid.hi[d];
            if (c[d] >= lo && c[d] < hi) continue;
            outside = true;
            const BoundaryRule* r = rule[d];
            if (!r) {
              skip = true;
              continue;
            }
            const Index i = c[d] - lo;  // relative to the grid's first cell
            switch (r->kind) {
              case BoundaryKind::kPeriodic:
                src[d] = lo + ((i % n[d]) + n[d]) % n[d];
                break;
              case BoundaryKind::kMirror:
                src[d] = lo + (i < 0 ? -1 - i : 2 * n[d] - 1 - i);
                break;
              case BoundaryKind::kCopy:
                src[d] = i < 0 ? lo : hi - 1;
                break;
              case BoundaryKind::kValue:
                if (!value) value = r;
                break;
            }
          }
          if (skip || !outside) continue;  // a rule missing, or a cell of the grid itself
          if (value) {
            std::memcpy(out + at, value->value.data(), eb);
            continue;
          }
          const unsigned char* from = cell(k, src, hint);
          if (from) std::memcpy(out + at, from, eb);
        }
  }
};

/// The cells of `ghost` outside `domain`, as disjoint boxes (a part's frame).
inline std::vector<Box> frame_boxes(const Box& domain, const Box& ghost) {
  return coalesce(subtract(ghost, domain));
}

/// The cells of `box` that hold cell `at` of `grid` for an array with these rules: `at`
/// itself when `box` holds it, and every frame cell (past the grid's edge) that the rules map
/// to `at` (periodic images, mirror reflections, the copies of an edge cell; never a cell of a
/// value dimension, nor past the edge in a dimension without a rule). A source (<inject>) adds
/// its value to each: a frame filled before the addition would otherwise keep the old value
/// (the same addition on the same bits gives what a refill would).
inline std::vector<Vec3> frame_images(const Vec3& at, const Box& grid, const BoundaryRule* rules,
                                      int count, int array, const Box& box) {
  // Per dimension, the coordinates in [box.lo, box.hi) that map to at[d].
  std::array<std::vector<Index>, 3> coords;
  for (std::size_t d = 0; d < 3; ++d) {
    const Index lo = grid.lo[d], hi = grid.hi[d], n = hi - lo;
    const BoundaryRule* r = find_boundary(rules, count, array, static_cast<int>(d));
    for (Index c = box.lo[d]; c < box.hi[d]; ++c) {
      if (c >= lo && c < hi) {
        if (c == at[d]) coords[d].push_back(c);
        continue;
      }
      if (!r || n <= 0) continue;
      const Index i = c - lo;  // relative to the grid's first cell
      Index src = 0;
      switch (r->kind) {
        case BoundaryKind::kPeriodic:
          src = lo + ((i % n) + n) % n;
          break;
        case BoundaryKind::kMirror:
          src = i < 0 ? lo + (-1 - i) : lo + (2 * n - 1 - i);
          break;
        case BoundaryKind::kCopy:
          src = i < 0 ? lo : hi - 1;
          break;
        case BoundaryKind::kValue:
          continue;
      }
      if (src == at[d]) coords[d].push_back(c);
    }
  }
  std::vector<Vec3> out;
  for (Index z : coords[2])
    for (Index y : coords[1])
      for (Index x : coords[0]) out.push_back(Vec3{x, y, z});
  return out;
}

// --- Frames filled on the devices (frame_copies) ----------------------------------------------

/// One copy that fills frame cells on the devices: the cells `from` (global coordinates, owned
/// by part `src`, inside the grid) go to the cells `to` (same extents, part `dst`'s frame); a
/// value fill (`src` < 0) writes `value` into `to` (`from` == `to`). Every frame cell is
/// written by at most one copy and every source cell is an owned cell, so the copies of one
/// refresh may run in any order and give the bytes FrameSources::fill composes on the host
/// (same mapping, corners included: a periodic shift, one plane per mirror or copy plane).
struct FrameCopy {
  int src = -1;  ///< the part owning `from`; < 0: a value fill
  int dst = 0;   ///< the part whose frame `to` is
  Box from;
  Box to;
  BoundaryValue value{};
};

/// The copies that fill every part's frame of `array` by its rules, ordered by receiving part.
/// A frame cell outside in a dimension without a rule gets none (left as it is, as on the
/// host); one whose source is outside the grid (mirror of a grid narrower than the frame) none.
inline std::vector<FrameCopy> frame_copies(const Partition& p, const BoundaryRule* rules, int count,
                                           int array) {
  const Box& g = p.domain;
  const BoundaryRule* rule[3] = {find_boundary(rules, count, array, 0),
                                 find_boundary(rules, count, array, 1),
                                 find_boundary(rules, count, array, 2)};
  std::vector<FrameCopy> out;
  for (const Part& part : p.parts) {
    // The frame cut at the grid's faces: in each region a dimension is below, inside or above.
    std::vector<Box> regions;
    for (const Box& f : frame_boxes(g, part.ghost)) {
      std::vector<Box> cur{f};
      for (std::size_t d = 0; d < 3; ++d) {
        std::vector<Box> next;
        for (const Box& b : cur) {
          const Index cuts[4] = {b.lo[d], std::clamp(g.lo[d], b.lo[d], b.hi[d]),
                                 std::clamp(g.hi[d], b.lo[d], b.hi[d]), b.hi[d]};
          for (int k = 0; k < 3; ++k)
            if (cuts[k] < cuts[k + 1]) {
              Box piece = b;
              piece.lo[d] = cuts[k];
              piece.hi[d] = cuts[k + 1];
              next.push_back(piece);
            }
        }
        cur = std::move(next);
      }
      regions.insert(regions.end(), cur.begin(), cur.end());
    }
    for (const Box& r : regions) {
      int side[3] = {0, 0, 0};
      bool skip = false, outside = false;
      const BoundaryRule* value = nullptr;
      for (std::size_t d = 0; d < 3; ++d) {
        side[d] = r.hi[d] <= g.lo[d] ? -1 : r.lo[d] >= g.hi[d] ? 1 : 0;
        if (side[d] == 0) continue;
        outside = true;
        if (!rule[d])
          skip = true;
        else if (rule[d]->kind == BoundaryKind::kValue && !value)
          value = rule[d];
      }
      if (skip || !outside) continue;
      if (value) {
        out.push_back({-1, part.id, r, r, value->value});
        continue;
      }
      // (to, from) pairs: each dimension outside maps its range by a shift (periodic) or
      // plane by plane (mirror, copy; periodic when the frame is wider than the grid).
      std::vector<std::pair<Box, Box>> maps{{r, r}};
      for (std::size_t d = 0; d < 3; ++d) {
        if (side[d] == 0) continue;
        const Index lo = g.lo[d], hi = g.hi[d], n = hi - lo;
        const BoundaryKind kind = rule[d]->kind;
        auto source = [&](Index c) {
          const Index i = c - lo;
          switch (kind) {
            case BoundaryKind::kPeriodic:
              return lo + ((i % n) + n) % n;
            case BoundaryKind::kMirror:
              return lo + (i < 0 ? -1 - i : 2 * n - 1 - i);
            default:  // kCopy
              return i < 0 ? lo : hi - 1;
          }
        };
        std::vector<std::pair<Box, Box>> next;
        for (const auto& [to, from] : maps) {
          if (kind == BoundaryKind::kPeriodic && to.extent(static_cast<int>(d)) <= n) {
            Box f = from;
            const Index shift = side[d] < 0 ? n : -n;
            f.lo[d] += shift;
            f.hi[d] += shift;
            if (f.lo[d] >= lo && f.hi[d] <= hi) {
              next.emplace_back(to, f);
              continue;
            }
          }
          for (Index c = to.lo[d]; c < to.hi[d]; ++c) {
            Box t = to, f = from;
            t.lo[d] = c;
            t.hi[d] = c + 1;
            f.lo[d] = source(c);
            f.hi[d] = f.lo[d] + 1;
            next.emplace_back(t, f);
          }
        }
        maps = std::move(next);
      }
      // Each source cut by the parts' owned boxes (in the grid: someone owns it).
      for (const auto& [to, from] : maps)
        for (const Part& q : p.parts) {
          const Box cut = intersect(from, q.owned);
          if (cut.empty()) continue;
          Box t = to;
          for (std::size_t d = 0; d < 3; ++d) {
            t.lo[d] = to.lo[d] + (cut.lo[d] - from.lo[d]);
            t.hi[d] = t.lo[d] + (cut.hi[d] - cut.lo[d]);
          }
          out.push_back({q.id, part.id, cut, t, {}});
        }
    }
  }
  return out;
}
// --- end frame_copies --------------------------------------------------------------------------

// --- Physical frames refilled within one buffer (out of core: rt::ChunkRun) -------------------

/// The copies that refill, within one buffer holding `buffer` (an out-of-core chunk's window),
/// the frame cells of `array` past the grid's edge in a dimension with a mirror, copy or
/// value(v) rule, from the buffer's own cells: a cell outside the grid maps, dimension by
/// dimension as FrameSources::fill does, mirror and copy dimensions to their source plane and
/// a value dimension to v (the first one's: x before y before z); a periodic dimension keeps
/// the coordinate (the kernels compute the periodic images themselves: the cell of that image
/// is the source), except in the dimensions `periodic` names, where it maps to `c mod N` (the
/// far side, which the buffer must hold: ooc::frame_request sets them only where it spans the
/// grid). A cell outside only in periodic dimensions not named, outside in a dimension without
/// a rule, or whose source is not in the buffer, gets none. The copies are FrameCopy with
/// `src` 0 (within the buffer) or -1 (a value fill, `from` == `to`); every refilled cell is
/// written once and every source is a cell of the grid's inside along the refilled dimensions,
/// so the copies may run in any order.
inline std::vector<FrameCopy> refill_copies(const Box& g, const Box& buffer,
                                            const BoundaryRule* rules, int count, int array,
                                            const std::array<bool, 3>& periodic = {}) {
  const BoundaryRule* rule[3] = {find_boundary(rules, count, array, 0),
                                 find_boundary(rules, count, array, 1),
                                 find_boundary(rules, count, array, 2)};
  // Refilled along d: a mirror, copy or value(v) rule, or a periodic one `periodic` names.
  auto refilled = [&](std::size_t d) {
    return rule[d] && (rule[d]->kind != BoundaryKind::kPeriodic || periodic[d]);
  };
  std::vector<FrameCopy> out;
  if (!refilled(0) && !refilled(1) && !refilled(2)) return out;
  // The buffer's cells past the grid, cut at the grid's faces (below, inside, above).
  std::vector<Box> regions;
  for (const Box& f : frame_boxes(g, buffer)) {
    std::vector<Box> cur{f};
    for (std::size_t d = 0; d < 3; ++d) {
      std::vector<Box> next;
      for (const Box& b : cur) {
        const Index cuts[4] = {b.lo[d], std::clamp(g.lo[d], b.lo[d], b.hi[d]),
                               std::clamp(g.hi[d], b.lo[d], b.hi[d]), b.hi[d]};
        for (int k = 0; k < 3; ++k)
          if (cuts[k] < cuts[k + 1]) {
            Box piece = b;
            piece.lo[d] = cuts[k];
            piece.hi[d] = cuts[k + 1];
            next.push_back(piece);
          }
      }
      cur = std::move(next);
    }
    regions.insert(regions.end(), cur.begin(), cur.end());
  }
  for (const Box& r : regions) {
    bool skip = false, refill = false;
    int side[3] = {0, 0, 0};
    const BoundaryRule* value = nullptr;
    for (std::size_t d = 0; d < 3; ++d) {
      side[d] = r.hi[d] <= g.lo[d] ? -1 : r.lo[d] >= g.hi[d] ? 1 : 0;
      if (side[d] == 0) continue;
      if (!rule[d]) {
        skip = true;
        continue;
      }
      if (!refilled(d)) continue;
      refill = true;
      if (rule[d]->kind == BoundaryKind::kValue && !value) value = rule[d];
    }
    if (skip || !refill) continue;
    if (value) {
      out.push_back({-1, 0, r, r, value->value});
      continue;
    }
    // (to, from) pairs: each refilled dimension outside mapped plane by plane (mirror, copy),
    // or by a shift of the grid's extent (periodic).
    std::vector<std::pair<Box, Box>> maps{{r, r}};
    for (std::size_t d = 0; d < 3; ++d) {
      if (side[d] == 0 || !refilled(d)) continue;
      const Index lo = g.lo[d], hi = g.hi[d], n = hi - lo;
      const BoundaryKind kind = rule[d]->kind;
      std::vector<std::pair<Box, Box>> next;
      for (const auto& [to, from] : maps) {
        if (kind == BoundaryKind::kPeriodic) {  // the whole range by one shift (c mod N)
          const Index shift = side[d] < 0 ? n : -n;
          Box f = from;
          f.lo[d] += shift;
          f.hi[d] += shift;
          if (f.lo[d] >= lo && f.hi[d] <= hi) {
            next.emplace_back(to, f);
            continue;
          }
        }
        for (Index c = to.lo[d]; c < to.hi[d]; ++c) {  // plane by plane
          const Index i = c - lo;
          Box t = to, f = from;
          t.lo[d] = c;
          t.hi[d] = c + 1;
          f.lo[d] = kind == BoundaryKind::kPeriodic ? lo + ((i % n) + n) % n
                    : kind == BoundaryKind::kMirror ? lo + (i < 0 ? -1 - i : 2 * n - 1 - i)
                                                    : (i < 0 ? lo : hi - 1);
          f.hi[d] = f.lo[d] + 1;
          next.emplace_back(t, f);
        }
      }
      maps = std::move(next);
    }
    // Sources cut by the buffer (a source past it: no copy for those cells).
    for (const auto& [to, from] : maps) {
      const Box cut = intersect(from, buffer);
      if (cut.empty()) continue;
      Box t = to;
      for (std::size_t d = 0; d < 3; ++d) {
        t.lo[d] = to.lo[d] + (cut.lo[d] - from.lo[d]);
        t.hi[d] = t.lo[d] + (cut.hi[d] - cut.lo[d]);
      }
      out.push_back({0, 0, cut, t, {}});
    }
  }
  return out;
}
// --- end refill_copies -------------------------------------------------------------------------

}  // namespace stepgen::rt

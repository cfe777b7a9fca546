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

#include "stepgen/box.hpp"

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

/// Fills `frame` (a box of cells outside `grid`, laid out as a buffer of that box,
/// `element_bytes` each) from `cells` (the grid's values, laid out over `grid`), by the rules
/// of `array`. A cell outside in a dimension without a rule is left as it is.
inline void fill_frame(const Box& grid, const unsigned char* cells, std::size_t element_bytes,
                       const BoundaryRule* rules, int count, int array, const Box& frame,
                       unsigned char* out) {
  const BoundaryRule* rule[3] = {find_boundary(rules, count, array, 0),
                                 find_boundary(rules, count, array, 1),
                                 find_boundary(rules, count, array, 2)};
  const Vec3 n = grid.extents();
  Vec3 c;
  std::size_t at = 0;
  for (c[2] = frame.lo[2]; c[2] < frame.hi[2]; ++c[2])
    for (c[1] = frame.lo[1]; c[1] < frame.hi[1]; ++c[1])
      for (c[0] = frame.lo[0]; c[0] < frame.hi[0]; ++c[0], at += element_bytes) {
        Vec3 src = c;
        const BoundaryRule* value = nullptr;
        bool skip = false;
        for (std::size_t d = 0; d < 3; ++d) {
          const Index lo = grid.lo[d], hi = grid.hi[d];
          if (c[d] >= lo && c[d] < hi) continue;
          const BoundaryRule* r = rule[d];
          if (!r) {
            skip = true;
            break;
          }
          const Index k = c[d] - lo;  // relative to the grid's first cell
          switch (r->kind) {
            case BoundaryKind::kPeriodic:
              src[d] = lo + ((k % n[d]) + n[d]) % n[d];
              break;
            case BoundaryKind::kMirror:
              src[d] = lo + (k < 0 ? -1 - k : 2 * n[d] - 1 - k);
              break;
            case BoundaryKind::kCopy:
              src[d] = k < 0 ? lo : hi - 1;
              break;
            case BoundaryKind::kValue:
              if (!value) value = r;
              break;
          }
        }
        if (skip) continue;
        if (value) {
          std::memcpy(out + at, value->value.data(), element_bytes);
          continue;
        }
        const auto index = static_cast<std::size_t>(
            ((src[2] - grid.lo[2]) * n[1] + (src[1] - grid.lo[1])) * n[0] + (src[0] - grid.lo[0]));
        std::memcpy(out + at, cells + index * element_bytes, element_bytes);
      }
}

/// The cells of `ghost` outside `domain`, as disjoint boxes (a part's frame).
inline std::vector<Box> frame_boxes(const Box& domain, const Box& ghost) {
  return coalesce(subtract(ghost, domain));
}

}  // namespace stepgen::rt

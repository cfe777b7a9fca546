#pragma once
/// \file
/// Region algebra on 1-3D index boxes: the vocabulary of partitions, ghost zones, exchanges and
/// chunks. Standard library only: shared by the generator and the generated programs.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace stepgen::rt {

using Index = std::int64_t;
using Vec3 = std::array<Index, 3>;

/// A half-open box [lo, hi) in up to three dimensions, x (fastest) first. Dimensions past
/// `dims` have lo = 0, hi = 1 so that volumes and pitches need no special case.
struct Box {
  int dims = 1;
  Vec3 lo{0, 0, 0};
  Vec3 hi{1, 1, 1};

  /// The box [0, extent) in the first `dims` dimensions (later ones [0, 1)).
  static Box from_extent(int dims, const Vec3& extent);
  Index extent(int d) const {
    return hi[static_cast<std::size_t>(d)] - lo[static_cast<std::size_t>(d)];
  }
  Vec3 extents() const { return {extent(0), extent(1), extent(2)}; }
  /// Number of cells; 0 for an empty box.
  Index volume() const;
  /// True when some dimension has no cell.
  bool empty() const;
  /// True when every cell of `other` is in this box (an empty `other` is contained).
  bool contains(const Box& other) const;
  bool contains_point(const Vec3& p) const;
  Box translated(const Vec3& by) const;
  /// Grows by `below` under lo and `above` over hi in each dimension.
  Box grown(const Vec3& below, const Vec3& above) const;
  bool operator==(const Box& o) const { return dims == o.dims && lo == o.lo && hi == o.hi; }
  bool operator!=(const Box& o) const { return !(*this == o); }
  /// "[lo0,hi0)x[lo1,hi1)" for reports.
  std::string str() const;
};

/// The common part of two boxes (empty when they do not meet).
Box intersect(const Box& a, const Box& b);
/// The smallest box holding both (either may be empty: then the other).
Box bounding(const Box& a, const Box& b);
/// a minus b as disjoint boxes (at most 2*dims of them), slowest dimension cut first.
std::vector<Box> subtract(const Box& a, const Box& b);
/// a minus every box of `bs`, as disjoint boxes.
std::vector<Box> subtract(const Box& a, const std::vector<Box>& bs);
/// Every box of `as` minus every box of `bs`, as disjoint boxes (`as` must be disjoint).
std::vector<Box> subtract(const std::vector<Box>& as, const std::vector<Box>& bs);
/// Total volume of disjoint boxes.
Index volume(const std::vector<Box>& boxes);
/// True when no two boxes of the list overlap.
bool disjoint(const std::vector<Box>& boxes);
/// Merges disjoint boxes that share a face and line up exactly, so fewer copies are issued.
/// The result is sorted slowest dimension first (deterministic reports and copy order).
std::vector<Box> coalesce(std::vector<Box> boxes);

/// One rectangular copy as `clEnqueueReadBufferRect` and `cudaMemcpy3D` take it, in bytes:
/// the sub-box `part` of a buffer that holds the box `buffer` (row-major, x fastest).
struct RectCopy {
  std::array<std::size_t, 3> origin{0, 0, 0};  ///< origin[0] in bytes, [1] rows, [2] slices
  std::array<std::size_t, 3> region{0, 0, 0};  ///< region[0] in bytes, [1] rows, [2] slices
  std::size_t row_pitch = 0;                   ///< bytes per row of the buffer
  std::size_t slice_pitch = 0;                 ///< bytes per slice of the buffer
  /// Byte offset of the first element (origin flattened).
  std::size_t offset() const { return origin[0] + origin[1] * row_pitch + origin[2] * slice_pitch; }
  /// True when the rows are whole and consecutive (one contiguous span of region bytes).
  bool contiguous() const;
  std::size_t bytes() const { return region[0] * region[1] * region[2]; }
};
/// The copy of `part` inside a buffer holding `buffer`. Throws std::invalid_argument when the
/// buffer does not contain the part (a planning bug, not a user error).
RectCopy rect_of(const Box& part, const Box& buffer, std::size_t element_bytes);

// ---------------------------------------------------------------------------------------------
// Implementation (inline: the generated programs include this header and nothing else).

inline Box Box::from_extent(int dims, const Vec3& extent) {
  Box b;
  b.dims = dims;
  for (int d = 0; d < 3; ++d) {
    b.lo[static_cast<std::size_t>(d)] = 0;
    b.hi[static_cast<std::size_t>(d)] = d < dims ? extent[static_cast<std::size_t>(d)] : 1;
  }
  return b;
}

inline bool Box::empty() const {
  for (std::size_t d = 0; d < 3; ++d)
    if (hi[d] <= lo[d]) return true;
  return false;
}

inline Index Box::volume() const {
  if (empty()) return 0;
  return extent(0) * extent(1) * extent(2);
}

inline bool Box::contains(const Box& other) const {
  if (other.empty()) return true;
  for (std::size_t d = 0; d < 3; ++d)
    if (other.lo[d] < lo[d] || other.hi[d] > hi[d]) return false;
  return true;
}

inline bool Box::contains_point(const Vec3& p) const {
  for (std::size_t d = 0; d < 3; ++d)
    if (p[d] < lo[d] || p[d] >= hi[d]) return false;
  return true;
}

inline Box Box::translated(const Vec3& by) const {
  Box b = *this;
  // Only the used dimensions move: unused ones stay [0, 1) so volumes keep working.
  for (int d = 0; d < dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    b.lo[i] += by[i];
    b.hi[i] += by[i];
  }
  return b;
}

inline Box Box::grown(const Vec3& below, const Vec3& above) const {
  Box b = *this;
  for (int d = 0; d < dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    b.lo[i] -= below[i];
    b.hi[i] += above[i];
  }
  return b;
}

inline std::string Box::str() const {
  std::string s;
  for (int d = 0; d < dims; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (d) s += "x";
    s += "[" + std::to_string(lo[i]) + "," + std::to_string(hi[i]) + ")";
  }
  return s;
}

inline Box intersect(const Box& a, const Box& b) {
  Box r;
  r.dims = std::max(a.dims, b.dims);
  for (std::size_t d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
  }
  // A canonical empty box (hi = lo) keeps volumes and comparisons simple.
  if (r.empty())
    for (std::size_t d = 0; d < 3; ++d) r.hi[d] = r.lo[d] = std::min(r.lo[d], r.hi[d]);
  return r;
}

inline Box bounding(const Box& a, const Box& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  Box r;
  r.dims = std::max(a.dims, b.dims);
  for (std::size_t d = 0; d < 3; ++d) {
    r.lo[d] = std::min(a.lo[d], b.lo[d]);
    r.hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return r;
}

inline std::vector<Box> subtract(const Box& a, const Box& b) {
  if (a.empty()) return {};
  const Box cut = intersect(a, b);
  if (cut.empty()) return {a};
  std::vector<Box> out;
  Box rest = a;
  // Slowest dimension first: the first pieces are whole slabs, contiguous in memory.
  for (int d = 2; d >= 0; --d) {
    const auto i = static_cast<std::size_t>(d);
    if (rest.lo[i] < cut.lo[i]) {
      Box below = rest;
      below.hi[i] = cut.lo[i];
      out.push_back(below);
      rest.lo[i] = cut.lo[i];
    }
    if (cut.hi[i] < rest.hi[i]) {
      Box above = rest;
      above.lo[i] = cut.hi[i];
      out.push_back(above);
      rest.hi[i] = cut.hi[i];
    }
  }
  return out;
}

inline std::vector<Box> subtract(const std::vector<Box>& as, const std::vector<Box>& bs) {
  std::vector<Box> cur;
  for (const Box& a : as)
    if (!a.empty()) cur.push_back(a);
  for (const Box& b : bs) {
    if (b.empty()) continue;
    std::vector<Box> next;
    for (const Box& piece : cur) {
      std::vector<Box> left = subtract(piece, b);
      next.insert(next.end(), left.begin(), left.end());
    }
    cur.swap(next);
  }
  return cur;
}

inline std::vector<Box> subtract(const Box& a, const std::vector<Box>& bs) {
  return subtract(std::vector<Box>{a}, bs);
}

inline Index volume(const std::vector<Box>& boxes) {
  Index v = 0;
  for (const Box& b : boxes) v += b.volume();
  return v;
}

inline bool disjoint(const std::vector<Box>& boxes) {
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = i + 1; j < boxes.size(); ++j)
      if (!intersect(boxes[i], boxes[j]).empty()) return false;
  return true;
}

inline std::vector<Box> coalesce(std::vector<Box> boxes) {
  boxes.erase(std::remove_if(boxes.begin(), boxes.end(), [](const Box& b) { return b.empty(); }),
              boxes.end());
  // Two boxes merge when they agree in every dimension but one, where they touch.
  auto try_merge = [](Box& p, const Box& q) {
    int along = -1;
    for (std::size_t d = 0; d < 3; ++d) {
      if (p.lo[d] == q.lo[d] && p.hi[d] == q.hi[d]) continue;
      if (along >= 0) return false;
      if (p.hi[d] != q.lo[d] && q.hi[d] != p.lo[d]) return false;
      along = static_cast<int>(d);
    }
    if (along < 0) return false;  // identical boxes are not disjoint: leave them alone
    const auto i = static_cast<std::size_t>(along);
    p.lo[i] = std::min(p.lo[i], q.lo[i]);
    p.hi[i] = std::max(p.hi[i], q.hi[i]);
    return true;
  };
  bool merged = true;
  while (merged) {
    merged = false;
    for (std::size_t i = 0; i < boxes.size() && !merged; ++i)
      for (std::size_t j = i + 1; j < boxes.size() && !merged; ++j)
        if (try_merge(boxes[i], boxes[j])) {
          boxes.erase(boxes.begin() + static_cast<std::ptrdiff_t>(j));
          merged = true;
        }
  }
  std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) {
    return std::array<Index, 6>{a.lo[2], a.lo[1], a.lo[0], a.hi[2], a.hi[1], a.hi[0]} <
           std::array<Index, 6>{b.lo[2], b.lo[1], b.lo[0], b.hi[2], b.hi[1], b.hi[0]};
  });
  return boxes;
}

inline bool RectCopy::contiguous() const {
  if (bytes() == 0) return true;
  if (region[1] == 1 && region[2] == 1) return true;  // one partial row
  if (region[0] != row_pitch) return false;           // rows with gaps between them
  return region[2] == 1 || region[1] * row_pitch == slice_pitch;
}

inline RectCopy rect_of(const Box& part, const Box& buffer, std::size_t element_bytes) {
  if (!buffer.contains(part))
    throw std::invalid_argument("rect_of: box " + part.str() + " is not inside buffer " +
                                buffer.str());
  auto u = [](Index v) { return static_cast<std::size_t>(v); };
  RectCopy r;
  if (part.empty()) {
    r.row_pitch = u(buffer.extent(0)) * element_bytes;
    r.slice_pitch = r.row_pitch * u(buffer.extent(1));
    return r;
  }
  r.origin = {u(part.lo[0] - buffer.lo[0]) * element_bytes, u(part.lo[1] - buffer.lo[1]),
              u(part.lo[2] - buffer.lo[2])};
  r.region = {u(part.extent(0)) * element_bytes, u(part.extent(1)), u(part.extent(2))};
  r.row_pitch = u(buffer.extent(0)) * element_bytes;
  r.slice_pitch = r.row_pitch * u(buffer.extent(1));
  return r;
}

}  // namespace stepgen::rt

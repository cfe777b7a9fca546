#pragma once
/// \file
/// What the I/O layer (snapshots, checkpoints) knows of an array: its element type, spelled as
/// in the spec, and a piece of it, a box of the grid with its values in memory. Standard library
/// only.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"

namespace stepgen::rt::io {

/// An array's element type, as the spec names it.
struct ElementType {
  enum class Kind { kFloat, kSignedInt, kUnsignedInt };
  const char* name;  ///< the spec's name: float, double, int, ...
  std::size_t bytes;
  Kind kind;
};

/// Every element type of the spec (generator/model/model.cpp).
inline const std::vector<ElementType>& element_types() {
  static const std::vector<ElementType> types = {
      {"float", 4, ElementType::Kind::kFloat},     {"double", 8, ElementType::Kind::kFloat},
      {"int", 4, ElementType::Kind::kSignedInt},   {"uint", 4, ElementType::Kind::kUnsignedInt},
      {"long", 8, ElementType::Kind::kSignedInt},  {"ulong", 8, ElementType::Kind::kUnsignedInt},
      {"short", 2, ElementType::Kind::kSignedInt}, {"ushort", 2, ElementType::Kind::kUnsignedInt},
      {"char", 1, ElementType::Kind::kSignedInt},  {"uchar", 1, ElementType::Kind::kUnsignedInt},
  };
  return types;
}

/// The element type named `name`; nullptr when there is none.
inline const ElementType* find_element_type(const std::string& name) {
  for (const ElementType& t : element_types())
    if (name == t.name) return &t;
  return nullptr;
}

/// The element type named `name`; throws std::invalid_argument when there is none (a caller's
/// bug: the generator writes only the spec's names).
inline const ElementType& element_type(const std::string& name) {
  const ElementType* t = find_element_type(name);
  if (t == nullptr) throw std::invalid_argument("unknown element type '" + name + "'");
  return *t;
}

/// A box of the grid and its values: row-major over the box, x fastest, no gaps (what a device
/// holds for its owned box once downloaded). `data` is not owned.
struct Piece {
  Box box;
  const void* data = nullptr;
};

/// A piece that owns a copy of its values (for a writer thread: the caller's buffers may change
/// as soon as it is handed over).
struct OwnedPiece {
  Box box;
  std::vector<unsigned char> bytes;

  OwnedPiece() = default;
  OwnedPiece(const Piece& p, std::size_t element_bytes)
      : box(p.box), bytes(static_cast<std::size_t>(p.box.volume()) * element_bytes) {
    if (!bytes.empty()) std::memcpy(bytes.data(), p.data, bytes.size());
  }
  Piece view() const { return {box, bytes.data()}; }
};

/// Checks that `pieces` lie in `grid` and do not overlap; `whole` also requires that they
/// cover it. Returns "" or what is wrong (for the caller's error).
inline std::string check_pieces(const Box& grid, const std::vector<Piece>& pieces, bool whole) {
  std::vector<Box> boxes;
  for (const Piece& p : pieces) {
    if (p.box.dims != grid.dims)
      return "the piece " + p.box.str() + " has " + std::to_string(p.box.dims) +
             " dimensions, the grid " + std::to_string(grid.dims);
    if (!grid.contains(p.box))
      return "the piece " + p.box.str() + " is not inside the grid " + grid.str();
    if (!p.box.empty() && p.data == nullptr) return "the piece " + p.box.str() + " has no values";
    if (!p.box.empty()) boxes.push_back(p.box);
  }
  if (!disjoint(boxes)) return "the pieces overlap";
  if (whole && volume(boxes) != grid.volume())
    return "the pieces cover " + std::to_string(volume(boxes)) + " of the grid's " +
           std::to_string(grid.volume()) + " cells";
  return {};
}

}  // namespace stepgen::rt::io

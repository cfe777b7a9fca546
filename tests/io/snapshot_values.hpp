// Values the snapshot tests write: random bits (NaN patterns included: no conversion may touch
// them) that depend only on the array's name, the step and the grid, so that the serial and
// the MPI test programs produce the same arrays.
#pragma once

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"

namespace io_test {

inline std::vector<unsigned char> values(const std::string& name, long step,
                                         const stepgen::rt::Box& grid, std::size_t element_bytes) {
  std::mt19937_64 g(std::hash<std::string>{}(name) ^ static_cast<unsigned long>(step * 7919));
  std::vector<unsigned char> v(static_cast<std::size_t>(grid.volume()) * element_bytes);
  for (auto& b : v) b = static_cast<unsigned char>(g() >> 32);
  return v;
}

/// The values of `box` cut out of a whole-grid array `all` (row-major, x fastest).
inline std::vector<unsigned char> cut(const std::vector<unsigned char>& all,
                                      const stepgen::rt::Box& grid, const stepgen::rt::Box& box,
                                      std::size_t eb) {
  std::vector<unsigned char> out;
  for (auto z = box.lo[2]; z < box.hi[2]; ++z)
    for (auto y = box.lo[1]; y < box.hi[1]; ++y) {
      const auto at =
          static_cast<std::size_t>((z * grid.extent(1) + y) * grid.extent(0) + box.lo[0]) * eb;
      const auto n = static_cast<std::size_t>(box.extent(0)) * eb;
      out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(at),
                 all.begin() + static_cast<std::ptrdiff_t>(at + n));
    }
  return out;
}

/// Splits `grid` into `n` slabs along dimension `d`.
inline std::vector<stepgen::rt::Box> slabs(const stepgen::rt::Box& grid, int d, int n) {
  std::vector<stepgen::rt::Box> out;
  const auto i = static_cast<std::size_t>(d);
  for (int k = 0; k < n; ++k) {
    stepgen::rt::Box b = grid;
    b.lo[i] = grid.lo[i] + grid.extent(d) * k / n;
    b.hi[i] = grid.lo[i] + grid.extent(d) * (k + 1) / n;
    out.push_back(b);
  }
  return out;
}

/// Writes `bytes` to `path` (the test's reference for h5py).
inline void save(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
      std::fclose(f) != 0)
    throw std::runtime_error("cannot write " + path);
}

}  // namespace io_test

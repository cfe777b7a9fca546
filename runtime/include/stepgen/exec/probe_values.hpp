#pragma once
/// \file
/// The kernel probe's types and values (probe.hpp runs it): what the probe knows of a kernel
/// (ProbeKernel) and measures (KernelProbe), the values it fills the arrays with, the changes it
/// makes to them, and the guard zones after the buffers a kernel writes.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "stepgen/description/description.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

// ProbeArg and ProbeKernel (what the generated file says of each kernel): description.hpp.

/// The element type of an array, as the probe fills it.
struct ProbeElement {
  std::string name;
  std::size_t bytes = 4;
  bool floating = true;
};

/// What the probe measured of one kernel.
struct KernelProbe {
  std::string kernel;
  bool probed = false;  ///< false: `why` says why it was not
  Box box;              ///< the probe's buffer
  bool wrote = false;   ///< some cell of a written array changed
  bool is_box = false;  ///< the written cells of every written array form one and the same box
  Vec3 rim_lo{0, 0, 0}, rim_hi{0, 0, 0};  ///< unwritten cells at the buffer's rim, per side
  std::vector<std::string> errors;        ///< a declared halo too small
  std::vector<std::string> warnings;      ///< a declared halo wider than what is read
  /// The array (id) each of `errors` and `warnings` is about: `stepgen check --probe` points at
  /// the kernel's argument that reads it.
  std::vector<int> error_arrays, warning_arrays;
  std::string why;  ///< why views are not safe (empty: they are)
  /// The box shrunk by the rim first seen was too small for the kernel to write a cell: its own
  /// rim could not be told from the grid's boundary (a larger box may tell).
  bool rim_undecided = false;
  /// The rim is the kernel's own fixed guard, and ghost widths and chunk windows may follow it;
  /// false where the kernel writes other cells at other steps (the spec's halos are kept).
  bool rim_known = true;
  /// The written cells were measured with every integer array at 0 (with 1..7 the kernel wrote
  /// no cell: a mask marking every cell solid).
  bool ints_zero = false;
  /// The steps at which its reads were probed (one, 0, for a kernel that does not use `step`).
  std::vector<std::int64_t> steps;
  /// Per dimension, the kernel computes its cells from the whole line of its buffer there (a
  /// line recurrence: its cells change when the buffer starts or ends one cell further in, far
  /// beyond its rim and halo): every device's buffer must then hold the whole line of the grid
  /// (probe_check_lines). `line_why`: what was seen, naming the kernel and the array.
  std::array<bool, 3> line{false, false, false};
  std::array<std::string, 3> line_why;
  /// Probe runs of the kernel, all passes together (docs/spec.md states what the probe costs).
  int runs = 0;
  bool views_safe() const { return probed && why.empty(); }
};

/// Runs one kernel over `box` with `arrays` (each over `box`, by array id) as its buffers'
/// values, and puts every array's values after the launch back into `arrays`.
using ProbeRun = std::function<void(std::vector<HostArray>& arrays, const Box& box)>;
/// The same at time step `step` (the value of `step` in the kernel's scalar arguments).
using ProbeStepRun =
    std::function<void(std::vector<HostArray>& arrays, const Box& box, std::int64_t step)>;

namespace detail {
/// "24x24x24": a box's extents.
inline std::string probe_shape(const Box& box) {
  std::string s;
  for (int d = 0; d < box.dims; ++d) s += (d ? "x" : "") + std::to_string(box.extent(d));
  return s;
}
}  // namespace detail

/// Guard zones: the buffers a kernel writes are followed by planes of known bytes, checked after a
/// kernel's first run. A kernel written for one device with the grid's sizes fixed in it (`#define
/// NX 64`) indexes the probe's small buffer with the grid's strides and writes far past its end
/// (unguarded, a crash on PoCL or other buffers overwritten on a GPU); with the guard, its
/// writes land there and the probe stops with an error naming the kernel and the array
/// (guarded by tests/probe/fixed).
/// The guard holds what such a kernel reaches: the grid's strides over the box's extents, up to
/// 64 MiB, at least one plane (a missing `if (x >= nx) return;` under a rounded-up launch).
/// Planes along the slowest dimension: a buffer over the box grown there keeps the box's layout
/// in its first cells.
inline Index probe_guard_planes(const Box& grid, const Box& box, std::size_t element_bytes) {
  const int axis = box.dims - 1;
  const Index plane = box.volume() / std::max<Index>(box.extent(axis), 1);
  Index reach = 1, stride = 1;  // one past the last index, with the grid's strides
  for (int d = 0; d < box.dims; ++d) {
    reach += (box.extent(d) - 1) * stride;
    stride *= grid.extent(d);
  }
  const Index cap = (Index{64} << 20) / static_cast<Index>(std::max<std::size_t>(element_bytes, 1));
  const Index cells = std::max(plane, std::min(reach - box.volume(), cap));
  return (cells + plane - 1) / plane;
}

/// The byte the guard holds at offset `i`.
inline unsigned char probe_guard_byte(std::size_t i) {
  return static_cast<unsigned char>(0xA5u ^ (i * 131u));
}

/// Empty when the guard's `bytes` (as read back after a run of kernel `kernel` over `box`) are
/// as written; else the error naming the kernel, the array and the first element changed.
inline std::string probe_guard_error(const char* kernel, const std::string& array, const Box& box,
                                     std::size_t element_bytes, const unsigned char* bytes,
                                     std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    if (bytes[i] == probe_guard_byte(i)) continue;
    return "kernel '" + std::string(kernel) + "' writes past the end of its buffer of array '" +
           array + "': run on a " + detail::probe_shape(box) +
           " buffer (the kernel probe's), it changed element " +
           std::to_string(static_cast<Index>(i / element_bytes) + box.volume()) + ", " +
           std::to_string(i / element_bytes + 1) +
           " past its last. It does not index with the extents it is given: a size fixed in "
           "the kernel (#define NX 64) is the whole grid's, and a device's buffer is one part "
           "of it; or the launch is rounded up and the kernel lacks `if (x >= nx) return;`. "
           "Index with extent(X, d) arguments (docs/spec.md, 'Writing a kernel')";
  }
  return "";
}

/// The probe's box: `n` cells (or the grid's extent, if smaller) in the middle of the grid in
/// each dimension the kernel follows, the whole grid in the others.
inline Box probe_box(const Box& grid, const std::array<bool, 3>& follows, Index n = 24) {
  Box b = grid;
  for (int d = 0; d < grid.dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (!follows[u] || grid.extent(d) <= n) continue;
    b.lo[u] = grid.lo[u] + (grid.extent(d) - n) / 2;
    b.hi[u] = b.lo[u] + n;
  }
  return b;
}

namespace detail {

inline std::uint32_t probe_hash(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}

/// Writes value `v` (floating: 1 + v / 2^16, in [1, 2); integer: 1 + v % 7) into element `i`.
inline void probe_put(HostArray& a, const ProbeElement& e, Index i, std::uint32_t v) {
  unsigned char* p = a.bytes.data() + static_cast<std::size_t>(i) * e.bytes;
  if (e.floating && e.bytes == 8) {
    const double x = 1.0 + static_cast<double>(v & 0xffffu) / 65536.0;
    std::memcpy(p, &x, 8);
  } else if (e.floating && e.bytes == 4) {
    const float x = 1.0f + static_cast<float>(v & 0xffffu) / 65536.0f;
    std::memcpy(p, &x, 4);
  } else {
    const std::uint64_t x = 1 + v % 7;
    std::memcpy(p, &x, e.bytes);  // little-endian: the low bytes
  }
}

/// Element `i` changed between `a` and `b`.
inline bool probe_differs(const HostArray& a, const HostArray& b, std::size_t bytes, Index i) {
  const auto off = static_cast<std::size_t>(i) * bytes;
  return std::memcmp(a.bytes.data() + off, b.bytes.data() + off, bytes) != 0;
}

inline std::string probe_offset(int dims, const Vec3& o) {
  std::string s;
  for (int d = 0; d < dims; ++d)
    s += (d ? "," : "") + std::to_string(o[static_cast<std::size_t>(d)]);
  return "(" + s + ")";
}

/// Whether `o` is one of the points halo `h` reads (widths: inside the box).
inline bool probe_declared(const Halo& h, const Vec3& o) {
  if (o == Vec3{0, 0, 0}) return true;
  if (h.points.empty()) {
    for (int d = 0; d < 3; ++d) {
      const auto u = static_cast<std::size_t>(d);
      if (o[u] < -h.lo[u] || o[u] > h.hi[u]) return false;
    }
    return true;
  }
  return std::find(h.points.begin(), h.points.end(), o) != h.points.end();
}

/// The cells a kernel wrote over one box: whether they form a box, the same for every array it
/// writes, and the rim it left per side.
struct ProbeWrites {
  bool wrote = false;
  bool is_box = false;
  Vec3 rim_lo{0, 0, 0}, rim_hi{0, 0, 0};
};

}  // namespace detail

/// Fills every array over `box` with values that differ from cell to cell, array to array and
/// `seed` to `seed`: floating values in [1, 2), integers in [1, 7] (safe as divisors and small
/// enough not to overflow a few operations); with `ints_zero`, every integer at 0 (the other
/// side of a mask: `if (obst[c] != 0) return;`).
inline std::vector<HostArray> probe_values(const std::vector<ProbeElement>& elements,
                                           const Box& box, std::uint32_t seed,
                                           bool ints_zero = false) {
  std::vector<HostArray> arrays;
  for (std::size_t id = 0; id < elements.size(); ++id) {
    arrays.emplace_back("probe", elements[id].bytes, box);
    if (ints_zero && !elements[id].floating) continue;  // HostArray is zero-filled
    for (Index i = 0; i < box.volume(); ++i)
      detail::probe_put(arrays.back(), elements[id], i,
                        detail::probe_hash((static_cast<std::uint64_t>(seed) << 48) ^
                                           (static_cast<std::uint64_t>(id) << 40) ^
                                           static_cast<std::uint64_t>(i)));
  }
  return arrays;
}

namespace detail {

/// While the probe runs a kernel with its integer arrays at 0: a kernel that divides by an
/// integer array's value traps there on a CPU device (SIGFPE); the process then ends with a
/// message naming the kernel and the way out, not a bare crash. (GPUs do not trap.)
class ProbeZeroGuard {
 public:
  explicit ProbeZeroGuard(const char* kernel) {
    if (!kernel) return;
    kernel_name() = kernel;
    struct sigaction sa {};
    sa.sa_handler = &ProbeZeroGuard::trapped;
    sigemptyset(&sa.sa_mask);
    armed_ = sigaction(SIGFPE, &sa, &old_) == 0;
  }
  ~ProbeZeroGuard() {
    if (armed_) sigaction(SIGFPE, &old_, nullptr);
  }
  ProbeZeroGuard(const ProbeZeroGuard&) = delete;
  ProbeZeroGuard& operator=(const ProbeZeroGuard&) = delete;

 private:
  static const char*& kernel_name() {
    static const char* name = "";
    return name;
  }
  static void trapped(int) {
    const char* parts[] = {"error: the start-up probe ran kernel '", kernel_name(),
                           "' with its integer arrays at 0 and it trapped (SIGFPE: an integer "
                           "division by an integer array's value, on a CPU device). The probe "
                           "does so to see the reads of branches taken where an integer array "
                           "is 0 (masks); STEPGEN_PROBE_INT_ZERO=0 skips that pass "
                           "(docs/spec.md, the kernel probe)\n"};
    for (const char* p : parts) {
      std::size_t len = 0;
      while (p[len]) ++len;
      if (::write(2, p, len) < 0) break;
    }
    _exit(1);
  }
  struct sigaction old_ {};
  bool armed_ = false;
};

/// The cells of `box` (inside each array's own box) as arrays of their own.
inline std::vector<HostArray> probe_crop(const std::vector<HostArray>& all, const Box& box) {
  std::vector<HostArray> out;
  for (const HostArray& a : all) {
    out.emplace_back(a.name, a.element_bytes, box);
    const Vec3 ext = box.extents();
    const std::size_t row = static_cast<std::size_t>(ext[0]) * a.element_bytes;
    unsigned char* to = out.back().bytes.data();
    for (Index z = box.lo[2]; z < box.hi[2]; ++z)
      for (Index y = box.lo[1]; y < box.hi[1]; ++y, to += row) {
        const Index at =
            ((z - a.box.lo[2]) * a.box.extent(1) + (y - a.box.lo[1])) * a.box.extent(0) +
            (box.lo[0] - a.box.lo[0]);
        std::memcpy(to, a.bytes.data() + static_cast<std::size_t>(at) * a.element_bytes, row);
      }
  }
  return out;
}

/// The index of grid cell `g` in an array over `box`.
inline std::size_t probe_at(const Box& box, const Vec3& g) {
  return static_cast<std::size_t>(((g[2] - box.lo[2]) * box.extent(1) + (g[1] - box.lo[1])) *
                                      box.extent(0) +
                                  (g[0] - box.lo[0]));
}

/// Changes the element at `p` for the read probe: a floating value by +0.5, or to NaN when
/// `nan`; an integer's low byte by 1, or by 64 when `nan` (a far value).
inline void probe_bump(unsigned char* p, const ProbeElement& e, bool nan) {
  if (e.floating && e.bytes == 8) {
    double x;
    std::memcpy(&x, p, 8);
    x = nan ? std::numeric_limits<double>::quiet_NaN() : x + 0.5;
    std::memcpy(p, &x, 8);
  } else if (e.floating && e.bytes == 4) {
    float x;
    std::memcpy(&x, p, 4);
    x = nan ? std::numeric_limits<float>::quiet_NaN() : x + 0.5f;
    std::memcpy(p, &x, 4);
  } else {
    p[0] = static_cast<unsigned char>(p[0] + (nan ? 64 : 1));
  }
}

/// Negates every value of a floating array (the probe's values in [1, 2) become (-2, -1]).
inline void probe_negate(HostArray& a, const ProbeElement& e) {
  const std::size_t n = a.bytes.size() / e.bytes;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char* p = a.bytes.data() + i * e.bytes;
    if (e.bytes == 8) {
      double x;
      std::memcpy(&x, p, 8);
      x = -x;
      std::memcpy(p, &x, 8);
    } else if (e.bytes == 4) {
      float x;
      std::memcpy(&x, p, 4);
      x = -x;
      std::memcpy(p, &x, 4);
    }
  }
}

}  // namespace detail

}  // namespace stepgen::rt

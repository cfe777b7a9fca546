#pragma once
/// \file
/// The kernel probe: before the time loop, each kernel runs once over a small box of the grid
/// with known values, and the program measures what the kernel really does rather than trusting
/// the spec alone:
///   - the cells it writes: the rim of its buffer it leaves unwritten along each dimension (its
///     own guard, which may be wider than its halo), and whether the written cells form a box;
///   - the neighbours it reads: one input cell at a time is changed, and every written cell
///     whose value changes reads it; the offsets found are compared with the declared halo.
/// A halo declared too small is an error naming the kernel, the array and an offset it reads
/// (it would give wrong values on several devices); one wider than needed is a warning. The
/// measured rim decides how a kernel may run on a view of its buffer (a slab along the slowest
/// dimension): a launch computing planes [p0, p1) is given those planes grown by the rim, so
/// that the kernel's own guard cuts exactly the cells one whole launch cuts (probe_views).
/// Backend-neutral: the backend gives a function that runs one kernel over a box with given
/// host values (upload, launch, download).

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

#include "stepgen/box.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/program.hpp"

namespace stepgen::rt {

/// One array argument of a kernel, as the spec binds it.
struct ProbeArg {
  int array = 0;
  bool read = false;
  bool written = false;
  Halo halo;  ///< the declared points it reads (widths: every point of the box)
};

/// What the probe needs of one kernel.
struct ProbeKernel {
  const char* name = "";
  std::vector<ProbeArg> args;
  /// Per dimension: the launch's global size follows extent(X, d) and the kernel is given that
  /// extent, so it runs on a smaller buffer there. A dimension where it does not is probed over
  /// the whole grid's extent.
  std::array<bool, 3> follows{false, false, false};
  /// The kernel can run on a slab along the slowest dimension (stepgen's view_obstacle is
  /// empty); only then can views be safe for it.
  bool views = false;
  /// Per dimension, the cells one work-item computes (a global size extent(X, d) / c: float4
  /// or interleaved views): the translation check moves the box by that many cells, as the
  /// partition cuts there only at multiples of it.
  Vec3 shift{1, 1, 1};
};

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
  bool views_safe() const { return probed && why.empty(); }
};

/// Runs one kernel over `box` with `arrays` (each over `box`, by array id) as its buffers'
/// values, and puts every array's values after the launch back into `arrays`.
using ProbeRun = std::function<void(std::vector<HostArray>& arrays, const Box& box)>;

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
/// (a user test: a crash on PoCL, memory of other buffers overwritten on a GPU); with the guard,
/// its writes land there and the probe stops with an error naming the kernel and the array.
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
/// enough not to overflow a few operations).
inline std::vector<HostArray> probe_values(const std::vector<ProbeElement>& elements,
                                           const Box& box, std::uint32_t seed) {
  std::vector<HostArray> arrays;
  for (std::size_t id = 0; id < elements.size(); ++id) {
    arrays.emplace_back("probe", elements[id].bytes, box);
    for (Index i = 0; i < box.volume(); ++i)
      detail::probe_put(arrays.back(), elements[id], i,
                        detail::probe_hash((static_cast<std::uint64_t>(seed) << 48) ^
                                           (static_cast<std::uint64_t>(id) << 40) ^
                                           static_cast<std::uint64_t>(i)));
  }
  return arrays;
}

namespace detail {

/// Runs the kernel twice over `box` (values `in_a`, then other values everywhere; `out_a` gets
/// the first run's result) and finds the cells of the `written` arrays it wrote: a cell is
/// written when it changed in either run (a kernel that writes back the value it found, in both
/// runs, is not caught).
inline ProbeWrites probe_writes(const std::set<int>& written,
                                const std::vector<ProbeElement>& elements, const Box& box,
                                const ProbeRun& run, const std::vector<HostArray>& in_a,
                                std::vector<HostArray>& out_a) {
  const std::vector<HostArray> in_b = probe_values(elements, box, 2);
  std::vector<HostArray> out_b = in_b;
  out_a = in_a;
  run(out_a, box);
  run(out_b, box);
  const Index n = box.volume();
  const Vec3 ext = box.extents();
  const int dims = box.dims;
  ProbeWrites w;
  Box common;
  bool first = true;
  w.is_box = true;
  for (int id : written) {
    const auto u = static_cast<std::size_t>(id);
    const std::size_t bytes = elements[u].bytes;
    Box bb;
    bb.dims = dims;
    bool any = false;
    Index count = 0;
    for (Index i = 0; i < n; ++i) {
      if (!probe_differs(in_a[u], out_a[u], bytes, i) &&
          !probe_differs(in_b[u], out_b[u], bytes, i))
        continue;
      const Vec3 p{i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
      Box cell;
      cell.dims = dims;
      cell.lo = p;
      cell.hi = {p[0] + 1, p[1] + 1, p[2] + 1};
      bb = any ? bounding(bb, cell) : cell;
      any = true;
      ++count;
    }
    if (!any) continue;
    w.wrote = true;
    if (count != bb.volume()) w.is_box = false;
    if (first)
      common = bb;
    else if (common != bb)
      w.is_box = false;
    first = false;
  }
  if (!w.wrote) return w;
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    w.rim_lo[u] = common.lo[u];
    w.rim_hi[u] = ext[u] - common.hi[u];
  }
  return w;
}

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

/// Whether a pass of the read probe runs: the integer-zero pass (STEPGEN_PROBE_INT_ZERO) and
/// the negated-floats pass (STEPGEN_PROBE_NEGATIVE); set to 0, it does not.
inline bool probe_pass_on(const char* variable) {
  const char* e = std::getenv(variable);
  return !(e && std::string(e) == "0");
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

/// Probes kernel `k` over a box of `grid` of `n` cells per dimension it follows (probe_box).
inline KernelProbe probe_kernel_on(const ProbeKernel& k, const Box& grid,
                                   const std::vector<ProbeElement>& elements, const ProbeRun& run,
                                   Index cells) {
  KernelProbe r;
  r.kernel = k.name;
  r.box = probe_box(grid, k.follows, cells);
  const Box& box = r.box;
  // A launch that does not follow its buffer's extent is probed over the whole grid there:
  // only while that stays small.
  if (box.volume() > (Index{1} << 22)) {
    r.why = "its launch does not follow its buffer's extent, and the grid is large";
    return r;
  }
  r.probed = true;
  const int dims = grid.dims;
  std::set<int> written, read;
  for (const ProbeArg& a : k.args) {
    if (a.written) written.insert(a.array);
    if (a.read) read.insert(a.array);
  }

  // Writes: two runs with different values everywhere; a cell is written when it changed in
  // either run (a kernel that writes back the value it found, in both runs, is not caught).
  const std::vector<HostArray> in_a = probe_values(elements, box, 1);
  std::vector<HostArray> out_a = in_a;
  const detail::ProbeWrites w = detail::probe_writes(written, elements, box, run, in_a, out_a);
  const Index n = box.volume();
  const Vec3 ext = box.extents();
  auto point = [&](Index i) {
    return Vec3{i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])};
  };
  r.wrote = w.wrote;
  r.is_box = w.is_box;
  if (!r.wrote) {
    r.is_box = false;
    r.why = "it wrote no cell of a " + box.str() + " buffer";
    return r;
  }
  r.rim_lo = w.rim_lo;
  r.rim_hi = w.rim_hi;
  if (!r.is_box) {
    r.why = "the cells it writes are not one box, the same for every array it writes";
  } else {
    // The rim measured on `box` is the kernel's own guard or the whole grid's boundary,
    // whichever cuts more (rule 3: a kernel decides the grid's edge from offset + index): on a
    // small grid, or with a wide boundary, the probe's box reaches the grid's boundary. Only
    // the kernel's own guard moves with a buffer's edge, and views, ghost zones and chunk
    // windows must be sized by it alone (a view grown by more computes cells beyond the ones
    // it is meant to, e.g. ghost cells being refreshed meanwhile). The box shrunk by the rim
    // just measured lies that far from the grid's boundary, so only the kernel's own guard
    // acts on it: its rim there is that guard's width.
    Box inner = box;
    bool shrunk = false;
    for (int d = 0; d < dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      if (!k.follows[u] || (r.rim_lo[u] == 0 && r.rim_hi[u] == 0)) continue;
      inner.lo[u] += r.rim_lo[u];
      inner.hi[u] -= r.rim_hi[u];
      shrunk = true;
    }
    if (shrunk) {
      const std::vector<HostArray> in_i = probe_values(elements, inner, 3);
      std::vector<HostArray> out_i = in_i;
      const detail::ProbeWrites wi =
          detail::probe_writes(written, elements, inner, run, in_i, out_i);
      if (wi.wrote && wi.is_box) {
        r.rim_lo = wi.rim_lo;
        r.rim_hi = wi.rim_hi;
      } else {
        r.rim_undecided = true;
        r.why = "its own rim cannot be told from the grid's boundary on a " + box.str() +
                " grid (on " + inner.str() + " it " +
                (wi.wrote ? "writes cells that are not one box" : "writes no cell") + ")";
      }
    }
    if (r.why.empty() && !k.views)
      r.why = "it cannot run on a slab (see the report's overlap line)";
  }

  // Reads: the middle cell of each array read is changed (twice: a value and a NaN or a far
  // integer); every written cell that then changes reads it, at the offset middle - cell.
  // Integer arrays are never 0 in those values (1 + v % 7), so a branch a kernel takes only
  // where one is 0 (a land/sea mask: `if (mask[c] != 0)`) would never run: when the kernel
  // reads an integer array, the same is done again with every integer array at 0 (a user test:
  // an undersized halo read only in the mask's 0 branch ran silently wrong on 3 devices).
  // Floating values are all in [1, 2), so a branch on a sign (upwinding, `u[c] > 0 ? q[c-1] :
  // q[c+1]`; wet and dry cells, `h[c] > 0`) would only ever take one side: when the kernel
  // reads a floating array, the same is done again with every floating value negated.
  const Vec3 mid = {ext[0] / 2, ext[1] / 2, ext[2] / 2};
  const Index mid_i = mid[0] + ext[0] * (mid[1] + ext[1] * mid[2]);
  struct Base {
    std::vector<HostArray> in, out;
    bool zero = false;  ///< integer arrays at 0: a CPU device may trap (ProbeZeroGuard)
  };
  std::vector<Base> bases;
  bases.push_back({in_a, out_a, false});
  bool reads_int = false, reads_float = false;
  for (int id : read)
    (elements[static_cast<std::size_t>(id)].floating ? reads_float : reads_int) = true;
  auto add_base = [&](bool zero) {
    Base b{in_a, {}, zero};
    for (std::size_t a = 0; a < b.in.size(); ++a) {
      if (zero && !elements[a].floating) std::memset(b.in[a].bytes.data(), 0, b.in[a].bytes.size());
      if (!zero && elements[a].floating) detail::probe_negate(b.in[a], elements[a]);
    }
    b.out = b.in;
    detail::ProbeZeroGuard guard(zero ? k.name : nullptr);
    run(b.out, box);
    bases.push_back(std::move(b));
  };
  if (reads_int && detail::probe_pass_on("STEPGEN_PROBE_INT_ZERO")) add_base(true);
  if (reads_float && detail::probe_pass_on("STEPGEN_PROBE_NEGATIVE")) add_base(false);
  for (int id : read) {
    const auto u = static_cast<std::size_t>(id);
    const ProbeElement& e = elements[u];
    std::set<Vec3> offsets;
    std::string whole_line;  // reads reaching the buffer's edge from its middle
    // Written cell `c` of array `wu` changes with cell `from` of this one, along `d`, as far
    // as the buffer goes: the kernel reads a whole line there.
    auto line_error = [&](int d, const Vec3& c, std::size_t wu, const Vec3& from,
                          const char* edge) {
      static const char* const kAxis[] = {"x", "y", "z"};
      return "kernel '" + std::string(k.name) + "' reads " + "array '" + e.name + "' along " +
             kAxis[d] + " as far as its buffer goes: on a " + detail::probe_shape(box) +
             " buffer, cell " + detail::probe_offset(dims, c) + " of '" + elements[wu].name + "'" +
             edge + " changes when cell " + detail::probe_offset(dims, from) + " of '" + e.name +
             "' does (buffer indices). A kernel that reads a whole line (a recurrence or a sum "
             "along " +
             kAxis[d] +
             ") depends on where its buffer starts and ends, which no halo describes: on "
             "several devices, out of core and on MPI ranks a buffer is one part of the grid";
    };
    Halo declared;
    declared.dims = dims;
    bool first_arg = true;
    for (const ProbeArg& a : k.args)
      if (a.array == id && a.read) {
        declared = first_arg ? a.halo : merge(declared, a.halo);
        first_arg = false;
      }
    for (const Base& base : bases)
      for (int variant = 0; variant < 2; ++variant) {
        std::vector<HostArray> in = base.in;
        detail::probe_bump(in[u].bytes.data() + static_cast<std::size_t>(mid_i) * e.bytes, e,
                           variant != 0);
        std::vector<HostArray> out = in;
        {
          detail::ProbeZeroGuard guard(base.zero ? k.name : nullptr);
          run(out, box);
        }
        for (int w : written) {
          const auto wu = static_cast<std::size_t>(w);
          const std::size_t bytes = elements[wu].bytes;
          for (Index i = 0; i < n; ++i) {
            if (!detail::probe_differs(out[wu], base.out[wu], bytes, i)) continue;
            const Vec3 c = point(i);
            offsets.insert({mid[0] - c[0], mid[1] - c[1], mid[2] - c[2]});
            // A cell at the buffer's edge reading the middle cell, two or more cells away and
            // beyond the declared halo: the kernel reads as far as its buffer goes there (a
            // recurrence or a sum along a line, over a dimension its launch follows or loops
            // over), which no halo describes (a user test: a z-scan; "add them to the halo"
            // led to a halo that passed and runs wrong on 2 devices). A stencil leaves such edge
            // cells in its rim, or reads them within its halo.
            for (int d = 0; d < dims && whole_line.empty(); ++d) {
              const auto u = static_cast<std::size_t>(d);
              // Within the declared halo, a stencil on a small box reaches its edge too (a
              // radius-2 read on a 5-cell grid: the differential tester's seed 14100).
              const Index o = mid[u] - c[u];
              if ((c[u] != 0 && c[u] != ext[u] - 1) || std::abs(o) < 2 ||
                  (o < 0 ? -o <= declared.lo[u] : o <= declared.hi[u]))
                continue;
              whole_line = line_error(d, c, wu, mid, " (its edge)");
            }
          }
        }
      }
    const std::string name = "array '" + e.name + "'";
    // Reads across the buffer: the cells at the buffer's low edges (the middle of each other
    // dimension), then at its high edges, are changed together; a written cell that then
    // changes and lies within the declared halo of none of them reads across its buffer (a
    // periodic wrap such as (x + 1) % nx, a read of a fixed cell such as A[0]) and at no
    // offset the middle cell's probe saw (those are reported below when undeclared). The
    // middle cell's probe cannot see it: such a kernel reads only near neighbours there. On one
    // device the buffer is the grid and the wrap is right; on several devices, out of core and
    // on MPI ranks a buffer is one part of the grid (a user test: every mode but one device
    // wrong, exit 0).
    std::string across;
    if (detail::probe_pass_on("STEPGEN_PROBE_EDGES")) {
      for (const Base& base : bases) {
        for (int side = 0; side < 2 && across.empty(); ++side) {
          std::vector<Vec3> edges;
          // Every dimension of three cells or more, the launch's or one the kernel loops over
          // (a launch of size 1 along z with a loop over z: a user test's z-scan with a halo
          // as wide as half the grid passed and ran wrong on 2 devices).
          for (int d = 0; d < dims; ++d) {
            const auto u = static_cast<std::size_t>(d);
            if (ext[u] < 3) continue;
            Vec3 c = mid;
            c[u] = side == 0 ? 0 : ext[u] - 1;
            edges.push_back(c);
          }
          if (edges.empty()) continue;
          std::vector<HostArray> in = base.in;
          for (const Vec3& c : edges) {
            const auto at = static_cast<std::size_t>(c[0] + ext[0] * (c[1] + ext[1] * c[2]));
            detail::probe_bump(in[u].bytes.data() + at * e.bytes, e, false);
          }
          std::vector<HostArray> out = in;
          {
            detail::ProbeZeroGuard guard(base.zero ? k.name : nullptr);
            run(out, box);
          }
          for (int w : written) {
            const auto wu = static_cast<std::size_t>(w);
            const std::size_t bytes = elements[wu].bytes;
            for (Index i = 0; i < n && across.empty(); ++i) {
              if (!detail::probe_differs(out[wu], base.out[wu], bytes, i)) continue;
              const Vec3 c = point(i);
              bool near = false;
              for (const Vec3& q : edges)
                near = near || offsets.count({q[0] - c[0], q[1] - c[1], q[2] - c[2]}) ||
                       detail::probe_declared(declared, {q[0] - c[0], q[1] - c[1], q[2] - c[2]});
              if (near) continue;
              // Whether the kernel reads the whole line from edge cell `t` to `c`: the cell
              // halfway between them along their farthest dimension changes too (a recurrence or
              // a sum), not only `c` (a wrap, a fixed cell).
              auto line_from = [&](const Vec3& t) {
                const Vec3 o{t[0] - c[0], t[1] - c[1], t[2] - c[2]};
                std::size_t far = 0;
                for (std::size_t d = 1; d < 3; ++d)
                  if (std::abs(o[d]) > std::abs(o[far])) far = d;
                Vec3 half = c;
                half[far] = (t[far] + c[far]) / 2;
                const bool line =
                    std::abs(o[far]) >= 2 &&
                    detail::probe_differs(
                        out[wu], base.out[wu], bytes,
                        static_cast<Index>(half[0] + ext[0] * (half[1] + ext[1] * half[2])));
                return line ? static_cast<int>(far) : -1;
              };
              // The edge cell it most likely reads: one it reads a whole line from, else the one
              // it shares most coordinates with.
              Vec3 q = edges.front();
              int best = -1, line = -1;
              for (const Vec3& t : edges) {
                const int same = (t[0] == c[0]) + (t[1] == c[1]) + (t[2] == c[2]);
                const int along = line_from(t);
                if (line < 0 && (along >= 0 || same > best)) {
                  best = same, q = t, line = along;
                }
              }
              // A near offset the middle cell did not show (an interleaved pair's other
              // element): an undeclared read, reported with the others below, not a wrap.
              const Vec3 o{q[0] - c[0], q[1] - c[1], q[2] - c[2]};
              bool small = true;
              for (int d = 0; d < dims; ++d)
                small = small && 2 * std::abs(o[static_cast<std::size_t>(d)]) <
                                     ext[static_cast<std::size_t>(d)];
              if (small) {
                offsets.insert(o);
                continue;
              }
              if (line >= 0) {  // ends the search (across == whole_line: not a wrap)
                if (whole_line.empty()) whole_line = line_error(line, c, wu, q, "");
                across = whole_line;
                continue;
              }
              across = "kernel '" + std::string(k.name) + "' reads " + name +
                       " across its buffer: on a " + detail::probe_shape(box) + " buffer, cell " +
                       detail::probe_offset(dims, c) + " of '" + elements[wu].name +
                       "' changes when cell " + detail::probe_offset(dims, q) + " of '" + e.name +
                       "' does (buffer indices). A periodic wrap such as (x + 1) % nx, or a "
                       "read of a fixed cell, is the grid's on one device only: several "
                       "devices, out of core and MPI ranks give a buffer one part of the grid. "
                       "Compute only cells whose neighbours are in the buffer and give the "
                       "array <boundary kind=\"periodic\"/> (STEPGEN_PROBE_EDGES=0 skips this "
                       "check)";
            }
          }
        }
        if (!across.empty()) break;
      }
    }
    std::vector<std::string> outside;  // every point read outside the halo, not the first only
    for (const Vec3& o : offsets)
      if (!detail::probe_declared(declared, o)) outside.push_back(detail::probe_offset(dims, o));
    if (across == whole_line) across.clear();  // a whole line found by the edges
    if (!whole_line.empty()) {  // before "add them to the halo": no halo would be right
      r.errors.push_back(whole_line);
      r.error_arrays.push_back(id);
    } else if (!outside.empty()) {
      std::string list;
      for (std::size_t i = 0; i < outside.size(); ++i)
        list += (i == 0 ? "" : i + 1 == outside.size() ? " and " : ", ") + outside[i];
      const bool one = outside.size() == 1;
      r.errors.push_back("kernel '" + std::string(k.name) + "' reads " + name + " at offset" +
                         (one ? " " : "s ") + list + ", outside its declared halo: add " +
                         (one ? "the point" : "them") + " to the argument's halo");
      r.error_arrays.push_back(id);
    } else if (!across.empty()) {  // after an undeclared offset, reads past the buffer may be
      r.errors.push_back(across);  // what changes its far cells
      r.error_arrays.push_back(id);
    }
    if (!declared.points.empty()) {
      std::vector<std::string> unused;
      for (const Vec3& p : declared.points)
        if (p != Vec3{0, 0, 0} && !offsets.count(p))
          unused.push_back(detail::probe_offset(dims, p));
      if (!unused.empty()) {
        std::string list;
        for (const std::string& s : unused) list += (list.empty() ? "" : " ") + s;
        r.warnings.push_back("kernel '" + std::string(k.name) + "' declares halo points of " +
                             name + " it was not seen to read: " + list);
        r.warning_arrays.push_back(id);
      }
    }
  }

  // Translation: the kernel runs again on the box one cell lower along each dimension it
  // follows, with the same values at the same cells of the grid; the cells both runs compute,
  // away from both boxes' edges (their rims and halos), must come out the same. A kernel that
  // takes its local index for the grid's (a red-black parity (x + y) & 1, a pattern by x % 4)
  // computes them differently, and so it would on several devices, out of core and on MPI
  // ranks, whose buffers start anywhere (a user test: wrong in every mode but one device).
  // STEPGEN_PROBE_SHIFT=0 skips it.
  if (r.wrote && detail::probe_pass_on("STEPGEN_PROBE_SHIFT")) {
    Index margin = 1;
    for (int d = 0; d < dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      margin = std::max({margin, r.rim_lo[u] + 1, r.rim_hi[u] + 1});
    }
    for (const ProbeArg& a : k.args)
      for (int d = 0; d < dims; ++d) {
        const auto u = static_cast<std::size_t>(d);
        margin = std::max({margin, a.halo.lo[u] + 1, a.halo.hi[u] + 1});
      }
    for (int d = 0; d < dims && r.errors.empty(); ++d) {
      const auto u = static_cast<std::size_t>(d);
      const Index by = std::max<Index>(k.shift[u], 1);
      if (!k.follows[u] || box.lo[u] - by < grid.lo[u] ||
          box.extent(d) <= 2 * (margin + by - 1) + 1)
        continue;
      Box shifted = box;
      shifted.lo[u] -= by;
      shifted.hi[u] -= by;
      Box both = box;
      both.lo[u] -= by;
      const std::vector<HostArray> all = probe_values(elements, both, 4);
      std::vector<HostArray> one = detail::probe_crop(all, box),
                             two = detail::probe_crop(all, shifted);
      run(one, box);
      run(two, shifted);
      Box common = box;  // the cells away from both boxes' edges
      for (int e = 0; e < dims; ++e) {
        const auto v = static_cast<std::size_t>(e);
        common.lo[v] = std::max(box.lo[v], shifted.lo[v]) + margin;
        common.hi[v] = std::min(box.hi[v], shifted.hi[v]) - margin;
      }
      if (common.empty()) continue;
      bool same = true;
      for (int w : written) {
        const auto wu = static_cast<std::size_t>(w);
        const std::size_t bytes = elements[wu].bytes;
        for (Index z = common.lo[2]; same && z < common.hi[2]; ++z)
          for (Index y = common.lo[1]; same && y < common.hi[1]; ++y)
            for (Index x = common.lo[0]; same && x < common.hi[0]; ++x) {
              const Vec3 g{x, y, z};
              same = std::memcmp(one[wu].bytes.data() + detail::probe_at(box, g) * bytes,
                                 two[wu].bytes.data() + detail::probe_at(shifted, g) * bytes,
                                 bytes) == 0;
            }
      }
      if (!same) {
        static const char* const kAxis[] = {"x", "y", "z"};
        r.errors.push_back(
            "kernel '" + std::string(k.name) +
            "' computes cells differently when its buffer starts " +
            (by == 1 ? std::string("one cell") : std::to_string(by) + " cells") + " lower along " +
            kAxis[u] +
            ": it takes its local index for the grid's (a parity such as (x + y) & 1, a "
            "pattern by x % n, ...), and several devices, out of core or MPI ranks, whose "
            "buffers start anywhere, would give other values; compute such things from "
            "offset(X, d) + the local index (STEPGEN_PROBE_SHIFT=0 skips this check)");
        r.error_arrays.push_back(-1);
      }
    }
  }
  return r;
}

/// Probes kernel `k` over a box of `grid` with `run`: the cells it writes and the neighbours
/// it reads. `elements`: every array's element type, by id. A kernel that writes nothing on 24
/// cells a dimension (a guard wider than 12), or whose rim the 24-cell box cannot tell from the
/// grid's boundary (a guard wider than 6: the box shrunk by it leaves no written cell), is
/// probed again on 64, then 160.
inline KernelProbe probe_kernel(const ProbeKernel& k, const Box& grid,
                                const std::vector<ProbeElement>& elements, const ProbeRun& run) {
  KernelProbe r;
  for (Index n : {24, 64, 160}) {
    r = probe_kernel_on(k, grid, elements, run, n);
    if (!r.probed || (r.wrote && !r.rim_undecided) || probe_box(grid, k.follows, n) == grid) break;
  }
  return r;
}

/// How a kernel runs on a view along the slowest dimension: the view of planes [p0, p1) is
/// those planes grown by the rim the kernel leaves (`lo`, `hi`), so that its guard cuts exactly
/// what one launch over the whole buffer cuts. `safe` false: only whole launches.
struct ViewRim {
  bool safe = true;
  Index lo = 0, hi = 0;
  std::string why;
};

/// The view rule of a probed kernel that reads `reach_lo`/`reach_hi` along `axis`: views are
/// safe when its written cells form a box and its rim there is at least what it reads (a
/// kernel that computes cells whose stencil leaves its buffer treats its buffer's edge
/// specially, and a view's edge is no buffer edge). Unprobed (`--probe off`): the documented
/// contract, a rim equal to the read halo.
inline ViewRim probe_view_rim(const KernelProbe* p, int axis, Index reach_lo, Index reach_hi) {
  ViewRim v;
  v.lo = reach_lo;
  v.hi = reach_hi;
  if (!p) return v;
  const auto a = static_cast<std::size_t>(axis);
  if (!p->views_safe()) {
    v.safe = false;
    v.why = "kernel '" + p->kernel + "': " + (p->why.empty() ? "not probed" : p->why);
    return v;
  }
  v.lo = p->rim_lo[a];
  v.hi = p->rim_hi[a];
  if (v.lo < reach_lo || v.hi < reach_hi) {
    v.safe = false;
    v.why = "kernel '" + p->kernel + "' computes cells within " +
            std::to_string(std::min(v.lo, v.hi)) + " of its buffer's edge along dimension " +
            std::to_string(axis) + " although it reads " +
            std::to_string(std::max(reach_lo, reach_hi)) +
            " cells away there (edge cells computed differently)";
  }
  return v;
}

/// One launch of the time-loop body: its kernel and the sum of the read halos of the launches
/// after it in the step, per dimension and side (what is still read of its output).
struct ProbeLaunch {
  int kernel = 0;
  Vec3 after_lo{0, 0, 0}, after_hi{0, 0, 0};
  Index reach_lo = 0,
        reach_hi = 0;     ///< how far it reads below and above along the slowest dimension
  std::size_t group = 1;  ///< its work-group size along the slowest dimension (slabs are cut there)
  /// Cells one work-item computes along the slowest dimension (a global size extent(X, d) / c:
  /// float4 views of a 1D grid): chunks cut at any plane would lose some (no out of core).
  Index cells = 1;
};

/// The probe's findings over the program: one KernelProbe per kernel (by kernel id; empty when
/// the probe is off) and the cells the kernels' rims need beyond what the spec's halos give.
struct Probed {
  std::vector<KernelProbe> kernels;
  /// Per dimension and side, over the probed kernels: the widest rim, and how far from the
  /// buffer's edge a step's results are still wrong because of the rims (`need`: max over
  /// launches of rim + the read halos of the launches after it in the step). For kernels that
  /// keep the documented contract (a rim no wider than their halo) neither exceeds what the
  /// spec's halos give, and the widen functions change nothing.
  Vec3 rim_lo{0, 0, 0}, rim_hi{0, 0, 0};
  Vec3 need_lo{0, 0, 0}, need_hi{0, 0, 0};

  /// In core: ghost widths `lo`/`hi` raised so that no owned cell lies in a rim: to the widest
  /// rim when exchanging every step (each launch's outputs are exchanged or read at their
  /// centre), by need - shrink (the step's read halos) with deep halos. True when raised.
  bool widen_ghosts(Vec3& lo, Vec3& hi, int every, const Vec3& shrink_lo,
                    const Vec3& shrink_hi) const {
    bool raised = false;
    for (std::size_t d = 0; d < 3; ++d) {
      const Index want_lo =
          every > 1 ? lo[d] + std::max<Index>(0, need_lo[d] - shrink_lo[d]) : rim_lo[d];
      const Index want_hi =
          every > 1 ? hi[d] + std::max<Index>(0, need_hi[d] - shrink_hi[d]) : rim_hi[d];
      raised = raised || want_lo > lo[d] || want_hi > hi[d];
      lo[d] = std::max(lo[d], want_lo);
      hi[d] = std::max(hi[d], want_hi);
    }
    return raised;
  }
  /// Out of core: the planes a step costs a chunk's window (`shrink`, the step's read halos)
  /// raised to `need`. True when raised.
  bool widen_shrink(Vec3& lo, Vec3& hi) const {
    bool raised = false;
    for (std::size_t d = 0; d < 3; ++d) {
      raised = raised || need_lo[d] > lo[d] || need_hi[d] > hi[d];
      lo[d] = std::max(lo[d], need_lo[d]);
      hi[d] = std::max(hi[d], need_hi[d]);
    }
    return raised;
  }

  const KernelProbe* find(int kernel) const {
    return kernel >= 0 && static_cast<std::size_t>(kernel) < kernels.size()
               ? &kernels[static_cast<std::size_t>(kernel)]
               : nullptr;
  }
  /// How kernel `kernel` (reading `reach_lo`/`reach_hi` along `axis`) runs on views.
  ViewRim view(int kernel, int axis, Index reach_lo, Index reach_hi) const {
    return probe_view_rim(find(kernel), axis, reach_lo, reach_hi);
  }
  /// Why some kernel of `launches` cannot run on views along `axis` (empty: all can).
  std::string no_views(const std::vector<ProbeLaunch>& launches, int axis) const {
    for (const ProbeLaunch& l : launches) {
      const ViewRim v = view(l.kernel, axis, l.reach_lo, l.reach_hi);
      if (!v.safe) return v.why;
    }
    return {};
  }
};

/// Probed's rims and needs for `launches` (in body order).
inline void probe_needs(Probed& probed, const std::vector<ProbeLaunch>& launches, int dims) {
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    for (const ProbeLaunch& l : launches) {
      const KernelProbe* p = probed.find(l.kernel);
      if (!p || !p->probed || !p->wrote) continue;
      probed.rim_lo[u] = std::max(probed.rim_lo[u], p->rim_lo[u]);
      probed.rim_hi[u] = std::max(probed.rim_hi[u], p->rim_hi[u]);
      probed.need_lo[u] = std::max(probed.need_lo[u], p->rim_lo[u] + l.after_lo[u]);
      probed.need_hi[u] = std::max(probed.need_hi[u], p->rim_hi[u] + l.after_hi[u]);
    }
  }
}

/// "lo/hi lo/hi ..." per dimension.
inline std::string probe_sides(int dims, const Vec3& lo, const Vec3& hi) {
  std::string s;
  for (int d = 0; d < dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    s += (d ? " " : "") + std::to_string(lo[u]) + "/" + std::to_string(hi[u]);
  }
  return s;
}

/// The report's lines on the probe, and its verdict: warnings printed (unless `quiet`), errors
/// (a declared halo too small, a kernel computing cells differently on a shifted buffer or
/// reading across it) thrown as one RunError, headed by what they are.
inline void probe_report(const Probed& probed, int dims, bool quiet, std::FILE* out) {
  std::string errors;
  bool halos_only = true;
  for (const KernelProbe& p : probed.kernels) {
    for (const std::string& e : p.errors) {
      errors += "\n  " + e;
      halos_only = halos_only && e.find("outside its declared halo") != std::string::npos;
    }
    if (quiet) continue;
    if (!p.probed) {
      std::fprintf(out, "probe: kernel '%s' not probed: %s\n", p.kernel.c_str(), p.why.c_str());
      continue;
    }
    const std::string rim = probe_sides(dims, p.rim_lo, p.rim_hi);
    std::fprintf(out, "probe: kernel '%s' on %s: rim %s%s%s\n", p.kernel.c_str(),
                 p.box.str().c_str(), p.wrote ? rim.c_str() : "-",
                 p.why.empty() ? "" : "; no views: ", p.why.c_str());
    for (const std::string& w : p.warnings) std::fprintf(out, "probe: warning: %s\n", w.c_str());
  }
  if (!errors.empty())
    throw RunError(halos_only ? "the kernel probe found a declared halo too small:" + errors
                              : "the kernel probe found kernels that would give other values on "
                                "several devices, out of core or on MPI ranks:" +
                                    errors);
}

}  // namespace stepgen::rt

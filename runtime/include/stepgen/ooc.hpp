#pragma once
/// \file
/// Out-of-core execution, the backend-neutral part: what a generated program runs when its
/// arrays (with ghosts) do not fit the device memory budget. Each device part is streamed
/// through its device in chunks of planes along the slowest dimension (extended PACC, Shen et
/// al. 2020, Algorithm 1):
///
/// - Temporal blocking with overlapped tiling: a pass runs k = steps_per_pass steps on each
///   chunk. A chunk is loaded with k * halo extra cells around its own planes (along every
///   dimension where its part has neighbours, clipped at the grid); each step's valid region
///   shrinks by one step's halo, so after k steps exactly its own planes are valid.
/// - Region sharing: a chunk after the first receives only its remnant from the host; the
///   planes it shares with the previous chunk are copied on the device from that chunk's buffer
///   before its kernels overwrite it.
/// - Pipelining: `buffers` (>= 3) buffer slots per array; loads, kernels and stores of
///   different chunks run on three streams ordered by events only (`ooc_ops` below).
/// - Several parts: each streams its own chunks; at each pass boundary the cells a part reads
///   from its neighbours (`OocPart::foreign`) are snapshot from the host arrays, which hold
///   every part's results: that is the halo exchange between parts. In an MPI program (one
///   part per rank) those cells come by messages first (`ooc_foreign_plan`).
///
/// The host arrays keep their names: chunk loads read host array `a` into the slot's current
/// buffer of `a`, the kernels' swap/rotate rename the slot's buffers, and stores write each
/// name's own cells back to host array `a`. Read-only arrays are loaded, never stored.
///
/// Hazards the schedule rules out (tested in tests/runtime/ooc_test.cpp): a store never
/// overwrites host cells a later load of the same pass still has to read (without region
/// sharing, chunk c's store waits for chunk c+1's load; chunks must own at least halo * k
/// planes so that no other load reaches them), and a load of the next pass waits for the stores
/// of the planes it reads. Standard library only.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "stepgen/box.hpp"
#include "stepgen/chunk.hpp"
#include "stepgen/exchange.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/program.hpp"

namespace stepgen::rt {

// ---------------------------------------------------------------------------------------------
// Options: the spec's <out_of_core> as defaults, the program's flags on top.

/// How out-of-core runs, as the spec and the command line ask.
struct OocOptions {
  enum class Mode { kAuto, kOn, kOff };
  Mode mode = Mode::kAuto;  ///< auto: on when the arrays do not fit the budget
  Index device_memory =
      0;           ///< budget per device in bytes; 0 = auto (a safe share of the free memory)
  int chunks = 0;  ///< 0 = auto (the model)
  int steps_per_pass = 0;  ///< 0 = auto (the model)
  bool region_sharing = true;
  bool overlap = true;  ///< false: one stream, nothing overlaps (the naive scheme, for comparison)
  int buffers = 3;      ///< buffer slots per array
  bool pinned = true;   ///< direct mapping: the host arrays page-locked (false: pageable)
  bool trapezoid = true;     ///< each step computes only the planes still read (where supported)
  bool band_sharing = true;  ///< each step's lower band comes from the previous chunk (ditto)
};

/// The share of a device's free memory that `device_memory="auto"` uses.
constexpr double kAutoMemoryShare = 0.85;

/// Parses "8GiB", "512MiB", "1.5GB", "4096" (bytes). Throws UsageError naming the flag.
inline Index parse_size(const std::string& flag, const std::string& text) {
  // The number: digits and a '.', then the unit (no sign, exponent, hex, inf or nan).
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  double v = 0;
  const bool number = detail::parse_number(text.substr(0, digits), 0, 1e30, v);
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = -1;
  const std::pair<const char*, double> units[] = {{"", 1},
                                                  {"b", 1},
                                                  {"k", 1024.0},
                                                  {"kib", 1024.0},
                                                  {"kb", 1e3},
                                                  {"m", 1048576.0},
                                                  {"mib", 1048576.0},
                                                  {"mb", 1e6},
                                                  {"g", 1073741824.0},
                                                  {"gib", 1073741824.0},
                                                  {"gb", 1e9},
                                                  {"t", 1099511627776.0},
                                                  {"tib", 1099511627776.0},
                                                  {"tb", 1e12}};
  for (const auto& [name, s] : units)
    if (unit == name) scale = s;
  // At least a byte, at most 2^62 bytes (4 EiB): an Index with room for sums.
  const double bytes = v * scale;
  if (!number || scale < 0 || !(bytes >= 1) || bytes > 4611686018427387904.0)
    throw UsageError(flag + " expects a size such as 8GiB, 512MiB or 1000000 (bytes), from 1 " +
                     "byte to 4 EiB, got '" + text + "'");
  return static_cast<Index>(bytes);
}

/// Takes the out-of-core flags out of argv (so that parse_options never sees them) into `o`.
inline void take_ooc_options(int& argc, char** argv, OocOptions& o) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value (see --help)");
      return argv[++i];
    };
    auto on_off = [&](const std::string& v) {
      if (v != "on" && v != "off") throw UsageError(flag + " expects on or off, got '" + v + "'");
      return v == "on";
    };
    if (flag == "--device-memory") {
      const std::string v = value();
      o.device_memory = v == "auto" ? 0 : parse_size(flag, v);
      if (o.mode == OocOptions::Mode::kOff) o.mode = OocOptions::Mode::kAuto;
    } else if (flag == "--out-of-core") {
      const std::string v = value();
      if (v != "on" && v != "off" && v != "auto")
        throw UsageError(flag + " expects on, off or auto, got '" + v + "'");
      o.mode = v == "on"    ? OocOptions::Mode::kOn
               : v == "off" ? OocOptions::Mode::kOff
                            : OocOptions::Mode::kAuto;
    } else if (flag == "--ooc-chunks") {
      const std::string v = value();
      o.chunks =
          v == "auto" ? 0 : detail::parse_integer<int>(flag, v, 1, std::numeric_limits<int>::max());
    } else if (flag == "--steps-per-pass") {
      const std::string v = value();
      o.steps_per_pass =
          v == "auto" ? 0 : detail::parse_integer<int>(flag, v, 1, std::numeric_limits<int>::max());
    } else if (flag == "--region-sharing") {
      o.region_sharing = on_off(value());
    } else if (flag == "--overlap") {
      o.overlap = on_off(value());
    } else if (flag == "--trapezoid") {
      o.trapezoid = on_off(value());
    } else if (flag == "--band-sharing") {
      o.band_sharing = on_off(value());
    } else if (flag == "--pinned") {
      o.pinned = on_off(value());
    } else if (flag == "--ooc-buffers") {
      o.buffers = detail::parse_integer<int>(flag, value(), 3, 64);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
}

inline void print_ooc_usage(std::FILE* out) {
  std::fprintf(
      out,
      "\nout of core (when the arrays do not fit a device; see docs/out-of-core.md):\n"
      "  --device-memory SIZE  device memory budget per device, e.g. 8GiB, 300MiB;\n"
      "                        auto = %.0f%% of its free memory (default: the spec's)\n"
      "  --out-of-core M       auto (when the arrays do not fit) | on | off\n"
      "  --ooc-chunks N        chunks per device part, or auto (the model)\n"
      "  --steps-per-pass K    time steps per pass over the chunks, or auto (the model)\n"
      "  --region-sharing S    on | off: shared planes copied on the device\n"
      "  --overlap S           on | off: copies and kernels of different chunks at once\n"
      "  --ooc-buffers B       buffer slots per array, 3 to 64 (default 3)\n"
      "  --pinned S            on | off: host arrays page-locked: in core, copies at the\n"
      "                        link's speed; out of core, chunks copied straight from them\n"
      "                        (direct mapping; default on)\n"
      "  --trapezoid S         on | off: each step computes only the planes still read\n"
      "                        (kernels that can run on a slab; default on)\n"
      "  --band-sharing S      on | off: a chunk takes each step's lower band of planes\n"
      "                        from the previous chunk instead of recomputing it (OpenCL,\n"
      "                        with the trapezoid and region sharing; default on)\n",
      100 * kAutoMemoryShare);
}

// ---------------------------------------------------------------------------------------------
// The schedule: chunks and their boxes.

struct OocArray {
  std::string name;
  Index element_bytes = 0;
  bool written = false;  ///< some member of its swap/rotate group is written: stored each pass
};

struct OocRequest {
  Box grid;
  std::vector<Box> owned;   ///< per part
  Vec3 shrink_lo{0, 0, 0};  ///< one time step's validity shrink below, per dimension
  Vec3 shrink_hi{0, 0, 0};  ///< ... and above
  std::vector<OocArray> arrays;
  int chunks = 1;
  int steps_per_pass = 1;
  bool region_sharing = true;
  int buffers = 3;
  /// The program computes only the planes a step still needs (ooc_needed_planes): a
  /// trapezoid over a pass, not the whole load window every step. For the model.
  bool trapezoid = false;
  /// With the trapezoid and region sharing: every chunk after a part's first computes, at each
  /// step, only planes no earlier chunk computed (a parallelogram: its own planes shifted up
  /// by the steps still to come), and takes the band of planes below them, as the previous
  /// chunk had it at that step, from that chunk through a device-side band store
  /// (ooc_band). No cell is computed twice in a pass, and the load window shrinks to the
  /// chunk's own planes plus one step's halo below and k steps' above.
  bool band_sharing = false;
};

/// One chunk of a part. Boxes are in global coordinates.
struct OocChunk {
  int id = 0;
  Index own_lo = 0, own_hi = 0;  ///< planes it finalises each pass
  Box load;    ///< its device buffer: own planes + k * halo around, inside the part's reach
  Box own;     ///< stored back each pass (written arrays): the part's owned cells in own planes
  Box h2d;     ///< sent from the host each pass: `load` minus `shared`
  Box shared;  ///< copied on the device from the previous chunk's buffer (empty if none)
};

struct OocPart {
  Box owned;
  Box reach;                 ///< owned grown by k * shrink, clipped at the grid
  std::vector<Box> foreign;  ///< reach minus owned: read from other parts' results
  std::vector<OocChunk> chunks;
  Index buffer_cells = 0;  ///< the largest load: each buffer's size in elements
  Index h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;  ///< per pass, all arrays
  Index device_bytes = 0;  ///< buffers * buffer_cells * sum of element bytes
};

struct OocSchedule {
  int dims = 1;
  int chunks = 1;
  int steps_per_pass = 1;
  bool region_sharing = true;
  int buffers = 3;
  bool trapezoid = false;     ///< see OocRequest
  bool band_sharing = false;  ///< see OocRequest
  Index band_cells = 0;       ///< each part's band store, all k bands, per array (elements)
  Vec3 shrink_lo{0, 0, 0}, shrink_hi{0, 0, 0};
  std::vector<OocArray> arrays;
  std::vector<OocPart> parts;
  Index h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;  ///< per pass, all parts
  Index h2d_bytes_without_sharing = 0;
  Index device_bytes = 0;  ///< the largest part's
};

/// Band sharing (OocRequest::band_sharing): the planes of array `array` that chunk `c` (not a
/// part's first) takes from the previous chunk before step `j` of a pass of `steps` steps:
/// from one step's read halo below where its computation starts at that step (its own first
/// plane shifted up by the remaining steps' upper halos) to one upper halo above it, and at
/// the first step up to where its data from the host starts. An array no launch writes (the
/// same at every step: not `written`) takes all of that at the first step, from as low as the
/// pass's last step reads, and nothing after. Clipped to the chunk's load window.
/// (A written array takes every band whole, every plane of it: the cells its kernels never
/// write, a kernel's rim at the grid's edges, must reach every buffer, and which cells those
/// are only the kernel knows.)
inline Box ooc_band(const OocSchedule& sc, const OocChunk& c, Index steps, Index j,
                    std::size_t array) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  const Index a = sc.shrink_lo[s], b = sc.shrink_hi[s];
  const Index start = c.own_lo + (steps - 1 - j) * b;
  Index lo = start - a, hi = j == 0 ? c.own_lo + sc.steps_per_pass * b : start + b;
  if (!sc.arrays[array].written) {
    if (j == 0)
      lo = c.own_lo - a;  // as low as the last step reads
    else
      hi = lo;
  }
  Box band = c.load;
  band.lo[s] = std::max(c.load.lo[s], lo);
  band.hi[s] = std::max(band.lo[s], std::min(c.load.hi[s], hi));
  return band;
}

/// Where band `j` starts in the band store, in planes: band 0 holds up to a + k * b planes (it
/// reaches up to where a chunk's data from the host starts), the others a + b each, one after
/// the other. `ooc_band_store_plane(sc, k)` is the store's whole size.
inline Index ooc_band_store_plane(const OocSchedule& sc, Index j) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  const Index a = sc.shrink_lo[s], b = sc.shrink_hi[s];
  return j == 0 ? 0 : a + sc.steps_per_pass * b + (j - 1) * (a + b);
}

/// Band `band` (ooc_band, of step `j`) as its cells sit in the band store: the store seen as a
/// box of the band's cross-section whose planes start at band j's place in it
/// (ooc_band_store_plane). rect_of(band, ooc_band_store_box(...)) addresses the band there.
inline Box ooc_band_store_box(const OocSchedule& sc, const Box& band, Index j) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  Index plane = 1;  // the cross-section's cells (the band may hold no plane)
  for (int d = 0; d + 1 < sc.dims; ++d) plane *= band.extent(d);
  Box where = band;
  where.lo[s] = band.lo[s] - ooc_band_store_plane(sc, j);
  where.hi[s] = where.lo[s] + sc.band_cells / plane;
  return where;
}

/// Where a launch of step `j` (of `steps`) starts computing on chunk `c` with band sharing, as
/// the low side of the owned box to give ooc_needed_planes: the chunk's own first plane
/// shifted up by the remaining steps' halos below and above (ooc_needed_planes takes the
/// halos below off again). The chunk passed to a step carries it (OocRunner).
inline Index ooc_band_owned_lo(const OocSchedule& sc, const OocChunk& c, Index steps, Index j) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  return c.own_lo + (steps - 1 - j) * (sc.shrink_lo[s] + sc.shrink_hi[s]);
}

/// The bytes band sharing copies on the device for chunk `c` in a pass of `steps` steps, all
/// arrays: every band once into the store and once out of it (0 for a part's first chunk, or
/// without band sharing).
inline Index ooc_band_copy_bytes(const OocSchedule& sc, const OocChunk& c, Index steps) {
  if (!sc.band_sharing || c.id == 0) return 0;
  Index bytes = 0;
  for (std::size_t a = 0; a < sc.arrays.size(); ++a)
    for (Index j = 0; j < steps; ++j)
      bytes += 2 * ooc_band(sc, c, steps, j, a).volume() * sc.arrays[a].element_bytes;
  return bytes;
}

/// Builds the schedule. Throws PlanError when a part has fewer planes than chunks, or when a
/// chunk owns fewer planes than k steps' halo (its neighbours' loads would reach past it).
OocSchedule ooc_schedule(const OocRequest& r);

inline OocSchedule ooc_schedule(const OocRequest& r) {
  const int dims = r.grid.dims;
  const auto s = static_cast<std::size_t>(dims - 1);  // the slowest dimension: whole planes
  const Index k = r.steps_per_pass;
  if (k < 1) throw PlanError("steps per pass must be at least 1");
  if (r.buffers < 3) throw PlanError("out-of-core needs at least 3 buffer slots per array");
  OocSchedule out;
  out.dims = dims;
  out.chunks = r.chunks;
  out.steps_per_pass = r.steps_per_pass;
  out.region_sharing = r.region_sharing;
  out.buffers = r.buffers;
  out.trapezoid = r.trapezoid;
  // At k = 1 a chunk computes only its own planes anyway: the bands would save nothing.
  out.band_sharing = r.band_sharing && r.trapezoid && r.region_sharing && r.steps_per_pass > 1;
  out.shrink_lo = r.shrink_lo;
  out.shrink_hi = r.shrink_hi;
  out.arrays = r.arrays;
  Index elem_sum = 0;
  for (const OocArray& a : r.arrays) elem_sum += a.element_bytes;
  for (std::size_t p = 0; p < r.owned.size(); ++p) {
    OocPart part;
    part.owned = r.owned[p];
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] = r.shrink_lo[d] * k;
      hi[d] = r.shrink_hi[d] * k;
    }
    part.reach = intersect(part.owned.grown(lo, hi), r.grid);
    part.foreign = coalesce(subtract(part.reach, part.owned));
    ChunkRequest cr;
    cr.plane_lo = part.owned.lo[s];
    cr.plane_hi = part.owned.hi[s];
    cr.domain_planes = r.grid.hi[s];
    cr.halo_lo = r.shrink_lo[s];
    cr.halo_hi = r.shrink_hi[s];
    cr.chunks = r.chunks;
    cr.steps_per_pass = r.steps_per_pass;
    cr.region_sharing = r.region_sharing;
    cr.buffers_per_array = r.buffers;
    const ChunkPlan plan = chunk_plan(cr);
    const Index need = std::max(r.shrink_lo[s], r.shrink_hi[s]) * k;
    const std::string who = r.owned.size() > 1 ? "part " + std::to_string(p) + "'s " : "";
    for (const Chunk& ch : plan.chunks) {
      if (plan.chunks.size() > 1 && ch.own_hi - ch.own_lo < need)
        throw PlanError(std::to_string(k) + " steps per pass reach " + std::to_string(need) +
                        " planes beyond a chunk (halo " +
                        std::to_string(std::max(r.shrink_lo[s], r.shrink_hi[s])) +
                        " per step), but " + who + "chunk " + std::to_string(ch.id) + " of " +
                        std::to_string(plan.chunks.size()) + " owns only " +
                        std::to_string(ch.own_hi - ch.own_lo) +
                        " planes; use fewer chunks or fewer steps per pass");
      OocChunk c;
      c.id = ch.id;
      c.own_lo = ch.own_lo;
      c.own_hi = ch.own_hi;
      auto planes = [&](const Box& b, Index a, Index z) {
        Box x = b;
        x.lo[s] = a;
        x.hi[s] = std::max(a, z);
        return x;
      };
      c.load = planes(part.reach, ch.load_lo, ch.load_hi);
      c.own = planes(part.owned, ch.own_lo, ch.own_hi);
      c.shared = planes(part.reach, ch.shared_lo, ch.shared_hi);
      c.h2d = planes(part.reach, r.region_sharing ? ch.h2d_lo : ch.load_lo,
                     r.region_sharing ? ch.h2d_hi : ch.load_hi);
      if (out.band_sharing && ch.id > 0) {
        // One step's halo below its own planes (the band of a one-step last pass reaches
        // that low), k steps' above; the host sends what lies above the first band.
        const Index a = r.shrink_lo[s], b = r.shrink_hi[s];
        c.load = intersect(planes(part.reach, ch.own_lo - a, ch.own_hi + k * b), c.load);
        c.h2d = intersect(planes(part.reach, ch.own_lo + k * b, ch.own_hi + k * b), c.load);
        c.shared = planes(part.reach, ch.own_lo, ch.own_lo);  // none: the bands replace it
      }
      part.d2d_bytes += ooc_band_copy_bytes(out, c, k);  // through the band store
      part.buffer_cells = std::max(part.buffer_cells, c.load.volume());
      for (const OocArray& a : r.arrays) {
        part.h2d_bytes += c.h2d.volume() * a.element_bytes;
        part.d2d_bytes += c.shared.volume() * a.element_bytes;
        if (a.written) part.d2h_bytes += c.own.volume() * a.element_bytes;
        out.h2d_bytes_without_sharing += c.load.volume() * a.element_bytes;
      }
      part.chunks.push_back(c);
    }
    if (out.band_sharing && plan.chunks.size() > 1) {
      const Index plane = part.reach.volume() / std::max<Index>(part.reach.extent(dims - 1), 1);
      out.band_cells = std::max(out.band_cells, plane * ooc_band_store_plane(out, k));
      part.device_bytes = (r.buffers * part.buffer_cells + out.band_cells) * elem_sum;
    } else {
      part.device_bytes = r.buffers * part.buffer_cells * elem_sum;
    }
    out.h2d_bytes += part.h2d_bytes;
    out.d2h_bytes += part.d2h_bytes;
    out.d2d_bytes += part.d2d_bytes;
    out.device_bytes = std::max(out.device_bytes, part.device_bytes);
    out.parts.push_back(std::move(part));
  }
  return out;
}

/// The exchange between parts at pass boundaries, as transfers between parts (ids: indices of
/// `sc.parts`), ordered by (src, dst): part `src` gives part `dst` the cells of dst's foreign
/// boxes that src owns. Together they cover every foreign cell once. One process copies them
/// through its host arrays (the runners' snapshots); an MPI program sends them as messages, one
/// rank per part.
inline std::vector<Transfer> ooc_foreign_plan(const OocSchedule& sc) {
  std::vector<Transfer> out;
  for (std::size_t src = 0; src < sc.parts.size(); ++src)
    for (std::size_t dst = 0; dst < sc.parts.size(); ++dst) {
      if (src == dst) continue;
      Transfer t;
      t.src = static_cast<int>(src);
      t.dst = static_cast<int>(dst);
      for (const Box& f : sc.parts[dst].foreign) {
        const Box cut = intersect(sc.parts[src].owned, f);
        if (!cut.empty()) t.boxes.push_back(cut);
      }
      if (t.boxes.empty()) continue;
      t.boxes = coalesce(std::move(t.boxes));
      out.push_back(std::move(t));
    }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The pipeline: the order in which a backend issues loads, kernels and stores.

/// One command of the pipeline, issued on its own stream: loads on the copy-in stream, kernels
/// (preceded, with region sharing, by the device-side copy of the planes the next chunk shares)
/// on the compute stream, stores on the copy-out stream. `t` numbers a part's chunk visits over
/// the whole run (pass * chunks + chunk); the slot is t % buffers. Before it runs, a command
/// waits for the events of `waits` (same part); it records its own event when done.
struct OocOp {
  enum class Kind { kLoad, kCompute, kStore, kBarrier };
  Kind kind = Kind::kLoad;
  int part = 0;
  Index t = 0;
  Index pass = 0;
  int chunk = 0;
  int slot = 0;
  Index first_step = 0;     ///< kCompute: the global index of its first step
  Index steps = 0;          ///< kCompute: steps run in this pass (k, fewer in the last)
  bool share_next = false;  ///< kCompute: copy the next chunk's shared planes first
  std::vector<std::pair<Kind, Index>> waits;
};

/// Passes needed for `steps` time steps at k per pass.
inline Index ooc_passes(Index steps, int k) {
  return (steps + k - 1) / k;
}

/// The whole run's commands in issue order. With one part the pipeline runs on across passes
/// (a load of the next pass waits only for the stores of the planes it reads); with several,
/// a kBarrier ends every pass (all streams drained, then the foreign cells are snapshot).
inline std::vector<OocOp> ooc_ops(const OocSchedule& sc, Index steps) {
  using K = OocOp::Kind;
  std::vector<OocOp> ops;
  const Index k = sc.steps_per_pass;
  const Index passes = ooc_passes(steps, sc.steps_per_pass);
  const Index n = sc.chunks;
  const int parts = static_cast<int>(sc.parts.size());
  const Index total = passes * n;
  const Index B = sc.buffers;
  auto op = [&](K kind, int part, Index t) {
    OocOp o;
    o.kind = kind;
    o.part = part;
    o.t = t;
    o.pass = t / n;
    o.chunk = static_cast<int>(t % n);
    o.slot = static_cast<int>(t % B);
    return o;
  };
  if (total == 0) return ops;
  auto load = [&](int part, Index t) {
    OocOp o = op(K::kLoad, part, t);
    if (t - B >= 0) o.waits.push_back({K::kStore, t - B});  // the slot is free
    if (o.pass > 0 && parts == 1) {
      // The planes it reads were stored by the previous pass's chunks c-1, c, c+1; stores
      // complete in order.
      const Index c = std::min<Index>(o.chunk + 1, n - 1);
      o.waits.push_back({K::kStore, (o.pass - 1) * n + c});
    }
    ops.push_back(o);
  };
  auto compute = [&](int part, Index t) {
    OocOp o = op(K::kCompute, part, t);
    o.first_step = o.pass * k;
    o.steps = std::min<Index>(k, steps - o.first_step);
    o.waits.push_back({K::kLoad, t});
    o.share_next = sc.region_sharing && o.chunk + 1 < n;
    if (o.share_next && t + 1 - B >= 0) o.waits.push_back({K::kStore, t + 1 - B});
    ops.push_back(o);
  };
  auto store = [&](int part, Index t) {
    OocOp o = op(K::kStore, part, t);
    o.waits.push_back({K::kCompute, t});
    // Without sharing the next chunk of this pass reads this chunk's planes from the host.
    if (!sc.region_sharing && o.chunk + 1 < n) o.waits.push_back({K::kLoad, t + 1});
    ops.push_back(o);
  };
  for (Index t = 0; t <= total; ++t) {
    const bool new_pass = t > 0 && t < total && t % n == 0;
    for (int p = 0; p < parts; ++p) {
      if (t == total || new_pass) {
        compute(p, t - 1);
        store(p, t - 1);
      }
    }
    if (new_pass && parts > 1) {
      OocOp b = op(K::kBarrier, 0, t);
      ops.push_back(b);
    }
    for (int p = 0; p < parts; ++p) {
      if (t == total) continue;
      load(p, t);
      if (t > 0 && !new_pass) {
        compute(p, t - 1);
        store(p, t - 1);
      }
    }
  }
  return ops;
}

/// The buffers a compute command copies between on the device (ooc_compute): the chunk's own,
/// the next chunk's (its buffer slot) and the part's band store.
enum class OocBuffer { kChunk, kNext, kStore };

/// What one compute command (`op`) does, in order, whatever the backend; the runners give a
/// device copy and the step, both on the compute queue. `copy(a, from, src, to, dst)` copies
/// array a's cells `src` of buffer `from` to `dst` of buffer `to`. With region sharing
/// (`op.share_next`), first the next chunk's shared planes into its buffers. Then, for each step
/// j of the command, with band sharing: band j from the band store into this chunk's buffers
/// (not a part's first chunk), and the chunk starts higher (ooc_band_owned_lo); the next
/// chunk's band j from this chunk's buffers into the store; then `step(chunk, step,
/// remaining)`: the body once on the chunk seen as a part (ghost box: its load window),
/// `remaining` the steps of the pass after this one with the trapezoid, -1 without. Adds the
/// bytes copied on the device to `d2d_bytes`.
template <class Copy, class Step>
void ooc_compute(const OocSchedule& sc, const OocOp& op, std::size_t& d2d_bytes, Copy&& copy,
                 Step&& step) {
  using B = OocBuffer;
  const OocPart& part = sc.parts[static_cast<std::size_t>(op.part)];
  const auto c = static_cast<std::size_t>(op.chunk);
  const OocChunk& ch = part.chunks[c];
  const OocChunk* next = c + 1 < part.chunks.size() ? &part.chunks[c + 1] : nullptr;
  // Array a's `box` from buffer `from` (holding `from_box`) to `to` (holding `to_box`).
  auto copy_one = [&](std::size_t a, const Box& box, B from, const Box& from_box, B to,
                      const Box& to_box) {
    if (box.empty()) return;
    const auto elem = static_cast<std::size_t>(sc.arrays[a].element_bytes);
    copy(a, from, rect_of(box, from_box, elem), to, rect_of(box, to_box, elem));
    d2d_bytes += static_cast<std::size_t>(box.volume()) * elem;
  };
  if (op.share_next && next)
    for (std::size_t a = 0; a < sc.arrays.size(); ++a)
      copy_one(a, next->shared, B::kChunk, ch.load, B::kNext, next->load);
  Part chunk;
  chunk.id = op.part;
  chunk.owned = ch.own;
  chunk.ghost = ch.load;
  const bool bands = sc.band_sharing && part.chunks.size() > 1;
  const auto axis = static_cast<std::size_t>(sc.dims - 1);
  for (Index j = 0; j < op.steps; ++j) {
    if (bands && c > 0) {
      for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
        const Box b = ooc_band(sc, ch, op.steps, j, a);
        copy_one(a, b, B::kStore, ooc_band_store_box(sc, b, j), B::kChunk, ch.load);
      }
      chunk.owned.lo[axis] = ooc_band_owned_lo(sc, ch, op.steps, j);
    }
    if (bands && next)
      for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
        const Box b = ooc_band(sc, *next, op.steps, j, a);
        copy_one(a, b, B::kChunk, ch.load, B::kStore, ooc_band_store_box(sc, b, j));
      }
    step(static_cast<const Part&>(chunk), op.first_step + j,
         sc.trapezoid ? op.steps - 1 - j : Index{-1});
  }
}

// ---------------------------------------------------------------------------------------------
// The model: chunks and steps per pass from the link and the kernel speed.

/// What start-up measures on the first device: link bandwidths (bytes/s) and kernel time.
struct OocLink {
  double h2d = 1e10;        ///< host to device
  double d2h = 1e10;        ///< device to host
  double bidir = 1.5e10;    ///< both at once, bytes in + out per second
  double cell_step = 1e-9;  ///< seconds per cell per time step (all of the body's launches)
  /// Copies within the device (region sharing), bytes copied per second. They run on the
  /// compute queue, so the model adds their time to the kernels'.
  double d2d = 1e12;
  bool measured = false;
  /// With several devices in one process: the host link when all of them stream at once,
  /// bytes per second summed over the devices (0: not measured, the links are independent).
  /// Devices often share the host's memory or PCIe root, so this is less than the sum of
  /// their links (2 x H200: 78 GB/s against 83 GB/s for one GPU alone).
  double h2d_all = 0, d2h_all = 0, bidir_all = 0;
  int devices_all = 0;  ///< how many devices streamed at once for the *_all figures
};

/// The link as KEY=VALUE figures (GB/s; kernel in ns per cell-step), the line print_ooc_report
/// ends with after "calibration:" and `stepgen plan --calibration` reads (stepgen/calibration.hpp).
inline std::string link_figures_text(const OocLink& link) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "h2d=%.9g,d2h=%.9g,bidir=%.9g,kernel=%.9g,d2d=%.9g",
                link.h2d / 1e9, link.d2h / 1e9, link.bidir / 1e9, link.cell_step * 1e9,
                link.d2d / 1e9);
  std::string s = buf;
  if (link.devices_all > 1) {
    std::snprintf(buf, sizeof buf, ",devices_all=%d,h2d_all=%.9g,d2h_all=%.9g,bidir_all=%.9g",
                  link.devices_all, link.h2d_all / 1e9, link.d2h_all / 1e9, link.bidir_all / 1e9);
    s += buf;
  }
  return s;
}

/// Copies the cells of `box` from `src` into `dst`, host arrays of any boxes. Large copies
/// (the foreign cells snapshotted at every pass boundary of a several-part run: hundreds of MB
/// at 1160^3) are split by planes of the slowest dimension over up to 16 threads, which move
/// several times the bytes per second of one.
inline void copy_host_box(const HostArray& src, HostArray& dst, const Box& box) {
  if (box.empty()) return;
  const RectCopy s = rect_of(box, src.box, src.element_bytes);
  const RectCopy t = rect_of(box, dst.box, dst.element_bytes);
  auto planes = [&](std::size_t z0, std::size_t z1) {
    for (std::size_t z = z0; z < z1; ++z)
      for (std::size_t y = 0; y < s.region[1]; ++y)
        std::memcpy(dst.bytes.data() + t.offset() + y * t.row_pitch + z * t.slice_pitch,
                    src.bytes.data() + s.offset() + y * s.row_pitch + z * s.slice_pitch,
                    s.region[0]);
  };
  const std::size_t bytes = s.region[0] * s.region[1] * s.region[2];
  const std::size_t n =
      std::min<std::size_t>({std::max(1u, std::thread::hardware_concurrency()), 16, s.region[2],
                             std::max<std::size_t>(bytes >> 24, 1)});  // 16 MiB a thread at least
  std::vector<std::thread> threads;
  std::size_t done = 0;  // planes handed out
  try {
    for (std::size_t i = 1; i < n; ++i) {
      const std::size_t z0 = s.region[2] * i / n, z1 = s.region[2] * (i + 1) / n;
      threads.emplace_back(planes, z0, z1);
      done = z1;
    }
  } catch (const std::system_error&) {
    // No more threads: this one copies what was not handed out.
  }
  const std::size_t first = n > 1 ? s.region[2] / n : s.region[2];
  planes(0, first);
  if (done == 0 && first < s.region[2])
    planes(first, s.region[2]);
  else if (done != 0 && done < s.region[2])
    planes(done, s.region[2]);
  for (std::thread& th : threads) th.join();
}

/// The link each of `parts` devices gets when all of them stream at once: its own link, or
/// its share of the measured aggregate where that is lower.
inline OocLink ooc_share(const OocLink& link, std::size_t parts) {
  OocLink l = link;
  if (parts > 1 && link.devices_all > 1) {
    const double n = static_cast<double>(parts);
    if (link.h2d_all > 0) l.h2d = std::min(l.h2d, link.h2d_all / n);
    if (link.d2h_all > 0) l.d2h = std::min(l.d2h, link.d2h_all / n);
    if (link.bidir_all > 0) l.bidir = std::min(l.bidir, link.bidir_all / n);
  }
  return l;
}

/// The first planes (along the slowest dimension) of `box`, at most `bytes` for cells of
/// `cell_bytes` bytes, at least one plane: what a link calibration sends.
inline Box ooc_probe_planes(const Box& box, int dims, Index cell_bytes, Index bytes) {
  const int s = dims - 1;
  const Index plane_bytes = cell_bytes * (box.volume() / std::max<Index>(box.extent(s), 1));
  Box probe = box;
  probe.hi[static_cast<std::size_t>(s)] =
      probe.lo[static_cast<std::size_t>(s)] +
      std::clamp<Index>(bytes / std::max<Index>(plane_bytes, 1), 1, box.extent(s));
  return probe;
}

/// The link measurements of a start-up calibration, shared by the backends. `make(p, box)`
/// makes a probe (with a member `box`): the box's cells of every array on part p's device,
/// with two copy streams; `copy(probe, to_device)` enqueues the probe's copies one way on its
/// stream for that way; `wait(probe)` waits for both of its streams. With several devices,
/// first all of them at once (the *_all figures: the first planes of each owned box, which do
/// not overlap), then the first part's device alone (the first planes of its reach): h2d, d2h
/// and both ways, each after a warm-up. Returns that last probe, on which the caller times
/// the kernels.
template <typename Probe, typename Make, typename Copy, typename Wait>
Probe ooc_measure_link(const OocSchedule& sc, std::size_t devices, Index probe_bytes, Make make,
                       Copy copy, Wait wait, OocLink& link) {
  Index cell_bytes = 0;
  for (const OocArray& a : sc.arrays) cell_bytes += a.element_bytes;
  // Copies every probe at once; the bytes per second of one way.
  auto timed = [&](std::vector<Probe>& probes, bool send, bool receive) {
    double bytes = 0;
    Stopwatch t;
    t.start();
    for (Probe& pr : probes) {
      bytes += static_cast<double>(pr.box.volume()) * static_cast<double>(cell_bytes);
      if (send) copy(pr, true);
      if (receive) copy(pr, false);
    }
    for (Probe& pr : probes) wait(pr);
    return bytes / std::max(t.stop(), 1e-9);
  };
  // The best of three runs each: one run of a few tens of milliseconds is at the mercy of
  // whatever else the host does then (the H100 gave 28.7 to 53.5 GB/s host to device).
  auto measure = [&](std::vector<Probe>& probes, double& h2d, double& d2h, double& bidir) {
    timed(probes, true, false);  // warm-up
    h2d = d2h = bidir = 0;
    for (int i = 0; i < 3; ++i) {
      h2d = std::max(h2d, timed(probes, true, false));
      d2h = std::max(d2h, timed(probes, false, true));
      bidir = std::max(bidir, 2 * timed(probes, true, true));
    }
  };
  const std::size_t n = std::min(devices, sc.parts.size());
  if (n > 1) {
    std::vector<Probe> all;
    for (std::size_t p = 0; p < n; ++p)
      all.push_back(make(p, ooc_probe_planes(sc.parts[p].owned, sc.dims, cell_bytes, probe_bytes)));
    measure(all, link.h2d_all, link.d2h_all, link.bidir_all);
    link.devices_all = static_cast<int>(n);
  }
  std::vector<Probe> one;
  one.push_back(make(0, ooc_probe_planes(sc.parts[0].reach, sc.dims, cell_bytes, probe_bytes)));
  measure(one, link.h2d, link.d2h, link.bidir);
  return std::move(one.front());
}

/// The fastest of `runs` runs of `f` (which waits for its own work), in seconds: one timing
/// of a few milliseconds is at the mercy of whatever else the machine does then.
template <typename F>
double ooc_fastest(int runs, F f) {
  double best = 0;
  for (int i = 0; i < runs; ++i) {
    Stopwatch t;
    t.start();
    f();
    const double s = std::max(t.stop(), 1e-9);
    best = i == 0 ? s : std::min(best, s);
  }
  return best;
}

/// The speed of copies within a device, as region sharing does them: `copy(from, to)` copies
/// every array's cells of box `from` to box `to` of the same buffers and waits. Measured on
/// the probe's lower and upper halves along the slowest dimension (the best of three after a
/// warm-up); bytes copied per second. The default of OocLink when the probe is too thin.
template <typename Copy>
double ooc_measure_copies(const Box& probe, int dims, Copy copy,
                          const std::vector<OocArray>& arrays) {
  const auto a = static_cast<std::size_t>(dims - 1);
  const Index half = probe.extent(dims - 1) / 2;
  if (half < 1) return OocLink{}.d2d;
  Box from = probe, to = probe;
  from.hi[a] = from.lo[a] + half;
  to.lo[a] = from.hi[a];
  to.hi[a] = to.lo[a] + half;
  double bytes = 0;
  for (const OocArray& arr : arrays)
    bytes += static_cast<double>(from.volume()) * static_cast<double>(arr.element_bytes);
  copy(from, to);  // warm-up
  return bytes / ooc_fastest(3, [&] { copy(from, to); });
}

/// The planes along the slowest dimension a step computes on a buffer of `planes` planes when
/// it computes the whole buffer: all but one step's halos below and above (the kernels leave
/// the cells whose reads would leave the buffer alone). At least 1.
inline Index ooc_computed_planes(const OocSchedule& sc, Index planes) {
  const auto a = static_cast<std::size_t>(sc.dims - 1);
  return std::max<Index>(planes - sc.shrink_lo[a] - sc.shrink_hi[a], 1);
}

/// The device side of the start-up measurements, on a probe box the buffers hold: the kernels'
/// seconds per cell-step (`step()` runs one time step over the probe and waits; a warm-up,
/// then the fastest of three) and the speed of device copies (`copy(a, from, to)` copies array
/// a's cells between two places of its probe buffer, `wait()` waits for them). A step over
/// the probe computes its planes but one step's halos at either end (ooc_computed_planes), and
/// so does the model count the cells of a chunk: with a thin probe (21 planes at 1750^3, 8 of
/// them halos) dividing by all its cells made the kernels look 1.6x faster than they are.
template <typename Step, typename Copy, typename Wait>
void ooc_measure_device(const OocSchedule& sc, const Box& probe, Step step, Copy copy, Wait wait,
                        OocLink& link) {
  step();  // warm-up (and, in OpenCL, first-launch compilation)
  const int axis = sc.dims - 1;
  const Index planes = std::max<Index>(probe.extent(axis), 1);
  const double computed = static_cast<double>(probe.volume() / planes) *
                          static_cast<double>(ooc_computed_planes(sc, planes));
  link.cell_step = ooc_fastest(3, step) / computed;
  link.d2d = ooc_measure_copies(
      probe, sc.dims,
      [&](const Box& from, const Box& to) {
        for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
          const auto elem = static_cast<std::size_t>(sc.arrays[a].element_bytes);
          copy(a, rect_of(from, probe, elem), rect_of(to, probe, elem));
        }
        wait();
      },
      sc.arrays);
}

/// The planes along the slowest dimension (`axis`) that a launch must compute on a chunk
/// whose buffer holds `chunk.ghost`, as [begin, end) work-item indices of the buffer: the
/// chunk's own planes grown by what is still read of them: `remaining` more steps of this
/// pass (each reading `shrink_lo` below and `shrink_hi` above) and, within this step, the
/// launches after this one (`after_lo`, `after_hi`: the sum of their widest read halos).
/// Outside it, a cell's value is never read again in the pass, so leaving it stale changes no
/// result: over a pass the computed planes form a trapezoid instead of the whole load window
/// every step. Widened to whole work-groups of `group` items along `axis`.
inline std::pair<Index, Index> ooc_needed_planes(const Part& chunk, int axis, Index remaining,
                                                 Index shrink_lo, Index shrink_hi, Index after_lo,
                                                 Index after_hi, Index group) {
  const auto a = static_cast<std::size_t>(axis);
  const Index base = chunk.ghost.lo[a], extent = chunk.ghost.extent(axis);
  Index begin = chunk.owned.lo[a] - remaining * shrink_lo - after_lo - base;
  Index end = chunk.owned.hi[a] + remaining * shrink_hi + after_hi - base;
  begin = std::clamp<Index>(begin, 0, extent);
  end = std::clamp<Index>(end, begin, extent);
  group = std::max<Index>(group, 1);
  begin = begin / group * group;
  end = (end + group - 1) / group * group;
  return {begin, end};
}

/// The box of a chunk's buffer that a launch is given (a view, as the CUDA backend runs a
/// kernel on a slab) so that it computes the planes ooc_needed_planes says are still read: those
/// planes grown by the launch's own read halo (`reach_lo`, `reach_hi` along `axis`), which the
/// kernel leaves alone at a view's rim, clipped to the buffer. The rim cells it leaves are
/// either outside the buffer's computed window anyway or never read again in the pass.
inline Box ooc_view(const Part& chunk, int axis, Index remaining, Index shrink_lo, Index shrink_hi,
                    Index after_lo, Index after_hi, Index reach_lo, Index reach_hi) {
  const auto a = static_cast<std::size_t>(axis);
  const auto [begin, end] =
      ooc_needed_planes(chunk, axis, remaining, shrink_lo, shrink_hi, after_lo, after_hi, 1);
  Box view = chunk.ghost;
  view.lo[a] = std::max(chunk.ghost.lo[a], chunk.ghost.lo[a] + begin - reach_lo);
  view.hi[a] = std::min(chunk.ghost.hi[a], chunk.ghost.lo[a] + end + reach_hi);
  return view;
}

/// The cells a pass computes on one chunk over its `steps` steps (default: k): the whole load
/// window every step (but its halo planes at either end, ooc_computed_planes), or with the
/// trapezoid the planes each step still needs (counted as the step's last launch needs them: exact
/// for one launch per step, a little low for several).
inline double ooc_pass_cells(const OocSchedule& sc, const OocChunk& c, Index steps = -1) {
  const Index k = steps < 0 ? sc.steps_per_pass : steps;
  const double load = static_cast<double>(c.load.volume());
  const int axis = sc.dims - 1;
  const auto a = static_cast<std::size_t>(axis);
  const Index planes = std::max<Index>(c.load.extent(axis), 1);
  const double plane = load / static_cast<double>(planes);
  if (!sc.trapezoid) return plane * static_cast<double>(ooc_computed_planes(sc, planes) * k);
  // Band sharing: a part's later chunks compute their own planes' worth each step, shifted up.
  const bool bands = sc.band_sharing && c.id > 0;
  Part p;
  p.owned = c.load;
  p.owned.lo[a] = c.own_lo;
  p.owned.hi[a] = c.own_hi;
  p.ghost = c.load;
  double cells = 0;
  for (Index r = 0; r < k; ++r) {
    // Step j of the pass has r = k - 1 - j steps after it.
    if (bands) p.owned.lo[a] = ooc_band_owned_lo(sc, c, k, k - 1 - r);
    const auto [b, e] = ooc_needed_planes(p, axis, r, sc.shrink_lo[a], sc.shrink_hi[a], 0, 0, 1);
    // Where the window is clipped at the grid's edge the kernels leave its halo planes alone.
    const Index lo = std::max(b, sc.shrink_lo[a]), hi = std::min(e, planes - sc.shrink_hi[a]);
    cells += plane * static_cast<double>(std::max<Index>(hi - lo, 0));
  }
  return cells;
}

/// One compute command's seconds on chunk `c` in a pass of `steps` steps: its kernels' cells
/// (ooc_pass_cells) and its device copies (region and band sharing, on the compute queue).
inline double ooc_compute_seconds(const OocSchedule& sc, const OocChunk& c, Index steps,
                                  const OocLink& link) {
  Index elem_sum = 0;
  for (const OocArray& a : sc.arrays) elem_sum += a.element_bytes;
  const double d2d =
      static_cast<double>(c.shared.volume() * elem_sum + ooc_band_copy_bytes(sc, c, steps));
  return ooc_pass_cells(sc, c, steps) * link.cell_step + d2d / link.d2d;
}

/// The pipeline played out: every command of ooc_ops(sc, steps) in issue order on its stream
/// (loads, kernels and stores each on their own with `overlap`, all on one without), each
/// starting when its stream's previous command and the commands it waits for are done, as the
/// runners issue them. A load moves its chunk's host window at the link's host-to-device speed
/// and a store its own planes back at device-to-host speed; while a load and a store of one
/// device run at once both slow down in proportion so that together they move at most the
/// bidirectional figure. A compute command takes its cells' kernel time plus its device
/// copies (region and band sharing) at the device-copy speed. Several parts stream at once,
/// each at its share of the link (ooc_share), and meet at the pass barriers. Returns the
/// seconds until the last command is done.
inline double ooc_simulate(const OocSchedule& sc, const OocLink& measured, Index steps,
                           bool overlap) {
  using K = OocOp::Kind;
  const std::vector<OocOp> ops = ooc_ops(sc, steps);
  if (ops.empty()) return 0;
  const OocLink link = ooc_share(measured, sc.parts.size());
  Index elem_sum = 0, written_sum = 0;
  for (const OocArray& a : sc.arrays) {
    elem_sum += a.element_bytes;
    if (a.written) written_sum += a.element_bytes;
  }
  const std::size_t parts = sc.parts.size();
  const Index visits = ooc_passes(steps, sc.steps_per_pass) * sc.chunks;
  // A command's work: bytes for loads and stores, seconds for compute; its place for waits.
  std::vector<double> work(ops.size(), 0);
  std::vector<std::vector<std::ptrdiff_t>> where(parts,
                                                 std::vector<std::ptrdiff_t>(3 * visits + 3, -1));
  std::map<std::pair<std::pair<int, int>, Index>, double> compute_s;  // (part, chunk), steps
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OocOp& op = ops[i];
    if (op.kind == K::kBarrier) continue;
    const OocPart& part = sc.parts[static_cast<std::size_t>(op.part)];
    const OocChunk& c = part.chunks[static_cast<std::size_t>(op.chunk)];
    where[static_cast<std::size_t>(op.part)]
         [static_cast<std::size_t>(3 * op.t) + static_cast<std::size_t>(op.kind)] =
             static_cast<std::ptrdiff_t>(i);
    if (op.kind == K::kLoad) {
      work[i] = static_cast<double>(c.h2d.volume() * elem_sum);
    } else if (op.kind == K::kStore) {
      work[i] = static_cast<double>(c.own.volume() * written_sum);
    } else {
      auto key = std::make_pair(std::make_pair(op.part, op.chunk), op.steps);
      auto it = compute_s.find(key);
      if (it == compute_s.end()) {
        it = compute_s.emplace(key, ooc_compute_seconds(sc, c, op.steps, link)).first;
      }
      work[i] = it->second;
    }
  }
  const double f = std::min(1.0, link.bidir / (link.h2d + link.d2h));  // both ways at once
  std::vector<char> done(ops.size(), 0), running(ops.size(), 0);
  std::vector<double> left = work;
  double now = 0;
  std::size_t begin = 0;  // the commands from here to the next barrier run together
  while (begin < ops.size()) {
    std::size_t end = begin;
    while (end < ops.size() && ops[end].kind != K::kBarrier) ++end;
    // Each part's streams: the commands in issue order; the one at the head runs.
    const std::size_t lanes = overlap ? 3 : 1;
    std::vector<std::vector<std::size_t>> queue(parts * lanes);
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t lane = overlap ? static_cast<std::size_t>(ops[i].kind) : 0;
      queue[static_cast<std::size_t>(ops[i].part) * lanes + lane].push_back(i);
    }
    std::vector<std::size_t> head(queue.size(), 0);
    std::size_t remaining = end - begin;
    auto ready = [&](const OocOp& op) {
      for (const auto& w : op.waits) {
        const std::ptrdiff_t j =
            where[static_cast<std::size_t>(op.part)]
                 [static_cast<std::size_t>(3 * w.second) + static_cast<std::size_t>(w.first)];
        if (j >= 0 && !done[static_cast<std::size_t>(j)]) return false;
      }
      return true;
    };
    while (remaining > 0) {
      // Start what can start; commands with nothing to do finish at once.
      for (bool again = true; again;) {
        again = false;
        for (std::size_t q = 0; q < queue.size(); ++q) {
          if (head[q] >= queue[q].size()) continue;
          const std::size_t i = queue[q][head[q]];
          if (running[i] || !ready(ops[i])) continue;
          if (left[i] > 0) {
            running[i] = 1;
          } else {
            done[i] = 1;
            ++head[q];
            --remaining;
            again = true;
          }
        }
      }
      if (remaining == 0) break;
      // The running commands' speeds, and the first to finish.
      std::vector<std::pair<std::size_t, double>> run;  // command, work per second
      for (std::size_t q = 0; q < queue.size(); ++q) {
        if (head[q] >= queue[q].size()) continue;
        const std::size_t i = queue[q][head[q]];
        if (running[i]) run.push_back({i, 0.0});
      }
      if (run.empty()) throw RunError("out-of-core model: the pipeline waits on itself");
      for (auto& [i, rate] : run) {
        const OocOp& op = ops[i];
        if (op.kind == K::kCompute) {
          rate = 1;
          continue;
        }
        bool other = false;  // a transfer the other way on this part's link
        for (const auto& [j, unused] : run)
          other = other ||
                  (ops[j].part == op.part && ops[j].kind != K::kCompute && ops[j].kind != op.kind);
        rate = (op.kind == K::kLoad ? link.h2d : link.d2h) * (other ? f : 1.0);
      }
      double dt = -1;
      for (const auto& [i, rate] : run)
        if (dt < 0 || left[i] / rate < dt) dt = left[i] / rate;
      now += dt;
      for (const auto& [i, rate] : run) {
        left[i] -= rate * dt;
        if (left[i] <= 1e-9 * work[i]) {
          left[i] = 0;
          running[i] = 0;
          done[i] = 1;
          const std::size_t lane = overlap ? static_cast<std::size_t>(ops[i].kind) : 0;
          ++head[static_cast<std::size_t>(ops[i].part) * lanes + lane];
          --remaining;
        }
      }
    }
    begin = end + 1;  // past the barrier: every stream drained
  }
  return now;
}

/// A time no run of `sc` can beat, cheap to compute: per part, its bytes each way and both
/// ways at once at the link's speeds, and its kernels and device copies, each taken alone
/// (ooc_simulate plays the same work out, so it never predicts less). ooc_choose skips playing
/// out a plan this already rules out.
inline double ooc_lower_bound(const OocSchedule& sc, const OocLink& measured, Index steps) {
  const OocLink link = ooc_share(measured, sc.parts.size());
  const Index k = sc.steps_per_pass, full = steps / k, rest = steps % k;
  const double passes = static_cast<double>(ooc_passes(steps, sc.steps_per_pass));
  double worst = 0;
  for (const OocPart& p : sc.parts) {
    const double in = passes * static_cast<double>(p.h2d_bytes),
                 out = passes * static_cast<double>(p.d2h_bytes);
    double comp = 0;
    for (const OocChunk& c : p.chunks)
      for (const Index s : {k, rest}) {
        const double times = static_cast<double>(s == k ? full : 1);
        if (s == 0 || times == 0) continue;
        comp += times * ooc_compute_seconds(sc, c, s, link);
      }
    worst = std::max({worst, in / link.h2d, out / link.d2h,
                      (in + out) / std::max({link.bidir, link.h2d, link.d2h}), comp});
  }
  return worst;
}

/// The predicted wall time of a run: the pipeline played out (ooc_simulate). Replayed on the
/// H100 runs' logged inputs (bench/run.sh replay) it comes within -10% to +5% of the
/// measured times, where the closed form it replaced (the slowest stream plus filling and
/// draining) predicted the link-bound plans 9-19% fast: it missed the loads that wait for a
/// free buffer slot and the link both directions share. A run of many passes is played out
/// for its last short pass and four full ones before it, and every further full pass adds what
/// the fourth added (the pipeline repeats itself pass after pass), so that choosing among
/// hundreds of plans for a run of thousands of steps stays quick.
inline double ooc_predict(const OocSchedule& sc, const OocLink& measured, Index steps,
                          bool overlap) {
  const Index k = sc.steps_per_pass, full = steps / k, rest = steps % k;
  constexpr Index kPlayed = 4;
  if (full <= kPlayed) return ooc_simulate(sc, measured, steps, overlap);
  const double last = ooc_simulate(sc, measured, kPlayed * k + rest, overlap);
  const double before = ooc_simulate(sc, measured, (kPlayed - 1) * k + rest, overlap);
  return last + static_cast<double>(full - kPlayed) * (last - before);
}

/// The link bound of a run: max(in / h2d, out / d2h, (in + out) / bidir) over the bytes it
/// moves: no schedule moving these bytes can be faster.
inline double ooc_link_bound(double in, double out, const OocLink& link) {
  return std::max({in / link.h2d, out / link.d2h, (in + out) / link.bidir});
}

/// The link bound of a run on `parts` devices streaming at once, `in` and `out` summed over
/// them: each device at its share of the link (ooc_share), the bytes spread evenly.
inline double ooc_link_bound(double in, double out, const OocLink& link, std::size_t parts) {
  const double n = static_cast<double>(std::max<std::size_t>(parts, 1));
  return ooc_link_bound(in / n, out / n, ooc_share(link, parts));
}

/// The request's chunks and steps_per_pass, where 0 (auto), chosen by the model among those
/// whose largest part fits `budget` bytes: every k from 1 to 32 (at most `steps`) and, per k,
/// chunk counts from the fewest that fit to 8 times that. Each plan gets its lower bound
/// (ooc_lower_bound); they are played out (ooc_predict) from the lowest bound up until no bound
/// left is below the best predicted time, so only a few are. Throws PlanError naming what would
/// be needed when nothing fits, or when the given values do not.
inline OocSchedule ooc_choose(OocRequest r, Index budget, const OocLink& link, Index steps,
                              bool overlap) {
  const int s = r.grid.dims - 1;
  Index planes = Index{1} << 40;
  for (const Box& b : r.owned) planes = std::min(planes, b.extent(s));
  const int want_n = r.chunks, want_k = r.steps_per_pass;
  const int k_hi = want_k > 0 ? want_k : static_cast<int>(std::clamp<Index>(steps, 1, 32));
  bool have = false;
  OocSchedule best;
  double best_t = 0;
  std::string why, budget_why;  // why candidates were refused
  Index smallest = -1;
  struct Fit {
    double bound;  ///< ooc_lower_bound
    int k;
    Index n;
  };
  std::vector<Fit> fits;  // the plans that fit the budget
  for (int k = want_k > 0 ? want_k : 1; k <= k_hi; ++k) {
    r.steps_per_pass = k;
    const Index n_lo = want_n > 0 ? want_n : 1, n_hi = want_n > 0 ? want_n : planes;
    Index first_fit = 0;
    for (Index n = n_lo; n <= n_hi; ++n) {
      r.chunks = static_cast<int>(n);
      OocSchedule sc;
      try {
        sc = ooc_schedule(r);
      } catch (const PlanError& e) {
        why = e.what();
        // Thinner chunks only make it worse: the halo of k steps does not fit them either.
        if (why.find("owns only") != std::string::npos) break;
        continue;
      }
      if (budget > 0 && sc.device_bytes > budget) {
        if (smallest < 0 || sc.device_bytes < smallest) {
          smallest = sc.device_bytes;
          budget_why = "the smallest plan (" + std::to_string(n) + " chunk(s) of " +
                       std::to_string(k) + " step(s) per pass) needs " +
                       human_bytes(static_cast<double>(sc.device_bytes)) +
                       " of chunk buffers per device, more than the budget of " +
                       human_bytes(static_cast<double>(budget));
        }
        continue;
      }
      if (!first_fit) first_fit = n;
      fits.push_back({ooc_lower_bound(sc, link, steps), k, n});
      if (n >= first_fit * 8) break;
    }
  }
  // Played out from the most promising bound on, until no plan left can beat the best.
  std::stable_sort(fits.begin(), fits.end(),
                   [](const Fit& a, const Fit& b) { return a.bound < b.bound; });
  for (const Fit& f : fits) {
    if (have && f.bound >= best_t) break;
    r.steps_per_pass = f.k;
    r.chunks = static_cast<int>(f.n);
    OocSchedule sc = ooc_schedule(r);
    const double t = ooc_predict(sc, link, steps, overlap);
    if (!have || t < best_t) {
      best = std::move(sc);
      best_t = t;
      have = true;
    }
  }
  if (!have)
    throw PlanError("out-of-core: one chunk with its halos cannot fit: " +
                    (budget_why.empty()
                         ? why
                         : budget_why + "; give more --device-memory or fewer --steps-per-pass"));
  return best;
}

// ---------------------------------------------------------------------------------------------
// The report.

/// What an out-of-core run did, for the report.
struct OocStats {
  bool on = false;
  std::string reason;  ///< why it is on or off
  Index budget = 0;
  int chunks = 0, steps_per_pass = 0, buffers = 0;
  bool region_sharing = false, overlap = false, auto_chunks = false, auto_k = false;
  bool pinned = false;
  bool trapezoid = false;
  bool band_sharing = false;
  Index passes = 0;
  std::size_t h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;
  Index device_bytes = 0;
  OocLink link;
  double predicted_s = 0;
  double measured_s = 0;  ///< the time loop, loads to last store
  Index steps = 0;
  std::size_t parts = 1;  ///< devices streaming their parts at once (ranks, with MPI)
};

/// What one load, compute or store op (`op`, on chunk buffers `bufs`) moves and runs, whatever
/// the backend; the runners give their copies and the step, on the op's queue or stream, after
/// its waits. Load: every array's host window (ch.h2d) from its host array or, with several
/// parts, the part's own cells from it and the other parts' from their snapshots
/// (`snapshots[a]`, the boxes they held at the pass's start). Compute: ooc_compute, its
/// OocBuffer kNext and kStore being `next` (the next chunk's slot) and `bands` (the band
/// store). Store: each written array's own planes back to the host. Counts the bytes in
/// `stats`. `host_copy(buf, load, host, sub, to_device)` copies `sub` between buffer `buf`
/// (holding box `load`) and `host`; `device_copy(from, src, to, dst, what)` copies on the
/// device; `step(chunk, step, remaining)` as in ooc_compute.
template <class Buf, class HostCopy, class DeviceCopy, class Step>
void ooc_execute(const OocSchedule& sc, const OocOp& op, std::vector<Buf>& bufs,
                 std::vector<Buf>& next, std::vector<Buf>& bands,
                 const std::vector<HostArray>& host,
                 const std::vector<std::vector<HostArray>>& snapshots, OocStats& stats,
                 HostCopy&& host_copy, DeviceCopy&& device_copy, Step&& step) {
  using K = OocOp::Kind;
  const OocPart& part = sc.parts[static_cast<std::size_t>(op.part)];
  const OocChunk& ch = part.chunks[static_cast<std::size_t>(op.chunk)];
  if (op.kind == K::kLoad) {
    for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
      if (snapshots[a].empty()) {
        host_copy(bufs[a], ch.load, host[a], ch.h2d, true);
      } else {
        host_copy(bufs[a], ch.load, host[a], intersect(ch.h2d, part.owned), true);
        for (const HostArray& f : snapshots[a])
          host_copy(bufs[a], ch.load, f, intersect(ch.h2d, f.box), true);
      }
      stats.h2d_bytes += static_cast<std::size_t>(ch.h2d.volume()) * host[a].element_bytes;
    }
  } else if (op.kind == K::kCompute) {
    auto buffer = [&](OocBuffer b, std::size_t a) -> Buf& {
      return b == OocBuffer::kChunk ? bufs[a] : b == OocBuffer::kNext ? next[a] : bands[a];
    };
    ooc_compute(
        sc, op, stats.d2d_bytes,
        [&](std::size_t a, OocBuffer from, const RectCopy& src, OocBuffer into,
            const RectCopy& dst) {  // region and band sharing
          const bool band = from == OocBuffer::kStore || into == OocBuffer::kStore;
          device_copy(buffer(from, a), src, buffer(into, a), dst,
                      (band ? "band of " : "share ") + host[a].name);
        },
        step);
  } else if (op.kind == K::kStore) {
    for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
      if (!sc.arrays[a].written) continue;
      host_copy(bufs[a], ch.load, host[a], ch.own, false);
      stats.d2h_bytes += static_cast<std::size_t>(ch.own.volume()) * host[a].element_bytes;
    }
  }
}

inline void print_ooc_report(const OocStats& s, std::FILE* out) {
  if (!s.on) {
    std::fprintf(out, "out-of-core: off (%s)\n", s.reason.c_str());
    return;
  }
  std::fprintf(out, "out-of-core: on (%s)\n", s.reason.c_str());
  std::fprintf(
      out,
      "  %d chunk(s)%s, %d step(s) per pass%s, %" PRId64
      " pass(es), region sharing %s, overlap %s, trapezoid %s, band sharing %s, %d buffer slots, "
      "%s of chunk buffers per device, host arrays %s\n",
      s.chunks, s.auto_chunks ? " (model)" : "", s.steps_per_pass, s.auto_k ? " (model)" : "",
      s.passes, s.region_sharing ? "on" : "off", s.overlap ? "on" : "off",
      s.trapezoid ? "on" : "off", s.band_sharing ? "on" : "off", s.buffers,
      human_bytes(static_cast<double>(s.device_bytes)).c_str(), s.pinned ? "pinned" : "pageable");
  std::fprintf(out, "  moved: host->device %s, device->host %s, device->device %s\n",
               human_bytes(static_cast<double>(s.h2d_bytes)).c_str(),
               human_bytes(static_cast<double>(s.d2h_bytes)).c_str(),
               human_bytes(static_cast<double>(s.d2d_bytes)).c_str());
  std::fprintf(out,
               "  link (%s): h2d %.2f GB/s, d2h %.2f GB/s, bidirectional %.2f GB/s; kernels %.3f "
               "ns per cell-step; device copies %.1f GB/s\n",
               s.link.measured ? "measured at start-up" : "assumed", s.link.h2d / 1e9,
               s.link.d2h / 1e9, s.link.bidir / 1e9, s.link.cell_step * 1e9, s.link.d2d / 1e9);
  if (s.link.devices_all > 1)
    std::fprintf(out,
                 "  link, %d devices streaming at once (summed): h2d %.2f GB/s, d2h %.2f GB/s, "
                 "bidirectional %.2f GB/s\n",
                 s.link.devices_all, s.link.h2d_all / 1e9, s.link.d2h_all / 1e9,
                 s.link.bidir_all / 1e9);
  std::fprintf(out, "  calibration: %s\n", link_figures_text(s.link).c_str());
  const double bound = ooc_link_bound(static_cast<double>(s.h2d_bytes),
                                      static_cast<double>(s.d2h_bytes), s.link, s.parts);
  std::fprintf(out,
               "  predicted %.6f s, measured %.6f s (%.3f ms/step, %.3f s/pass); link bound %.6f "
               "s (%.0f%% of it reached)\n",
               s.predicted_s, s.measured_s,
               s.steps ? 1e3 * s.measured_s / static_cast<double>(s.steps) : 0.0,
               s.passes ? s.measured_s / static_cast<double>(s.passes) : 0.0, bound,
               s.measured_s > 0 ? 100 * bound / s.measured_s : 0.0);
}

}  // namespace stepgen::rt

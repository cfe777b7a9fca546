#pragma once
/// \file
/// Out of core, the schedule: a request (grid, parts, halos, arrays, chunks and steps per pass)
/// turned into every part's chunks and their boxes (load window, own planes, what comes from
/// the host and what is shared on the device), and band sharing's bands. Standard library only.

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/chunk.hpp"

namespace stepgen::rt::ooc {

struct Array {
  std::string name;
  Index element_bytes = 0;
  bool written = false;  ///< some member of its swap/rotate group is written: stored each pass
};

struct Request {
  Box grid;
  std::vector<Box> owned;   ///< per part
  Vec3 shrink_lo{0, 0, 0};  ///< one time step's validity shrink below, per dimension
  Vec3 shrink_hi{0, 0, 0};  ///< ... and above
  std::vector<Array> arrays;
  int chunks = 1;
  int steps_per_pass = 1;
  bool region_sharing = true;
  int buffers = 3;
  /// Kernel launches in one time step (the model charges each the per-command latency).
  int launches = 1;
  /// The program computes only the planes a step still needs (needed_planes): a
  /// trapezoid over a pass, not the whole load window every step. For the model.
  bool trapezoid = false;
  /// With the trapezoid and region sharing: every chunk after a part's first computes, at each
  /// step, only planes no earlier chunk computed (a parallelogram: its own planes shifted up
  /// by the steps still to come), and takes the band of planes below them, as the previous
  /// chunk had it at that step, from that chunk through a device-side band store
  /// (band). No cell is computed twice in a pass, and the load window shrinks to the
  /// chunk's own planes plus one step's halo below and k steps' above.
  bool band_sharing = false;
  /// The end of a step's work (reductions, until, monitor: monitor.hpp) runs at pass
  /// boundaries: the steps per pass must divide `every` (0: any), and with `pass_barriers`
  /// every pass ends with a barrier, also with one part.
  Index every = 0;
  /// What `every` is made of, for messages ("" : the steps between reductions).
  std::string every_why;
  bool pass_barriers = false;
  /// Each part's commands are issued by a thread of its own (MPI: a rank per part), not all
  /// parts' by one thread (one process, several devices). For the model's host (model.hpp).
  bool host_per_part = false;
  // --- <boundary> frames out of core (docs/decisions/0006-boundary-frames-out-of-core.md) ---
  /// The dimensions with a boundary frame (some array has a <boundary> there): the parts'
  /// reach and the chunks' loads go on past the grid's edge there, `k * shrink` cells, and the
  /// cells past it come from frame snapshots composed on the host at each pass boundary
  /// (ooc/frames.hpp), every pass ending with a barrier.
  std::array<bool, 3> frame{false, false, false};
  /// The frame dimensions where every rule is mirror, copy or value(v): the chunks
  /// refill those frames on the device after every launch that writes them (rt::ChunkRun::
  /// refill), so a pass reads no further past the edge there than one step does: the grid's
  /// edge is a fixed edge for the window and the trapezoid, the frame `shrink` cells wide.
  std::array<bool, 3> frame_refilled{false, false, false};
  /// The frame dimensions where the chunks refill the periodic frames of written arrays too,
  /// from the far side of the grid, which every chunk's window holds there (frame_request,
  /// ooc/frames.hpp: a periodic array beside a mirror, copy or value(v) one along a dimension
  /// the chunks and parts span whole). Implies frame_refilled.
  std::array<bool, 3> periodic_refilled{false, false, false};
  /// At most this many steps per pass (0: any), and why: a pass of several steps would need
  /// periodic images the kernels cannot compute (frame_request).
  int max_steps_per_pass = 0;
  std::string max_steps_why;
  /// Per dimension, a launch that reads past the grid's edge an array periodic there which an
  /// earlier launch of the step wrote ("" where none: the generator's ProgramPlan). Where the
  /// chunks cannot refill that frame from the far side, out of core refuses (frame_request).
  std::array<std::string, 3> frame_read_after_write;
  // --- end of <boundary> frames -------------------------------------------------------------
};

/// One chunk of a part. Boxes are in global coordinates.
struct Chunk {
  int id = 0;
  Index own_lo = 0, own_hi = 0;  ///< planes it finalises each pass
  Box load;    ///< its device buffer: own planes + k * halo around, inside the part's reach
  Box own;     ///< stored back each pass (written arrays): the part's owned cells in own planes
  Box h2d;     ///< sent from the host each pass: `load` minus `shared`
  Box shared;  ///< copied on the device from the previous chunk's buffer (empty if none)
};

struct Part {
  Box owned;
  Box reach;                 ///< owned grown by k * shrink, clipped at the grid
  std::vector<Box> foreign;  ///< reach minus owned: read from other parts' results
  std::vector<Chunk> chunks;
  Index buffer_cells = 0;  ///< the largest load: each buffer's size in elements
  Index h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;  ///< per pass, all arrays
  Index device_bytes = 0;  ///< buffers * buffer_cells * sum of element bytes
};

struct Schedule {
  int dims = 1;
  int chunks = 1;
  int steps_per_pass = 1;
  bool region_sharing = true;
  int buffers = 3;
  int launches = 1;            ///< see Request
  bool trapezoid = false;      ///< see Request
  bool band_sharing = false;   ///< see Request
  bool pass_barriers = false;  ///< see Request
  bool host_per_part = false;  ///< see Request
  Index band_cells = 0;        ///< each part's band store, all k bands, per array (elements)
  Vec3 shrink_lo{0, 0, 0}, shrink_hi{0, 0, 0};
  std::vector<Array> arrays;
  std::vector<Part> parts;
  Index h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;  ///< per pass, all parts
  Index h2d_bytes_without_sharing = 0;
  Index device_bytes = 0;  ///< the largest part's
  // <boundary> frames: the grid, and the grid with its frames (the cells a part's
  // reach may hold: `grid` grown by k * shrink in Request::frame's dimensions).
  Box grid, framed;
  bool has_frame = false;
  std::string max_steps_why;  ///< Request::max_steps_why where that limit applies ("": none)
};

/// Band sharing (Request::band_sharing): the planes of array `array` that chunk `c` (not a
/// part's first) takes from the previous chunk before step `j` of a pass of `steps` steps:
/// from one step's read halo below where its computation starts at that step (its own first
/// plane shifted up by the remaining steps' upper halos) to one upper halo above it, and at
/// the first step up to where its data from the host starts. An array no launch writes (the
/// same at every step: not `written`) takes all of that at the first step, from as low as the
/// pass's last step reads, and nothing after. Clipped to the chunk's load window.
/// (A written array takes every band whole, every plane of it: the cells its kernels never
/// write, a kernel's rim at the grid's edges, must reach every buffer, and which cells those
/// are only the kernel knows.)
inline Box band(const Schedule& sc, const Chunk& c, Index steps, Index j, std::size_t array) {
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
/// the other. `band_store_plane(sc, k)` is the store's whole size.
inline Index band_store_plane(const Schedule& sc, Index j) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  const Index a = sc.shrink_lo[s], b = sc.shrink_hi[s];
  return j == 0 ? 0 : a + sc.steps_per_pass * b + (j - 1) * (a + b);
}

/// Band `band` (band, of step `j`) as its cells sit in the band store: the store seen as a
/// box of the band's cross-section whose planes start at band j's place in it
/// (band_store_plane). rect_of(band, band_store_box(...)) addresses the band there.
inline Box band_store_box(const Schedule& sc, const Box& band, Index j) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  Index plane = 1;  // the cross-section's cells (the band may hold no plane)
  for (int d = 0; d + 1 < sc.dims; ++d) plane *= band.extent(d);
  Box where = band;
  where.lo[s] = band.lo[s] - band_store_plane(sc, j);
  where.hi[s] = where.lo[s] + sc.band_cells / plane;
  return where;
}

/// Where a launch of step `j` (of `steps`) starts computing on chunk `c` with band sharing, as
/// the low side of the owned box to give needed_planes: the chunk's own first plane
/// shifted up by the remaining steps' halos below and above (needed_planes takes the
/// halos below off again). The chunk passed to a step carries it (OocRunner).
inline Index band_owned_lo(const Schedule& sc, const Chunk& c, Index steps, Index j) {
  const auto s = static_cast<std::size_t>(sc.dims - 1);
  return c.own_lo + (steps - 1 - j) * (sc.shrink_lo[s] + sc.shrink_hi[s]);
}

/// The bytes band sharing copies on the device for chunk `c` in a pass of `steps` steps, all
/// arrays: every band once into the store and once out of it (0 for a part's first chunk, or
/// without band sharing).
inline Index band_copy_bytes(const Schedule& sc, const Chunk& c, Index steps) {
  if (!sc.band_sharing || c.id == 0) return 0;
  Index bytes = 0;
  for (std::size_t a = 0; a < sc.arrays.size(); ++a)
    for (Index j = 0; j < steps; ++j)
      bytes += 2 * band(sc, c, steps, j, a).volume() * sc.arrays[a].element_bytes;
  return bytes;
}

/// Builds the schedule. Throws PlanError when a part has fewer planes than chunks, or when a
/// chunk owns fewer planes than k steps' halo (its neighbours' loads would reach past it).
Schedule schedule(const Request& r);

inline Schedule schedule(const Request& r) {
  const int dims = r.grid.dims;
  const auto s = static_cast<std::size_t>(dims - 1);  // the slowest dimension: whole planes
  const Index k = r.steps_per_pass;
  if (k < 1) throw PlanError("steps per pass must be at least 1");
  if (r.buffers < 3) throw PlanError("out-of-core needs at least 3 buffer slots per array");
  Schedule out;
  out.dims = dims;
  out.chunks = r.chunks;
  out.steps_per_pass = r.steps_per_pass;
  out.region_sharing = r.region_sharing;
  out.buffers = r.buffers;
  out.launches = r.launches;
  out.trapezoid = r.trapezoid;
  out.pass_barriers = r.pass_barriers;
  out.host_per_part = r.host_per_part;
  // At k = 1 a chunk computes only its own planes anyway: the bands would save nothing.
  out.band_sharing = r.band_sharing && r.trapezoid && r.region_sharing && r.steps_per_pass > 1;
  out.shrink_lo = r.shrink_lo;
  out.shrink_hi = r.shrink_hi;
  out.arrays = r.arrays;
  // <boundary> frames: past the grid's edge in the frame dimensions, as far as a
  // pass reads (k steps' shrink; one step's where the chunks refill them: frame_refilled);
  // every pass ends with a barrier (the frames' snapshots).
  out.grid = out.framed = r.grid;
  for (std::size_t d = 0; d < 3; ++d)
    if (r.frame[d] && static_cast<int>(d) < dims) {
      const Index steps = r.frame_refilled[d] ? 1 : k;
      out.framed.lo[d] -= r.shrink_lo[d] * steps;
      out.framed.hi[d] += r.shrink_hi[d] * steps;
      out.has_frame = true;
    }
  if (out.has_frame) out.pass_barriers = true;
  if (r.max_steps_per_pass > 0) out.max_steps_why = r.max_steps_why;
  Index elem_sum = 0;
  for (const Array& a : r.arrays) elem_sum += a.element_bytes;
  for (std::size_t p = 0; p < r.owned.size(); ++p) {
    Part part;
    part.owned = r.owned[p];
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] = r.shrink_lo[d] * k;
      hi[d] = r.shrink_hi[d] * k;
    }
    part.reach = intersect(part.owned.grown(lo, hi), out.framed);
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
    cr.pad_lo = r.grid.lo[s] - out.framed.lo[s];  // <boundary> frames: loads go past the edge
    cr.pad_hi = out.framed.hi[s] - r.grid.hi[s];
    const ChunkPlan plan = chunk_plan(cr);
    const Index need = std::max(r.shrink_lo[s], r.shrink_hi[s]) * k;
    const std::string who = r.owned.size() > 1 ? "part " + std::to_string(p) + "'s " : "";
    for (const rt::Chunk& ch : plan.chunks) {
      if (plan.chunks.size() > 1 && ch.own_hi - ch.own_lo < need)
        throw PlanError(std::to_string(k) + " steps per pass reach " + std::to_string(need) +
                        " planes beyond a chunk (halo " +
                        std::to_string(std::max(r.shrink_lo[s], r.shrink_hi[s])) +
                        " per step), but " + who + "chunk " + std::to_string(ch.id) + " of " +
                        std::to_string(plan.chunks.size()) + " owns only " +
                        std::to_string(ch.own_hi - ch.own_lo) +
                        " planes; use fewer chunks or fewer steps per pass");
      Chunk c;
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
      if (cr.pad_lo > 0 || cr.pad_hi > 0)  // <boundary> frames: the frame planes from the host
        c.h2d = planes(part.reach, ch.shared_hi, ch.load_hi);  // (its snapshots) too
      if (out.band_sharing && ch.id > 0) {
        // One step's halo below its own planes (the band of a one-step last pass reaches
        // that low), k steps' above; the host sends what lies above the first band.
        const Index a = r.shrink_lo[s], b = r.shrink_hi[s];
        c.load = intersect(planes(part.reach, ch.own_lo - a, ch.own_hi + k * b), c.load);
        c.h2d = intersect(planes(part.reach, ch.own_lo + k * b, ch.own_hi + k * b), c.load);
        c.shared = planes(part.reach, ch.own_lo, ch.own_lo);  // none: the bands replace it
      }
      part.d2d_bytes += band_copy_bytes(out, c, k);  // through the band store
      part.buffer_cells = std::max(part.buffer_cells, c.load.volume());
      for (const Array& a : r.arrays) {
        part.h2d_bytes += c.h2d.volume() * a.element_bytes;
        part.d2d_bytes += c.shared.volume() * a.element_bytes;
        if (a.written) part.d2h_bytes += c.own.volume() * a.element_bytes;
        out.h2d_bytes_without_sharing += c.load.volume() * a.element_bytes;
      }
      part.chunks.push_back(c);
    }
    if (out.band_sharing && plan.chunks.size() > 1) {
      const Index plane = part.reach.volume() / std::max<Index>(part.reach.extent(dims - 1), 1);
      out.band_cells = std::max(out.band_cells, plane * band_store_plane(out, k));
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

}  // namespace stepgen::rt::ooc

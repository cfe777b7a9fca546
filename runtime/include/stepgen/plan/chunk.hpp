#pragma once
/// \file
/// Out-of-core chunk plans (PACC, Miki et al. 2016; extended PACC, Shen et al. 2020): a part
/// too large for device memory is streamed in chunks of planes along its slowest dimension.
/// Each pass runs k = steps_per_pass steps on a chunk (temporal blocking with overlapped
/// tiling), so a chunk carries halo*k extra planes on each side, clipped at the domain. With
/// region sharing, a chunk receives only its remnant from the host; the planes it shares with
/// the previous chunk come from a device-side copy of that chunk's buffer (taken from its
/// input, before its kernels overwrite it).
///
/// Padding: an array may be stored with `pad_lo`/`pad_hi` boundary planes around the computed
/// domain (fixed boundary values the kernel reads but never computes). Loads are clipped at the
/// padded array, so a chunk at the domain's edge loads min(halo*k, pad) planes beyond it.
/// Without region sharing each chunk copies its whole load window from the host, padding
/// included. With region sharing the padding, constant for the whole run, is uploaded once at
/// start-up into a small resident buffer (h2d_planes_once) and copied on the device into the
/// edge chunks like any other shared plane; per-pass host transfers are then exactly the
/// domain's planes. This is how extended PACC's §6.3 figures come out (1840 vs 1160 planes):
/// see docs/plan.md.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

struct ChunkArray {
  Index bytes_per_plane = 0;  ///< element bytes * cells in one plane of the part
  bool read_only = false;     ///< sent to the device, never written back
};

struct ChunkRequest {
  Index plane_lo = 0;       ///< first plane of the part (global index)
  Index plane_hi = 0;       ///< one past its last plane
  Index domain_planes = 0;  ///< planes in the whole domain (for clipping at its edges)
  Index halo_lo = 0;        ///< planes read below per step (slowest dimension)
  Index halo_hi = 0;        ///< planes read above per step
  Index pad_lo = 0;         ///< fixed boundary planes stored below plane 0 (read, never computed)
  Index pad_hi = 0;         ///< ... and above plane domain_planes - 1
  int chunks = 1;           ///< number of chunks (>= 1)
  int steps_per_pass = 1;   ///< k
  bool region_sharing = true;
  int buffers_per_array = 3;  ///< device buffers per array: upload, compute, download in flight
  std::vector<ChunkArray> arrays;
};

struct Chunk {
  int id = 0;
  Index own_lo = 0, own_hi = 0;        ///< planes this chunk finalises each pass
  Index load_lo = 0, load_hi = 0;      ///< planes on the device: own +- halo*k, clipped
  Index h2d_lo = 0, h2d_hi = 0;        ///< planes sent from the host (remnant when sharing)
  Index shared_lo = 0, shared_hi = 0;  ///< planes copied on the device from the previous chunk
  Index pad_planes = 0;                ///< padding planes copied from the resident buffer
  Index halo_planes() const { return (load_hi - load_lo) - (own_hi - own_lo); }
  Index load_planes() const { return load_hi - load_lo; }
};

struct ChunkPlan {
  std::vector<Chunk> chunks;
  Index max_load_planes = 0;        ///< device buffer size per array, in planes
  std::vector<Index> buffer_bytes;  ///< one device buffer of each array, in request order
  Index h2d_planes_per_pass = 0;    ///< with the plan's own region_sharing setting
  Index h2d_planes_without_sharing = 0;
  Index d2d_planes_per_pass = 0;
  Index d2h_planes_per_pass = 0;  ///< own planes written back (written arrays only)
  Index h2d_planes_once = 0;      ///< padding uploaded once per run (region sharing only)
  // Bytes per pass, summed over arrays (read-only arrays are not written back).
  Index h2d_bytes_per_pass = 0;
  Index h2d_bytes_without_sharing = 0;
  Index d2h_bytes_per_pass = 0;
  Index d2d_bytes_per_pass = 0;
  Index h2d_bytes_once = 0;
  /// Device memory: sum over arrays of buffers_per_array * max_load_planes * bytes_per_plane,
  /// plus the resident padding buffer ((pad_lo + pad_hi) * bytes_per_plane) when sharing.
  Index device_bytes = 0;
};

/// Builds the plan. Throws PlanError on a request that cannot be planned (no planes, more
/// chunks than planes, k < 1, ...). Overlapped tiling needs no minimum chunk thickness: a chunk
/// thinner than halo*k simply loads (and, when sharing, copies) more than it owns.
ChunkPlan chunk_plan(const ChunkRequest& request);

// ---------------------------------------------------------------------------------------------
// Implementation (inline: the generated programs include this header and nothing else).

inline ChunkPlan chunk_plan(const ChunkRequest& r) {
  const Index planes = r.plane_hi - r.plane_lo;
  if (planes < 1)
    throw PlanError("the part has no planes to stream (planes " + std::to_string(r.plane_lo) +
                    " to " + std::to_string(r.plane_hi) + ")");
  if (r.plane_lo < 0 || r.plane_hi > r.domain_planes)
    throw PlanError("the part's planes [" + std::to_string(r.plane_lo) + "," +
                    std::to_string(r.plane_hi) + ") are outside the domain's " +
                    std::to_string(r.domain_planes));
  if (r.chunks < 1) throw PlanError("the number of chunks must be at least 1");
  if (r.chunks > planes)
    throw PlanError("at most " + std::to_string(planes) + " chunks can be used: the part has " +
                    std::to_string(planes) + " planes along its slowest dimension, not " +
                    std::to_string(r.chunks));
  if (r.steps_per_pass < 1) throw PlanError("steps per pass must be at least 1");
  if (r.halo_lo < 0 || r.halo_hi < 0 || r.pad_lo < 0 || r.pad_hi < 0)
    throw PlanError("negative halo or padding in the chunk request");
  if (r.buffers_per_array < 1) throw PlanError("at least one buffer per array is needed");

  ChunkPlan plan;
  const Index k = r.steps_per_pass;
  const Index floor_lo = -r.pad_lo, ceil_hi = r.domain_planes + r.pad_hi;
  const Index base = planes / r.chunks, spare = planes % r.chunks;  // spare to the first ones
  Index at = r.plane_lo;
  for (int c = 0; c < r.chunks; ++c) {
    Chunk ch;
    ch.id = c;
    ch.own_lo = at;
    ch.own_hi = at + base + (c < spare ? 1 : 0);
    at = ch.own_hi;
    ch.load_lo = std::max(floor_lo, ch.own_lo - r.halo_lo * k);
    ch.load_hi = std::min(ceil_hi, ch.own_hi + r.halo_hi * k);
    ch.shared_lo = ch.shared_hi = ch.load_lo;
    Index rest_lo = ch.load_lo;
    if (r.region_sharing && c > 0) {
      const Chunk& prev = plan.chunks.back();
      ch.shared_hi = std::max(ch.load_lo, std::min(prev.load_hi, ch.load_hi));
      rest_lo = ch.shared_hi;
    }
    if (r.region_sharing) {
      // The remnant's planes inside the domain come from the host; its padding from the
      // resident buffer.
      ch.h2d_lo = std::max<Index>(rest_lo, 0);
      ch.h2d_hi = std::max(ch.h2d_lo, std::min(ch.load_hi, r.domain_planes));
      ch.pad_planes = (ch.load_hi - rest_lo) - (ch.h2d_hi - ch.h2d_lo);
    } else {
      ch.h2d_lo = ch.load_lo;
      ch.h2d_hi = ch.load_hi;
    }
    plan.max_load_planes = std::max(plan.max_load_planes, ch.load_planes());
    plan.h2d_planes_per_pass += ch.h2d_hi - ch.h2d_lo;
    plan.h2d_planes_without_sharing += ch.load_planes();
    plan.d2d_planes_per_pass += (ch.shared_hi - ch.shared_lo) + ch.pad_planes;
    plan.d2h_planes_per_pass += ch.own_hi - ch.own_lo;
    plan.chunks.push_back(ch);
  }
  if (r.region_sharing) plan.h2d_planes_once = r.pad_lo + r.pad_hi;
  for (const ChunkArray& a : r.arrays) {
    plan.h2d_bytes_per_pass += plan.h2d_planes_per_pass * a.bytes_per_plane;
    plan.h2d_bytes_without_sharing += plan.h2d_planes_without_sharing * a.bytes_per_plane;
    plan.d2d_bytes_per_pass += plan.d2d_planes_per_pass * a.bytes_per_plane;
    if (!a.read_only) plan.d2h_bytes_per_pass += plan.d2h_planes_per_pass * a.bytes_per_plane;
    plan.h2d_bytes_once += plan.h2d_planes_once * a.bytes_per_plane;
    plan.buffer_bytes.push_back(plan.max_load_planes * a.bytes_per_plane);
    plan.device_bytes += r.buffers_per_array * plan.max_load_planes * a.bytes_per_plane +
                         plan.h2d_planes_once * a.bytes_per_plane;
  }
  return plan;
}

}  // namespace stepgen::rt

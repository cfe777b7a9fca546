#pragma once
/// \file
/// Out of core, the runner's backend-neutral part: what one command of the pipeline moves and
/// runs (execute). Standard library only.

#include <cstddef>
#include <string>
#include <vector>

#include "stepgen/box.hpp"
#include "stepgen/ooc/pipeline.hpp"
#include "stepgen/ooc/report.hpp"
#include "stepgen/ooc/schedule.hpp"
#include "stepgen/program.hpp"

namespace stepgen::rt::ooc {

/// What one load, compute or store op (`op`, on chunk buffers `bufs`) moves and runs, whatever
/// the backend; the runners give their copies and the step, on the op's queue or stream, after
/// its waits. Load: every array's host window (ch.h2d) from its host array or, with several
/// parts, the part's own cells from it and the other parts' from their snapshots
/// (`snapshots[a]`, the boxes they held at the pass's start). Compute: compute, its
/// Buffer kNext and kStore being `next` (the next chunk's slot) and `bands` (the band
/// store). Store: each written array's own planes back to the host. Counts the bytes in
/// `stats`. `host_copy(buf, load, host, sub, to_device)` copies `sub` between buffer `buf`
/// (holding box `load`) and `host`; `device_copy(from, src, to, dst, what)` copies on the
/// device; `step(chunk, step, remaining)` as in compute.
template <class Buf, class HostCopy, class DeviceCopy, class Step>
void execute(const Schedule& sc, const Op& op, std::vector<Buf>& bufs, std::vector<Buf>& next,
             std::vector<Buf>& bands, const std::vector<HostArray>& host,
             const std::vector<std::vector<HostArray>>& snapshots, Stats& stats,
             HostCopy&& host_copy, DeviceCopy&& device_copy, Step&& step) {
  using K = Op::Kind;
  const Part& part = sc.parts[static_cast<std::size_t>(op.part)];
  const Chunk& ch = part.chunks[static_cast<std::size_t>(op.chunk)];
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
    auto buffer = [&](Buffer b, std::size_t a) -> Buf& {
      return b == Buffer::kChunk ? bufs[a] : b == Buffer::kNext ? next[a] : bands[a];
    };
    compute(
        sc, op, stats.d2d_bytes,
        [&](std::size_t a, Buffer from, const RectCopy& src, Buffer into,
            const RectCopy& dst) {  // region and band sharing
          const bool band = from == Buffer::kStore || into == Buffer::kStore;
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

}  // namespace stepgen::rt::ooc

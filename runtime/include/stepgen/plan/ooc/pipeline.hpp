#pragma once
/// \file
/// Out of core, the pipeline: the order in which a backend issues loads, kernels and stores
/// (ops), what one compute command does (compute), and the planes a launch on a chunk still
/// has to compute (the trapezoid: needed_planes, view). Standard library only.

#include <algorithm>
#include <utility>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt::ooc {

/// One command of the pipeline, issued on its own stream: loads on the copy-in stream, kernels
/// (preceded, with region sharing, by the device-side copy of the planes the next chunk shares)
/// on the compute stream, stores on the copy-out stream. `t` numbers a part's chunk visits over
/// the whole run (pass * chunks + chunk); the slot is t % buffers. Before it runs, a command
/// waits for the events of `waits` (same part); it records its own event when done.
struct Op {
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
inline Index passes(Index steps, int k) {
  return (steps + k - 1) / k;
}

/// The whole run's commands in issue order. With one part the pipeline runs on across passes
/// (a load of the next pass waits only for the stores of the planes it reads); with several,
/// a kBarrier ends every pass (all streams drained, then the foreign cells are snapshot).
inline std::vector<Op> ops(const Schedule& sc, Index steps) {
  using K = Op::Kind;
  std::vector<Op> ops;
  const Index k = sc.steps_per_pass;
  const Index passes = ooc::passes(steps, sc.steps_per_pass);
  const Index n = sc.chunks;
  const int parts = static_cast<int>(sc.parts.size());
  const Index total = passes * n;
  const Index B = sc.buffers;
  auto op = [&](K kind, int part, Index t) {
    Op o;
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
    Op o = op(K::kLoad, part, t);
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
    Op o = op(K::kCompute, part, t);
    o.first_step = o.pass * k;
    o.steps = std::min<Index>(k, steps - o.first_step);
    o.waits.push_back({K::kLoad, t});
    o.share_next = sc.region_sharing && o.chunk + 1 < n;
    if (o.share_next && t + 1 - B >= 0) o.waits.push_back({K::kStore, t + 1 - B});
    ops.push_back(o);
  };
  auto store = [&](int part, Index t) {
    Op o = op(K::kStore, part, t);
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
    if (new_pass && (parts > 1 || sc.pass_barriers)) {
      Op b = op(K::kBarrier, 0, t);
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

/// The buffers a compute command copies between on the device (compute): the chunk's own,
/// the next chunk's (its buffer slot) and the part's band store.
enum class Buffer { kChunk, kNext, kStore };

/// What one compute command (`op`) does, in order, whatever the backend; the runners give a
/// device copy and the step, both on the compute queue. `copy(a, from, src, to, dst)` copies
/// array a's cells `src` of buffer `from` to `dst` of buffer `to`. With region sharing
/// (`op.share_next`), first the next chunk's shared planes into its buffers. Then, for each step
/// j of the command, with band sharing: band j from the band store into this chunk's buffers
/// (not a part's first chunk), and the chunk starts higher (band_owned_lo); the next
/// chunk's band j from this chunk's buffers into the store; then `step(chunk, step,
/// remaining)`: the body once on the chunk seen as a part (ghost box: its load window),
/// `remaining` the steps of the pass after this one with the trapezoid, -1 without. Adds the
/// bytes copied on the device to `d2d_bytes`.
template <class Copy, class Step>
void compute(const Schedule& sc, const Op& op, std::size_t& d2d_bytes, Copy&& copy, Step&& step) {
  using B = Buffer;
  const Part& part = sc.parts[static_cast<std::size_t>(op.part)];
  const auto c = static_cast<std::size_t>(op.chunk);
  const Chunk& ch = part.chunks[c];
  const Chunk* next = c + 1 < part.chunks.size() ? &part.chunks[c + 1] : nullptr;
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
  rt::Part chunk;
  chunk.id = op.part;
  chunk.owned = ch.own;
  chunk.ghost = ch.load;
  const bool bands = sc.band_sharing && part.chunks.size() > 1;
  const auto axis = static_cast<std::size_t>(sc.dims - 1);
  for (Index j = 0; j < op.steps; ++j) {
    if (bands && c > 0) {
      for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
        const Box b = band(sc, ch, op.steps, j, a);
        copy_one(a, b, B::kStore, band_store_box(sc, b, j), B::kChunk, ch.load);
      }
      chunk.owned.lo[axis] = band_owned_lo(sc, ch, op.steps, j);
    }
    if (bands && next)
      for (std::size_t a = 0; a < sc.arrays.size(); ++a) {
        const Box b = band(sc, *next, op.steps, j, a);
        copy_one(a, b, B::kChunk, ch.load, B::kStore, band_store_box(sc, b, j));
      }
    step(static_cast<const rt::Part&>(chunk), op.first_step + j,
         sc.trapezoid ? op.steps - 1 - j : Index{-1});
  }
}

/// The planes along the slowest dimension (`axis`) that a launch must compute on a chunk
/// whose buffer holds `chunk.ghost`, as [begin, end) work-item indices of the buffer: the
/// chunk's own planes grown by what is still read of them: `remaining` more steps of this
/// pass (each reading `shrink_lo` below and `shrink_hi` above) and, within this step, the
/// launches after this one (`after_lo`, `after_hi`: the sum of their widest read halos).
/// Outside it, a cell's value is never read again in the pass, so leaving it stale changes no
/// result: over a pass the computed planes form a trapezoid instead of the whole load window
/// every step. Widened to whole work-groups of `group` items along `axis`.
inline std::pair<Index, Index> needed_planes(const rt::Part& chunk, int axis, Index remaining,
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
/// kernel on a slab) so that it computes the planes needed_planes says are still read: those
/// planes grown by the launch's own read halo (`reach_lo`, `reach_hi` along `axis`), which the
/// kernel leaves alone at a view's rim, clipped to the buffer. The rim cells it leaves are
/// either outside the buffer's computed window anyway or never read again in the pass.
inline Box view(const rt::Part& chunk, int axis, Index remaining, Index shrink_lo, Index shrink_hi,
                Index after_lo, Index after_hi, Index reach_lo, Index reach_hi) {
  const auto a = static_cast<std::size_t>(axis);
  const auto [begin, end] =
      needed_planes(chunk, axis, remaining, shrink_lo, shrink_hi, after_lo, after_hi, 1);
  Box view = chunk.ghost;
  view.lo[a] = std::max(chunk.ghost.lo[a], chunk.ghost.lo[a] + begin - reach_lo);
  view.hi[a] = std::min(chunk.ghost.hi[a], chunk.ghost.lo[a] + end + reach_hi);
  return view;
}

}  // namespace stepgen::rt::ooc

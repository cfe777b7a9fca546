#pragma once
/// \file
/// Out of core, one time step on one chunk (rt::ChunkRun over rt::ChunkRule): the generated
/// time step's calls on a chunk's buffers (ooc.hpp runs them; engine.hpp has the in-core run).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/problem.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// How the chunks of an out-of-core run compute (ooc.hpp): the planes a step costs a chunk's
/// window (the step's read halos, widened where the probe found kernel rims wider than them),
/// whether a launch computes only the planes still read (the trapezoid), and the kernels' rims
/// as the probe measured them (how each kernel runs on views).
struct ChunkRule {
  Vec3 shrink_lo{0, 0, 0}, shrink_hi{0, 0, 0};
  bool trapezoid = false;
  const Probed* probed = nullptr;
  int dims = 1;
  Monitor* monitor = nullptr;  ///< the run's reductions (nullptr: none)
  /// Reduction i's B::reduce_box for its element type (ReduceBox<B>: kReduceBoxes), as void*.
  const void* reduce_boxes = nullptr;
  /// <boundary> rules and the grid (inject's images in the frames; none: no boundaries).
  const BoundaryRule* boundaries = nullptr;
  int boundary_count = 0;
  Box grid{};
  /// The arrays (names, element sizes: ChunkRun::refill's copies; nullptr: no mirror, copy or
  /// value(v) frame to refill), and where periodic frames are refilled too (Request's).
  const ArrayInfo* arrays = nullptr;
  std::array<bool, 3> periodic_refilled{false, false, false};
};

/// One time step on one chunk, out of core: the same time-step body as in core (the generated
/// time_step), its calls carried out on the chunk's buffers as if the chunk were a part whose
/// ghost box is `chunk.ghost`. A launch computes the planes still read (`remaining` steps of
/// the pass after this one and the launches after it in the step: its launch table entry's
/// after_lo/after_hi; the backend's B::chunk_launch makes the slab or view); exchanges are
/// nothing (the chunk's window holds the cells it reads); swap/rotate rename the buffers.
template <class B>
class ChunkRun {
 public:
  using Device = typename B::Device;
  using Buffer = typename B::Buffer;
  using LaunchFn = void (*)(const typename B::Launch&);
  using Ids = std::initializer_list<int>;

  /// `remaining`: the steps of the pass after this one with the trapezoid; negative: every
  /// launch computes the chunk's whole buffer.
  ChunkRun(const ChunkRule& rule, const Device& d, const typename B::Kernels& k,
           std::vector<Buffer>& buf, const Part& chunk, std::int64_t remaining)
      : rule_(rule), d_(d), k_(k), buf_(buf), chunk_(chunk), remaining_(remaining) {}

  void launch(LaunchFn fn, const ProbeLaunch& at, std::int64_t step) {
    B::chunk_launch(fn, at, rule_, d_, k_, buf_, chunk_, step,
                    rule_.trapezoid ? remaining_ : std::int64_t{-1});
  }
  void launch_and_exchange(LaunchFn fn, const ProbeLaunch& at, Ids ids, std::int64_t step) {
    launch(fn, at, step);
    refill(ids);
  }
  void exchange(Ids ids) { refill(ids); }

  // --- Physical frames refilled on the chunk -------------
  /// Refills the mirror, copy and value(v) frames of the arrays `ids` in the chunk's buffer
  /// from its own cells (boundary.hpp: refill_copies) where InCore fills its frames, on the
  /// compute queue or stream in order with the launches, no wait (B::copy_boxes, or B::copy_box
  /// one by one; value(v) by B::init_box). Only a chunk whose window reaches past the grid's
  /// edge has such cells; their sources are cells of the grid, which the chunk computes at
  /// every step (the window treats that edge as fixed: Request::frame_refilled), so a pass runs
  /// any number of steps. Periodic frames are the kernels' images, except along
  /// Request::periodic_refilled's dimensions (refilled from the far side the window holds).
  void refill(Ids ids) {
    if (rule_.boundary_count == 0) return;
    std::vector<DeviceFrameCopy<Buffer>> batch;
    for (int id : ids) {
      const std::vector<FrameCopy> copies =
          refill_copies(rule_.grid, chunk_.ghost, rule_.boundaries, rule_.boundary_count, id,
                        rule_.periodic_refilled);
      if (copies.empty()) continue;
      if (!rule_.arrays)
        throw RunError("internal error: out of core, a frame to refill and no array table");
      const auto u = static_cast<std::size_t>(id);
      const ArrayInfo& a = rule_.arrays[id];
      for (const FrameCopy& c : copies) {
        if (c.src >= 0) {
          batch.push_back({&buf_[u], chunk_.ghost, c.from, &buf_[u], chunk_.ghost, c.to,
                           a.element_bytes, a.name});
          continue;
        }
        ArrayInit fill;
        fill.kind = ArrayInit::kValue;
        std::memcpy(&fill.value, c.value.data(), std::min(a.element_bytes, sizeof fill.value));
        B::init_box(d_, buf_[u], chunk_.ghost, c.to, chunk_.ghost, fill, a.element_bytes);
      }
    }
    if (batch.empty()) return;
    if constexpr (detail::BatchesFrameCopies<B>::value) {
      B::copy_boxes(d_, batch);
    } else {
      for (const DeviceFrameCopy<Buffer>& c : batch)
        B::copy_box(d_, *c.src, c.src_box, c.from, d_, *c.dst, c.dst_box, c.to, c.element_bytes,
                    c.name, true);
    }
  }
  // --- end physical frames refilled ---

  // --- Sources and receivers (traces.hpp) ---
  /// Adds the source's value to its cell when the chunk's window holds it (every chunk that
  /// holds it computes the cell redundantly: each copy gets the value).
  /// With periodic frames, the images of the cell in the window's frame too (they are
  /// computed from images through the pass: frame_images); mirror and copy images too, as in
  /// core (refilled after the launch before, the addition gives the bits a refill would).
  void inject(const Inject& in, std::int64_t step) {
    const std::vector<Vec3> at =
        rule_.boundary_count > 0
            ? frame_images(in.at, rule_.grid, rule_.boundaries, rule_.boundary_count, in.array,
                           chunk_.ghost)
            : std::vector<Vec3>(chunk_.ghost.contains_point(in.at) ? 1 : 0, in.at);
    if (at.empty()) return;
    const auto id = static_cast<std::size_t>(in.array);
    const double v = in.value(step);
    std::vector<HostArray> scratch;
    for (const Vec3& c : at) {
      scratch.emplace_back(in.name, in.element_bytes, cell_box(rule_.dims, c));
      B::read_box(d_, buf_[id], chunk_.ghost, scratch.back(), scratch.back().box);
    }
    B::finish(d_);
    for (HostArray& cell : scratch) {
      in.add(cell.bytes.data(), v);
      B::write_box(d_, buf_[id], chunk_.ghost, cell, cell.box);
    }
    B::finish(d_);
  }
  /// Samples the record's points the chunk owns (its owned planes are valid at every step of
  /// the pass): all reads enqueued, one wait.
  void record(Record& r, std::int64_t step) {
    if (!r.due(step)) return;
    const auto id = static_cast<std::size_t>(r.array);
    std::vector<std::size_t> mine;
    for (std::size_t k = 0; k < r.points.size(); ++k)
      if (chunk_.owned.contains_point(r.points[k])) mine.push_back(k);
    if (mine.empty()) return;
    std::vector<HostArray> scratch;
    scratch.reserve(mine.size());
    for (std::size_t k : mine) {
      const Box cell = cell_box(rule_.dims, r.points[k]);
      scratch.emplace_back(r.name, r.element_bytes, cell);
      B::read_box(d_, buf_[id], chunk_.ghost, scratch.back(), cell);
    }
    B::finish(d_);
    for (std::size_t i = 0; i < mine.size(); ++i)
      r.put(step, mine[i], r.get(scratch[i].bytes.data()));
  }

  /// Reduction i over the chunk's owned planes at the steps where it is computed (out of core
  /// these end a pass: the chooser makes the steps per pass divide every `every`, so the
  /// chunk's owned planes are computed there), added to the monitor's partial sums.
  void reduce(int i, std::int64_t step) {
    Monitor* m = rule_.monitor;
    if (!m || !m->computed(i, step)) return;
    const ReduceInfo& r = m->info(i);
    using Fn = ReduceBox<B>;
    const Fn fn = static_cast<const Fn*>(rule_.reduce_boxes)[i];
    Reduction into(r.op);
    const Buffer* minus = r.minus >= 0 ? &buf_[static_cast<std::size_t>(r.minus)] : nullptr;
    fn(d_, k_, buf_[static_cast<std::size_t>(r.array)], minus, chunk_.ghost, chunk_.owned, into);
    m->add(i, into);
  }
  /// Out of core, the end of a step's work is done at pass boundaries (main.hpp): nothing here.
  bool end_of_step(std::int64_t) { return true; }
  /// swap(a, b) or rotate(a, b, c, ...): each name takes the next one's buffer, the last the
  /// first's.
  void swap(Ids ids) {
    const std::vector<int> order(ids);
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      using std::swap;
      swap(buf_[static_cast<std::size_t>(order[i])], buf_[static_cast<std::size_t>(order[i + 1])]);
    }
  }

 private:
  const ChunkRule& rule_;
  const Device& d_;
  const typename B::Kernels& k_;
  std::vector<Buffer>& buf_;
  const Part& chunk_;
  std::int64_t remaining_;
};

}  // namespace stepgen::rt

#pragma once
/// \file
/// The engine's <boundary> frames (boundary.hpp), a component of rt::InCore: the initial fill
/// and the refreshes through the host (FrameSources: the grid's edge slabs read from the parts
/// that own them, composed on the host, written to each part's frame), and after the upload the
/// refreshes on the devices (frame_copies: one rectangular copy per frame region, value(v)
/// regions from small buffers written once) wherever they can be planned.

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/problem.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/boundary.hpp"

namespace stepgen::rt {

template <class B, class S = typename B::State>
class InCore;

/// The frames of one InCore run (`Engine`); the engine calls fill after an upload or an
/// exchange of a boundary array, setup_on_devices once after the first fill.
template <class B, class S>
class EngineFrames {
 public:
  using Engine = InCore<B, S>;
  using Buffer = typename B::Buffer;

  /// Time spent filling frames (the report counts it as exchange time).
  double seconds() const { return frame_s_; }

  /// Fills the boundary frames (boundary.hpp) of the arrays `ids` on every local part: the
  /// cells they are filled from (the grid's edge slabs, FrameSources) are read from the parts
  /// that own them (an MPI rank's State shares them with every rank: share_frame_sources), the
  /// frames composed on the host and written to each part's buffer. With `initial`, the frames
  /// of arrays without a boundary are zeroed (the upload). Nothing when the spec has no
  /// <boundary>. After the upload the refreshes run on the devices instead
  /// (fill_on_devices) wherever setup_on_devices could plan them.
  template <class List>
  void fill(Engine& e, const List& ids, bool initial = false) {
    if (e.problem_.boundary_count == 0) return;
    std::vector<int> todo;
    for (int id : ids)
      if (initial || has_boundary(e.problem_.boundaries, e.problem_.boundary_count, id))
        todo.push_back(id);
    if (todo.empty()) return;
    if (!initial && frames_on_devices_) return fill_on_devices(e, todo);
    for (std::size_t p = 0; p < e.parts(); ++p) B::finish(e.devices_[p]);
    Stopwatch t;
    t.start();
    const Box& domain = e.partition_.domain;
    std::vector<std::size_t> element(todo.size());
    for (std::size_t k = 0; k < todo.size(); ++k)
      element[k] = e.problem_.arrays[todo[k]].element_bytes;
    FrameSources sources(e.partition_, e.problem_.boundaries, e.problem_.boundary_count, todo,
                         element);
    // This process's pieces, read from its devices, then (MPI) every rank's.
    std::deque<HostArray> staging;
    for (std::size_t k = 0; k < sources.pieces.size(); ++k) {
      const FrameSources::Piece& piece = sources.pieces[k];
      const auto q = static_cast<std::size_t>(piece.part);
      if (q < e.first_ || q >= e.first_ + e.count_) continue;
      const int id = todo[static_cast<std::size_t>(piece.array)];
      staging.emplace_back(e.problem_.arrays[id].name,
                           element[static_cast<std::size_t>(piece.array)], piece.box);
      B::read_box(e.devices_[q - e.first_], e.buffers_[q - e.first_][static_cast<std::size_t>(id)],
                  e.part(q - e.first_).ghost, staging.back(), piece.box);
    }
    for (std::size_t p = 0; p < e.parts(); ++p) B::finish(e.devices_[p]);
    {
      std::size_t next = 0;
      for (const FrameSources::Piece& piece : sources.pieces) {
        const auto q = static_cast<std::size_t>(piece.part);
        if (q < e.first_ || q >= e.first_ + e.count_) continue;
        const HostArray& a = staging[next++];
        std::copy(a.bytes.data(), a.bytes.data() + a.bytes.size(),
                  sources.bytes.begin() + static_cast<std::ptrdiff_t>(piece.offset));
        e.stats_.exchange_bytes += a.bytes.size();
      }
    }
    if (e.count_ < e.partition_.parts.size()) {
      if constexpr (detail::SharesFrameSources<S>::value)
        e.state_.share_frame_sources(sources.bytes, sources.part_bytes);
      else
        throw RunError("boundary frames: parts on other processes, and no way to reach them");
    }
    frame_staging_.clear();
    for (std::size_t k = 0; k < todo.size(); ++k) {
      const int id = todo[k];
      for (std::size_t p = 0; p < e.parts(); ++p)
        for (const Box& f : frame_boxes(domain, e.part(p).ghost)) {
          frame_staging_.emplace_back(e.problem_.arrays[id].name, element[k], f);
          HostArray& stage = frame_staging_.back();
          sources.fill(static_cast<int>(k), f, stage.bytes.data());
          B::write_box(e.devices_[p], e.buffers_[p][static_cast<std::size_t>(id)], e.part(p).ghost,
                       stage, f);
          e.stats_.exchange_bytes += stage.bytes.size();
        }
    }
    for (std::size_t p = 0; p < e.parts(); ++p) B::finish(e.devices_[p]);
    frame_staging_.clear();
    frame_s_ += t.stop();
  }

  // --- Frames filled on the devices (frame_copies, boundary.hpp) ---------------------------

  /// Plans the device-side frame refreshes (after the initial fill, which goes through the
  /// host once): per array with a boundary, its FrameCopy list; value fills copy from a small
  /// device buffer per frame region written once here. Off (the host path stays) when a frame
  /// reads cells of a part on another process (an MPI rank's periodic neighbour on another
  /// rank: the sources are shared through the host, share_frame_sources), or with
  /// STEPGEN_FRAMES=host. The choice depends on the partition only: every rank makes the same.
  void setup_on_devices(Engine& e) {
    if (e.problem_.boundary_count == 0) return;
    if (env_settings().frames_on_host) return;
    std::vector<std::vector<FrameCopy>> plans(static_cast<std::size_t>(e.problem_.array_count));
    const bool all_local = e.count_ == e.partition_.parts.size();
    for (int id = 0; id < e.problem_.array_count; ++id) {
      if (!has_boundary(e.problem_.boundaries, e.problem_.boundary_count, id)) continue;
      auto& plan = plans[static_cast<std::size_t>(id)];
      plan = frame_copies(e.partition_, e.problem_.boundaries, e.problem_.boundary_count, id);
      for (const FrameCopy& c : plan)
        if (c.src >= 0 && c.src != c.dst && !all_local) return;
    }
    frame_plans_ = std::move(plans);
    frame_value_.assign(frame_plans_.size(), {});
    for (std::size_t id = 0; id < frame_plans_.size(); ++id) {
      const ArrayInfo& a = e.problem_.arrays[id];
      for (const FrameCopy& c : frame_plans_[id]) {
        frame_value_[id].push_back(-1);
        if (c.src >= 0 || !is_local(e, c.dst)) continue;
        const std::size_t p = static_cast<std::size_t>(c.dst) - e.first_;
        HostArray fill(a.name, a.element_bytes, c.to);
        for (std::size_t at = 0; at < fill.bytes.size(); at += a.element_bytes)
          std::memcpy(fill.bytes.data() + at, c.value.data(), a.element_bytes);
        frame_values_.push_back(B::create_buffer(e.devices_[p], c.to, a.element_bytes, a.name));
        B::write_box(e.devices_[p], frame_values_.back(), c.to, fill, c.to);
        B::finish(e.devices_[p]);
        frame_value_[id].back() = static_cast<int>(frame_values_.size()) - 1;
      }
    }
    frames_on_devices_ = true;
  }

  static bool is_local(const Engine& e, int part_id) {
    const auto q = static_cast<std::size_t>(part_id);
    return q >= e.first_ && q < e.first_ + e.count_;
  }

  /// Refreshes the frames of `todo` on the devices: every FrameCopy into a local part, on its
  /// device's compute queue or stream (after the launch and exchange enqueued before it, before
  /// the next launch). Copies between devices are ordered by the State (CUDA: events, the
  /// sender's later kernels waiting for the receiver's copy) or by host waits around them.
  void fill_on_devices(Engine& e, const std::vector<int>& todo) {
    const std::size_t n = e.parts();
    std::vector<std::vector<bool>> pair(n, std::vector<bool>(n, false));
    bool cross = false;
    for (int id : todo)
      for (const FrameCopy& c : frame_plans_[static_cast<std::size_t>(id)])
        if (c.src >= 0 && c.src != c.dst && is_local(e, c.dst)) {
          pair[static_cast<std::size_t>(c.src) - e.first_]
              [static_cast<std::size_t>(c.dst) - e.first_] = true;
          cross = true;
        }
    auto into = [&](std::size_t d) {
      const int dst = static_cast<int>(e.first_ + d);
      std::vector<DeviceFrameCopy<Buffer>> batch;  // the copies within device d
      for (int id : todo) {
        const auto u = static_cast<std::size_t>(id);
        const std::size_t eb = e.problem_.arrays[id].element_bytes;
        const auto& plan = frame_plans_[u];
        for (std::size_t k = 0; k < plan.size(); ++k) {
          const FrameCopy& c = plan[k];
          if (c.dst != dst) continue;
          const char* name = e.problem_.arrays[id].name;
          if (c.src < 0) {
            const Buffer& v = frame_values_[static_cast<std::size_t>(frame_value_[u][k])];
            batch.push_back({&v, c.to, c.from, &e.buffers_[d][u], e.part(d).ghost, c.to, eb, name});
          } else if (static_cast<std::size_t>(c.src) - e.first_ == d) {
            batch.push_back({&e.buffers_[d][u], e.part(d).ghost, c.from, &e.buffers_[d][u],
                             e.part(d).ghost, c.to, eb, name});
          } else {
            const std::size_t s = static_cast<std::size_t>(c.src) - e.first_;
            B::copy_box(e.devices_[s], e.buffers_[s][u], e.part(s).ghost, c.from, e.devices_[d],
                        e.buffers_[d][u], e.part(d).ghost, c.to, eb, name, false);
          }
          e.stats_.exchange_bytes += static_cast<std::size_t>(c.to.volume()) * eb;
        }
      }
      if constexpr (detail::BatchesFrameCopies<B>::value) {
        if (!batch.empty()) B::copy_boxes(e.devices_[d], batch);
      } else {
        for (const DeviceFrameCopy<Buffer>& c : batch)
          B::copy_box(e.devices_[d], *c.src, c.src_box, c.from, e.devices_[d], *c.dst, c.dst_box,
                      c.to, c.element_bytes, c.name, true);
      }
    };
    if constexpr (detail::OrdersFrameCopies<S>::value) {
      (void)cross;  // the State orders copies between devices with events
      e.state_.fill_frames(e, pair, into);
    } else {
      Stopwatch t;
      if (cross) {
        t.start();
        for (std::size_t p = 0; p < n; ++p) B::finish(e.devices_[p]);
      }
      for (std::size_t d = 0; d < n; ++d) into(d);
      if (cross) {
        for (std::size_t p = 0; p < n; ++p) B::finish(e.devices_[p]);
        frame_s_ += t.stop();
      }
    }
  }

 private:
  std::deque<HostArray> frame_staging_;  ///< boundary frames on their way to the devices
  double frame_s_ = 0;                   ///< time filling boundary frames (exchange time)
  std::vector<std::vector<FrameCopy>> frame_plans_;  ///< per array: its frames' device copies
  std::vector<std::vector<int>> frame_value_;  ///< per array and copy: its value buffer, or -1
  std::deque<Buffer> frame_values_;            ///< value(v) frame regions, filled once
  bool frames_on_devices_ = false;             ///< frames refreshed by device copies
};

}  // namespace stepgen::rt

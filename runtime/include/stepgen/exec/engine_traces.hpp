#pragma once
/// \file
/// The engine's sources and receivers (<inject>, <record>: traces.hpp), a component of
/// rt::InCore written over its public interface (parts, part boxes, devices, buffers, the
/// backend's one-cell reads and writes), so that it runs on any engine of the same shape: a
/// source adds its value to every copy of its cell a local part holds (owned, ghost, or a
/// <boundary> frame's image), a receiver samples the cells the local parts own.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// Adds `in.value(step)` to its cell on every local part whose buffer holds a copy of it
/// (owned or ghost), after the work enqueued before on every device (B::fence): a one-cell
/// read, the addition on the host in the array's type, a one-cell write.
/// With <boundary> frames, the frame cells that hold an image of the cell (periodic, mirror,
/// copy: boundary.hpp's frame_images) get the value too: they were filled before it.
template <class Engine>
void inject_source(Engine& e, const Inject& in, std::int64_t step) {
  using B = typename Engine::Backend;
  std::vector<std::size_t> holders;  // per copy of the cell: its part
  std::vector<Box> cells;            // and the copy's one-cell box
  for (std::size_t p = 0; p < e.parts(); ++p)
    for (const Vec3& c : frame_images(in.at, e.partition().domain, e.problem().boundaries,
                                      e.problem().boundary_count, in.array, e.part(p).ghost)) {
      holders.push_back(p);
      cells.push_back(cell_box(e.problem().dims, c));
    }
  if (holders.empty()) return;  // an MPI rank far from the source
  const double v = in.value(step);
  const auto id = static_cast<std::size_t>(in.array);
  // Every device: an exchange may write a ghost copy from the sender's side.
  for (std::size_t p = 0; p < e.parts(); ++p) B::fence(e.devices()[p]);
  std::vector<HostArray> scratch;
  for (std::size_t i = 0; i < holders.size(); ++i) {
    scratch.emplace_back(in.name, in.element_bytes, cells[i]);
    B::read_box(e.devices()[holders[i]], e.buffers(holders[i])[id], e.part(holders[i]).ghost,
                scratch.back(), cells[i]);
  }
  for (std::size_t p : holders) B::finish(e.devices()[p]);
  for (std::size_t i = 0; i < holders.size(); ++i) {
    in.add(scratch[i].bytes.data(), v);
    B::write_box(e.devices()[holders[i]], e.buffers(holders[i])[id], e.part(holders[i]).ghost,
                 scratch[i], cells[i]);
  }
  for (std::size_t p : holders) B::finish(e.devices()[p]);
}

/// Samples the record's points that local parts own (every `every` steps): all reads
/// enqueued, one wait per device.
template <class Engine>
void record_points(Engine& e, Record& r, std::int64_t step) {
  using B = typename Engine::Backend;
  if (!r.due(step)) return;
  const auto id = static_cast<std::size_t>(r.array);
  std::vector<std::pair<std::size_t, std::size_t>> owned;  // (point, part)
  for (std::size_t k = 0; k < r.points.size(); ++k)
    for (std::size_t p = 0; p < e.parts(); ++p)
      if (e.part(p).owned.contains_point(r.points[k])) {
        owned.emplace_back(k, p);
        break;
      }
  if (owned.empty()) return;
  std::vector<bool> used(e.parts(), false);
  for (const auto& kp : owned) used[kp.second] = true;
  for (std::size_t p = 0; p < e.parts(); ++p)
    if (used[p]) B::fence(e.devices()[p]);
  std::vector<HostArray> scratch;
  scratch.reserve(owned.size());
  for (const auto& [k, p] : owned) {
    const Box cell = cell_box(e.problem().dims, r.points[k]);
    scratch.emplace_back(r.name, r.element_bytes, cell);
    B::read_box(e.devices()[p], e.buffers(p)[id], e.part(p).ghost, scratch.back(), cell);
  }
  for (std::size_t p = 0; p < e.parts(); ++p)
    if (used[p]) B::finish(e.devices()[p]);
  for (std::size_t i = 0; i < owned.size(); ++i)
    r.put(step, owned[i].first, r.get(scratch[i].bytes.data()));
}

}  // namespace stepgen::rt

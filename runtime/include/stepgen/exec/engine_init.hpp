#pragma once
/// \file
/// Two components of rt::InCore written over its public interface (parts, part boxes,
/// devices, buffers, built kernels, host arrays): the initial values made on the devices
/// (zero, value, random with the host's bits, copy(X)), and the reductions' hooks
/// (the programs warmed up before the run is timed, each reduction over the local parts'
/// owned cells into the monitor).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/description/reduce.hpp"
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/problem.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// Makes the arrays without a host copy on every part, over the part's ghost box within the
/// grid (the cells the upload writes; a boundary frame is filled next, as after an upload):
/// zero, value, random on the device (B::init_box: the host's bits), copy(X) a copy of X's
/// buffer once X is made (uploaded, or made here before it), or, the first copy of an X made
/// here, written by X's own fill (the same values computed once, written to both: the copy's
/// read of X saved; the cells outside the grid are undefined either way until a frame fills
/// them). One wait per device.
template <class Engine>
void make_on_devices(Engine& e) {
  using B = typename Engine::Backend;
  const int n = e.problem().array_count;
  std::vector<bool> made(static_cast<std::size_t>(n), false);
  int left = 0;
  for (int id = 0; id < n; ++id) {
    const auto u = static_cast<std::size_t>(id);
    made[u] = e.host()[u].held;
    if (made[u]) continue;
    if (!e.problem().arrays[id].init.on_device())
      throw RunError(std::string("internal error: array ") + e.problem().arrays[id].name +
                     " has no host copy and its initial values are made on the host");
    ++left;
  }
  if (left == 0) return;
  for (int round = 0; left > 0; ++round) {
    if (round > n) throw RunError("internal error: copy() initial values form a cycle");
    for (int id = 0; id < n; ++id) {
      const auto u = static_cast<std::size_t>(id);
      const ArrayInfo& a = e.problem().arrays[id];
      if (made[u]) continue;
      const bool copy = a.init.kind == ArrayInit::kCopy;
      if (copy && !made[static_cast<std::size_t>(a.init.source)]) continue;
      int twin = -1;  // the first copy of this array left to make, written by its fill
      for (int c = 0; !copy && c < n && twin < 0; ++c) {
        const ArrayInfo& o = e.problem().arrays[c];
        if (!made[static_cast<std::size_t>(c)] && o.init.kind == ArrayInit::kCopy &&
            o.init.source == id && o.element_bytes == a.element_bytes)
          twin = c;
      }
      for (std::size_t p = 0; p < e.parts(); ++p) {
        const Box& ghost = e.part(p).ghost;
        if (copy)
          B::copy_buffer(e.devices()[p], e.buffers(p)[u],
                         e.buffers(p)[static_cast<std::size_t>(a.init.source)],
                         static_cast<std::size_t>(ghost.volume()) * a.element_bytes);
        else
          B::init_box(e.devices()[p], e.buffers(p)[u], ghost,
                      intersect(ghost, e.partition().domain), e.partition().domain, a.init,
                      a.element_bytes,
                      twin < 0 ? nullptr : &e.buffers(p)[static_cast<std::size_t>(twin)]);
      }
      made[u] = true;
      --left;
      if (twin >= 0) {
        made[static_cast<std::size_t>(twin)] = true;
        --left;
      }
    }
  }
  for (std::size_t p = 0; p < e.parts(); ++p) B::finish(e.devices()[p]);
}

/// Runs each reduction once on every local device over a one-cell buffer of its own, the
/// result dropped: the reduction programs (built at first use: OpenCL compiles them) are made
/// before the run is timed, not inside its first reduction step.
template <class Engine>
void warm_up_reductions(Engine& e, Monitor* monitor,
                        const ReduceBox<typename Engine::Backend>* boxes) {
  using B = typename Engine::Backend;
  using Buffer = typename B::Buffer;
  if (!monitor || !boxes) return;
  for (int i = 0; i < monitor->count(); ++i) {
    const ReduceInfo& r = monitor->info(i);
    const std::size_t elem = e.problem().arrays[r.array].element_bytes;
    for (std::size_t p = 0; p < e.parts(); ++p) {
      Box one = e.part(p).ghost;
      for (int d = 0; d < one.dims; ++d) one.hi[d] = one.lo[d] + 1;
      if (one.empty()) continue;
      const Buffer a = B::create_buffer(e.devices()[p], one, elem, "reduction warm-up");
      const Buffer m = B::create_buffer(e.devices()[p], one, elem, "reduction warm-up");
      Reduction dropped(r.op);
      boxes[i](e.devices()[p], e.kernels(p), a, r.minus >= 0 ? &m : nullptr, one, one, dropped);
    }
  }
}

/// Reduction i of the spec (rt::ReduceInfo) over every local part's owned cells, at the
/// steps where it is computed; the partial sums go to the monitor (merged at end_of_step).
template <class Engine>
void reduce_parts(Engine& e, Monitor* monitor, const ReduceBox<typename Engine::Backend>* boxes,
                  int i, std::int64_t step) {
  using Buffer = typename Engine::Backend::Buffer;
  if (!monitor || !monitor->computed(i, step)) return;
  const ReduceInfo& r = monitor->info(i);
  Reduction into(r.op);
  for (std::size_t p = 0; p < e.parts(); ++p) {
    const std::vector<Buffer>& buf = e.buffers(p);
    const Buffer* minus = r.minus >= 0 ? &buf[static_cast<std::size_t>(r.minus)] : nullptr;
    boxes[i](e.devices()[p], e.kernels(p), buf[static_cast<std::size_t>(r.array)], minus,
             e.part(p).ghost, e.part(p).owned, into);
  }
  monitor->add(i, into);
}

}  // namespace stepgen::rt

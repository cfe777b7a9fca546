#pragma once
/// \file
/// What the engines are given (rt::Problem: the arrays as rt::ArrayInfo, their halos, the
/// launch table, the boundaries), which parts a process runs (rt::Local), what a backend's
/// State is built from, and the traits by which the engine asks what a backend or State can do.

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

#include "stepgen/description/description.hpp"
#include "stepgen/description/init.hpp"
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/traces.hpp"
#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// Refuses `--save` of a scratch array (written by a kernel, `save="false"` in the spec): the
/// program does not keep its values (in core it is never gathered, out of core it is stored
/// back after every pass), so what a file would hold would depend on the mode.
inline void check_saves(const std::vector<std::pair<std::string, std::string>>& saves,
                        const ArrayInfo* arrays, int count) {
  for (const auto& [name, path] : saves)
    for (int id = 0; id < count; ++id)
      if (name == arrays[id].name && arrays[id].scratch())
        throw UsageError("--save " + name + "=" + path + ": '" + name +
                         "' is a scratch array (save=\"false\" in the spec): its values are "
                         "not kept at the end of the run");
}

namespace detail {
/// True when a State `S` shares boundary frame sources between processes (an MPI rank's).
template <class S, class = void>
struct SharesFrameSources : std::false_type {};
template <class S>
struct SharesFrameSources<S, std::void_t<decltype(&S::share_frame_sources)>> : std::true_type {};
/// True when a State `S` orders the frame copies between devices itself (fill_frames: events
/// between streams); otherwise the engine waits on the host around copies between devices.
template <class S, class = void>
struct OrdersFrameCopies : std::false_type {};
template <class S>
struct OrdersFrameCopies<S, std::void_t<decltype(&S::fill_frames)>> : std::true_type {};
}  // namespace detail

/// One frame copy on one device (InCore::fill_frames_on_devices): `from` of the buffer `src`
/// (holding `src_box`) into `to` (same extents) of `dst` (holding `dst_box`). A backend with
/// `B::copy_boxes(device, list)` runs a device's list at once (CUDA: one kernel); the others
/// copy them one by one (B::copy_box).
template <class Buffer>
struct DeviceFrameCopy {
  const Buffer* src;
  Box src_box, from;
  const Buffer* dst;
  Box dst_box, to;
  std::size_t element_bytes;
  const char* name;
};

namespace detail {
/// True when a backend `B` copies a device's frame copies at once (B::copy_boxes).
template <class B, class = void>
struct BatchesFrameCopies : std::false_type {};
template <class B>
struct BatchesFrameCopies<B, std::void_t<decltype(&B::copy_boxes)>> : std::true_type {};
}  // namespace detail

/// B::reduce_box for element type T: what the generated reduction table holds.
template <class B, typename T>
void reduce_box_as(const typename B::Device& d, const typename B::Kernels& k,
                   const typename B::Buffer& a, const typename B::Buffer* minus, const Box& buffer,
                   const Box& box, Reduction& into) {
  B::template reduce_box<T>(d, k, a, minus, buffer, box, into);
}

/// Which parts of the partition a process runs: `count` parts from `first`, local part p on
/// device p (count < 0: all of them). An MPI rank runs one, its own.
struct Local {
  int first = 0;
  int count = -1;
};

/// What a State is built from: the process's devices, the parts it runs, the number of arrays.
template <class Device>
struct StateArgs {
  const std::vector<Device>& devices;
  std::size_t parts;
  int first;
  int arrays;
};

}  // namespace stepgen::rt

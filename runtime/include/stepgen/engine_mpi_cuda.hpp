#pragma once
/// \file
/// The in-core engine (engine.hpp) on one MPI rank with CUDA: the rank runs its own part of the
/// partition on its GPU; the halo boxes other ranks read go by MPI messages
/// (mpi::CudaHaloExchange: straight from device memory when the MPI library is CUDA-aware,
/// else through pinned host buffers). Launches are enqueued on the GPU; the host waits only
/// for the packed boxes of each exchange (to hand them to MPI) and once after the last step.

#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <vector>

#include "stepgen/engine_cuda.hpp"
#include "stepgen/mpi.hpp"
#include "stepgen/mpi_cuda.hpp"

namespace stepgen::cuda {

/// The exchange state of one rank.
class RankState {
 public:
  using Engine = rt::InCore<Backend, RankState>;
  using Ids = std::initializer_list<int>;
  /// The communicator of the halo messages (MPI_COMM_SELF with a partition of one part for
  /// --verify's whole-grid run) and whether they go from device memory.
  struct Config {
    MPI_Comm comm = MPI_COMM_WORLD;
    bool device_messages = false;
  };
  static constexpr const char* kOne = "one rank";
  static constexpr const char* kOverlapOn =
      "boundary slabs first, on a high-priority stream, packed and sent while the interior "
      "computes; exchange time = the part not hidden behind the interior";

  RankState(const rt::StateArgs<Device>& args, const Config& config)
      : timeline_(args.devices, 1),
        halo_(config.comm, args.first, args.arrays, args.devices[0], config.device_messages) {}
  static void check_fits(const Device& d, std::size_t bytes) { mpi::check_fits_in_core(d, bytes); }

  void prepare(Engine& e) {
    const rt::Problem<Backend>& problem = e.problem();
    for (int id = 0; id < problem.array_count; ++id)
      if (problem.arrays[id].exchanged)
        halo_.add(id, problem.arrays[id].name, problem.arrays[id].element_bytes, e.plan(id));
  }
  void print_exchange_paths(const Engine&) const {}
  void begin(Engine&) { timeline_.begin(); }
  void end(Engine&) { timeline_.finish(); }
  void times(rt::RunStats& stats) const {
    std::tie(stats.kernel_s, stats.exchange_s) = timeline_.busiest();
  }

  /// Refreshes the ghost cells of `ids` after the kernels enqueued so far: the boundary stream
  /// follows them, packs the boxes other ranks read; the host sends them and receives this
  /// rank's, which the boundary stream unpacks; the kernel stream waits for that.
  void exchange(Engine& e, Ids ids) {
    if (halo_.idle()) return;
    timeline_.poll();  // before any mark: the marks below stay in place until the next exchange
    timeline_.mark(0, Timeline::kKernels);
    timeline_.wait(0, timeline_.signal(0, On::kCompute), On::kBoundary);
    std::vector<Buffer>& buf = e.buffers(0);
    auto buffer_of = [&buf](int id) -> const Buffer& { return buf[static_cast<std::size_t>(id)]; };
    e.stats().exchange_bytes += halo_.post_and_pack(ids, buffer_of, e.part(0).ghost, On::kBoundary);
    timeline_.wait(0, halo_.send_and_unpack(ids, buffer_of, e.part(0).ghost, On::kBoundary));
    timeline_.mark(0, Timeline::kExchange);
  }

  /// Launches a kernel and refreshes the ghost cells of the arrays `ids` it wrote, the messages
  /// overlapping the interior's computation: the boundary slabs (rt::overlap_views: the planes
  /// other ranks receive) run first on the high-priority stream, which then packs them; the
  /// interior runs meanwhile on the kernel stream while the host sends and receives; the kernel
  /// stream waits for the unpacked ghost cells only before the next step. Compute then exchange
  /// when overlap is off or the kernel cannot run on views (the probe); the views grow by the
  /// rim the probe measured (rt::ViewRim).
  void launch_and_exchange(Engine& e, void (*launch)(const Launch&), int kernel, rt::Index reach_lo,
                           rt::Index reach_hi, std::size_t /*group*/, Ids ids, std::int64_t step) {
    const int axis = e.problem().dims - 1;
    const rt::ViewRim rim = e.probed().view(kernel, axis, reach_lo, reach_hi);
    if (!e.overlap() || halo_.idle() || !rim.safe) {
      launch(e.whole(0, step));
      exchange(e, ids);
      return;
    }
    std::vector<const std::vector<rt::Transfer>*> plans;
    for (int id : ids) plans.push_back(&e.plan(id));
    const rt::Part& part = e.part(0);
    const rt::OverlapViews views =
        rt::overlap_views(part, axis, reach_lo, reach_hi, plans, rim.lo, rim.hi);
    const Device& d = e.devices()[0];
    std::vector<Buffer>& buf = e.buffers(0);
    timeline_.poll();
    timeline_.wait(0, timeline_.signal(0, On::kCompute), On::kBoundary);
    for (const rt::Box& view : views.boundary) launch({d, buf, part, view, On::kBoundary, step});
    auto buffer_of = [&buf](int id) -> const Buffer& { return buf[static_cast<std::size_t>(id)]; };
    e.stats().exchange_bytes += halo_.post_and_pack(ids, buffer_of, part.ghost, On::kBoundary);
    if (views.split) launch({d, buf, part, views.interior, On::kCompute, step});
    const cudaEvent_t unpacked = halo_.send_and_unpack(ids, buffer_of, part.ghost, On::kBoundary);
    timeline_.mark(0, Timeline::kKernels);
    timeline_.wait(0, unpacked);
    timeline_.mark(0, Timeline::kExchange);
  }

 private:
  Timeline timeline_;
  mpi::CudaHaloExchange halo_;
};

}  // namespace stepgen::cuda

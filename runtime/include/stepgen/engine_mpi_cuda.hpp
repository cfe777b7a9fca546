#pragma once
/// \file
/// The in-core engine (engine.hpp) on one MPI rank with CUDA: the rank runs its own part of the
/// partition on its GPU; the halo boxes other ranks read go by MPI messages
/// (mpi::CudaHaloExchange: straight from device memory when the MPI library is CUDA-aware,
/// else through pinned host buffers). Launches are enqueued on the GPU; the host waits only
/// for the packed boxes of each exchange (to hand them to MPI) and once after the last step. A
/// rank with several GPUs (--devices N) runs one part on each, exchanging through
/// rt::PartsExchange (rank_parts.hpp): peer copies between its GPUs, messages with other ranks
/// through host buffers, after the kernels.

#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <vector>

#include "stepgen/engine_cuda.hpp"
#include "stepgen/mpi.hpp"
#include "stepgen/mpi_cuda.hpp"
#include "stepgen/mpi_halo.hpp"
#include "stepgen/rank_parts.hpp"

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
  /// With several GPUs, its kernels first, then the whole exchange (rt::PartsExchange).
  static constexpr bool kRankPartsAfterKernels = true;
  static constexpr const char* kOverlapOn =
      "boundary slabs first, on a high-priority stream, packed and sent while the interior "
      "computes; exchange time = the part not hidden behind the interior";

  RankState(const rt::StateArgs<Device>& args, const Config& config)
      : timeline_(args.devices, args.parts),
        halo_(config.comm, args.first, args.arrays, args.devices[0], config.device_messages),
        messages_(config.comm),
        comm_(config.comm),
        first_(args.first),
        count_(static_cast<int>(args.parts)) {}
  static void check_fits(const Device& d, std::size_t bytes) { mpi::check_fits_in_core(d, bytes); }

  void prepare(Engine& e) { rt::add_rank_plans(e, halo_, parts_, first_, count_); }
  void print_exchange_paths(const Engine&) const {}
  /// Boundary frames (rt::InCore::fill_frames): every rank's block of the frames' sources, to
  /// every rank.
  void share_frame_sources(std::vector<unsigned char>& blob,
                           const std::vector<std::size_t>& counts) {
    mpi::allgather_blocks(comm_, blob, rt::rank_blocks(counts, count_));
  }
  void begin(Engine&) { timeline_.begin(); }
  void end(Engine&) { timeline_.finish(); }
  void times(rt::RunStats& stats) const {
    std::tie(stats.kernel_s, stats.exchange_s) = timeline_.busiest();
  }

  /// Refreshes the ghost cells of `ids` after the kernels enqueued so far: the boundary stream
  /// follows them, packs the boxes other ranks read; the host sends them and receives this
  /// rank's, which the boundary stream unpacks; the kernel stream waits for that.
  void exchange(Engine& e, Ids ids) {
    if (count_ > 1) {  // several GPUs: their kernels first, then the whole exchange
      timeline_.poll();
      for (std::size_t p = 0; p < e.parts(); ++p) timeline_.mark(p, Timeline::kKernels);
      e.stats().exchange_bytes += parts_.exchange(e, ids, messages_);
      for (std::size_t p = 0; p < e.parts(); ++p) timeline_.mark(p, Timeline::kExchange);
      return;
    }
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
    if (!e.overlap() || halo_.idle() || !rim.safe || count_ > 1) {
      for (std::size_t p = 0; p < e.parts(); ++p) launch(e.whole(p, step));
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
  mpi::CudaHaloExchange halo_;        ///< one GPU: its messages
  rt::PartsExchange<Backend> parts_;  ///< several GPUs: their copies and messages
  mpi::MpiMessenger messages_;
  MPI_Comm comm_;              ///< the ranks this one shares boundary frame sources with
  int first_ = 0, count_ = 1;  ///< this rank's parts
};

}  // namespace stepgen::cuda

namespace stepgen::cuda {

/// One MPI rank's backend parts for the MPI main program (ranks.hpp): the rank State of the
/// engine, the rank's GPU (mpi::select_gpu), the path of the halo messages, the help and report
/// lines (out of core, ranks.hpp runs the one runner over this rank's part: kOutOfCore).
class MpiRank {
 public:
  using State = RankState;
  static constexpr bool kOutOfCore = true;
  static constexpr const char* kUnit = "GPU";

  static void print_usage_note(std::FILE* out) {
    std::fprintf(out,
                 "\nMPI: one rank per GPU (mpirun -np N); --devices N gives each rank N GPUs\n"
                 "(node rank i takes GPUs i*N ... i*N+N-1; in core only); --weights gives one\n"
                 "weight per rank; out of core, --device-memory is per rank and the smallest\n"
                 "over the ranks decides.\nEnvironment: "
                 "STEPGEN_MPI_CUDA_AWARE=on|off (halo messages from device "
                 "memory or\nthrough pinned host buffers; default: what the MPI library says),\n"
                 "STEPGEN_OVERLAP=off, STEPGEN_MPI_SHARE_DEVICES=1 (ranks of a node share its "
                 "GPUs,\nfor testing).\n\nCUDA backend: runs on the CUDA GPUs only. "
                 "--device-type all and gpu both mean them\n(cpu is an error); --platform must be "
                 "part of '%s'.\n",
                 platform_name());
  }

  /// This node's GPUs, in order; this rank takes the one (or --devices N) at its place among the
  /// node's ranks.
  MpiRank(mpi::Session& session, const rt::Options& opt)
      : gpu_(mpi::select_gpu(session, opt)),
        shared_(mpi::any_shared(MPI_COMM_WORLD, gpu_.shared)),
        gpus_per_rank_(static_cast<int>(gpu_.devices.size())),
        messages_(mpi::choose_message_path(MPI_COMM_WORLD)) {}

  std::vector<Device> take_devices() { return std::move(gpu_.devices); }
  std::string describe(const Device& d) const {
    return "GPU " + std::to_string(d.ordinal) + " (" + d.name + ")";
  }
  /// The rank State's settings: halo messages from device memory when the MPI library is
  /// CUDA-aware (never on MPI_COMM_SELF: --verify's one-part run sends none).
  typename State::Config config(MPI_Comm comm) const {
    return {comm, comm == MPI_COMM_SELF ? false : messages_.device};
  }
  void print_report(const mpi::Session& session, bool) const {
    std::printf(
        "mpi: %d rank(s) on %d node(s); halos by MPI point-to-point messages, %s; times of the "
        "slowest rank, volumes of all ranks\n",
        session.size(), session.nodes(), messages_.describe().c_str());
    if (shared_)
      std::printf(
          "gpus: shared (STEPGEN_MPI_SHARE_DEVICES=1: rank i of a node uses its GPU i mod %d; "
          "the ranks of one GPU take turns, so times say little)\n",
          gpu_.node_gpus);
    else
      std::printf("gpus: %s\n", gpus_per_rank_ > 1
                                    ? (std::to_string(gpus_per_rank_) + " per rank").c_str()
                                    : "one per rank");
    std::printf(
        "timing: kernels and exchange are GPU time (CUDA events) of the kernel stream, the "
        "largest over the ranks\n");
  }

 private:
  mpi::GpuChoice gpu_;
  bool shared_;
  int gpus_per_rank_;
  mpi::MessagePath messages_;
};

}  // namespace stepgen::cuda

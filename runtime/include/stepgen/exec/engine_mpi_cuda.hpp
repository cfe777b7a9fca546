#pragma once
/// \file
/// The in-core engine (engine.hpp) on one MPI rank with CUDA: the rank runs its own parts of the
/// partition (one per GPU, or --parts) through the backend's exchange executor
/// (exchange_cuda.hpp): copies between its parts (peer copies between GPUs), the halo boxes
/// other ranks read as MPI messages (mpi::MpiMessenger; packed in device memory when the MPI
/// library is CUDA-aware, else in pinned host buffers). Launches are enqueued on the GPUs; the
/// host waits only for the packed boxes of each exchange (to hand them to MPI) and once after
/// the last step.

#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <vector>

#include "stepgen/exec/engine_cuda.hpp"
#include "stepgen/exec/exchange_cuda.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/mpi_cuda.hpp"
#include "stepgen/exec/mpi_halo.hpp"
#include "stepgen/exec/rank_parts.hpp"

namespace stepgen::cuda {

/// The exchange state of one rank: the backend's one exchange executor (exchange_cuda.hpp)
/// over MPI messages, and the boundary frames' sources shared with every rank.
class RankState : public ExchangeState<mpi::MpiMessenger> {
 public:
  using ExchangeState<mpi::MpiMessenger>::ExchangeState;
  static void check_fits(const Device& d, std::size_t bytes) { mpi::check_fits_in_core(d, bytes); }
  template <class E>
  void print_exchange_paths(const E&) const {}
  /// Boundary frames (rt::InCore::fill_frames): every rank's block of the frames' sources, to
  /// every rank.
  void share_frame_sources(std::vector<unsigned char>& blob,
                           const std::vector<std::size_t>& counts) {
    mpi::allgather_blocks(messages().comm(), blob, rt::rank_blocks(counts, count()));
  }
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
    return {{comm}, comm == MPI_COMM_SELF ? false : messages_.device};
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

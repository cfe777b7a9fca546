#pragma once
/// \file
/// The in-core engine (engine.hpp) on one MPI rank with OpenCL: the rank runs its own parts of
/// the partition (one per device, or --parts); the backend's exchange executor
/// (exchange_opencl.hpp) copies between its parts and sends the boxes other ranks read as MPI
/// messages (mpi::MpiMessenger), read and written by rectangular copies through host buffers.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/engine_opencl.hpp"
#include "stepgen/exec/exchange_opencl.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/mpi_halo.hpp"
#include "stepgen/exec/rank_parts.hpp"

namespace stepgen::cl {

/// The exchange state of one rank: the backend's one exchange executor (exchange_opencl.hpp)
/// over MPI messages, and the boundary frames' sources shared with every rank.
class RankState : public ExchangeState<mpi::MpiMessenger> {
 public:
  using ExchangeState<mpi::MpiMessenger>::ExchangeState;
  /// Boundary frames (rt::InCore::fill_frames): every rank's block of the frames' sources, to
  /// every rank.
  void share_frame_sources(std::vector<unsigned char>& blob,
                           const std::vector<std::size_t>& counts) {
    mpi::allgather_blocks(messages().comm(), blob, rt::rank_blocks(counts, count()));
  }
};

}  // namespace stepgen::cl

namespace stepgen::cl {

/// One MPI rank's backend parts for the MPI main program (ranks.hpp): the rank State of the
/// engine, the rank's device, its help and report lines (out of core, ranks.hpp runs the
/// one runner over this rank's part: kOutOfCore).
class MpiRank {
 public:
  using State = RankState;
  static constexpr bool kOutOfCore = true;
  static constexpr const char* kUnit = "device";

  static void print_usage_note(std::FILE* out) {
    std::fprintf(
        out,
        "\nMPI: one rank per device (mpirun -np N); --devices N gives each rank N devices\n"
        "(node rank i takes the node's devices i*N ... i*N+N-1; in core only);\n"
        "--weights gives one weight per rank; out of core, --device-memory is per rank\n"
        "and the smallest over the ranks decides.\n");
  }

  MpiRank(mpi::Session& session, const rt::Options& opt) : session_(session), opt_(opt) {}

  /// This node's devices, in order; this rank takes the `--devices N` (one by default) at its
  /// place among the node's ranks: node rank i the devices i*N ... i*N+N-1 (the others'
  /// contexts are released).
  std::vector<Device> take_devices() {
    const int per_rank = rt::devices_per_rank(opt_);
    rt::Options all = opt_;
    all.devices = 0;  // --devices counts a rank's devices, not the node's
    std::vector<Device> devices = cl::discover(all);
    const auto need =
        static_cast<std::size_t>(session_.node_size()) * static_cast<std::size_t>(per_rank);
    if (need > devices.size())
      throw rt::RunError(
          std::to_string(session_.node_size()) + " ranks " +
          (per_rank > 1 ? "of " + std::to_string(per_rank) + " devices each " : std::string()) +
          "run on node " + session_.host() + " but only " + std::to_string(devices.size()) +
          " OpenCL device(s) match there (type " + opt_.device_type +
          (opt_.platform.empty() ? "" : ", platform '" + opt_.platform + "'") +
          (per_rank > 1 ? "): start fewer ranks, or give each fewer devices (--devices)"
                        : "): start at most one rank per device"));
    const auto first = static_cast<std::size_t>(session_.node_rank() * per_rank);
    std::vector<Device> mine;
    for (std::size_t i = first; i < first + static_cast<std::size_t>(per_rank); ++i)
      mine.push_back(std::move(devices[i]));
    std::string labels;
    for (const Device& d : mine) labels += (labels.empty() ? "" : ", ") + d.label();
    session_.set_device(labels);
    return mine;
  }
  std::string describe(const Device& d) const { return d.label(); }
  typename State::Config config(MPI_Comm comm) const { return {comm}; }
  void print_report(const mpi::Session& session, bool out_of_core) const {
    std::printf(
        "mpi: %d rank(s) on %d node(s); halos by MPI point-to-point messages through host "
        "buffers%s; times of the slowest rank, volumes of all ranks\n",
        session.size(), session.nodes(), out_of_core ? " at pass boundaries" : "");
  }

 private:
  mpi::Session& session_;
  const rt::Options& opt_;
};

}  // namespace stepgen::cl

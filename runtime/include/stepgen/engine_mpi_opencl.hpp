#pragma once
/// \file
/// The in-core engine (engine.hpp) on one MPI rank with OpenCL: the rank runs its own part of
/// the partition on one device; the halo boxes other ranks read go by MPI messages
/// (mpi::HaloExchange), packed and unpacked by rectangular copies through host buffers. A rank
/// with several devices (--devices N) runs one part on each, exchanging through
/// rt::PartsExchange (rank_parts.hpp): copies between its devices, messages with other ranks.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/engine_opencl.hpp"
#include "stepgen/mpi.hpp"
#include "stepgen/mpi_halo.hpp"
#include "stepgen/rank_parts.hpp"

namespace stepgen::cl {

/// The exchange state of one rank.
class RankState {
 public:
  using Backend = cl::Backend;
  using Engine = rt::InCore<Backend, RankState>;
  using Launch = typename Backend::Launch;
  using Ids = std::initializer_list<int>;
  /// The communicator of the halo messages (MPI_COMM_SELF with a partition of one part for
  /// --verify's whole-grid run).
  struct Config {
    MPI_Comm comm = MPI_COMM_WORLD;
  };
  static constexpr const char* kOne = "one rank";
  static constexpr const char* kOverlapOn =
      "boundary slabs first, their halos copied on a second queue; halo messages in flight while "
      "the interior computes; exchange time = the part not hidden behind the interior";

  RankState(const rt::StateArgs<Device>& args, const Config& config)
      : halo_(config.comm, args.first, args.arrays),
        messages_(config.comm),
        comm_(config.comm),
        first_(args.first),
        count_(static_cast<int>(args.parts)) {}
  static void check_fits(const Device& d, std::size_t bytes) { cl::check_fits(d, bytes); }

  void prepare(Engine& e) { rt::add_rank_plans(e, halo_, parts_, first_, count_); }
  void print_exchange_paths(const Engine&) const {}
  /// Boundary frames (rt::InCore::fill_frames): every rank's block of the frames' sources, to
  /// every rank.
  void share_frame_sources(std::vector<unsigned char>& blob,
                           const std::vector<std::size_t>& counts) {
    mpi::allgather_blocks(comm_, blob, rt::rank_blocks(counts, count_));
  }
  void begin(Engine&) { loop_timer_.start(); }
  void end(Engine& e) {
    kernel_timer_.start();
    for (std::size_t p = 0; p < e.parts(); ++p) cl::finish(e.devices()[p]);
    kernel_timer_.stop();
    loop_timer_.stop();
  }
  /// As in one process (engine_opencl.hpp): a rank with no neighbour never waits before an
  /// exchange, so the time loop's whole time is its kernels'.
  void times(rt::RunStats& stats) const {
    stats.kernel_s = count_ < 2 && halo_.idle() ? loop_timer_.total() : kernel_timer_.total();
    stats.exchange_s = exchange_timer_.total();
  }

  /// Refreshes the ghost cells of `ids`: the boxes this rank owns and others read are read from
  /// the device into host buffers and sent; the boxes it reads are received and written.
  void exchange(Engine& e, Ids ids) {
    if (count_ > 1) {  // several devices: their kernels first, then the whole exchange
      kernel_timer_.start();
      for (std::size_t p = 0; p < e.parts(); ++p) cl::finish(e.devices()[p]);
      kernel_timer_.stop();
      exchange_timer_.start();
      e.stats().exchange_bytes += parts_.exchange(e, ids, messages_);
      exchange_timer_.stop();
      return;
    }
    if (halo_.idle()) return;
    const Device& d = e.devices()[0];
    kernel_timer_.start();
    cl::finish(d);
    kernel_timer_.stop();
    exchange_timer_.start();
    const rt::Box& ghost = e.part(0).ghost;
    std::vector<Mem>& buf = e.buffers(0);
    e.stats().exchange_bytes += halo_.exchange(
        ids,
        [&](int id, rt::HostArray& box) {
          read_box(d, buf[static_cast<std::size_t>(id)], ghost, box, box.box, nullptr);
        },
        [&] { cl::finish(d); },
        [&](int id, const rt::HostArray& box) {
          write_box(d, buf[static_cast<std::size_t>(id)], ghost, box, box.box, nullptr);
        });
    // The writes read the receive buffers, which the next exchange reuses.
    cl::finish(d);
    exchange_timer_.stop();
  }

  /// As Backend::State::launch_and_exchange between devices: the boundary slabs
  /// (rt::overlap_views) run first, then the boundary queue packs the boxes other ranks read
  /// into their send buffers; the interior runs meanwhile on the kernel queue, while the packed
  /// boxes are sent and this rank's boxes are received (MPI_Isend/MPI_Irecv); they are then
  /// unpacked on the boundary queue. Compute then exchange when overlap is off.
  void launch_and_exchange(Engine& e, void (*launch)(const Launch&), int /*kernel*/,
                           rt::Index reach_lo, rt::Index reach_hi, std::size_t group, Ids ids,
                           std::int64_t step) {
    if (!e.overlap() || halo_.idle() || count_ > 1) {
      for (std::size_t p = 0; p < e.parts(); ++p) launch(e.whole(p, step));
      exchange(e, ids);
      return;
    }
    const int axis = e.problem().dims - 1;
    const Device& d = e.devices()[0];
    const rt::Part& part = e.part(0);
    std::vector<Mem>& buf = e.buffers(0);
    kernel_timer_.start();
    std::vector<const std::vector<rt::Transfer>*> plans;
    for (int id : ids) plans.push_back(&e.plan(id));
    const OverlapSlabs slabs = overlap_slabs(part, axis, reach_lo, reach_hi, group, plans);
    // The kernels run in order on the compute queue (see cl::On); the halo reads on the
    // boundary queue start when the boundary slabs are done, beside the interior.
    launch({d, e.kernels(0), buf, part, step, &slabs.below});
    launch({d, e.kernels(0), buf, part, step, &slabs.above});
    boundary_after_compute(d);
    std::vector<Event> packs, unpacks;
    halo_.start(ids, [&](int id, rt::HostArray& box) {
      read_box(d, buf[static_cast<std::size_t>(id)], part.ghost, box, box.box, &packs,
               On::kBoundary);
    });
    launch({d, e.kernels(0), buf, part, step, &slabs.interior});
    flush(d);
    wait_all(packs, "exchange");
    e.stats().exchange_bytes += halo_.send(ids);
    halo_.finish(ids, [&](int id, const rt::HostArray& box) {
      write_box(d, buf[static_cast<std::size_t>(id)], part.ghost, box, box.box, &unpacks,
                On::kBoundary);
    });
    flush(d);
    cl::finish(d);
    kernel_timer_.stop();
    // What is left of the exchange once the interior is done: the part not hidden. The writes
    // read the receive buffers, which the next exchange reuses.
    exchange_timer_.start();
    wait_all(unpacks, "exchange");
    exchange_timer_.stop();
  }

 private:
  mpi::HaloExchange halo_;            ///< one device: its messages
  rt::PartsExchange<Backend> parts_;  ///< several devices: their copies and messages
  mpi::MpiMessenger messages_;
  MPI_Comm comm_;              ///< the ranks this one shares boundary frame sources with
  int first_ = 0, count_ = 1;  ///< this rank's parts
  rt::Stopwatch kernel_timer_, exchange_timer_, loop_timer_;
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

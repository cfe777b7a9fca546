#pragma once
/// \file
/// The in-core engine (engine.hpp) on one MPI rank with OpenCL: the rank runs its own part of
/// the partition on one device; the halo boxes other ranks read go by MPI messages
/// (mpi::HaloExchange), packed and unpacked by rectangular copies through host buffers.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "stepgen/engine_opencl.hpp"
#include "stepgen/mpi.hpp"
#include "stepgen/mpi_halo.hpp"

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
      : halo_(config.comm, args.first, args.arrays), comm_(config.comm) {}
  static void check_fits(const Device& d, std::size_t bytes) { cl::check_fits(d, bytes); }

  void prepare(Engine& e) {
    const rt::Problem<Backend>& problem = e.problem();
    for (int id = 0; id < problem.array_count; ++id)
      if (problem.arrays[id].exchanged)
        halo_.add(id, problem.arrays[id].name, problem.arrays[id].element_bytes, e.plan(id));
  }
  void print_exchange_paths(const Engine&) const {}
  /// Boundary frames (rt::InCore::fill_frames): every rank's block of the frames' sources, to
  /// every rank.
  void share_frame_sources(std::vector<unsigned char>& blob,
                           const std::vector<std::size_t>& counts) {
    mpi::allgather_blocks(comm_, blob, counts);
  }
  void begin(Engine&) { loop_timer_.start(); }
  void end(Engine& e) {
    kernel_timer_.start();
    cl::finish(e.devices()[0]);
    kernel_timer_.stop();
    loop_timer_.stop();
  }
  /// As in one process (engine_opencl.hpp): a rank with no neighbour never waits before an
  /// exchange, so the time loop's whole time is its kernels'.
  void times(rt::RunStats& stats) const {
    stats.kernel_s = halo_.idle() ? loop_timer_.total() : kernel_timer_.total();
    stats.exchange_s = exchange_timer_.total();
  }

  /// Refreshes the ghost cells of `ids`: the boxes this rank owns and others read are read from
  /// the device into host buffers and sent; the boxes it reads are received and written.
  void exchange(Engine& e, Ids ids) {
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
    if (!e.overlap() || halo_.idle()) {
      launch(e.whole(0, step));
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
  mpi::HaloExchange halo_;
  MPI_Comm comm_;  ///< the ranks this one shares boundary frame sources with
  rt::Stopwatch kernel_timer_, exchange_timer_, loop_timer_;
};

}  // namespace stepgen::cl

namespace stepgen::cl {

/// One MPI rank's backend parts for the MPI main program (mpi_main.hpp): the rank State of the
/// engine, the rank's device, its help and report lines (out of core, mpi_main.hpp runs the
/// one runner over this rank's part: kOutOfCore).
class MpiRank {
 public:
  using State = RankState;
  static constexpr bool kOutOfCore = true;
  static constexpr const char* kUnit = "device";

  static void take_ooc_options(int& argc, char** argv, rt::ooc::Options& ooc) {
    rt::ooc::take_options(argc, argv, ooc);
  }
  static void print_usage_note(std::FILE* out) {
    std::fprintf(out,
                 "\nMPI: one rank per device (mpirun -np N); --devices N uses at most the first N\n"
                 "matching devices of each node; --weights gives one weight per rank; out of "
                 "core,\n--device-memory is per rank and the smallest over the ranks decides.\n");
  }

  MpiRank(mpi::Session& session, const rt::Options& opt) : session_(session), opt_(opt) {}

  /// This node's devices, in order; this rank takes the one at its place among the node's
  /// ranks (the others' contexts are released).
  std::vector<Device> take_devices() {
    std::vector<Device> devices = cl::discover(opt_);
    if (static_cast<std::size_t>(session_.node_size()) > devices.size())
      throw rt::RunError(std::to_string(session_.node_size()) + " ranks run on node " +
                         session_.host() + " but only " + std::to_string(devices.size()) +
                         " OpenCL device(s) match there (type " + opt_.device_type +
                         (opt_.platform.empty() ? "" : ", platform '" + opt_.platform + "'") +
                         "): start at most one rank per device");
    std::swap(devices[0], devices[static_cast<std::size_t>(session_.node_rank())]);
    devices.resize(1);
    session_.set_device(devices[0].label());
    return devices;
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

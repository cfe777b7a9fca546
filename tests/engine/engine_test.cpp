// The in-core engine (rt::InCore) on the host backend (engine_host.hpp): a kernel written for one
// device (a 2D Jacobi step over its whole buffer, guarded at the buffer's edge) run on 1 part,
// slabs, a 2x2 grid, several parts per device (--parts), deep halos and with its input made on
// the "device"; every run's arrays equal a plain loop over the grid bit for bit, and an exact
// reduction is the same on every partition. No OpenCL, no CUDA.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "jacobi_case.hpp"
#include "stepgen/exec/engine_host.hpp"
#include "stepgen/plan/placement.hpp"

using namespace engine_case;

namespace {

// Periodic along x and y: the plain loop wraps its indices.
std::vector<HostArray> serial_periodic() {
  std::vector<HostArray> h = initial();
  const Index nx = kGrid.extent(0), ny = kGrid.extent(1);
  for (std::int64_t s = 0; s < kSteps; ++s) {
    const float* a = h[kA].as<float>();
    float* b = h[kB].as<float>();
    for (Index y = 0; y < ny; ++y)
      for (Index x = 0; x < nx; ++x)
        b[y * nx + x] = 0.25f * (a[y * nx + (x + nx - 1) % nx] + a[y * nx + (x + 1) % nx] +
                                 a[((y + ny - 1) % ny) * nx + x] + a[((y + 1) % ny) * nx + x]);
    std::swap(h[kA], h[kB]);
  }
  return h;
}

const rt::BoundaryRule kPeriodic[4] = {{kA, 0, rt::BoundaryKind::kPeriodic, {}},
                                       {kA, 1, rt::BoundaryKind::kPeriodic, {}},
                                       {kB, 0, rt::BoundaryKind::kPeriodic, {}},
                                       {kB, 1, rt::BoundaryKind::kPeriodic, {}}};

const rt::ReduceInfo kSum[1] = {{"sum_A", rt::ReduceOp::kSum, kB, -1, 1}};
const rt::ReduceBox<host::Backend> kReduceBoxes[1] = {rt::reduce_box_as<host::Backend, float>};

struct Result {
  std::vector<HostArray> host;
  double sum = 0;
  std::size_t exchanged = 0;
};

// One run on `devices` host devices of the partition `r` asks for (parts placed as --parts
// places them); `held`: the initial values on the host, else made on the devices.
Result run(rt::PartitionRequest r, int devices, bool held = true, bool periodic = false) {
  if (periodic) r.frame = {true, true, false};
  rt::Partition partition = rt::partition(r);
  std::vector<host::Device> d = place_on_devices(partition, devices);
  Result out;
  out.host = initial(held);
  rt::Problem<host::Backend> p = problem(r.every);
  if (periodic) {
    p.boundaries = kPeriodic;
    p.boundary_count = 4;
  }
  rt::Monitor monitor({kSum, 1}, kSteps, false);
  rt::InCore<host::Backend> engine(p, d, partition, out.host, rt::Probed{});
  engine.set_monitor(&monitor, kReduceBoxes);
  if (!held) engine.set_gathered({false, false});  // no host copy to gather into
  const rt::RunStats stats = engine.run(kSteps, time_loop<rt::InCore<host::Backend>>);
  out.sum = monitor.value(0);
  out.exchanged = stats.exchange_bytes;
  return out;
}

void check_equal(const Result& got, const std::vector<HostArray>& want, const std::string& what) {
  for (int id = 0; id < kArrays; ++id) {
    INFO(what << ", array " << want[static_cast<std::size_t>(id)].name);
    CHECK(rt::compare_arrays<float>(got.host[static_cast<std::size_t>(id)],
                                    want[static_cast<std::size_t>(id)]) == "");
  }
}

}  // namespace

TEST_CASE("the engine on the host backend: every partition gives the plain loop's bits") {
  const std::vector<HostArray> want = serial();
  // Real data: the last step changed B's interior.
  CHECK(std::memcmp(want[kA].bytes.data(), want[kB].bytes.data(), want[kA].bytes.size()) != 0);
  const Result one = run(request(1, rt::Strategy::kSlabs, 1), 1);
  check_equal(one, want, "1 part");
  CHECK(one.exchanged == 0);
  const Result slabs = run(request(3, rt::Strategy::kSlabs, 1), 3);
  check_equal(slabs, want, "3 slabs");
  CHECK(slabs.exchanged > 0);
  const Result grid = run(request(4, rt::Strategy::kMinExchange, 1), 4);
  check_equal(grid, want, "2x2 grid");
  // The reduction (an exact sum) is the same bits on every partition.
  CHECK(one.sum == slabs.sum);
  CHECK(one.sum == grid.sum);
  CHECK(one.sum > 0);
}

TEST_CASE("the engine on the host backend: several parts per device, weights shared by parts") {
  const std::vector<HostArray> want = serial();
  const Result a = run(request(5, rt::Strategy::kSlabs, 1, rt::part_weights({}, 2, 5)), 2);
  check_equal(a, want, "5 parts on 2 devices");
  const Result b =
      run(request(6, rt::Strategy::kMinExchange, 1, rt::part_weights({1, 3}, 2, 6)), 2);
  check_equal(b, want, "6 parts on 2 devices, weights 1,3, min-exchange");
  const Result one = run(request(1, rt::Strategy::kSlabs, 1), 1);
  CHECK(a.sum == one.sum);
  CHECK(b.sum == one.sum);
}

TEST_CASE("the engine on the host backend: deep halos and initial values made on the devices") {
  const std::vector<HostArray> want = serial();
  const Result deep = run(request(3, rt::Strategy::kSlabs, 2), 3);
  check_equal(deep, want, "3 slabs, exchange every 2 steps");
  // A random(7) and B = copy(A) made on the devices (no host copy, nothing uploaded): the exact
  // sum of the last step's B is the one of the run from the host's values.
  const Result one = run(request(1, rt::Strategy::kSlabs, 1), 1);
  const Result made = run(request(4, rt::Strategy::kMinExchange, 1), 2, false);
  CHECK(made.sum == one.sum);
  CHECK(deep.sum == one.sum);
}

TEST_CASE("the engine on the host backend: periodic frames, on the host and by device copies") {
  const std::vector<HostArray> want = serial_periodic();
  const Result one = run(request(1, rt::Strategy::kSlabs, 1), 1, true, true);
  check_equal(one, want, "periodic, 1 part");
  check_equal(run(request(3, rt::Strategy::kSlabs, 1), 3, true, true), want, "periodic, 3 slabs");
  check_equal(run(request(4, rt::Strategy::kMinExchange, 1), 4, true, true), want,
              "periodic, 2x2 grid");
  check_equal(run(request(5, rt::Strategy::kSlabs, 1, rt::part_weights({}, 2, 5)), 2, true, true),
              want, "periodic, 5 parts on 2 devices");
  check_equal(run(request(3, rt::Strategy::kSlabs, 2), 3, true, true), want,
              "periodic, 3 slabs, exchange every 2 steps");
  // Every refresh composed on the host (FrameSources), as an MPI rank's periodic neighbour is.
  rt::EnvSettings frames_host;
  frames_host.frames_on_host = true;  // STEPGEN_FRAMES=host
  rt::ScopedEnvSettings env(frames_host);
  check_equal(run(request(4, rt::Strategy::kMinExchange, 1), 4, true, true), want,
              "periodic, 2x2 grid, frames through the host");
}

// The OpenCL out-of-core runner (cl::OocRunner: rt::ooc::Runner over cl::OocOps) on the first
// OpenCL CPU device (PoCL in CI), as one MPI rank of two runs it: its share of the schedule, and
// at every pass boundary the exchange, here with the other "rank" (a thread with its own device,
// host arrays and runner) through their host arrays. Its results equal a run over the whole
// grid, and the exchange comes after the rank's stores and before its next loads.
#include <doctest/doctest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/ooc_opencl.hpp"

using namespace stepgen;

namespace {

constexpr rt::Index kX = 24, kY = 30;  // the grid; chunks are planes along y

/// One step from `a` into `b` over a buffer holding box (x0, y0, ex, ey) of the grid: the
/// grid's edge kept as it is, cells whose reads leave the buffer left alone.
const char* const kSource = R"(
__kernel void ooc_test_step(__global const int* a, __global int* b, long x0, long y0, long ex, long ey,
                   long nx, long ny) {
  const long lx = get_global_id(0), ly = get_global_id(1);
  const long x = x0 + lx, y = y0 + ly, i = ly * ex + lx;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) { b[i] = a[i]; return; }
  if (lx == 0 || ly == 0 || lx == ex - 1 || ly == ey - 1) return;
  b[i] = (a[i - 1] + a[i + 1] + a[i - ex] + a[i + ex] + 3 * a[i]) & 0xFFFF;
}
)";

rt::Box grid() {
  return rt::Box::from_extent(2, {kX, kY, 1});
}

std::vector<rt::HostArray> initial() {
  std::vector<rt::HostArray> host;
  for (const char* name : {"a", "b"}) {
    host.emplace_back(name, sizeof(std::int32_t), grid());
    auto* v = host.back().as<std::int32_t>();
    for (rt::Index i = 0; i < grid().volume(); ++i)
      v[i] = static_cast<std::int32_t>((i * 7919 + (name[0] == 'b' ? 5 : 0)) % 65536);
  }
  return host;
}

/// The whole grid on the host, `steps` steps.
std::vector<rt::HostArray> reference(rt::Index steps) {
  std::vector<rt::HostArray> host = initial();
  for (rt::Index s = 0; s < steps; ++s) {
    const auto* a = host[0].as<std::int32_t>();
    auto* b = host[1].as<std::int32_t>();
    for (rt::Index y = 0; y < kY; ++y)
      for (rt::Index x = 0; x < kX; ++x) {
        const rt::Index i = y * kX + x;
        b[i] = x == 0 || y == 0 || x == kX - 1 || y == kY - 1
                   ? a[i]
                   : (a[i - 1] + a[i + 1] + a[i - kX] + a[i + kX] + 3 * a[i]) & 0xFFFF;
      }
    std::swap(host[0].bytes, host[1].bytes);
  }
  return host;
}

class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    const int round = round_;
    if (++waiting_ == n_) {
      waiting_ = 0;
      ++round_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return round_ != round; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, waiting_ = 0, round_ = 0;
};

}  // namespace

TEST_CASE("ooc runner: two ranks' shares exchange at every pass boundary and equal one grid") {
  constexpr rt::Index kSteps = 7;
  constexpr int kK = 2;
  rt::ooc::Request r;
  r.grid = grid();
  for (int p = 0; p < 2; ++p) {
    rt::Box b = r.grid;
    b.lo[1] = kY * p / 2;
    b.hi[1] = kY * (p + 1) / 2;
    r.owned.push_back(b);
  }
  r.shrink_lo = r.shrink_hi = {1, 1, 0};
  r.arrays = {{"a", 4, true}, {"b", 4, true}};
  r.chunks = 3;
  r.steps_per_pass = kK;
  const rt::ooc::Schedule sc = rt::ooc::schedule(r);
  const std::vector<rt::Transfer> transfers = rt::ooc::foreign_plan(sc);
  std::vector<std::vector<rt::HostArray>> host = {initial(), initial()};
  // What each rank's host arrays hold of its own cells when its exchanges are called: the
  // stores of every pass before are in.
  std::vector<std::vector<std::vector<std::int32_t>>> seen(2);
  Barrier barrier(2);
  // Each rank's device, program and kernel, made before the threads start (PoCL's set-up is
  // not for two threads at once).
  struct Rank {
    std::vector<cl::Device> devices;
    cl::Program program;
    cl::Kernel kernel;
  };
  std::vector<Rank> ranks(2);
  for (Rank& rk : ranks) {
    rt::Options opt;
    opt.device_type = "cpu";
    opt.devices = 1;
    rk.devices = cl::discover(opt);
    rk.program = cl::build_program(rk.devices[0], kSource, "");
    rk.kernel = cl::create_kernel(rk.devices[0], rk.program, "ooc_test_step");
  }
  auto rank = [&](int me) {
    try {
      const auto m = static_cast<std::size_t>(me);
      std::vector<cl::Device>& devices = ranks[m].devices;
      const cl::Kernel& kernel = ranks[m].kernel;
      cl::OocStep step = [&](const cl::Device& dev, std::size_t, std::vector<cl::Mem>& bufs,
                             const rt::Part& chunk, std::int64_t, std::int64_t) {
        const cl_long args[6] = {chunk.ghost.lo[0],
                                 chunk.ghost.lo[1],
                                 chunk.ghost.extent(0),
                                 chunk.ghost.extent(1),
                                 kX,
                                 kY};
        cl::set_arg(dev, kernel, 0, bufs[0], "a");
        cl::set_arg(dev, kernel, 1, bufs[1], "b");
        for (cl_uint i = 0; i < 6; ++i) cl::set_arg(dev, kernel, 2 + i, args[i], "box");
        const size_t global[2] = {static_cast<size_t>(chunk.ghost.extent(0)),
                                  static_cast<size_t>(chunk.ghost.extent(1))};
        cl::launch(dev, kernel, "step", 2, global, nullptr);
        cl::rename_buffers(bufs, {0, 1});
      };
      cl::OocShare share;
      share.part = me;
      share.exchange = [&, me, m] {
        const rt::Box own = sc.parts[m].owned;
        std::vector<std::int32_t> cells;
        for (rt::Index i = own.lo[1] * kX; i < own.hi[1] * kX; ++i)
          cells.push_back(host[m][0].as<std::int32_t>()[i]);
        seen[m].push_back(cells);
        barrier.wait();  // both ranks' stores are in their host arrays
        for (const rt::Transfer& t : transfers)
          if (t.dst == me)
            for (const rt::Box& b : t.boxes)
              for (std::size_t a = 0; a < 2; ++a)
                rt::ooc::copy_host_box(host[static_cast<std::size_t>(t.src)][a], host[m][a], b);
        barrier.wait();  // both ranks have their foreign cells
      };
      cl::OocRunner runner(devices, sc, host[m], step, true, share);
      rt::ooc::Stats stats;
      runner.run(kSteps, stats);
    } catch (const std::exception& e) {
      // The other rank may wait at a barrier for this one: not a test to hang on.
      std::fprintf(stderr, "rank %d: %s\n", me, e.what());
      std::abort();
    }
  };
  std::thread other(rank, 1);
  rank(0);
  other.join();
  const rt::Index passes = rt::ooc::passes(kSteps, kK);
  for (int me = 0; me < 2; ++me) {
    CAPTURE(me);
    const auto m = static_cast<std::size_t>(me);
    const rt::Box own = sc.parts[m].owned;
    REQUIRE(seen[m].size() == static_cast<std::size_t>(passes - 1));
    for (std::size_t i = 0; i < seen[m].size(); ++i) {
      // At the exchange after pass i, the rank's own cells are those of step (i + 1) * k.
      const std::vector<rt::HostArray> want = reference(static_cast<rt::Index>(i + 1) * kK);
      CHECK(std::equal(seen[m][i].begin(), seen[m][i].end(),
                       want[0].as<std::int32_t>() + own.lo[1] * kX));
    }
    const std::vector<rt::HostArray> want = reference(kSteps);
    for (std::size_t a = 0; a < 2; ++a)
      CHECK(std::equal(host[m][a].as<std::int32_t>() + own.lo[1] * kX,
                       host[m][a].as<std::int32_t>() + own.hi[1] * kX,
                       want[a].as<std::int32_t>() + own.lo[1] * kX));
  }
}

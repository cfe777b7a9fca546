// The CUDA out-of-core runner (cuda::OocRunner: rt::ooc::Runner over cuda::OocOps) on the CPU
// emulation of the CUDA runtime (stepgen_cuda_emu.hpp, included first by the build; in the
// deferred order every stream's work runs in a random order the events allow, as a GPU may run
// it): every part on its own device, and one MPI rank's share, its exchange at every pass
// boundary giving it the other rank's cells. Results equal a run over the whole grid bit for
// bit, and each exchange finds the rank's stores of the passes before it done.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/ooc_cuda.hpp"

using namespace stepgen;

namespace {

constexpr rt::Index kX = 20, kY = 24;  // the grid; chunks are planes along y

/// One step from `a` into `b` over a buffer holding box (x0, y0, ex, ey) of the grid: the
/// grid's edge kept as it is, cells whose reads leave the buffer left alone.
__global__ void ooc_test_step(const std::int32_t* a, std::int32_t* b, long x0, long y0, long ex,
                              long ey) {
  const long lx = static_cast<long>(blockIdx.x * blockDim.x + threadIdx.x);
  const long ly = static_cast<long>(blockIdx.y * blockDim.y + threadIdx.y);
  if (lx >= ex || ly >= ey) return;
  const long x = x0 + lx, y = y0 + ly, i = ly * ex + lx;
  if (x == 0 || y == 0 || x == kX - 1 || y == kY - 1) {
    b[i] = a[i];
    return;
  }
  if (lx == 0 || ly == 0 || lx == ex - 1 || ly == ey - 1) return;
  b[i] = (a[i - 1] + a[i + 1] + a[i - ex] + a[i + ex] + 3 * a[i]) & 0xFFFF;
}

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

/// The generated program's chunk step: the launch on the chunk's buffers, then the swap.
void step(const cuda::Device& d, std::size_t, std::vector<cuda::Buffer>& bufs,
          const rt::Part& chunk, std::int64_t, std::int64_t) {
  const long ex = static_cast<long>(chunk.ghost.extent(0)),
             ey = static_cast<long>(chunk.ghost.extent(1));
  const dim3 block(8, 8, 1);
  const dim3 blocks(static_cast<unsigned>((ex + 7) / 8), static_cast<unsigned>((ey + 7) / 8), 1);
  d.use();
  STEPGEN_LAUNCH(ooc_test_step, blocks, block, d.stream())
  (static_cast<const std::int32_t*>(bufs[0].get()), static_cast<std::int32_t*>(bufs[1].get()),
   static_cast<long>(chunk.ghost.lo[0]), static_cast<long>(chunk.ghost.lo[1]), ex, ey);
  cuda::check(cudaGetLastError(), "ooc_test_step", d);
  cuda::rename_buffers(bufs, {0, 1});
}

rt::ooc::Schedule schedule(int chunks, int k, bool sharing) {
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
  r.chunks = chunks;
  r.steps_per_pass = k;
  r.region_sharing = sharing;
  return rt::ooc::schedule(r);
}

bool same(const rt::HostArray& got, const rt::HostArray& want, const rt::Box& box) {
  const rt::Index from = box.lo[1] * kX, to = box.hi[1] * kX;
  return std::memcmp(got.as<std::int32_t>() + from, want.as<std::int32_t>() + from,
                     static_cast<std::size_t>(to - from) * sizeof(std::int32_t)) == 0;
}

std::vector<cuda::Device> devices(int n) {
  rt::Options opt;
  opt.devices = n;
  return cuda::discover(opt);
}

}  // namespace

TEST_CASE("cuda ooc runner: two parts on two devices equal the whole grid") {
  constexpr rt::Index kSteps = 7;
  const std::vector<rt::HostArray> want = reference(kSteps);
  for (int chunks : {1, 3})
    for (int k : {1, 2, 3})
      for (bool sharing : {true, false})
        for (bool overlap : {true, false}) {
          CAPTURE(chunks);
          CAPTURE(k);
          CAPTURE(sharing);
          CAPTURE(overlap);
          std::vector<cuda::Device> devs = devices(2);
          REQUIRE(devs.size() == 2);
          const rt::ooc::Schedule sc = schedule(chunks, k, sharing);
          std::vector<rt::HostArray> host = initial();
          std::vector<cuda::PinnedHost> pinned = cuda::pin_host_arrays(host);
          cuda::OocRunner runner(devs, sc, host, step, overlap);
          rt::ooc::Stats stats;
          runner.run(kSteps, stats);
          CHECK(same(host[0], want[0], grid()));
          CHECK(same(host[1], want[1], grid()));
        }
}

TEST_CASE("cuda ooc runner: a rank's share exchanges after its stores, before its next loads") {
  // One rank at a time, on its one device; its exchange brings the other rank's cells of the
  // steps so far (the reference's), as the MPI messages would.
  constexpr rt::Index kSteps = 7;
  constexpr int kK = 2;
  const rt::ooc::Schedule sc = schedule(3, kK, true);
  const std::vector<rt::Transfer> transfers = rt::ooc::foreign_plan(sc);
  const std::vector<rt::HostArray> want = reference(kSteps);
  const rt::Index passes = rt::ooc::passes(kSteps, kK);
  for (int me = 0; me < 2; ++me) {
    CAPTURE(me);
    const rt::Box own = sc.parts[static_cast<std::size_t>(me)].owned;
    std::vector<cuda::Device> devs = devices(1);
    std::vector<rt::HostArray> host = initial();
    std::vector<cuda::PinnedHost> pinned = cuda::pin_host_arrays(host);
    int exchanges = 0;
    cuda::OocShare share;
    share.part = me;
    share.exchange = [&] {
      ++exchanges;
      const std::vector<rt::HostArray> now = reference(exchanges * kK);
      // The rank's stores of every pass so far are in its host arrays.
      CHECK(same(host[0], now[0], own));
      CHECK(same(host[1], now[1], own));
      for (const rt::Transfer& t : transfers)
        if (t.dst == me)
          for (const rt::Box& b : t.boxes)
            for (std::size_t a = 0; a < 2; ++a) rt::ooc::copy_host_box(now[a], host[a], b);
    };
    cuda::OocRunner runner(devs, sc, host, step, true, share);
    rt::ooc::Stats stats;
    runner.run(kSteps, stats);
    CHECK(exchanges == passes - 1);
    CHECK(same(host[0], want[0], own));
    CHECK(same(host[1], want[1], own));
  }
}

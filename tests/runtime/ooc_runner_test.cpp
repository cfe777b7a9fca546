// The out-of-core runner (rt::ooc::Runner, stepgen/exec/ooc/runner.hpp) on a backend that runs on
// the CPU: buffers in host memory, every copy done when it is issued. The OpenCL and CUDA
// runners are this runner over their own operations, so what holds here (the results equal a
// run over the whole grid, the pass-boundary exchange of a rank's share comes after its stores
// and before its next loads) holds for them as far as the order of their commands goes.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stepgen/exec/ooc.hpp"

using namespace stepgen::rt;

namespace {

/// A device of the CPU backend: what it logs of the commands run on it.
struct FakeDevice {
  mutable int queues = 0;              ///< queues made so far (ids 1, 2, ...; 0: its own)
  mutable std::string* log = nullptr;  ///< 'L', 'C', 'S' per recorded command, 'X' per exchange
};

/// A buffer: host memory, shared like a device handle (swap renames it).
struct FakeBuffer {
  std::shared_ptr<std::vector<unsigned char>> bytes;
};

struct FakeQueue {
  int id = 0;
  int get() const { return id; }
};

struct FakeEvent {
  int get() const { return 0; }
};

/// Copies the rectangle `s` of `from` to the rectangle `t` of `to` (the same region).
void copy_rect(const unsigned char* from, const RectCopy& s, unsigned char* to, const RectCopy& t) {
  for (std::size_t z = 0; z < s.region[2]; ++z)
    for (std::size_t y = 0; y < s.region[1]; ++y)
      std::memcpy(to + t.offset() + y * t.row_pitch + z * t.slice_pitch,
                  from + s.offset() + y * s.row_pitch + z * s.slice_pitch, s.region[0]);
}

/// The CPU backend's operations (see rt::ooc::Runner): every copy is done when issued, so the
/// order of the calls is the order of the work, and each recorded command is logged by the
/// queue it ran on: the first queue a part makes is its copy-in queue, the second its copy-out.
struct FakeOps {
  using Device = FakeDevice;
  using Buffer = FakeBuffer;
  using Queue = FakeQueue;
  using Event = FakeEvent;
  using Handle = int;
  struct Pinned {};

  static Buffer buffer(const Device&, const Box& box, std::size_t element_bytes,
                       const std::string&) {
    return {std::make_shared<std::vector<unsigned char>>(static_cast<std::size_t>(box.volume()) *
                                                         element_bytes)};
  }
  static Queue queue(const Device& d) { return {++d.queues}; }
  static Handle compute_queue(const Device&) { return 0; }
  static void use(const Device&) {}
  static void host_copy(Handle, const Device&, const Buffer& buf, const Box& box,
                        const HostArray& host, const Box& sub, bool to_device,
                        std::vector<Event>*) {
    if (sub.empty()) return;
    const RectCopy dev = rect_of(sub, box, host.element_bytes);
    const RectCopy hst = rect_of(sub, host.box, host.element_bytes);
    auto* h = const_cast<unsigned char*>(host.bytes.data());
    if (to_device)
      copy_rect(h, hst, buf.bytes->data(), dev);
    else
      copy_rect(buf.bytes->data(), dev, h, hst);
  }
  static void device_copy(Handle, const Device&, const Buffer& from, const RectCopy& src,
                          const Buffer& to, const RectCopy& dst, const std::string&) {
    copy_rect(from.bytes->data(), src, to.bytes->data(), dst);
  }
  static void wait(Handle, const Device&, const std::vector<const Event*>&) {}
  static void host_wait(const Device&, const std::vector<const Event*>&) {}
  static Event record(Handle q, const Device& d) {
    if (d.log) *d.log += q == 0 ? 'C' : q % 2 == 1 ? 'L' : 'S';
    return {};
  }
  static void flush(Handle, const Device&) {}
  static void finish(const Device&) {}
  static void finish(Handle, const Device&) {}
  static Pinned pin(const Device&, HostArray&) { return {}; }
};

using FakeRunner = ooc::Runner<FakeOps>;

constexpr Index kX = 40, kY = 36;  // the grid; chunks are planes along y

Box grid() {
  return Box::from_extent(2, {kX, kY, 1});
}

/// One step of a 5-point average, the grid's edge kept as it is, from `a` into `b` over the
/// cells of `box` that are `at` (a buffer's box) minus one cell where it is not the grid's edge.
void stencil(const double* a, double* b, const Box& at) {
  for (Index y = at.lo[1]; y < at.hi[1]; ++y)
    for (Index x = at.lo[0]; x < at.hi[0]; ++x) {
      const Index i = (y - at.lo[1]) * at.extent(0) + (x - at.lo[0]);
      const bool edge = x == 0 || y == 0 || x == kX - 1 || y == kY - 1;
      if (edge) {
        b[i] = a[i];
        continue;
      }
      if (x == at.lo[0] || y == at.lo[1] || x == at.hi[0] - 1 || y == at.hi[1] - 1)
        continue;  // its reads leave the buffer: never read again in the pass
      const Index w = at.extent(0);
      b[i] = (a[i - 1] + a[i + 1] + a[i - w] + a[i + w] + a[i]) * 0.2;
    }
}

std::vector<HostArray> initial() {
  std::vector<HostArray> host;
  for (const char* name : {"a", "b"}) {
    host.emplace_back(name, sizeof(double), grid());
    double* v = host.back().as<double>();
    for (Index i = 0; i < grid().volume(); ++i)
      v[i] = static_cast<double>((i * 7919) % 1000) / 7.0 + (name[0] == 'b' ? 1 : 0);
  }
  return host;
}

/// The whole grid, `steps` steps: what every out-of-core run must give, bit for bit.
std::vector<HostArray> reference(Index steps) {
  std::vector<HostArray> host = initial();
  for (Index s = 0; s < steps; ++s) {
    stencil(host[0].as<double>(), host[1].as<double>(), grid());
    std::swap(host[0].bytes, host[1].bytes);
  }
  return host;
}

/// The step a generated program gives the runner: the launch on the chunk, then the swap.
FakeRunner::Step step() {
  return [](const FakeDevice&, std::size_t, std::vector<FakeBuffer>& bufs, const Part& chunk,
            std::int64_t, std::int64_t) {
    stencil(reinterpret_cast<const double*>(bufs[0].bytes->data()),
            reinterpret_cast<double*>(bufs[1].bytes->data()), chunk.ghost);
    std::swap(bufs[0], bufs[1]);
  };
}

ooc::Request request(int parts, int chunks, int k, bool sharing, int buffers) {
  ooc::Request r;
  r.grid = grid();
  for (int p = 0; p < parts; ++p) {
    Box b = r.grid;
    b.lo[1] = kY * p / parts;
    b.hi[1] = kY * (p + 1) / parts;
    r.owned.push_back(b);
  }
  r.shrink_lo = r.shrink_hi = {1, 1, 0};
  r.arrays = {{"a", 8, true}, {"b", 8, true}};
  r.chunks = chunks;
  r.steps_per_pass = k;
  r.region_sharing = sharing;
  r.buffers = buffers;
  return r;
}

/// The cells of `box` of two host arrays are equal, bit for bit.
bool same(const HostArray& got, const HostArray& want, const Box& box) {
  for (Index y = box.lo[1]; y < box.hi[1]; ++y)
    for (Index x = box.lo[0]; x < box.hi[0]; ++x) {
      const Index i = y * kX + x;
      if (std::memcmp(got.as<double>() + i, want.as<double>() + i, sizeof(double)) != 0)
        return false;
    }
  return true;
}

/// A barrier of `n` threads (C++17 has none).
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

TEST_CASE("ooc runner: every part, chunk count, k, sharing and overlap equals the whole grid") {
  constexpr Index kSteps = 7;
  const std::vector<HostArray> want = reference(kSteps);
  for (int parts : {1, 2})
    for (int chunks : {1, 3})
      for (int k : {1, 2, 3})
        for (bool sharing : {true, false})
          for (bool overlap : {true, false})
            for (int buffers : {3, 4}) {
              CAPTURE(parts);
              CAPTURE(chunks);
              CAPTURE(k);
              CAPTURE(sharing);
              CAPTURE(overlap);
              CAPTURE(buffers);
              const ooc::Schedule sc = ooc::schedule(request(parts, chunks, k, sharing, buffers));
              std::vector<FakeDevice> devices(static_cast<std::size_t>(parts));
              std::vector<HostArray> host = initial();
              FakeRunner runner(devices, sc, host, step(), overlap);
              ooc::Stats stats;
              runner.run(kSteps, stats);
              CHECK(same(host[0], want[0], grid()));
              CHECK(same(host[1], want[1], grid()));
              CHECK(stats.passes == ooc::passes(kSteps, k));
              CHECK(stats.h2d_bytes == static_cast<std::size_t>(sc.h2d_bytes) *
                                           static_cast<std::size_t>(stats.passes));
              CHECK(stats.d2h_bytes == static_cast<std::size_t>(sc.d2h_bytes) *
                                           static_cast<std::size_t>(stats.passes));
            }
}

TEST_CASE(
    "ooc runner: a rank's share exchanges at every pass boundary, after its stores and "
    "before its next loads") {
  // Two ranks as two threads, each with its own host arrays and one part of the schedule; the
  // exchange copies the cells of its foreign boxes from their owner's host arrays (as the MPI
  // program's messages do).
  constexpr Index kSteps = 7;
  constexpr int kChunks = 3, kK = 2;
  const std::vector<HostArray> want = reference(kSteps);
  const ooc::Schedule sc = ooc::schedule(request(2, kChunks, kK, true, 3));
  const std::vector<Transfer> transfers = ooc::foreign_plan(sc);
  REQUIRE(transfers.size() == 2);
  std::vector<std::vector<HostArray>> host = {initial(), initial()};
  std::vector<std::string> log(2);
  Barrier barrier(2);
  auto rank = [&](int me) {
    std::vector<FakeDevice> device(1);
    device[0].log = &log[static_cast<std::size_t>(me)];
    ooc::Share share;
    share.part = me;
    share.exchange = [&, me] {
      log[static_cast<std::size_t>(me)] += 'X';
      barrier.wait();  // both ranks' stores are in their host arrays
      for (const Transfer& t : transfers)
        if (t.dst == me)
          for (const Box& b : t.boxes)
            for (std::size_t a = 0; a < 2; ++a)
              ooc::copy_host_box(host[static_cast<std::size_t>(t.src)][a],
                                 host[static_cast<std::size_t>(me)][a], b);
      barrier.wait();  // both ranks have their foreign cells
    };
    FakeRunner runner(device, sc, host[static_cast<std::size_t>(me)], step(), true,
                      std::move(share));
    ooc::Stats stats;
    runner.run(kSteps, stats);
  };
  std::thread other(rank, 1);
  rank(0);
  other.join();
  const Index passes = ooc::passes(kSteps, kK);
  for (int me = 0; me < 2; ++me) {
    CAPTURE(me);
    const auto m = static_cast<std::size_t>(me);
    CHECK(same(host[m][0], want[0], sc.parts[m].owned));
    CHECK(same(host[m][1], want[1], sc.parts[m].owned));
    // Every pass loads, computes and stores each chunk once; the exchange before pass i comes
    // after all of pass i-1's stores and before any of pass i's loads.
    const std::string& l = log[m];
    CAPTURE(l);
    CHECK(std::count(l.begin(), l.end(), 'X') == passes - 1);
    CHECK(std::count(l.begin(), l.end(), 'L') == passes * kChunks);
    CHECK(std::count(l.begin(), l.end(), 'S') == passes * kChunks);
    Index seen = 0;
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (l[i] != 'X') continue;
      ++seen;
      const std::string before = l.substr(0, i);
      CHECK(std::count(before.begin(), before.end(), 'S') == seen * kChunks);
      CHECK(std::count(before.begin(), before.end(), 'L') == seen * kChunks);
    }
  }
}

TEST_CASE("ooc runner: without a share every part runs and no exchange is called") {
  const ooc::Schedule sc = ooc::schedule(request(2, 2, 2, true, 3));
  std::vector<FakeDevice> devices(2);
  std::string log0, log1;
  devices[0].log = &log0;
  devices[1].log = &log1;
  std::vector<HostArray> host = initial();
  FakeRunner runner(devices, sc, host, step(), true);
  ooc::Stats stats;
  runner.run(4, stats);
  CHECK(log0.find('X') == std::string::npos);
  CHECK(std::count(log0.begin(), log0.end(), 'L') == 4);
  CHECK(std::count(log1.begin(), log1.end(), 'S') == 4);
  const std::vector<HostArray> want = reference(4);
  CHECK(same(host[0], want[0], grid()));
}

TEST_CASE("ooc runner: calibration measures on a probe and leaves the host arrays as they were") {
  const ooc::Schedule sc = ooc::schedule(request(2, 1, 1, true, 3));
  std::vector<FakeDevice> devices(2);
  std::vector<HostArray> host = initial();
  const std::vector<HostArray> before = initial();
  // oocauto: the runner's own issue path timed on a short run of chunks (time_issue): 4 steps
  // of 4 chunks of 2 planes, six times; its steps are the ones on chunks smaller than their loads
  // (the probe's own steps run on a box whose owned cells are its load).
  int chunk_steps = 0;
  const FakeRunner::Step counted = [&](const FakeDevice& d, std::size_t p,
                                       std::vector<FakeBuffer>& bufs, const Part& chunk,
                                       std::int64_t s, std::int64_t remaining) {
    if (!(chunk.owned == chunk.ghost)) {
      ++chunk_steps;
      CHECK(chunk.owned.extent(1) == 2);
      CHECK(chunk.owned.hi[1] <= 8);
    }
    step()(d, p, bufs, chunk, s, remaining);
  };
  const ooc::Link link = FakeRunner::calibrate(devices, sc, host, counted, 8 * kX * 4);
  CHECK(chunk_steps == 6 * 4 * 4);
  CHECK(link.issue_op > 0);
  CHECK(link.measured);
  CHECK(link.devices_all == 2);
  CHECK(link.h2d > 0);
  CHECK(link.cell_step > 0);
  CHECK(same(host[0], before[0], grid()));
  CHECK(same(host[1], before[1], grid()));
  const Box probe = FakeRunner::probe_box(sc, 8 * kX * 4);
  CHECK(probe.extent(1) == 2);  // 2 arrays of 8 bytes: 2 planes of 40 cells in 8 * 40 * 4
}

TEST_CASE("ooc runner: pass_end runs after every pass, one part too, and stops the run") {
  // Reductions, until and the monitor (monitor.hpp) run at pass boundaries: with pass
  // barriers, pass_end sees each pass's steps once every store is done; false stops the run
  // there, the host arrays holding the state after that pass's last step.
  for (int parts : {1, 2})
    for (bool overlap : {true, false}) {
      CAPTURE(parts);
      CAPTURE(overlap);
      ooc::Request r = request(parts, 3, 2, true, 3);
      r.pass_barriers = true;
      const ooc::Schedule sc = ooc::schedule(r);
      std::vector<FakeDevice> devices(static_cast<std::size_t>(parts));
      std::vector<HostArray> host = initial();
      std::vector<std::pair<std::int64_t, std::int64_t>> seen;
      ooc::Share share;
      share.pass_end = [&](std::int64_t first, std::int64_t last) {
        seen.emplace_back(first, last);
        return last < 3;  // stop after step 3 (the second pass)
      };
      FakeRunner runner(devices, sc, host, step(), overlap, share);
      ooc::Stats stats;
      runner.run(7, stats);
      CHECK(seen == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {2, 3}});
      CHECK(stats.steps == 4);
      CHECK(stats.passes == 2);
      const std::vector<HostArray> want = reference(4);
      CHECK(same(host[0], want[0], grid()));
      CHECK(same(host[1], want[1], grid()));

      // Without a stop: every pass, the last one (a single step) included.
      std::vector<HostArray> all = initial();
      seen.clear();
      share.pass_end = [&](std::int64_t first, std::int64_t last) {
        seen.emplace_back(first, last);
        return true;
      };
      FakeRunner again(devices, sc, all, step(), overlap, share);
      ooc::Stats full;
      again.run(7, full);
      CHECK(seen ==
            std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 6}});
      CHECK(full.steps == 7);
      const std::vector<HostArray> want7 = reference(7);
      CHECK(same(all[0], want7[0], grid()));
    }
}

// --- <boundary> frames out of core (oocbound) -------------------------------------------------

namespace {

/// One step of the 5-point average with no edge logic: every cell of the buffer `at` whose
/// stencil lies inside it (a periodic grid's frame makes that every grid cell).
void periodic_stencil(const double* a, double* b, const Box& at) {
  const Index w = at.extent(0);
  for (Index y = at.lo[1] + 1; y + 1 < at.hi[1]; ++y)
    for (Index x = at.lo[0] + 1; x + 1 < at.hi[0]; ++x) {
      const Index i = (y - at.lo[1]) * w + (x - at.lo[0]);
      b[i] = (a[i - 1] + a[i + 1] + a[i - w] + a[i + w] + a[i]) * 0.2;
    }
}

/// The whole grid, periodic in x and y by modulo indexing, `steps` steps.
std::vector<HostArray> periodic_reference(Index steps) {
  std::vector<HostArray> host = initial();
  auto at = [](Index x, Index y) { return ((y + kY) % kY) * kX + (x + kX) % kX; };
  for (Index s = 0; s < steps; ++s) {
    const double* a = host[0].as<double>();
    double* b = host[1].as<double>();
    for (Index y = 0; y < kY; ++y)
      for (Index x = 0; x < kX; ++x)
        b[at(x, y)] =
            (a[at(x - 1, y)] + a[at(x + 1, y)] + a[at(x, y - 1)] + a[at(x, y + 1)] + a[at(x, y)]) *
            0.2;
    std::swap(host[0].bytes, host[1].bytes);
  }
  return host;
}

}  // namespace

TEST_CASE("ooc runner: periodic frames, the chunked dimension wrapping, equal modulo indexing") {
  // The parts' reach goes past the grid's edge (Request::frame), the cells there composed from
  // the host arrays at every pass boundary (ooc/frames.hpp): several steps per pass, several
  // parts and chunks, the first and last chunks' windows reaching past both ends of y.
  constexpr Index kSteps = 7;
  const std::vector<HostArray> want = periodic_reference(kSteps);
  const BoundaryRule rules[] = {{0, 0, BoundaryKind::kPeriodic, {}},
                                {0, 1, BoundaryKind::kPeriodic, {}},
                                {1, 0, BoundaryKind::kPeriodic, {}},
                                {1, 1, BoundaryKind::kPeriodic, {}}};
  auto periodic_step = [](const FakeDevice&, std::size_t, std::vector<FakeBuffer>& bufs,
                          const Part& chunk, std::int64_t, std::int64_t) {
    periodic_stencil(reinterpret_cast<const double*>(bufs[0].bytes->data()),
                     reinterpret_cast<double*>(bufs[1].bytes->data()), chunk.ghost);
    std::swap(bufs[0], bufs[1]);
  };
  for (int parts : {1, 2})
    for (int chunks : {1, 3})
      for (int k : {1, 3})
        for (bool overlap : {true, false}) {
          CAPTURE(parts);
          CAPTURE(chunks);
          CAPTURE(k);
          CAPTURE(overlap);
          ooc::Request r = request(parts, chunks, k, true, 3);
          r.frame = {true, true, false};
          const ooc::Schedule sc = ooc::schedule(r);
          CHECK(sc.has_frame);
          CHECK(sc.pass_barriers);
          CHECK(sc.parts[0].reach.lo[1] == -k);
          std::vector<FakeDevice> devices(static_cast<std::size_t>(parts));
          std::vector<HostArray> host = initial();
          ooc::Share share;
          share.frames = {rules, 4};
          FakeRunner runner(devices, sc, host, periodic_step, overlap, share);
          ooc::Stats stats;
          runner.run(kSteps, stats);
          CHECK(same(host[0], want[0], grid()));
          CHECK(same(host[1], want[1], grid()));
        }
}

TEST_CASE("ooc model: given steps per pass must divide the reductions' every") {
  ooc::Request r = request(1, 0, 0, true, 3);
  r.every = 4;
  for (int k : {0, 1, 2, 4}) {
    r.steps_per_pass = k;
    CHECK_NOTHROW(ooc::check_steps_per_pass(r));
  }
  r.steps_per_pass = 3;
  CHECK_THROWS_WITH_AS(ooc::check_steps_per_pass(r), doctest::Contains("3 steps per pass"),
                       PlanError);
  CHECK_THROWS_WITH_AS(ooc::choose(r, Index{1} << 30, ooc::Link{}, 10, true),
                       doctest::Contains("do not divide 4"), PlanError);
  r.every = 0;  // no reduction: any k
  CHECK_NOTHROW(ooc::check_steps_per_pass(r));
}

// --- oocphys: mirror, copy and value frames refilled on the chunks ---
TEST_CASE("ooc schedule: a refilled frame is one step wide, a periodic one k steps; any k") {
  for (int k : {1, 3}) {
    CAPTURE(k);
    ooc::Request r = request(2, 3, k, true, 3);
    r.frame = {true, true, false};
    r.frame_refilled = {true, false, false};  // x: mirror/copy/value only; y: periodic
    const ooc::Schedule sc = ooc::schedule(r);
    CHECK(sc.framed.lo[0] == -1);
    CHECK(sc.framed.hi[0] == r.grid.hi[0] + 1);
    CHECK(sc.framed.lo[1] == -k);
    CHECK(sc.parts[0].reach.lo[0] == -1);
    CHECK(sc.parts[0].reach.lo[1] == -k);
    r.frame_refilled = {true, true, false};  // both physical: the chunked edge is fixed too
    const ooc::Schedule fixed = ooc::schedule(r);
    CHECK(fixed.framed.lo[1] == -1);
    CHECK(fixed.parts[0].chunks.front().load.lo[1] == -1);
    CHECK(fixed.parts[1].chunks.back().load.hi[1] == r.grid.hi[1] + 1);
  }
  // The model may choose more than one step per pass for them (nothing asks for one).
  ooc::Request r = request(1, 0, 0, true, 3);
  r.frame = {true, true, false};
  r.frame_refilled = {true, true, false};
  r.steps_per_pass = 3;
  CHECK(ooc::choose(r, Index{1} << 30, ooc::Link{}, 10, true).steps_per_pass == 3);
}

// --- oocauto: the kernel/copy split (issue 26) ---
namespace {

/// A timing event of the CPU backend: when it was made (every command is done when issued).
struct TimedEvent {
  double at = 0;
  int get() const { return 0; }
};

/// The CPU backend with timing events (rt::ooc::HasTimer): a command's time is the host's time
/// between the events around it.
struct TimedFakeOps : FakeOps {
  using Event = TimedEvent;
  static void host_copy(Handle q, const Device& d, const Buffer& buf, const Box& box,
                        const HostArray& host, const Box& sub, bool to_device,
                        std::vector<Event>*) {
    FakeOps::host_copy(q, d, buf, box, host, sub, to_device, nullptr);
  }
  static void wait(Handle, const Device&, const std::vector<const Event*>&) {}
  static void host_wait(const Device&, const std::vector<const Event*>&) {}
  static Event record(Handle q, const Device& d) {
    FakeOps::record(q, d);
    return {};
  }
  static Event timer(Handle, const Device&) {
    return {
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count()};
  }
  static double elapsed(const Device&, const Event& a, const Event& b) { return b.at - a.at; }
};

}  // namespace

TEST_CASE("ooc runner: events around each command split kernels from loads and stores") {
  static_assert(ooc::HasTimer<TimedFakeOps>::value && !ooc::HasTimer<FakeOps>::value);
  constexpr Index kSteps = 5;
  const std::vector<HostArray> want = reference(kSteps);
  for (int parts : {1, 2}) {
    CAPTURE(parts);
    const ooc::Schedule sc = ooc::schedule(request(parts, 3, 2, true, 3));
    std::vector<FakeDevice> devices(static_cast<std::size_t>(parts));
    std::string timed_log, plain_log;
    devices[0].log = &timed_log;
    std::vector<HostArray> host = initial();
    ooc::Runner<TimedFakeOps> runner(devices, sc, host, step(), true);
    ooc::Stats stats;
    runner.run(kSteps, stats);
    CHECK(same(host[0], want[0], grid()));
    CHECK(stats.timed);
    CHECK(stats.kernel_s > 0);
    CHECK(stats.load_s > 0);
    CHECK(stats.store_s > 0);
    CHECK(stats.kernel_s + stats.load_s + stats.store_s <= stats.measured_s * parts + 1e-3);
    CHECK(ooc::run_stats(stats, kSteps).kernel_s == stats.kernel_s);
    // The same commands in the same order as without timing; untimed, nothing is split.
    std::vector<FakeDevice> plain(static_cast<std::size_t>(parts));
    plain[0].log = &plain_log;
    std::vector<HostArray> again = initial();
    FakeRunner untimed(plain, sc, again, step(), true);
    ooc::Stats none;
    untimed.run(kSteps, none);
    CHECK(timed_log == plain_log);
    CHECK_FALSE(none.timed);
    CHECK(none.kernel_s == 0);
  }
}
// --- end oocauto ---

// --- retune: launch shapes timed again on the chunks (ooc/retune.hpp) ---
namespace {

/// A kernel whose candidates' start-up times are `startup`, its `use` setting `*now`.
ooc::RetuneKernel retune_kernel(const std::string& name, std::vector<double> startup,
                                std::size_t start, std::size_t* now) {
  ooc::RetuneKernel k;
  k.name = name;
  for (std::size_t c = 0; c < startup.size(); ++c) k.shapes.push_back("s" + std::to_string(c));
  k.startup = std::move(startup);
  k.start = start;
  k.use = [now](std::size_t c) { *now = c; };
  return k;
}

/// Runs the compute commands of `steps` steps through `r` as the runner does, each command's
/// time being `cost(trial)` per cell-step (the shapes set then), a trial's reported `lag`
/// commands later (commands in flight).
template <class Cost>
void simulate(ooc::Retuner& r, const ooc::Schedule& sc, Index steps, std::size_t lag, Cost cost) {
  std::vector<std::pair<int, double>> flight;
  for (const ooc::Op& op : ooc::ops(sc, steps)) {
    if (op.kind != ooc::Op::Kind::kCompute) continue;
    while (flight.size() > lag) {
      r.measured(flight.front().first, flight.front().second);
      flight.erase(flight.begin());
    }
    const int id = r.before(sc, op, 0);
    const ooc::Chunk& ch = sc.parts[0].chunks[static_cast<std::size_t>(op.chunk)];
    flight.push_back({id, cost(id >= 0) * static_cast<double>(ch.own.volume() * op.steps)});
  }
  for (const auto& [id, s] : flight) r.measured(id, s);
}

}  // namespace

/// The time per cell-step of candidate c in the first case below.
double per_of(std::size_t c) {
  const double per[] = {3e-9, 1e-9, 2e-9, 9, 9};
  return per[c];
}

TEST_CASE("retune: each candidate timed, the fastest three again, the fastest kept") {
  // 8 chunks (6 interior), k = 2: 6 eligible commands per pass of the one part.
  const ooc::Schedule sc = ooc::schedule(request(1, 8, 2, true, 3));
  for (std::size_t lag : {0, 1, 3}) {
    CAPTURE(lag);
    std::size_t now = 99;
    // Candidate 3 is refused at start-up, 4 over 1.5x the fastest there: neither is tried.
    ooc::Retuner r({retune_kernel("lap", {1.0, 1.1, 1.2, -1, 2.0}, 0, &now)});
    REQUIRE(r.wanted());
    // 3 tried + 3 again = 6 trials: the run needs 3 x 6 = 18 eligible commands.
    CHECK_FALSE(r.start(8, 2, 4));    // 2 passes x 6 = 12
    CHECK_FALSE(r.start(2, 2, 100));  // no interior chunk
    CHECK(r.report().at(0).find("fewer than 3 chunks") != std::string::npos);
    {  // always: even so (every chunk compared with fewer than 3), unfinished when too short
      std::size_t other = 0;
      ooc::Retuner a({retune_kernel("lap", {1.0, 1.1, 1.2, -1, 2.0}, 0, &other)});
      const ooc::Schedule two = ooc::schedule(request(1, 2, 1, true, 3));
      REQUIRE(a.start(2, 1, 2, true));
      simulate(a, two, 2, lag, [&](bool) { return per_of(other); });
      CHECK_FALSE(a.done(0));
      a.finish();
      CHECK(a.report().at(0).find("retuned on the chunks: unfinished (the run ended first), s1 "
                                  "kept; ") != std::string::npos);
      CHECK(other == 1);
    }
    REQUIRE(r.start(8, 2, 10));  // 5 passes x 6 = 30
    CHECK(now == 0);             // the start-up choice until a trial says otherwise
    std::vector<std::size_t> seen;
    simulate(r, sc, 10, lag, [&](bool trial) {
      if (trial) seen.push_back(now);
      return per_of(now);
    });
    CHECK(r.done(0));
    CHECK_FALSE(r.active());
    CHECK(r.best(0) == 1);
    CHECK(now == 1);
    // Every tried candidate twice (the three fastest again), never the refused or the pruned.
    for (std::size_t c : {0, 1, 2}) CHECK(std::count(seen.begin(), seen.end(), c) == 2);
    CHECK(std::count(seen.begin(), seen.end(), 3) == 0);
    CHECK(std::count(seen.begin(), seen.end(), 4) == 0);
    const std::vector<std::string> lines = r.report();
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find("kernel 'lap' retuned on the chunks: s1 (1.0000 ns per cell-step), "
                        "3.00x faster than the start-up choice s0; 6 chunk commands timed, 1 "
                        "shape(s) not tried") != std::string::npos);
    CHECK(lines[1].find("s1 1.0000 s2 2.0000 s0 3.0000") != std::string::npos);
  }
}

TEST_CASE("retune: nothing left to try but the start-up choice: said so") {
  std::size_t now = 0;
  ooc::Retuner r({retune_kernel("lap", {1.0, 1.6, -1}, 0, &now)});
  CHECK_FALSE(r.wanted());
  CHECK_FALSE(r.start(8, 2, 100));
  const std::vector<std::string> lines = r.report();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        "  local size: kernel 'lap': the start-up choice s0 kept, not retuned on the chunks: the "
        "other candidates were refused or over 1.5x the fastest at start-up");
  // One candidate only: nothing to say.
  CHECK(ooc::Retuner({retune_kernel("one", {1.0}, 0, &now)}).report().empty());
}

TEST_CASE("retune: kernels one after the other; the start-up choice kept when fastest") {
  const ooc::Schedule sc = ooc::schedule(request(1, 8, 2, true, 3));
  std::size_t a = 1, b = 2;  // the start-up choices, as the program holds them
  ooc::Retuner r({retune_kernel("lap", {1.0, 1.0}, 1, &a),
                  retune_kernel("fixed", {1.0}, 0, &b),  // one candidate: nothing to try
                  retune_kernel("upd", {1.0, 1.2, 1.0}, 2, &b)});
  REQUIRE(r.start(8, 2, 40));
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  simulate(r, sc, 40, 2, [&](bool trial) {
    if (trial) seen.push_back({a, b});
    // lap: s1 fastest; upd: s0 fastest. upd's times depend on lap's shape too.
    return (a == 1 ? 1e-9 : 2e-9) + (b == 0 ? 1e-9 : b == 1 ? 3e-9 : 2e-9);
  });
  CHECK(r.best(0) == 1);
  CHECK(r.best(2) == 0);
  CHECK(a == 1);
  CHECK(b == 0);
  // lap's 4 trials first (upd at its start-up choice), then upd's 6 with lap at its final shape.
  REQUIRE(seen.size() == 10);
  for (std::size_t i = 0; i < 4; ++i) CHECK(seen[i].second == 2);
  for (std::size_t i = 4; i < 10; ++i) CHECK(seen[i].first == 1);
  const std::vector<std::string> lines = r.report();
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].find("'lap' retuned on the chunks: the start-up choice s1 kept") !=
        std::string::npos);
  CHECK(lines[2].find("'upd' retuned on the chunks: s0") != std::string::npos);
}

TEST_CASE("retune: the runner times its trials on the chunks; the results stay the same bits") {
  constexpr Index kSteps = 10;
  const std::vector<HostArray> want = reference(kSteps);
  const ooc::Schedule sc = ooc::schedule(request(1, 8, 2, true, 3));
  std::size_t now = 99;
  ooc::Retuner r({retune_kernel("avg", {1.0, 1.0, 1.0}, 0, &now)});
  REQUIRE(r.start(8, 2, kSteps));
  // The step takes longer with some shapes: 1.8, 0.6 and 1.2 ms per step (apart by more than a
  // busy host delays a sleep).
  const FakeRunner::Step plain = step();
  const FakeRunner::Step timed = [&](const FakeDevice& d, std::size_t p,
                                     std::vector<FakeBuffer>& bufs, const Part& chunk,
                                     std::int64_t s, std::int64_t remaining) {
    std::this_thread::sleep_for(std::chrono::microseconds(now == 0 ? 1800 : now == 1 ? 600 : 1200));
    plain(d, p, bufs, chunk, s, remaining);
  };
  std::vector<FakeDevice> devices(1);
  std::vector<HostArray> host = initial();
  ooc::Share share;
  share.retune = &r;
  ooc::Runner<TimedFakeOps> runner(devices, sc, host, timed, true, share);
  ooc::Stats stats;
  runner.run(kSteps, stats);
  CHECK(same(host[0], want[0], grid()));
  CHECK(same(host[1], want[1], grid()));
  CHECK(r.done(0));
  CHECK(r.best(0) == 1);
  CHECK(now == 1);
}
// --- end retune ---

// MPI ranks that drive several devices (rank_parts.hpp) on the host backend, without MPI: the
// partition of R ranks x L devices (split_ranks), each rank's view of the one exchange plan
// (RankPlan: local copies and messages), and the host backend's exchange executor run by R
// engines in R threads whose messages go through an in-process mailbox with MPI's ordering (per
// sender, receiver and tag, first in first out). Every rank's cells equal the plain loop's.
#include "stepgen/exec/rank_parts.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "jacobi_case.hpp"
#include "stepgen/exec/engine_host.hpp"

using namespace engine_case;

namespace {

// Messages between the threads that stand for ranks, in MPI's order.
class Mailbox {
 public:
  void put(int from, int to, int tag, const void* data, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto* b = static_cast<const unsigned char*>(data);
    queues_[{from, to, tag}].emplace_back(b, b + bytes);
    ready_.notify_all();
  }
  std::vector<unsigned char> take(int from, int to, int tag) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto& q = queues_[{from, to, tag}];
    ready_.wait(lock, [&q] { return !q.empty(); });
    std::vector<unsigned char> m = std::move(q.front());
    q.pop_front();
    return m;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<unsigned char>>> queues_;
};

// The executor's Messenger over the mailbox: sends complete at once (buffered), wait() takes
// the receives in the order they were posted.
class Loopback {
 public:
  struct Config {
    Mailbox* mail = nullptr;
    int rank = 0;
  };
  static constexpr bool kRanks = true;
  explicit Loopback(const Config& c) : mail_(*c.mail), rank_(c.rank) {}
  void post_receive(int peer, int tag, void* data, std::size_t bytes, const std::string&) {
    posted_.push_back({peer, tag, data, bytes});
  }
  void send(int peer, int tag, const void* data, std::size_t bytes, const std::string&) {
    mail_.put(rank_, peer, tag, data, bytes);
    ++sent_;
  }
  void wait() {
    for (const Posted& p : posted_) {
      const std::vector<unsigned char> m = mail_.take(p.peer, rank_, p.tag);
      REQUIRE(m.size() == p.bytes);
      std::memcpy(p.data, m.data(), m.size());
    }
    posted_.clear();
  }
  int sent() const { return sent_; }

 private:
  struct Posted {
    int peer, tag;
    void* data;
    std::size_t bytes;
  };
  Mailbox& mail_;
  int rank_;
  std::vector<Posted> posted_;
  int sent_ = 0;
};

// A rank's exchange state on the host backend: the backend's executor over the loopback.
using RankState = host::ExchangeState<Loopback>;
using RankEngine = rt::InCore<host::Backend, RankState>;

// R ranks of L host devices, one thread each; every rank's owned cells of A and B against the
// plain loop. Returns the parts of the run.
int run_ranks(int ranks, int per_rank, rt::Strategy strategy, int devices = 0) {
  const rt::PartitionRequest r = request(ranks, strategy, 1);
  rt::Partition partition = rt::split_ranks(rt::partition(r), r, per_rank);
  if (devices > 0) rt::place_rank_parts(partition, per_rank, devices);  // --parts
  REQUIRE(partition.parts.size() == static_cast<std::size_t>(ranks * per_rank));
  const rt::Problem<host::Backend> p = problem(1);
  const std::vector<HostArray> want = serial();
  Mailbox mail;
  std::vector<std::vector<HostArray>> host(static_cast<std::size_t>(ranks));
  std::vector<int> finished(static_cast<std::size_t>(ranks), 0);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < ranks; ++rank)
    threads.emplace_back([&, rank] {
      Box reach = partition.parts[static_cast<std::size_t>(rank * per_rank)].ghost;
      for (int j = 1; j < per_rank; ++j)
        reach = rt::bounding(reach,
                             partition.parts[static_cast<std::size_t>(rank * per_rank + j)].ghost);
      std::vector<HostArray>& mine = host[static_cast<std::size_t>(rank)];
      mine = initial_over(rt::intersect(reach, kGrid));
      std::vector<host::Device> handles(static_cast<std::size_t>(devices > 0 ? devices : per_rank));
      for (std::size_t j = 0; j < handles.size(); ++j) handles[j].index = static_cast<int>(j);
      if (devices > 0)
        handles = host::Backend::part_devices(std::move(handles),
                                              rt::rank_parts(partition, rank, per_rank));
      RankEngine engine(p, handles, partition, mine, rt::Probed{}, {rank * per_rank, per_rank},
                        RankState::Config{&mail, rank});
      engine.run(kSteps, time_loop<RankEngine>);
      finished[static_cast<std::size_t>(rank)] = 1;
    });
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < ranks; ++rank) {
    const Box box = rt::rank_box(partition, rank, per_rank);
    for (int id = 0; id < kArrays; ++id) {
      HostArray got(want[static_cast<std::size_t>(id)].name, sizeof(float), box);
      HostArray ref(want[static_cast<std::size_t>(id)].name, sizeof(float), box);
      host::copy_cells(host[static_cast<std::size_t>(rank)][static_cast<std::size_t>(id)], box, got,
                       box);
      host::copy_cells(want[static_cast<std::size_t>(id)], box, ref, box);
      INFO("rank " << rank << " of " << ranks << " x " << per_rank << ", array " << got.name);
      CHECK(rt::compare_arrays<float>(got, ref) == "");
    }
    CHECK(finished[static_cast<std::size_t>(rank)] == 1);
  }
  return static_cast<int>(partition.parts.size());
}

}  // namespace

TEST_CASE("rank parts: each rank's box cut into one part per device, against the whole grid") {
  const rt::PartitionRequest r = request(2, rt::Strategy::kSlabs, 1);
  const rt::Partition ranks = rt::partition(r);
  const rt::Partition parts = rt::split_ranks(ranks, r, 3);
  REQUIRE(parts.parts.size() == 6);
  Index cells = 0;
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(rt::rank_box(parts, rank, 3) == ranks.parts[static_cast<std::size_t>(rank)].owned);
    for (int j = 0; j < 3; ++j) {
      const rt::Part& q = parts.parts[static_cast<std::size_t>(rank * 3 + j)];
      CHECK(q.id == rank * 3 + j);
      CHECK(q.device == j);
      CHECK(rt::intersect(q.owned, ranks.parts[static_cast<std::size_t>(rank)].owned) == q.owned);
      CHECK(q.ghost == rt::intersect(q.owned.grown({1, 1, 0}, {1, 1, 0}), kGrid));
      cells += q.owned.volume();
    }
  }
  CHECK(cells == kGrid.volume());
  CHECK(rt::split_ranks(ranks, r, 1).parts.size() == 2);
  // A rank's box too small for the devices asked for: a clear error, not fewer parts.
  rt::PartitionRequest tiny = r;
  tiny.domain = {4, 4, 1};
  CHECK_THROWS_WITH_AS(rt::split_ranks(rt::partition(tiny), tiny, 9),
                       doctest::Contains("can be split into only"), rt::RunError);
}

TEST_CASE("rank parts: --parts per rank, placed on the rank's devices in runs") {
  rt::Options opt;
  CHECK(rt::parts_per_rank(opt) == 1);
  opt.devices = 2;
  opt.devices_given = true;
  CHECK(rt::parts_per_rank(opt) == 2);
  opt.parts = 5;
  CHECK(rt::parts_per_rank(opt) == 5);
  opt.parts = 1;
  CHECK_THROWS_AS(rt::parts_per_rank(opt), rt::UsageError);
  const rt::PartitionRequest r = request(2, rt::Strategy::kSlabs, 1);
  rt::Partition parts = rt::split_ranks(rt::partition(r), r, 5);
  rt::place_rank_parts(parts, 5, 2);
  std::vector<int> device;
  for (const rt::Part& q : parts.parts) device.push_back(q.device);
  CHECK(device == std::vector<int>{0, 0, 0, 1, 1, 0, 0, 0, 1, 1});
  CHECK(rt::rank_parts(parts, 1, 5).parts.front().id == 5);
}

TEST_CASE("rank parts: one plan, seen by each rank as local copies and messages") {
  const rt::PartitionRequest r = request(2, rt::Strategy::kSlabs, 1);
  const rt::Partition parts = rt::split_ranks(rt::partition(r), r, 2);
  const std::vector<rt::Transfer> plan = rt::exchange_plan(parts, five_point());
  const rt::RankPlan rank0(plan, 0, 2), rank1(plan, 2, 2);
  // Slabs 0 | 1 || 2 | 3: each rank copies between its two parts, and the seam between parts 1
  // and 2 is one message each way.
  CHECK(rank0.copies.size() == 2);
  CHECK(rank1.copies.size() == 2);
  REQUIRE(rank0.sends.size() == 1);
  REQUIRE(rank1.receives.size() == 1);
  CHECK(rank0.sends[0].peer == 1);
  CHECK(rank0.sends[0].part == 1);
  CHECK(rank1.receives[0].part == 0);  // its local part 0: part 2
  CHECK(rank0.sends[0].box == rank1.receives[0].box);
  CHECK(rank0.receives.size() == 1);
  CHECK(rank1.sends.size() == 1);
}

TEST_CASE("rank parts: the exchange staging holds each staged box once, on its own cache lines") {
  const rt::PartitionRequest r = request(1, rt::Strategy::kSlabs, 1);
  const rt::Partition parts = rt::split_ranks(rt::partition(r), r, 3);
  const std::vector<rt::Transfer> plan = rt::exchange_plan(parts, five_point());
  struct Info {
    const char* name;
    std::size_t element_bytes;
  };
  const Info arrays[2] = {{"a", 4}, {"b", 8}};
  // Every transfer staged: every box of both arrays, each rounded up to a cache line.
  std::size_t asked = 0;
  rt::ExchangeStaging staging;
  staging.make(
      arrays, 2, [&plan](int) -> const std::vector<rt::Transfer>& { return plan; },
      [](const rt::Transfer&) { return true; },
      [&asked](std::size_t n, const std::string& name) {
        CHECK(name == "exchange staging");
        asked += n;
        return rt::HostBytes(n);
      });
  std::size_t want = 0;
  for (const Info& a : arrays)
    for (const rt::Transfer& t : plan)
      for (const rt::Box& b : t.boxes)
        want += (static_cast<std::size_t>(b.volume()) * a.element_bytes + 63) / 64 * 64;
  REQUIRE(want > 0);
  CHECK(asked == want);
  CHECK(staging.bytes() == static_cast<long long>(want));
  CHECK(staging.memory().empty());
  std::vector<std::pair<const unsigned char*, std::size_t>> spans;
  for (int id = 0; id < 2; ++id) {
    REQUIRE(staging.of(id).size() == plan.size());  // one list per transfer
    for (std::size_t t = 0; t < plan.size(); ++t) {
      REQUIRE(staging.of(id)[t].size() == plan[t].boxes.size());
      for (std::size_t k = 0; k < plan[t].boxes.size(); ++k) {
        const rt::HostArray& box = staging.of(id)[t][k];
        CHECK(box.box == plan[t].boxes[k]);
        CHECK(box.element_bytes == arrays[id].element_bytes);
        CHECK(reinterpret_cast<std::uintptr_t>(box.bytes.data()) % 64 ==
              reinterpret_cast<std::uintptr_t>(staging.of(0)[0][0].bytes.data()) % 64);
        spans.emplace_back(box.bytes.data(), box.bytes.size());
      }
    }
  }
  // No two boxes share a byte.
  std::sort(spans.begin(), spans.end());
  for (std::size_t k = 1; k < spans.size(); ++k)
    CHECK(spans[k - 1].first + spans[k - 1].second <= spans[k].first);
  // A transfer not staged has no buffers, and a refused page-locking falls back to pageable
  // memory, said in memory().
  rt::ExchangeStaging some;
  some.make(
      arrays, 2, [&plan](int) -> const std::vector<rt::Transfer>& { return plan; },
      [](const rt::Transfer& t) { return t.src == 0; },
      [](std::size_t, const std::string&) -> rt::HostBytes { throw rt::RunError("no pinning"); });
  CHECK(some.memory() == "pageable: page-locking failed: no pinning");
  for (std::size_t t = 0; t < plan.size(); ++t) CHECK(some.of(1)[t].empty() == (plan[t].src != 0));
  CHECK(some.bytes() > 0);
  CHECK(some.bytes() < staging.bytes());
}

TEST_CASE("rank parts: R ranks x L devices (x P parts) on the host backend equal the plain loop") {
  CHECK(run_ranks(1, 3, rt::Strategy::kSlabs) == 3);
  CHECK(run_ranks(2, 2, rt::Strategy::kSlabs) == 4);
  CHECK(run_ranks(3, 2, rt::Strategy::kSlabs) == 6);
  CHECK(run_ranks(2, 2, rt::Strategy::kMinExchange) == 4);  // boxes cut along x and y
  CHECK(run_ranks(4, 2, rt::Strategy::kMinExchange) == 8);
  CHECK(run_ranks(2, 5, rt::Strategy::kSlabs, 2) == 10);  // --parts 5 on 2 devices a rank
  CHECK(run_ranks(3, 3, rt::Strategy::kMinExchange, 1) == 9);
}

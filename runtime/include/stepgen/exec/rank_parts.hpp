#pragma once
/// \file
/// An MPI rank that drives several devices (`mpirun -np R ./prog --devices L`: R x L parts), or
/// several parts (`--parts P`, P >= L: R x P parts, a run of them on each of its devices).
/// Written once for every backend, standard library only (the messages come from a Messenger:
/// mpi_halo.hpp's MpiMessenger; the tests' loopback):
/// - `split_ranks`: each rank's box (rank_partition's part) cut again into L parts by the
///   partitioner, rank r's parts numbered r*L ... r*L+L-1, their ghost boxes, frames and
///   neighbours against the whole grid: one partition of R x L parts, one exchange plan.
/// - `RankPlan`: that exchange plan as one rank sees it: the entries between two of its own parts
///   (local copies) and those with a part of another rank (messages, sent or received).
/// - `NoMessages`: the Messenger of a process alone. Each backend's one exchange executor
///   (exchange_opencl.hpp, exchange_cuda.hpp, engine_host.hpp's ExchangeState) runs a
///   RankPlan's copies and messages, in one process and on a rank alike.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"
#include "stepgen/plan/placement.hpp"

namespace stepgen::rt {

/// The devices each rank of an MPI program drives: `--devices N` (one by default; the spec's
/// device count is for one-process programs).
inline int devices_per_rank(const Options& opt) {
  return opt.devices_given && opt.devices > 0 ? opt.devices : 1;
}

/// The parts each rank of an MPI program cuts its box into: `--parts N` (N >= its devices; by
/// default one per device), given to its devices in order, each a run of neighbouring parts.
inline int parts_per_rank(const Options& opt) {
  const int devices = devices_per_rank(opt);
  if (opt.parts == 0) return devices;
  if (opt.parts < devices)
    throw UsageError("--parts " + std::to_string(opt.parts) + " is fewer than the " +
                     std::to_string(devices) + " devices of a rank (--devices): give at least " +
                     "one part per device");
  return opt.parts;
}

/// Rank `rank`'s parts of `partition` (per_rank a rank), their ids kept: what its devices run.
inline Partition rank_parts(const Partition& partition, int rank, int per_rank) {
  Partition mine = partition;
  mine.parts.assign(partition.parts.begin() + rank * per_rank,
                    partition.parts.begin() + (rank + 1) * per_rank);
  return mine;
}

/// Places every rank's `per_rank` parts on its `devices` devices as one process places --parts
/// (place_parts: runs of neighbouring parts, as even as they go): Part::device is the rank's
/// device index.
inline void place_rank_parts(Partition& partition, int per_rank, int devices) {
  const int ranks = static_cast<int>(partition.parts.size()) / per_rank;
  for (int rank = 0; rank < ranks; ++rank) {
    Partition mine = rank_parts(partition, rank, per_rank);
    place_parts(mine, devices);
    for (int j = 0; j < per_rank; ++j)
      partition.parts[static_cast<std::size_t>(rank * per_rank + j)].device =
          mine.parts[static_cast<std::size_t>(j)].device;
  }
}

/// The partition of an MPI run whose ranks drive `per_rank` devices each: every part of `ranks`
/// (one per rank) split by `request` (its strategy, granule and halo; the domain becomes the
/// rank's owned box) into `per_rank` parts, placed on the rank's devices in order. `ranks`
/// itself when per_rank is 1. Throws RunError when a rank's box gives fewer parts.
inline Partition split_ranks(const Partition& ranks, PartitionRequest request, int per_rank) {
  if (per_rank <= 1) return ranks;
  Partition out = ranks;
  out.parts.clear();
  request.devices = per_rank;
  request.weights.clear();
  request.parts_of_devices = false;
  request.frame = {false, false, false};
  request.ghost_lo = ranks.ghost_lo;
  request.ghost_hi = ranks.ghost_hi;
  std::array<int, 3> sub_grid{1, 1, 1};
  for (const Part& rank : ranks.parts) {
    request.domain = rank.owned.extents();
    const Partition sub = partition(request);
    if (sub.parts.size() != static_cast<std::size_t>(per_rank))
      throw RunError("rank " + std::to_string(rank.id) + "'s box " + rank.owned.str() +
                     " can be split into only " + std::to_string(sub.parts.size()) + " parts (" +
                     sub.rationale + "), not the " + std::to_string(per_rank) + " of --devices " +
                     std::to_string(per_rank) + ": give fewer devices per rank, or fewer ranks");
    if (rank.id == 0) sub_grid = sub.grid;
    for (const Part& s : sub.parts) {
      Part q;
      q.id = rank.id * per_rank + s.id;
      q.device = s.id;  // the rank's device, in order
      for (std::size_t d = 0; d < 3; ++d) q.coord[d] = rank.coord[d] * sub.grid[d] + s.coord[d];
      q.owned = s.owned.translated(rank.owned.lo);
      out.parts.push_back(q);
    }
  }
  // Ghost boxes, frames and neighbours against the whole grid, as partition() makes them.
  request.frame = ranks.frame;
  detail::finish_parts(out, request);
  for (std::size_t d = 0; d < 3; ++d) out.grid[d] = ranks.grid[d] * sub_grid[d];
  out.rationale = ranks.rationale + "; each rank's box cut into " + std::to_string(per_rank) +
                  " parts, grid " + std::to_string(sub_grid[0]) + "x" +
                  std::to_string(sub_grid[1]) + "x" + std::to_string(sub_grid[2]);
  return out;
}

/// The box rank `rank`'s parts own together (split_ranks: a box), `per_rank` parts a rank.
inline Box rank_box(const Partition& partition, int rank, int per_rank) {
  Box box = partition.parts[static_cast<std::size_t>(rank * per_rank)].owned;
  for (int j = 1; j < per_rank; ++j)
    box = bounding(box, partition.parts[static_cast<std::size_t>(rank * per_rank + j)].owned);
  return box;
}

/// The bytes of each rank's block of a blob laid out part after part (`part_bytes`, boundary
/// frames' FrameSources), `per_rank` consecutive parts a rank.
inline std::vector<std::size_t> rank_blocks(const std::vector<std::size_t>& part_bytes,
                                            int per_rank) {
  std::vector<std::size_t> out;
  for (std::size_t q = 0; q < part_bytes.size(); ++q) {
    if (q % static_cast<std::size_t>(per_rank) == 0) out.push_back(0);
    out.back() += part_bytes[q];
  }
  return out;
}

/// One array's exchange plan as rank `rank` sees it, its parts `first` ... `first + count - 1`
/// (local indices 0 ... count - 1), part q on rank q / count: the boxes copied between two of
/// its parts, and the boxes sent to and received from other ranks, in plan order (every rank
/// computes the same plan, so both sides of each pair of ranks list their messages alike).
struct RankPlan {
  struct Copy {
    std::size_t src = 0, dst = 0;  ///< local parts
    Box box;
    std::size_t transfer = 0, index = 0;  ///< where the box is in the plan: its staging's place
  };
  struct Message {
    std::size_t part = 0;  ///< the local part sending or receiving it
    int peer = 0;          ///< the other rank
    Box box;
  };
  std::vector<Copy> copies;
  std::vector<Message> sends, receives;

  RankPlan() = default;
  RankPlan(const std::vector<Transfer>& plan, int first, int count) {
    auto local = [&](int part) { return part >= first && part < first + count; };
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const Transfer& t = plan[i];
      for (std::size_t k = 0; k < t.boxes.size(); ++k) {
        const Box& box = t.boxes[k];
        if (local(t.src) && local(t.dst))
          copies.push_back({static_cast<std::size_t>(t.src - first),
                            static_cast<std::size_t>(t.dst - first), box, i, k});
        else if (local(t.src))
          sends.push_back({static_cast<std::size_t>(t.src - first), t.dst / count, box});
        else if (local(t.dst))
          receives.push_back({static_cast<std::size_t>(t.dst - first), t.src / count, box});
      }
    }
  }
  bool empty() const { return copies.empty() && sends.empty() && receives.empty(); }
};

/// One exchanged array's plan as this process sees it, with a buffer per message in plan order
/// (`Buf`: the backend's packed box).
template <class Buf>
struct PlanBuffers {
  RankPlan plan;
  std::vector<Buf> sent, received;
};

/// Every array's PlanBuffers, by id (empty for an array not exchanged), for the engine `e`'s
/// parts first ... first + count - 1: `make(message, array info, " to rank " or " from rank ")`
/// makes each message's buffer. The backends' exchange executors (ExchangeState) start here.
template <class Buf, class E, class Make>
std::vector<PlanBuffers<Buf>> plan_buffers(const E& e, int first, int count, Make&& make) {
  std::vector<PlanBuffers<Buf>> out(static_cast<std::size_t>(e.problem().array_count));
  for (int id = 0; id < e.problem().array_count; ++id) {
    const auto& info = e.problem().arrays[id];
    if (!info.exchanged()) continue;
    PlanBuffers<Buf>& a = out[static_cast<std::size_t>(id)];
    a.plan = RankPlan(e.plan(id), first, count);
    for (const RankPlan::Message& m : a.plan.sends) a.sent.push_back(make(m, info, " to rank "));
    for (const RankPlan::Message& m : a.plan.receives)
      a.received.push_back(make(m, info, " from rank "));
  }
  return out;
}

/// True when one of the arrays `ids` has something to move.
template <class Buf>
bool moves(const std::vector<PlanBuffers<Buf>>& arrays, std::initializer_list<int> ids) {
  for (int id : ids)
    if (static_cast<std::size_t>(id) < arrays.size() &&
        !arrays[static_cast<std::size_t>(id)].plan.empty())
      return true;
  return false;
}

/// The host staging of the copies between two of this process's devices that go
/// through the host (OpenCL: every one; CUDA: between GPUs without peer access): per exchanged
/// array, per transfer of its plan, per box, a host buffer holding exactly that box (an
/// rt::HostArray over it: a read into it and a write from it are rectangular copies of the
/// box), none (an empty list) for a transfer that is not staged. One block from `alloc`
/// (page-locked, so the copies stay asynchronous; pageable where the system refuses, which
/// memory() says) cut into one buffer per box, each on a cache line, made once at set-up and
/// reused by every exchange; bytes() is what it holds (the report's `staging`).
class ExchangeStaging {
 public:
  static constexpr std::size_t kAlign = 64;  ///< each box's buffer starts on a cache line

  /// `arrays[id]`: name and element_bytes of array id (count of them); `plan(id)`: its
  /// transfers; `staged(transfer)`: whether that transfer goes through the host.
  template <class Info, class PlanOf, class Staged>
  void make(const Info* arrays, int count, PlanOf&& plan, Staged&& staged,
            const HostAllocator& alloc) {
    const auto n = static_cast<std::size_t>(count);
    boxes_.assign(n, {});
    std::size_t total = 0;
    for (std::size_t id = 0; id < n; ++id)
      for (const Transfer& t : plan(static_cast<int>(id)))
        if (staged(t))
          for (const Box& box : t.boxes) total += rounded(bytes_of(box, arrays[id].element_bytes));
    bytes_ = static_cast<long long>(total);
    HostBytes block;
    try {
      block = total > 0 && alloc ? alloc(total, "exchange staging") : HostBytes(total);
    } catch (const RunError& e) {
      block = HostBytes(total);
      memory_ = std::string("pageable: page-locking failed: ") + e.what();
    }
    auto keep = std::make_shared<HostBytes>(std::move(block));
    std::size_t at = 0;
    for (std::size_t id = 0; id < n; ++id)
      for (const Transfer& t : plan(static_cast<int>(id))) {
        boxes_[id].emplace_back();
        if (!staged(t)) continue;
        for (const Box& box : t.boxes) {
          boxes_[id].back().emplace_back(arrays[id].name, arrays[id].element_bytes, box,
                                         [&keep, at](std::size_t size, const std::string&) {
                                           return HostBytes(keep->data() + at, size, keep);
                                         });
          at += rounded(bytes_of(box, arrays[id].element_bytes));
        }
      }
  }
  /// Array `id`'s staging: per transfer of its plan, per box, the box's buffer.
  std::vector<std::vector<HostArray>>& of(int id) { return boxes_[static_cast<std::size_t>(id)]; }
  long long bytes() const { return bytes_; }
  const std::string& memory() const { return memory_; }

 private:
  static std::size_t rounded(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
  static std::size_t bytes_of(const Box& box, std::size_t element) {
    return static_cast<std::size_t>(box.volume()) * element;
  }
  std::vector<std::vector<std::vector<HostArray>>> boxes_;
  long long bytes_ = 0;
  std::string memory_;
};

/// Makes `staging` for engine `e`'s exchanged arrays (`staged(transfer)`: which go through the
/// host) from its backend's page-locked allocator, and puts its size and memory into the
/// engine's report. Called once, from an exchange executor's prepare().
template <class E, class Staged>
void stage_exchanges(E& e, ExchangeStaging& staging, Staged&& staged) {
  staging.make(
      e.problem().arrays, e.problem().array_count,
      [&e](int id) -> const std::vector<Transfer>& { return e.plan(id); }, staged,
      E::Backend::host_allocator(e.devices(), true, false));
  e.stats().staging_bytes = staging.bytes();
  if (!staging.memory().empty()) e.stats().staging_memory = staging.memory();
}

/// A host box per message (the OpenCL and host executors').
struct HostMessage {
  template <class Info>
  HostArray operator()(const RankPlan::Message& m, const Info& info, const char*) const {
    return HostArray(info.name, info.element_bytes, m.box);
  }
};

/// The messages of a process that runs alone (one process's parts, --verify's one-part run):
/// none. A Messenger (PartsExchange's, the backends' exchange states') has this interface;
/// mpi::MpiMessenger sends between MPI ranks.
struct NoMessages {
  struct Config {};
  static constexpr bool kRanks = false;
  explicit NoMessages(const Config&) {}
  [[noreturn]] static void none() {
    throw RunError("internal error: a halo message in a run of one process");
  }
  void post_receive(int, int, void*, std::size_t, const std::string&) { none(); }
  void send(int, int, const void*, std::size_t, const std::string&) { none(); }
  void wait() {}
};

}  // namespace stepgen::rt

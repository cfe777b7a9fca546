// Unit test of runtime/include/stepgen/exec/mpi.hpp, run with `mpirun -np N` (N = 1 to 4): the halo
// exchange in one call and in three steps (start, send, finish: what overlap runs computation
// between), two arrays at once (tags keep them apart), the guard against starting an exchange
// before the last one finished; the exchange written once over a staging (its backend), checked
// with a fake one whose buffers are not rt::HostArray: one buffer per message with the right peer
// and direction, receive() and complete() apart (CUDA's order), several boxes per peer kept in
// order, the bytes sent; its errors (a box too large for a message, an MPI call that fails,
// named with its array and peer rank); and the collectives that make out-of-core runs choose
// alike (the smallest budget, the slowest link) and sum their statistics. Prints "N passed,
// 0 failed" on rank 0; exits non-zero on any failure.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/mpi_halo.hpp"

namespace rt = stepgen::rt;
namespace mpi = stepgen::mpi;

namespace {

int passed = 0, failed = 0, rank = 0, size = 1;

void check(bool ok, const std::string& what) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
}

// A 2D grid of 8 x (4 * ranks) floats split in rows of 4: rank r owns rows [4r, 4r+4) and
// reads one row on each side (its ghost box), owned by its neighbours.
constexpr rt::Index kWidth = 8, kRows = 4;

rt::Box owned_box(int r) {
  rt::Box b = rt::Box::from_extent(2, {kWidth, kRows, 1});
  b.lo[1] = kRows * r;
  b.hi[1] = kRows * (r + 1);
  return b;
}

rt::Box ghost_box(int r) {
  rt::Box b = owned_box(r);
  if (r > 0) b.lo[1] -= 1;
  if (r + 1 < size) b.hi[1] += 1;
  return b;
}

std::vector<rt::Transfer> plan() {
  std::vector<rt::Transfer> out;
  for (int r = 0; r < size; ++r)
    for (int d : {-1, 1}) {
      const int to = r + d;
      if (to < 0 || to >= size) continue;
      rt::Transfer t;
      t.src = r;
      t.dst = to;
      rt::Box row = owned_box(r);
      if (d < 0)
        row.hi[1] = row.lo[1] + 1;
      else
        row.lo[1] = row.hi[1] - 1;
      t.boxes.push_back(row);
      out.push_back(t);
    }
  return out;
}

float& at(rt::HostArray& a, rt::Index x, rt::Index y) {
  return a.as<float>()[(y - a.box.lo[1]) * a.box.extent(0) + (x - a.box.lo[0])];
}

// Owned cells: `base` + the global index; ghost cells: -1.
void fill(rt::HostArray& a, float base) {
  const rt::Box own = owned_box(rank);
  for (rt::Index y = a.box.lo[1]; y < a.box.hi[1]; ++y)
    for (rt::Index x = a.box.lo[0]; x < a.box.hi[0]; ++x)
      at(a, x, y) =
          own.contains_point({x, y, 0}) ? base + static_cast<float>(y * kWidth + x) : -1.0f;
}

// Every cell of the ghost box holds `base` + its global index.
bool complete(rt::HostArray& a, float base) {
  for (rt::Index y = a.box.lo[1]; y < a.box.hi[1]; ++y)
    for (rt::Index x = a.box.lo[0]; x < a.box.hi[0]; ++x)
      if (at(a, x, y) != base + static_cast<float>(y * kWidth + x)) return false;
  return true;
}

// Host-to-host "device" copies: a box between an array and a message buffer.
void copy(const rt::HostArray& from, rt::HostArray& to, const rt::Box& box) {
  const rt::RectCopy s = rt::rect_of(box, from.box, from.element_bytes);
  const rt::RectCopy t = rt::rect_of(box, to.box, to.element_bytes);
  for (std::size_t z = 0; z < s.region[2]; ++z)
    for (std::size_t y = 0; y < s.region[1]; ++y)
      std::memcpy(to.bytes.data() + t.offset() + y * t.row_pitch + z * t.slice_pitch,
                  from.bytes.data() + s.offset() + y * s.row_pitch + z * s.slice_pitch,
                  s.region[0]);
}

// A staging that is not host arrays: the exchange sees only make() and data().
struct FakeStaging {
  struct Buffer {
    int peer = -1;
    std::string direction;
    rt::Box box;
    std::vector<double> cells;
  };
  std::map<std::string, int>* made = nullptr;  // "to 1", "from 0": buffers made
  Buffer make(int peer, const std::string& name, std::size_t element_bytes, const rt::Box& box,
              const char* direction) const {
    check(name == "C" && element_bytes == sizeof(double), "make() gets the array's name and size");
    ++(*made)[std::string(direction) + " " + std::to_string(peer)];
    Buffer b;
    b.peer = peer;
    b.direction = direction;
    b.box = box;
    b.cells.resize(static_cast<std::size_t>(box.volume()));
    return b;
  }
  static void* data(Buffer& b) { return b.cells.data(); }
};

// Each row a box of its own: a rank sends its first two rows to the rank below and its last
// two to the rank above, two messages per neighbour of the same tag, which MPI keeps in order.
std::vector<rt::Transfer> two_rows_plan() {
  std::vector<rt::Transfer> out;
  for (rt::Transfer t : plan()) {
    const bool down = t.dst < t.src;
    rt::Box row = owned_box(t.src);
    t.boxes.clear();
    for (int k = 0; k < 2; ++k) {
      row.lo[1] = down ? owned_box(t.src).lo[1] + k : owned_box(t.src).hi[1] - 1 - k;
      row.hi[1] = row.lo[1] + 1;
      t.boxes.push_back(row);
    }
    out.push_back(t);
  }
  return out;
}

// The value of cell (x, y) of the fake array: known on every rank.
double cell(rt::Index x, rt::Index y) {
  return 0.25 + static_cast<double>(y * kWidth + x);
}

bool fake_staging() {
  const int before = failed;
  std::map<std::string, int> made;
  mpi::BasicHaloExchange<FakeStaging> halo(MPI_COMM_WORLD, rank, 3, FakeStaging{&made});
  halo.add(2, "C", sizeof(double), two_rows_plan());
  const int below = rank > 0 ? 1 : 0, above = rank + 1 < size ? 1 : 0;
  auto count = [&made](const char* direction, int peer) {
    const auto it = made.find(direction + std::string(" ") + std::to_string(peer));
    return it == made.end() ? 0 : it->second;
  };
  check(count("to", rank - 1) == 2 * below && count("from", rank - 1) == 2 * below &&
            count("to", rank + 1) == 2 * above && count("from", rank + 1) == 2 * above &&
            made.size() == static_cast<std::size_t>(2 * (below + above)),
        "one buffer per message, made with its peer and direction");
  check(halo.idle() == (size == 1), "idle() with a staging of its own");
  std::vector<std::pair<int, rt::Box>> packed, received;
  bool right_id = true;
  halo.start({2}, [&](int id, FakeStaging::Buffer& b) {
    right_id = right_id && id == 2 && b.direction == "to";
    packed.emplace_back(b.peer, b.box);
    std::size_t i = 0;
    for (rt::Index y = b.box.lo[1]; y < b.box.hi[1]; ++y)
      for (rt::Index x = b.box.lo[0]; x < b.box.hi[0]; ++x) b.cells[i++] = cell(x, y);
  });
  check(packed.size() == static_cast<std::size_t>(2 * (below + above)),
        "start() packs every box sent, at once");
  const std::size_t sent = halo.send({2});
  check(sent == 2 * static_cast<std::size_t>(below + above) * kWidth * sizeof(double),
        "send() returns the bytes of every box sent");
  bool right_cells = true;
  halo.receive({2}, [&](int id, FakeStaging::Buffer& b) {
    right_id = right_id && id == 2 && b.direction == "from";
    received.emplace_back(b.peer, b.box);
    std::size_t i = 0;
    for (rt::Index y = b.box.lo[1]; y < b.box.hi[1]; ++y)
      for (rt::Index x = b.box.lo[0]; x < b.box.hi[0]; ++x)
        right_cells = right_cells && b.cells[i++] == cell(x, y);
  });
  check(right_id, "pack() and unpack() get the array's id and the buffers of their direction");
  check(right_cells, "receive(): every box holds its own rows (two messages per peer, in order)");
  check(received.size() == packed.size(), "receive() unpacks every box received");
  halo.complete();
  // complete() ended the exchange: another one starts.
  halo.start({2}, [](int, FakeStaging::Buffer&) {});
  halo.send({2});
  halo.finish({2}, [](int, FakeStaging::Buffer&) {});
  return failed == before;
}

bool errors() {
  const int before = failed;
  // A box larger than one message (2 GiB) is refused when added, before any buffer is made.
  std::map<std::string, int> made;
  mpi::BasicHaloExchange<FakeStaging> halo(MPI_COMM_WORLD, rank, 1, FakeStaging{&made});
  rt::Transfer huge;
  huge.src = rank;
  huge.dst = (rank + 1) % size;
  huge.boxes.push_back(rt::Box::from_extent(3, {1024, 1024, 300}));
  std::string text;
  try {
    halo.add(0, "C", sizeof(double), {huge});
  } catch (const rt::RunError& e) {
    text = e.what();
  }
  check(text.find("array C") != std::string::npos && text.find("2 GiB") != std::string::npos,
        "a box too large for one message names its array: " + text);
  check(made.empty(), "no buffer made for a refused box");
  // An MPI call that fails names itself, the array and the peer (a rank that does not exist).
  mpi::HaloExchange bad(MPI_COMM_WORLD, rank, 1);
  rt::Transfer nowhere;
  nowhere.src = size + 5;
  nowhere.dst = rank;
  nowhere.boxes.push_back(owned_box(rank));
  bad.add(0, "D", sizeof(float), {nowhere});
  text.clear();
  try {
    bad.start({0}, [](int, rt::HostArray&) {});
  } catch (const rt::RunError& e) {
    text = e.what();
  }
  check(text.rfind("MPI_Irecv(D from rank " + std::to_string(size + 5) + ") failed: ", 0) == 0,
        "a failing MPI call is named with its array and peer: " + text);
  // Nothing was posted: the exchange can start again (and fail the same way).
  text.clear();
  try {
    bad.start({0}, [](int, rt::HostArray&) {});
  } catch (const rt::RunError& e) {
    text = e.what();
  }
  check(text.rfind("MPI_Irecv(", 0) == 0, "after a failed start(), start() is not refused");
  return failed == before;
}

int run() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<rt::HostArray> host;
  host.emplace_back("A", sizeof(float), ghost_box(rank));
  host.emplace_back("B", sizeof(float), ghost_box(rank));
  mpi::HaloExchange halo(MPI_COMM_WORLD, rank, 2);
  halo.add(0, "A", sizeof(float), plan());
  halo.add(1, "B", sizeof(float), plan());
  check(halo.idle() == (size == 1), "idle() only without neighbours");
  auto pack = [&](int id, rt::HostArray& buffer) {
    copy(host[static_cast<std::size_t>(id)], buffer, buffer.box);
  };
  auto unpack = [&](int id, const rt::HostArray& buffer) {
    copy(buffer, host[static_cast<std::size_t>(id)], buffer.box);
  };
  const std::size_t row_bytes = kWidth * sizeof(float);
  const std::size_t neighbours = (rank > 0 ? 1 : 0) + (rank + 1 < size ? 1 : 0);

  // One call, one array.
  fill(host[0], 0);
  std::size_t sent = halo.exchange(
      {0}, pack, [] {}, unpack);
  check(complete(host[0], 0), "exchange(): the ghost rows hold the neighbours' owned rows");
  check(sent == neighbours * row_bytes, "exchange() returns the bytes sent");

  // Three steps, two arrays; the owned cells change after the packs (as the interior's
  // computation would), and the neighbours still receive what was packed.
  fill(host[0], 1000);
  fill(host[1], 2000);
  halo.start({0, 1}, pack);
  bool refused = false;
  try {
    halo.start({0}, pack);
  } catch (const rt::RunError&) {
    refused = true;
  }
  check(refused, "a second start() before finish() is refused");
  const rt::Box own = owned_box(rank);
  for (rt::Index x = own.lo[0]; x < own.hi[0]; ++x) at(host[1], x, own.lo[1] + 1) += 0.5f;
  sent = halo.send({0, 1});
  halo.finish({0, 1}, unpack);
  check(complete(host[0], 1000), "start/send/finish: A's ghost rows");
  rt::HostArray b = host[1];
  for (rt::Index x = own.lo[0]; x < own.hi[0]; ++x) at(b, x, own.lo[1] + 1) -= 0.5f;
  check(complete(b, 2000), "start/send/finish: B's ghost rows, not mixed up with A's");
  check(sent == 2 * neighbours * row_bytes, "send() returns the bytes sent");
  // The exchange can run again once finished.
  fill(host[0], 3000);
  halo.exchange(
      {0}, pack, [] {}, unpack);
  check(complete(host[0], 3000), "a second exchange after finish()");

  // The same exchange over a fake staging: buffers of doubles that know their box, peer and
  // direction, packed and unpacked by the test (as CUDA's rect copies do on a stream).
  check(fake_staging(), "a fake staging: every check above it passed");
  check(errors(), "errors: every check above it passed");

  // Out-of-core collectives.
  check(mpi::min_over_ranks(MPI_COMM_WORLD, 100 - rank) == 100 - (size - 1),
        "min_over_ranks: the smallest budget");
  rt::ooc::Link link;
  link.h2d = 10.0 + rank;
  link.d2h = 20.0 - rank;
  link.bidir = 30.0 + rank;
  link.cell_step = 1e-9 * (1 + rank);
  link.measured = true;
  const rt::ooc::Link slow = mpi::slowest_link(MPI_COMM_WORLD, link);
  check(slow.h2d == 10.0 && slow.d2h == 20.0 - (size - 1) && slow.bidir == 30.0,
        "slowest_link: the least bandwidths");
  check(slow.cell_step == 1e-9 * size, "slowest_link: the most seconds per cell-step");
  // Every figure the model reads, the same on every rank: the per-command latency, the host's
  // issue figures and the device-copy speed too (they stayed each rank's own before, and the
  // ranks could choose different schedules). The figures differ a lot between the ranks here,
  // as on a busy node.
  link.d2d = 1e11 * (1 + rank);
  link.latency = rank == 0 ? 0 : 2e-4 * rank;
  link.issue_op = 1e-6 * (1 + 40 * rank);
  link.issue_command = 1e-6 * (1 + 20 * rank);
  link.message = 5e9 - 1e9 * rank;
  link.message_latency = 1e-6 * (3 + rank);
  const rt::ooc::Link agreed = mpi::slowest_link(MPI_COMM_WORLD, link);
  check(agreed.d2d == 1e11 && agreed.latency == 2e-4 * (size - 1) &&
            agreed.issue_op == 1e-6 * (1 + 40 * (size - 1)) &&
            agreed.issue_command == 1e-6 * (1 + 20 * (size - 1)),
        "slowest_link: the least device-copy speed, the most latency and issue time");
  check(agreed.message == 5e9 - 1e9 * (size - 1) && agreed.message_latency == 1e-6 * (3 + size - 1),
        "slowest_link: the least message speed, the most seconds per message");
  link.boundary = 1e-6 * (20 + 7 * rank);
  check(mpi::slowest_link(MPI_COMM_WORLD, link).boundary == 1e-6 * (20 + 7 * (size - 1)),
        "slowest_link: the longest pass boundary's meeting");
  // The pass boundary's messages measured (a ring of messages between the ranks): figures on
  // every rank with several ranks, none with one (nothing is sent).
  {
    const auto [speed, latency] = mpi::measure_messages(MPI_COMM_WORLD, std::size_t{1} << 20);
    if (size == 1)
      check(speed == 0 && latency == 0, "measure_messages: one rank, no figures");
    else
      check(speed > 1e6 && latency >= 0 && latency < 1,
            "measure_messages: a positive speed and a latency under a second");
  }
  {
    std::vector<unsigned char> bytes(sizeof agreed * static_cast<std::size_t>(size));
    MPI_Allgather(&agreed, sizeof agreed, MPI_BYTE, bytes.data(), sizeof agreed, MPI_BYTE,
                  MPI_COMM_WORLD);
    bool same = true;
    for (int r = 1; r < size; ++r)
      same =
          same && std::memcmp(bytes.data(), bytes.data() + sizeof agreed * r, sizeof agreed) == 0;
    check(same, "slowest_link: the same bytes on every rank");
  }
  // The model's choice from the agreed figures: the same schedule on every rank (from each
  // rank's own figures above, 2 ranks chose 25 and 33 chunks at this budget), and
  // check_same_schedule passes it; a schedule that differs between the ranks is refused on
  // every rank.
  {
    rt::ooc::Request r;
    r.grid = rt::Box::from_extent(3, {48, 40, 96});
    for (int q = 0; q < size; ++q) {
      rt::Box own = r.grid;
      own.lo[0] = 48 * q / size;
      own.hi[0] = 48 * (q + 1) / size;
      r.owned.push_back(own);
    }
    r.shrink_lo = r.shrink_hi = {1, 1, 1};
    r.arrays = {{"a", 4, true}, {"b", 4, true}};
    r.chunks = r.steps_per_pass = 0;
    r.host_per_part = true;
    const rt::ooc::Schedule sc = rt::ooc::choose(r, 200000, agreed, 20, true);
    int mine[2] = {sc.chunks, sc.steps_per_pass}, lo[2] = {}, hi[2] = {};
    MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(lo[0] == hi[0] && lo[1] == hi[1], "the agreed figures: one schedule on every rank");
    bool passed = true;
    try {
      mpi::check_same_schedule(MPI_COMM_WORLD, sc);
    } catch (const std::exception&) {
      passed = false;
    }
    check(passed, "check_same_schedule: one schedule passes");
    rt::ooc::Schedule other = sc;
    if (rank == size - 1) other.chunks += 1;
    bool refused = false;
    try {
      mpi::check_same_schedule(MPI_COMM_WORLD, other);
    } catch (const mpi::UniformError& e) {
      refused = size > 1 &&
                std::string(e.what()).find("different schedules (chunks ") != std::string::npos;
    }
    check(refused || size == 1,
          "check_same_schedule: a rank's other chunk count refused on every rank");
  }
  // An error one rank found, the same on every rank (the lowest rank's), or none.
  check(mpi::first_error(MPI_COMM_WORLD, "").empty(), "first_error: none");
  check(mpi::first_error(MPI_COMM_WORLD, rank == size - 1 ? "thin part" : "") == "thin part",
        "first_error: one rank's error on every rank");
  check(mpi::first_error(MPI_COMM_WORLD, "rank " + std::to_string(rank)) == "rank 0",
        "first_error: the lowest rank's");
  // The split: every rank probed its own device; a rank whose probe widened the ghost zones
  // differently is refused on every rank, naming the widths.
  {
    rt::Partition split;
    split.ghost_lo = {1, 1, 0};
    split.ghost_hi = {1, 1, 0};
    split.parts.resize(static_cast<std::size_t>(size));
    bool passed = true;
    try {
      mpi::check_same_partition(MPI_COMM_WORLD, split);
    } catch (const std::exception&) {
      passed = false;
    }
    check(passed, "check_same_partition: one split passes");
    if (rank == 0) split.ghost_hi[1] = 2;
    std::string what;
    try {
      mpi::check_same_partition(MPI_COMM_WORLD, split);
    } catch (const mpi::UniformError& e) {
      what = e.what();
    }
    check(size == 1
              ? what.empty()
              : what.find("ghost widths above along dimension 1: 1 to 2") != std::string::npos,
          "check_same_partition: other ghost widths on a rank refused on every rank");
  }
  // The run's report: times of the slowest rank, bytes and the links measured at start-up
  // summed over the ranks (as one process sums its devices'), rank 0's host arrays' text.
  {
    rt::RunStats run;
    run.total_s = 1.0 + rank;
    run.host_device_bytes = 100;
    run.link_h2d = 1e9 * (1 + rank);
    run.link_d2h = 2e9;
    run.host_memory = rank == 0 ? "page-locked" : "pageable";
    const rt::RunStats all = mpi::combine(MPI_COMM_WORLD, run);
    check(all.total_s == size && all.host_device_bytes == 100u * static_cast<unsigned>(size),
          "combine(RunStats): the slowest time, the bytes summed");
    check(all.link_h2d == 1e9 * size * (size + 1) / 2 && all.link_d2h == 2e9 * size,
          "combine(RunStats): the links summed over the ranks");
    check(rank != 0 || all.host_memory == "page-locked", "combine(RunStats): rank 0's host arrays");
  }
  rt::ooc::Stats stats;
  stats.on = true;
  stats.chunks = 4;
  stats.h2d_bytes = 1;
  stats.d2h_bytes = 10;
  stats.d2d_bytes = static_cast<std::size_t>(rank);
  stats.measured_s = rank;
  const rt::ooc::Stats all = mpi::combine(MPI_COMM_WORLD, stats);
  check(all.h2d_bytes == static_cast<std::size_t>(size) && all.d2h_bytes == 10u * size &&
            all.d2d_bytes == static_cast<std::size_t>(size * (size - 1) / 2),
        "combine(ooc::Stats): bytes summed over the ranks");
  check(all.measured_s == size - 1 && all.chunks == 4,
        "combine(ooc::Stats): the slowest rank's time");

  int failures = 0;
  MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%d passed, %d failed\n", passed, failures);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Session session(argc, argv);
  return session.run("mpi_runtime_test", run);
}

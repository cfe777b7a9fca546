// `--out-of-core auto` on data that fits (ooc/choice.hpp): the in-core prediction, the choice
// both ways with its reasons; the per-command latency in the model and in the calibration
// figures; the options (issue 26).
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "stepgen/exec/ooc.hpp"
#include "stepgen/plan/calibration.hpp"

using namespace stepgen::rt;

namespace {

// 64x56x256 floats, radius 1, three written arrays and one read-only, one part owning the grid.
ooc::Request grid_request() {
  ooc::Request r;
  r.grid = Box::from_extent(3, {64, 56, 256});
  r.owned.push_back(r.grid);
  r.shrink_lo = r.shrink_hi = {1, 1, 1};
  r.arrays = {{"p0", 4, true}, {"p1", 4, true}, {"p2", 4, true}, {"vel", 4, false}};
  r.chunks = r.steps_per_pass = 0;  // the model's
  return r;
}

Partition one_part(const Box& grid) {
  Partition p;
  p.dims = 3;
  p.domain = grid;
  Part part;
  part.owned = part.ghost = grid;
  p.parts.push_back(part);
  return p;
}

struct Predicted {
  double in_core = 0, out_of_core = 0;
  ooc::AutoChoice choice;
};

Predicted compare(const ooc::Link& link, Index steps) {
  const ooc::Request r = grid_request();
  const ooc::Schedule sc = ooc::choose(r, 0, link, steps, true);
  Predicted p;
  p.in_core =
      ooc::predict_in_core(ooc::in_core_work(one_part(r.grid), r.arrays), 4, 3, link, steps);
  p.out_of_core = ooc::predict(sc, link, steps, true);
  p.choice = ooc::choose_auto(p.in_core, p.out_of_core, sc, steps);
  return p;
}

}  // namespace

TEST_CASE("ooc auto: the in-core run is uploads, steps and downloads") {
  const ooc::Request r = grid_request();
  const std::vector<ooc::InCorePart> w = ooc::in_core_work(one_part(r.grid), r.arrays);
  REQUIRE(w.size() == 1);
  const double cells = 64.0 * 56 * 256;
  CHECK(w[0].upload_bytes == cells * 16);
  CHECK(w[0].download_bytes == cells * 12);
  CHECK(w[0].cells == cells);
  CHECK(w[0].halo_bytes == 0);
  ooc::Link link;
  link.h2d = 1e9;
  link.d2h = 2e9;
  link.cell_step = 1e-9;
  link.latency = 1e-5;
  const double t = ooc::predict_in_core(w, 4, 3, link, 10);
  CHECK(t == doctest::Approx(cells * 16 / 1e9 + cells * 12 / 2e9 + 7 * 1e-5 +
                             10 * (cells * 1e-9 + 1e-5)));
}

TEST_CASE("ooc auto: in core moves only the arrays with a host copy up and the gathered down") {
  // Arrays made on the devices are never uploaded; only the arrays read after the run (--save,
  // --verify) are gathered: a run that saves nothing moves nothing.
  const ooc::Request r = grid_request();
  const std::vector<std::string> none;
  const std::vector<ooc::InCorePart> w =
      ooc::in_core_work(one_part(r.grid), r.arrays, &none, &none);
  REQUIRE(w.size() == 1);
  CHECK(w[0].upload_bytes == 0);
  CHECK(w[0].download_bytes == 0);
  const std::vector<std::string> first = {r.arrays[0].name};
  const std::vector<ooc::InCorePart> one =
      ooc::in_core_work(one_part(r.grid), r.arrays, &first, &first);
  const double cells = 64.0 * 56 * 256;
  CHECK(one[0].upload_bytes == cells * static_cast<double>(r.arrays[0].element_bytes));
  CHECK(one[0].download_bytes ==
        (r.arrays[0].written ? cells * static_cast<double>(r.arrays[0].element_bytes) : 0.0));
}

TEST_CASE("ooc auto: a slow link and few steps go out of core, many steps stay in core") {
  ooc::Link link;
  link.h2d = link.d2h = 1e9;
  link.bidir = 2e9;
  link.cell_step = 1e-9;
  // Few steps: the uploads and downloads are most of an in-core run; out of core overlaps
  // them with the kernels in one pass.
  const Predicted few = compare(link, 8);
  CHECK(few.out_of_core < few.in_core);
  CHECK(few.choice.out_of_core);
  CHECK(few.choice.line.rfind("out of core: auto -> out of core (predicted ", 0) == 0);
  CHECK(few.choice.line.find("s in core: ") != std::string::npos);
  CHECK(few.choice.line.find("overlap the copies with the kernels") != std::string::npos);
  // Many steps: out of core moves the arrays once a pass, in core once.
  const Predicted many = compare(link, 2000);
  CHECK(many.in_core < many.out_of_core);
  CHECK_FALSE(many.choice.out_of_core);
  CHECK(many.choice.line.rfind("out of core: auto -> in core (predicted ", 0) == 0);
  CHECK(many.choice.line.find("s out of core: in core moves the arrays once") != std::string::npos);
}

TEST_CASE("ooc auto: a tie, or out of core faster by less than the margin, stays in core") {
  ooc::Schedule sc;
  sc.chunks = 2;
  sc.steps_per_pass = 4;
  CHECK_FALSE(ooc::choose_auto(1.0, 1.0, sc, 8).out_of_core);
  const ooc::AutoChoice close = ooc::choose_auto(1.0, 0.97, sc, 8);
  CHECK_FALSE(close.out_of_core);
  CHECK(close.line.find("not faster by more than 5%") != std::string::npos);
  CHECK(ooc::choose_auto(1.0, 0.9, sc, 8).out_of_core);
  CHECK(ooc::in_core_because("why").line == "out of core: auto -> in core (why)");
}

TEST_CASE("ooc model: the per-command latency is charged to every command") {
  ooc::Request r = grid_request();
  r.chunks = 4;
  r.steps_per_pass = 2;
  const ooc::Schedule sc = ooc::schedule(r);
  ooc::Link link;
  const double none = ooc::predict(sc, link, 8, true);
  link.latency = 1e-3;  // far above the bytes' and cells' time: the commands count
  const double some = ooc::predict(sc, link, 8, true);
  CHECK(some > none + 1e-3 * 4);
  // Without overlap every command waits for the one before: at least a latency each (4 passes
  // of 4 chunks: a load, a compute of 2 steps and a store each).
  const double serial = ooc::predict(sc, link, 8, false);
  CHECK(serial >= 16 * (4 + 2 + 3) * 1e-3);
  // The chooser takes fewer commands when they cost more than their work.
  r.chunks = 0;
  r.steps_per_pass = 0;
  ooc::Link fast;
  fast.latency = 0;
  ooc::Link slow = fast;
  slow.latency = 1e-2;
  const ooc::Schedule a = ooc::choose(r, 3 * 64 * 56 * 128 * 16, fast, 16, true);
  const ooc::Schedule b = ooc::choose(r, 3 * 64 * 56 * 128 * 16, slow, 16, true);
  CHECK(ooc::passes(16, b.steps_per_pass) * b.chunks <=
        ooc::passes(16, a.steps_per_pass) * a.chunks);
}

TEST_CASE("ooc model: a compute command's commands: each launch of each step, each device copy") {
  ooc::Request r = grid_request();
  r.chunks = 4;
  r.steps_per_pass = 2;
  r.launches = 2;
  r.trapezoid = r.band_sharing = true;
  const ooc::Schedule sc = ooc::schedule(r);
  REQUIRE(sc.band_sharing);
  auto commands = [&](const ooc::Schedule& s, int chunk) {
    for (const ooc::Op& op : ooc::ops(s, 4))
      if (op.kind == ooc::Op::Kind::kCompute && op.chunk == chunk)
        return ooc::compute_commands(s, op);
    return -1.0;
  };
  // Band sharing: a middle chunk takes each step's band of every written array (3) from the
  // store and puts the next chunk's there, and vel's (not written) at the first step only:
  // 7 + 7 copies, and 2 launches a step for 2 steps.
  CHECK(commands(sc, 1) == 14 + 4);
  CHECK(commands(sc, 0) == 7 + 4);  // no band from below; the next chunk shares no planes
  CHECK(commands(sc, 3) == 7 + 4);  // no next chunk
  // Region sharing without bands: the next chunk's shared planes, one copy per array.
  r.band_sharing = false;
  const ooc::Schedule plain = ooc::schedule(r);
  CHECK(commands(plain, 0) == 4 + 4);
  CHECK(commands(plain, 3) == 0 + 4);
  // The latency charged to each: a run of tiny commands is predicted as their count.
  ooc::Link link;
  const double none = ooc::predict(sc, link, 4, false);
  link.latency = 1e-3;
  double all = 0;
  for (const ooc::Op& op : ooc::ops(sc, 4))
    if (op.kind == ooc::Op::Kind::kCompute) all += ooc::compute_commands(sc, op);
  CHECK(ooc::predict(sc, link, 4, false) >= none + all * 1e-3);
}

TEST_CASE("ooc calibration figures: the latency in microseconds, written and read back") {
  ooc::Link link;
  CHECK(ooc::link_figures_text(link).find("latency") == std::string::npos);
  link.latency = 12.5e-6;
  const std::string text = ooc::link_figures_text(link);
  CHECK(text.find(",latency=12.5") != std::string::npos);
  LinkFigures f;
  apply_link_figures(text, "run.txt", f);
  CHECK(f.link.latency == doctest::Approx(12.5e-6));
  CHECK(f.latency == "run.txt");
}

TEST_CASE("ooc options: --out-of-core auto given compares, the default does not") {
  ooc::Options o;
  CHECK_FALSE(o.compare);
  char prog[] = "prog", flag[] = "--out-of-core", value[] = "auto";
  char* argv[] = {prog, flag, value, nullptr};
  int argc = 3;
  ooc::take_options(argc, argv, o);
  CHECK(argc == 1);
  CHECK(o.mode == ooc::Options::Mode::kAuto);
  CHECK(o.compare);
  char on[] = "on";
  char* argv2[] = {prog, flag, on, nullptr};
  argc = 3;
  ooc::take_options(argc, argv2, o);
  CHECK_FALSE(o.compare);
}

TEST_CASE("ooc calibration: the per-command latency is taken off the probe's figures once") {
  // The model charges each command the latency on top of its bytes or cells; the figures
  // measured on the probe leave out what its own commands were charged (without_latency).
  ooc::Link link;
  link.latency = 1e-3;
  CHECK(ooc::without_latency(5e-3, 2, link) == doctest::Approx(3e-3));
  CHECK(ooc::without_latency(5e-3, 0, link) == doctest::Approx(5e-3));
  // At least a tenth is kept: a latency above what the commands took never makes a figure
  // infinite (or negative).
  CHECK(ooc::without_latency(5e-3, 10, link) == doctest::Approx(5e-4));
  link.latency = 0;
  CHECK(ooc::without_latency(5e-3, 4, link) == doctest::Approx(5e-3));

  // The kernels' figure: a step of 2 launches over the probe, 1 ms each charged by the model;
  // the same step measured with no latency gives about 2 ms more per step.
  ooc::Request r = grid_request();
  r.chunks = 1;
  r.steps_per_pass = 1;
  r.launches = 2;
  const ooc::Schedule sc = ooc::schedule(r);
  const Box probe = Box::from_extent(3, {64, 56, 40});
  auto step_seconds = [&](double latency) {
    ooc::Link l;
    l.latency = latency;
    ooc::measure_device(
        sc, probe, [] { std::this_thread::sleep_for(std::chrono::milliseconds(6)); },
        [](std::size_t, const RectCopy&, const RectCopy&) {}, [] {}, l);
    return l.cell_step * 64.0 * 56.0 * static_cast<double>(ooc::computed_planes(sc, 40));
  };
  const double plain = step_seconds(0), charged = step_seconds(1e-3);
  CHECK(plain >= 6e-3);
  CHECK(charged >= 4e-3);
  CHECK(charged <= plain - 1e-3);  // 2 ms taken off (1 ms of slack for the sleeps)

  // The link's figures: the latency is measured first, on the single device's probe, and each
  // way (4 arrays: 4 commands on its queue) is timed without 4 latencies.
  struct Probe {
    Box box;
  };
  auto link_of = [&](double latency) {
    ooc::Link l;
    int measured = 0;
    ooc::measure_link<Probe>(
        sc, 1, Index{1} << 20, [](std::size_t, const Box& b) { return Probe{b}; },
        [](Probe&, bool) { std::this_thread::sleep_for(std::chrono::milliseconds(4)); },
        [](Probe&) {},
        [&](Probe&) {
          ++measured;
          return latency;
        },
        l);
    CHECK(measured == 1);
    CHECK(l.latency == latency);
    return l;
  };
  const ooc::Link slow = link_of(0), fast = link_of(0.5e-3);
  const double bytes =
      static_cast<double>(ooc::probe_planes(sc.parts[0].reach, 3, 16, Index{1} << 20).volume()) *
      16.0;
  CHECK(bytes / fast.h2d <= bytes / slow.h2d - 1e-3);  // 2 ms taken off (1 ms of slack)
  CHECK(bytes / fast.d2h <= bytes / slow.d2h - 1e-3);
  CHECK(bytes / fast.h2d >= 2e-3 * 0.99);
}

TEST_CASE("ooc model: the host issues the commands one after another") {
  // Every op waits until the host has issued it (issue_op + issue_command per copy or launch,
  // in issue order): with devices far faster than the host, the run is the host's time.
  ooc::Request r = grid_request();
  r.chunks = 4;
  r.steps_per_pass = 2;
  const ooc::Schedule sc = ooc::schedule(r);
  ooc::Link link;
  link.h2d = link.d2h = 1e15;
  link.bidir = 2e15;
  link.cell_step = 1e-18;
  link.d2d = 1e15;
  const double fast = ooc::predict(sc, link, 4, true);
  CHECK(fast < 1e-6);
  // A load copies every array (4), a store the written ones (3).
  double ops = 0, commands = 0;
  for (const ooc::Op& op : ooc::ops(sc, 4)) {
    if (op.kind == ooc::Op::Kind::kBarrier) continue;
    ops += 1;
    commands += ooc::op_commands(sc, op);
    if (op.kind == ooc::Op::Kind::kLoad) CHECK(ooc::op_commands(sc, op) == 4);
    if (op.kind == ooc::Op::Kind::kStore) CHECK(ooc::op_commands(sc, op) == 3);
  }
  link.issue_op = 1e-3;
  link.issue_command = 1e-4;
  const double host = ooc::predict(sc, link, 4, true);
  CHECK(host == doctest::Approx(ops * 1e-3 + commands * 1e-4).epsilon(1e-6));
  // A slow device (3.7 s) with a host that issues everything in 0.03 s: the host delays only
  // the first commands (the issue of the ops before the first compute), not the run by its
  // whole issue time.
  link.cell_step = 1e-6;
  link.issue_op = link.issue_command = 0;
  const double device = ooc::predict(sc, link, 4, true);
  link.issue_op = 1e-3;
  link.issue_command = 1e-4;
  const double both = ooc::predict(sc, link, 4, true);
  CHECK(ops * 1e-3 + commands * 1e-4 > 0.02);
  CHECK(both >= device);
  CHECK(both <= device + 0.005);
  // Without overlap, one queue: the same.
  link.cell_step = 1e-18;
  link.issue_op = 1e-3;
  link.issue_command = 1e-4;
  CHECK(ooc::predict(sc, link, 4, false) ==
        doctest::Approx(ops * 1e-3 + commands * 1e-4).epsilon(1e-6));
}

// grid_request's grid in two parts split along x at 32, 4 chunks of 2 steps a pass.
ooc::Request two_parts_request() {
  ooc::Request r = grid_request();
  r.owned = {r.grid, r.grid};
  r.owned[0].hi[0] = 32;
  r.owned[1].lo[0] = 32;
  r.chunks = 4;
  r.steps_per_pass = 2;
  return r;
}

TEST_CASE("ooc model: MPI ranks issue their own parts' commands, one process all parts'") {
  // Two parts, devices far faster than the host: one process's thread issues both parts'
  // commands one after the other; two MPI ranks (Request::host_per_part) each issue their own
  // part's at once, and the run takes the slower rank's issue time.
  ooc::Request r = two_parts_request();
  ooc::Link link;
  link.h2d = link.d2h = 1e15;
  link.bidir = 2e15;
  link.cell_step = 1e-18;
  link.d2d = 1e15;
  link.issue_op = 1e-3;
  link.issue_command = 1e-4;
  const ooc::Schedule one = ooc::schedule(r);
  r.host_per_part = true;
  const ooc::Schedule ranks = ooc::schedule(r);
  CHECK(ranks.host_per_part);
  CHECK_FALSE(one.host_per_part);
  std::vector<double> per_part(2, 0);
  double barriers = 0;
  for (const ooc::Op& op : ooc::ops(one, 4)) {
    if (op.kind == ooc::Op::Kind::kBarrier) {
      barriers += 1;
      continue;
    }
    per_part[static_cast<std::size_t>(op.part)] += ooc::issue_seconds(one, op, link);
  }
  CHECK(barriers == 1);  // 2 passes of 2 steps: a barrier between them
  CHECK(per_part[0] == doctest::Approx(per_part[1]));
  const double all = per_part[0] + per_part[1];
  CHECK(ooc::predict(one, link, 4, true) == doctest::Approx(all).epsilon(1e-6));
  CHECK(ooc::predict(ranks, link, 4, true) == doctest::Approx(per_part[0]).epsilon(1e-6));
  // With one part the two are the same model.
  r.owned = {r.grid};
  const ooc::Schedule single = ooc::schedule(r);
  r.host_per_part = false;
  CHECK(ooc::predict(single, link, 4, true) ==
        doctest::Approx(ooc::predict(ooc::schedule(r), link, 4, true)));
}

TEST_CASE("ooc model: MPI ranks' messages at each pass boundary, and in core at each step") {
  // Two parts split along x; k = 2 steps of a one-cell halo: each part reads 2 x-planes of
  // the other's owned cells at every pass boundary, for each of the 3 written arrays (4 bytes
  // each; vel is read-only and never sent).
  ooc::Request r = two_parts_request();
  r.host_per_part = true;
  const ooc::Schedule ranks = ooc::schedule(r);
  r.host_per_part = false;
  const ooc::Schedule one = ooc::schedule(r);
  ooc::Link link;
  link.h2d = link.d2h = 1e10;
  link.bidir = 2e10;
  link.cell_step = 1e-10;
  const double without = ooc::predict(ranks, link, 8, true);
  CHECK(ooc::message_seconds(ranks, link) == 0);  // not measured: not charged
  link.message = 2e9;
  link.message_latency = 1e-5;
  // Each part sends 2 x 56 x 256 cells and receives as many, 12 bytes a cell, in 2 x 3 messages.
  const double boundary = 2.0 * (2 * 56 * 256) * 12 / 2e9 + 6 * 1e-5;
  CHECK(ooc::message_seconds(ranks, link) == doctest::Approx(boundary));
  CHECK(ooc::message_seconds(one, link) == 0);  // one process: snapshots, no messages
  // 8 steps, 2 a pass: 3 pass boundaries, each charged once.
  CHECK(ooc::predict(ranks, link, 8, true) == doctest::Approx(without + 3 * boundary));
  // The figures are printed and read back.
  CHECK(ooc::link_figures_text(link).find(",message=2,message_latency=10") != std::string::npos);
  // The ranks' meeting at each boundary (Link::boundary), on top of the messages; not in one
  // process (no meeting there).
  const double one_without = ooc::predict(one, link, 8, true);
  link.boundary = 4e-5;
  CHECK(ooc::predict(ranks, link, 8, true) == doctest::Approx(without + 3 * (boundary + 4e-5)));
  CHECK(ooc::predict(one, link, 8, true) == doctest::Approx(one_without));
  CHECK(ooc::link_figures_text(link).find(",boundary=40") != std::string::npos);
  CHECK(ooc::as_printed(link).boundary == doctest::Approx(4e-5));
  link.boundary = 0;
  // In core, 2 ranks: every step's halos (1 plane of 3 written arrays from the other part) are
  // messages too, one each way per array.
  Partition two = one_part(r.grid);
  two.parts.push_back(two.parts[0]);
  two.parts[0].owned.hi[0] = two.parts[1].owned.lo[0] = 32;
  two.parts[0].ghost.hi[0] = 33;
  two.parts[1].ghost.lo[0] = 31;
  const std::vector<ooc::InCorePart> work = ooc::in_core_work(two, r.arrays);
  CHECK(work[0].halo_bytes == 56.0 * 256 * 12);
  CHECK(work[0].halo_messages == 6);
  ooc::Link none = link;
  none.message = 0;
  CHECK(ooc::predict_in_core(work, 4, 3, link, 10) ==
        doctest::Approx(ooc::predict_in_core(work, 4, 3, none, 10) +
                        10 * (2 * 56.0 * 256 * 12 / 2e9 + 6 * 1e-5)));
}

TEST_CASE("ooc calibration: the host's issue figures, measured, written and read back") {
  // An op whose calls take 300 us and 100 us per copy on the host, on a clock the test drives
  // (a sleeping test measures the machine's load, not the arithmetic). Every round but one of
  // each kind is delayed by 50 us per op (a busy host): the fastest timed round counts, the
  // warm-up never does.
  ooc::Link link;
  int waits = 0, calls = 0;
  double clock = 0;
  ooc::measure_issue(
      [&](int copies) {
        const int round = calls++ / 16 % 4;  // 4 rounds of 16 ops per kind
        const bool fastest = round == (copies == 1 ? 2 : 3);
        clock += 300e-6 + 100e-6 * copies + (fastest ? 0 : 50e-6) - (round == 0 ? 200e-6 : 0);
      },
      [&] { ++waits; }, link, [&] { return clock; });
  CHECK(waits == 8);  // 4 rounds (a warm-up and three timed) of each kind
  CHECK(calls == 128);
  CHECK(link.issue_command == doctest::Approx(100e-6));
  CHECK(link.issue_op == doctest::Approx(300e-6));
  // Scaled to the runner's own issue path (Runner::time_issue times a short run): by the run's
  // issue time over the figures' for its ops, at most 20x and at least half.
  {
    ooc::Request r = grid_request();
    r.chunks = 4;
    r.steps_per_pass = 1;
    const ooc::Schedule sc = ooc::schedule(r);
    ooc::Link l;
    l.issue_op = 2e-6;
    l.issue_command = 1e-6;
    double figures = 0;
    for (const ooc::Op& op : ooc::ops(sc, 3)) figures += ooc::issue_seconds(sc, op, l);
    CHECK(figures > 0);
    for (const auto& [issued, f] : std::vector<std::pair<double, double>>{
             {3.0, 3.0}, {100.0, 20.0}, {0.1, 0.5}, {0.0, 1.0}}) {
      ooc::Link scaled = l;
      ooc::scale_issue(sc, 3, issued * figures, scaled);
      CHECK(scaled.issue_op == doctest::Approx(2e-6 * f));
      CHECK(scaled.issue_command == doctest::Approx(1e-6 * f));
    }
  }
  // And on the steady clock, the overload the runner calls: sleeps of at least the asked time.
  ooc::Link slept;
  ooc::measure_issue(
      [](int copies) { std::this_thread::sleep_for(std::chrono::microseconds(50 * copies)); },
      [] {}, slept);
  CHECK(slept.issue_op + slept.issue_command >= 49e-6);
  const std::string text = ooc::link_figures_text(link);
  CHECK(text.find(",issue_op=") != std::string::npos);
  LinkFigures f;
  apply_link_figures(text, "run.txt", f);
  CHECK(f.link.issue_op == doctest::Approx(link.issue_op));
  CHECK(f.link.issue_command == doctest::Approx(link.issue_command));
  CHECK(f.issue == "run.txt");
  const ooc::Link printed = ooc::as_printed(link);
  CHECK(printed.issue_op == f.link.issue_op);
  CHECK(printed.issue_command == f.link.issue_command);
  CHECK(ooc::link_figures_text(ooc::Link{}).find("issue") == std::string::npos);
}

TEST_CASE("ooc calibration: a pass boundary's meeting, the mean round less the rank's own work") {
  using namespace std::chrono_literals;
  // The meeting's own time is the boundary's cost: each meeting takes at least 2 ms.
  const double meeting = ooc::measure_boundary([] {}, [] { std::this_thread::sleep_for(2ms); }, 8);
  CHECK(meeting >= 2e-3);
  // One round in four waits 4 ms for a slower rank (its work here): the median of the work is
  // about nothing, and the mean round takes the waits, at least 1 ms a round. A median would
  // leave them out, as the runs' boundaries do not.
  int round = 0;
  const double skew = ooc::measure_boundary(
      [&round] {
        if (round++ % 4 == 3) std::this_thread::sleep_for(4ms);
      },
      [] {}, 8);
  CHECK(round == 9);  // a warm-up and 8 rounds
  CHECK(skew >= 0.9e-3);
}

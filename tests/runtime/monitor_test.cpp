// Reductions, until and the monitor of a run (runtime/stepgen/exec/monitor.hpp): the steps where a
// reduction is computed, partial reductions merged in any order, until tested where its
// reductions are computed, the monitor's CSV; the out-of-core chooser keeps passes on them.
#include "stepgen/exec/monitor.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "stepgen/plan/ooc/model.hpp"

namespace rt = stepgen::rt;

namespace {

const rt::ReduceInfo kInfo[] = {
    {"res", rt::ReduceOp::kL2, 0, 1, 4},
    {"top", rt::ReduceOp::kMax, 0, -1, 3},
};
const int kUses[] = {0};

bool until(const rt::Monitor& m, std::int64_t) {
  return m.value(0) < 2.5;
}

}  // namespace

TEST_CASE("monitor: computed at (t + 1) % every == 0 and at the last step") {
  rt::MonitorSpec spec;
  spec.reductions = kInfo;
  spec.count = 2;
  rt::Monitor m(spec, 10, false);
  std::vector<std::int64_t> res, top;
  for (std::int64_t t = 0; t < 10; ++t) {
    if (m.computed(0, t)) res.push_back(t);
    if (m.computed(1, t)) top.push_back(t);
  }
  CHECK(res == std::vector<std::int64_t>{3, 7, 9});
  CHECK(top == std::vector<std::int64_t>{2, 5, 8, 9});
}

TEST_CASE("monitor: partials merged in any order give one value, until stops where computed") {
  rt::MonitorSpec spec;
  spec.reductions = kInfo;
  spec.count = 2;
  spec.until = until;
  spec.until_text = "res < 2.5";
  spec.until_uses = kUses;
  spec.until_use_count = 1;
  rt::Monitor m(spec, 100, false);
  double values[] = {1.5, -2.25, 0.125, 3.0};
  std::int64_t stopped = -1;
  for (std::int64_t t = 0; t < 100 && stopped < 0; ++t) {
    if (m.computed(0, t)) {
      // Two parts, cells split differently each time: the value must not move.
      rt::Reduction a(rt::ReduceOp::kL2), b(rt::ReduceOp::kL2);
      const double scale = t < 7 ? 1.0 : 0.5;  // converges after step 7
      for (int i = 0; i < 4; ++i) (i < t % 4 ? a : b).add(values[i] * scale);
      m.add(0, b);
      m.add(0, a);
    }
    if (!m.end_of_step(t)) stopped = t;
    if (t == 3) CHECK(m.value(0) == std::sqrt(1.5 * 1.5 + 2.25 * 2.25 + 0.125 * 0.125 + 9.0));
    if (t == 4) CHECK(std::isnan(m.value(1)));  // max of no cell: no value
  }
  // res < 2.5 from step 7 on, tested at step 7 (computed there), not before.
  CHECK(stopped == 7);
  CHECK(m.stopped_at() == 7);
}

TEST_CASE("monitor: a NaN that until reads stops the run with an error naming it and the step") {
  rt::MonitorSpec spec;
  spec.reductions = kInfo;
  spec.count = 2;
  spec.until = until;
  spec.until_text = "res < 2.5";
  spec.until_uses = kUses;
  spec.until_use_count = 1;
  rt::Monitor m(spec, 100, false);
  // res is NaN before step 3 (not computed yet): until is not due, nothing is wrong.
  for (std::int64_t t = 0; t < 3; ++t) CHECK(m.end_of_step(t));
  rt::Reduction finite(rt::ReduceOp::kL2);
  finite.add(3.0);
  m.add(0, finite);
  CHECK(m.end_of_step(3));  // res = 3: not converged, goes on
  for (std::int64_t t = 4; t < 7; ++t) CHECK(m.end_of_step(t));
  // A cell went NaN: res is NaN at step 7, where until is tested.
  rt::Reduction bad(rt::ReduceOp::kL2);
  bad.add(1.0);
  bad.add(std::nan(""));
  m.add(0, bad);
  std::string message;
  try {
    m.end_of_step(7);
  } catch (const rt::RunError& e) {
    message = e.what();
  }
  CHECK(message ==
        "until: reduction 'res' is NaN after step 7 (the run diverged: a cell is NaN), so "
        "'res < 2.5' can never be true; the run stops here");
}

TEST_CASE("monitor: after a restart the first row's ms/step is over the steps run since it") {
  rt::MonitorSpec spec;
  spec.every = 5;
  const std::string path = "monitor_restart_" + std::to_string(::getpid()) + ".csv";
  spec.file = path.c_str();
  rt::Monitor m(spec, 20, false);
  m.start(10);  // restarted at step 10: rows at steps 14 and 19
  for (std::int64_t t = 10; t < 20; ++t) {
    ::usleep(4000);
    CHECK(m.end_of_step(t));
  }
  m.write_csv(10);
  const std::string csv = rt::Monitor::csv_path(spec, 10);
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::remove(csv.c_str());
  REQUIRE(lines.size() == 3);
  double ms = 0, elapsed = 0;
  long long step = 0;
  REQUIRE(std::sscanf(lines[1].c_str(), "%lld,%lf,%lf", &step, &ms, &elapsed) == 3);
  CHECK(step == 14);
  // 5 steps since the restart, at least 4 ms each (the bug divided by the 15 since step 0).
  CHECK(ms >= 4.0);
  CHECK(ms * 5 / 1e3 == doctest::Approx(elapsed).epsilon(0.01));
}

TEST_CASE("monitor: the CSV holds a header and a line every `every` steps, written atomically") {
  rt::MonitorSpec spec;
  spec.reductions = kInfo;
  spec.count = 2;
  spec.every = 4;
  const std::string path = "monitor_test_" + std::to_string(::getpid()) + ".csv";
  spec.file = path.c_str();
  rt::Monitor m(spec, 10, false);
  for (std::int64_t t = 0; t < 10; ++t) {
    if (m.computed(0, t)) {
      rt::Reduction r(rt::ReduceOp::kL2);
      r.add(3.0f);
      r.add(4.0f);
      m.add(0, r);
    }
    if (m.computed(1, t)) {
      rt::Reduction r(rt::ReduceOp::kMax);
      r.add(static_cast<double>(t));
      m.add(1, r);
    }
    CHECK(m.end_of_step(t));
  }
  m.write_csv();
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::remove(path.c_str());
  REQUIRE(lines.size() == 4);  // header, steps 3, 7, 9 (the last)
  CHECK(lines[0] == "step,res,top,ms_per_step,elapsed_s");
  CHECK(lines[1].rfind("3,5,2,", 0) == 0);
  CHECK(lines[2].rfind("7,5,5,", 0) == 0);
  CHECK(lines[3].rfind("9,5,9,", 0) == 0);
  // A run of no step (a restart at --steps): the header alone, not an empty file.
  rt::Monitor none(spec, 10, false);
  none.write_csv();
  std::ifstream again(path);
  std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  CHECK(text == "step,res,top,ms_per_step,elapsed_s\n");
}

TEST_CASE(
    "ooc chooser: steps per pass divide the reductions' every; a given one that does not "
    "is an error") {
  rt::ooc::Request r;
  r.grid = rt::Box::from_extent(2, {64, 64, 1});
  r.owned = {r.grid};
  r.shrink_lo = r.shrink_hi = {1, 1, 0};
  r.arrays = {{"a", 4, true}, {"b", 4, true}};
  r.chunks = 0;
  r.steps_per_pass = 0;
  r.every = 6;
  rt::ooc::Link link;
  link.h2d = link.d2h = link.bidir = 1e9;
  link.cell_step = 1e-12;  // kernels cheap: the model would like many steps per pass
  link.measured = true;
  // Without reductions the model takes more steps per pass than 6 divides ...
  r.every = 0;
  const rt::ooc::Schedule free = rt::ooc::choose(r, 0, link, 100, true);
  CHECK(6 % free.steps_per_pass != 0);
  // ... with them, one that divides it.
  r.every = 6;
  const rt::ooc::Schedule sc = rt::ooc::choose(r, 0, link, 100, true);
  CHECK(6 % sc.steps_per_pass == 0);
  r.steps_per_pass = 4;
  CHECK_THROWS_WITH_AS(rt::ooc::choose(r, 0, link, 100, true),
                       doctest::Contains("4 steps per pass"), rt::PlanError);
}

TEST_CASE(
    "monitor: a checkpoint records the values of the `every` steps, a restart restores them") {
  rt::MonitorSpec spec;
  spec.reductions = kInfo;  // res every 4, top every 3
  spec.count = 2;
  rt::Monitor m(spec, 6, false);  // a run of 6 steps: the last step (5) computes both
  for (std::int64_t t = 0; t < 6; ++t) {
    for (int i = 0; i < 2; ++i)
      if (m.computed(i, t)) {
        rt::Reduction r(kInfo[i].op);
        r.add(static_cast<double>(t + 1));
        m.add(i, r);
      }
    m.end_of_step(t);
  }
  CHECK(m.value(0) == 6.0);  // the last step's
  // Recorded: res of step 3 (4), top of step 5 ((5 + 1) % 3 == 0: 6), not the last step's res.
  const auto last = m.last_values();
  REQUIRE(last.size() == 2);
  CHECK(last[0].first == "res");
  CHECK(last[0].second == 4.0);
  CHECK(last[1].second == 6.0);
  rt::Monitor again(spec, 100, false);
  CHECK(std::isnan(again.value(0)));
  again.restore(last);
  CHECK(again.value(0) == 4.0);
  CHECK(again.value(1) == 6.0);
  CHECK(again.last_values() == last);
}

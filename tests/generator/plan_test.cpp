// model/plan: the rules that turn a Model into a partition, exchanges and chunk plans, and the
// three reports. Models are built by hand so these tests do not depend on the spec readers.
#include "plan/plan.hpp"

#include <doctest/doctest.h>

#include <string>

#include "plan/plan_print.hpp"
#include "plan/program_plan.hpp"

using namespace stepgen;
using namespace stepgen::model;

namespace {

Halo five_point() {
  Halo h;
  h.points = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
  h.lo = {1, 1, 0};
  h.hi = {1, 1, 0};
  return h;
}

Halo widths(std::array<int, 3> lo, std::array<int, 3> hi) {
  Halo h;
  h.lo = lo;
  h.hi = hi;
  return h;
}

Array grid_array(const std::string& name, int dims, std::array<std::int64_t, 3> size) {
  Array a;
  a.name = name;
  a.dims = dims;
  a.size = size;
  return a;
}

KernelArg array_arg(int array, Access access, Halo halo = {}) {
  KernelArg k;
  k.array = array;
  k.access = access;
  k.halo = halo;
  return k;
}

Step launch(int kernel) {
  Step s;
  s.kind = Step::Kind::kLaunch;
  s.kernel = kernel;
  return s;
}

Step swap(int a, int b) {
  Step s;
  s.kind = Step::Kind::kSwap;
  s.arrays = {a, b};
  return s;
}

/// Jacobi 2D: B = f(A with a 5-point halo); swap(A, B). Floats on an n x n grid.
Model jacobi2d(std::int64_t n, std::vector<std::int64_t> local = {}) {
  Model m;
  m.name = "jacobi2d";
  m.dims = 2;
  m.domain = {n, n, 1};
  m.arrays = {grid_array("A", 2, {n, n, 1}), grid_array("B", 2, {n, n, 1})};
  m.arrays[0].read = true;
  m.arrays[0].read_halo = five_point();
  m.arrays[1].written = true;
  Kernel k;
  k.name = "jacobi";
  k.args = {array_arg(0, Access::kRead, five_point()), array_arg(1, Access::kWrite)};
  k.local = std::move(local);
  m.kernels = {k};
  m.body = {launch(0), swap(0, 1)};
  return m;
}

/// A 3D stencil streamed out of core: nx x ny x nz floats, halo 1 along z.
Model ooc3d(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  Model m;
  m.name = "heat3d";
  m.dims = 3;
  m.domain = {nx, ny, nz};
  m.arrays = {grid_array("U", 3, {nx, ny, nz}), grid_array("V", 3, {nx, ny, nz})};
  m.arrays[0].read = true;
  m.arrays[0].read_halo = widths({1, 1, 1}, {1, 1, 1});
  m.arrays[1].written = true;
  Kernel k;
  k.name = "heat";
  k.args = {array_arg(0, Access::kRead, widths({1, 1, 1}, {1, 1, 1})),
            array_arg(1, Access::kWrite)};
  m.kernels = {k};
  m.body = {launch(0), swap(0, 1)};
  m.out_of_core.enabled = true;
  return m;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The plan of a model as `stepgen plan` makes it: the program plan first, then the rest.
Plan plan_of(const Model& m, const PlanOptions& o) {
  return make_plan(build_program_plan(m), o);
}
std::string text_of(const Model& m, const Plan& p) {
  return plan_text(build_program_plan(m), p);
}
std::string json_of(const Model& m, const Plan& p) {
  return plan_json(build_program_plan(m), p);
}
std::string svg_of(const Model& m, const Plan& p) {
  return plan_svg(build_program_plan(m), p);
}

}  // namespace

TEST_CASE("plan rules: halos, ghost widths, granule, groups") {
  Model m = jacobi2d(64, {16, 4});
  Kernel other;
  other.name = "other";
  other.local = {8, 8};
  m.kernels.push_back(other);
  CHECK(granule(m) == rt::Vec3{16, 8, 1});

  const rt::Halo h = grid_halo(m);
  CHECK(h.points.size() == 4);
  CHECK(h.lo == rt::Vec3{1, 1, 0});
  CHECK(ghost_lo(m) == std::array<rt::Index, 3>{1, 1, 0});
  CHECK(ghost_hi(m) == std::array<rt::Index, 3>{1, 1, 0});
  // B is read through its swap partner: the group's halo is A's.
  CHECK(group_halo(m, 1).points.size() == 4);
  CHECK(is_exchanged(m, 0));
  CHECK(is_exchanged(m, 1));
  CHECK(exchanges_per_interval(m, 0) == 0);  // never written by a launch: swapped in
  CHECK(exchanges_per_interval(m, 1) == 1);
  CHECK(partition_request(build_program_plan(m), PlanOptions{}).bytes_per_cell == 4);
}

TEST_CASE("plan rules: deep halos sum each launch's widest halo") {
  // Two launches per step: B = f(A, halo 1 in x), A = g(B, halo 2 in x, 1 in y).
  Model m = jacobi2d(64);
  m.body = {launch(0)};
  Kernel k2;
  k2.name = "back";
  k2.args = {array_arg(1, Access::kRead, widths({2, 1, 0}, {2, 0, 0})),
             array_arg(0, Access::kWrite)};
  m.kernels.push_back(k2);
  m.body.push_back(launch(1));
  m.arrays[0].written = true;
  m.arrays[1].read = true;
  m.arrays[1].read_halo = widths({2, 1, 0}, {2, 0, 0});
  CHECK(ghost_lo(m) == std::array<rt::Index, 3>{2, 1, 0});  // every = 1: the union
  m.exchange_every = 3;
  CHECK(step_shrink_lo(m) == std::array<rt::Index, 3>{3, 2, 0});
  CHECK(ghost_lo(m) == std::array<rt::Index, 3>{9, 6, 0});
  CHECK(ghost_hi(m) == std::array<rt::Index, 3>{9, 3, 0});
  CHECK(exchanges_per_interval(m, 0) == 1);
  CHECK(exchanges_per_interval(m, 1) == 1);
}

TEST_CASE("make_plan: jacobi2d on 4 devices") {
  Model m = jacobi2d(64);
  PlanOptions o;
  o.devices = 4;
  Plan p = plan_of(m, o);
  CHECK(p.partition.grid == std::array<int, 3>{2, 2, 1});
  REQUIRE(p.exchanges.size() == 1);
  CHECK(p.exchanges[0].array == 1);
  // Each part receives a 32-cell row and a 32-cell column of floats per step.
  for (rt::Index b : p.recv_bytes_per_step) CHECK(b == 2 * 32 * 4);
  CHECK(p.exchange_bytes_per_step == 4 * 2 * 32 * 4);
  CHECK(p.buffer_bytes[0] == 2 * 33 * 33 * 4);
  CHECK_FALSE(p.out_of_core);

  o.strategy = rt::Strategy::kStepocl;
  CHECK(plan_of(m, o).partition.grid == std::array<int, 3>{1, 4, 1});
  o.weights = {1, 2};
  CHECK_THROWS_AS(plan_of(m, o), rt::PlanError);
}

TEST_CASE("make_plan: arrays not shaped like the grid stay whole") {
  Model m = jacobi2d(32);
  m.arrays.push_back(grid_array("coef", 1, {5, 1, 1}));
  m.arrays.back().type = ScalarType::kDouble;
  m.arrays.back().read = true;
  PlanOptions o;
  o.devices = 2;
  Plan p = plan_of(m, o);
  CHECK_FALSE(is_partitioned(m, 2));
  CHECK(resident_bytes(m) == 40);
  CHECK(p.buffer_bytes[0] == 2 * 32 * 17 * 4 + 40);
}

TEST_CASE("make_plan: out of core runs the program's chooser on the program's request") {
  Model m = ooc3d(8, 8, 100);
  m.steps = 50;
  PlanOptions o;
  CHECK_THROWS_WITH(plan_of(m, o), "device_memory unknown: give --device-memory");
  // Two arrays of 8*8*4 = 256 bytes per plane, 3 buffer slots each: 1536 bytes per plane.
  o.device_memory = 1536 * 27;
  const ProgramPlan pp = build_program_plan(m);
  const Plan p = make_plan(pp, o);
  REQUIRE(p.out_of_core);
  CHECK(p.auto_chunks);
  CHECK(p.auto_k);
  CHECK(p.steps == m.steps);
  // The request a program makes (templates' run_in_or_out_of_core), written out here.
  rt::ooc::Request r;
  r.grid = p.partition.domain;
  r.owned = {p.partition.parts[0].owned};
  r.shrink_lo = {1, 1, 1};
  r.shrink_hi = {1, 1, 1};
  r.arrays = {{"U", 4, true}, {"V", 4, true}};
  r.chunks = 0;  // auto, as the spec leaves them
  r.steps_per_pass = 0;
  r.trapezoid = false;  // the hand-built kernel gives no extents: it cannot run on slabs
  r.band_sharing = true;
  const rt::ooc::Link assumed;
  const rt::ooc::Schedule want = rt::ooc::choose(r, 1536 * 27, assumed, m.steps, true);
  CHECK(p.schedule.chunks == want.chunks);
  CHECK(p.schedule.steps_per_pass == want.steps_per_pass);
  CHECK(p.schedule.device_bytes == want.device_bytes);
  CHECK(p.schedule.device_bytes <= 1536 * 27);
  CHECK(p.predicted_s == rt::ooc::predict(want, assumed, m.steps, true));
  // One process: one thread issues every part's commands; an MPI program's ranks issue their
  // own, and the plan models them so (rt::ooc::Request::host_per_part).
  CHECK_FALSE(p.schedule.host_per_part);
  {
    Model ranks = m;
    ranks.mpi = true;
    CHECK(make_plan(build_program_plan(ranks), o).schedule.host_per_part);
    // The MPI ranks' message figures (a program's calibration line, or --link) are shown
    // with their source in the text and the JSON.
    PlanOptions messages = o;
    rt::apply_link_figures("message=3.5,message_latency=2", "--link", messages.figures);
    const ProgramPlan rp = build_program_plan(ranks);
    const Plan mp = make_plan(rp, messages);
    CHECK(mp.figures.link.message == doctest::Approx(3.5e9));
    CHECK(plan_text(rp, mp).find("  figures: MPI messages at 3.50 GB/s (sent and received) + "
                                 "2.0 us each (--link)\n") != std::string::npos);
    const std::string json = plan_json(rp, mp);
    CHECK(json.find("\"message_gbps\"") != std::string::npos);
    CHECK(json.find("\"message_from\": \"--link\"") != std::string::npos);
    CHECK(json.find("\"boundary_us\"") == std::string::npos);  // not stated: not charged
    // The ranks' meeting at each pass boundary (Link::boundary): shown, and charged once per
    // boundary (2 ranks: one rank has no boundaries to meet at), so a plan of several passes is
    // predicted later by that much for each.
    PlanOptions met = messages;
    met.devices = 2;
    rt::apply_link_figures("boundary=40", "--link", met.figures);
    met.device_memory = 1536 * 12;  // each part's 51 planes (26112 bytes) out of core still
    const Plan bp = make_plan(rp, met);
    REQUIRE(bp.out_of_core);
    CHECK(plan_text(rp, bp).find("  figures: MPI pass boundary's meeting 40.0 us (--link)\n") !=
          std::string::npos);
    CHECK(plan_json(rp, bp).find("\"boundary_us\": 40") != std::string::npos);
    const auto passes = rt::ooc::passes(m.steps, bp.schedule.steps_per_pass);
    REQUIRE(passes > 1);
    CHECK(bp.predicted_s == rt::ooc::predict(bp.schedule, bp.figures.link, m.steps, true));
    CHECK(bp.predicted_s ==
          doctest::Approx(rt::ooc::predict(bp.schedule, mp.figures.link, m.steps, true) +
                          40e-6 * static_cast<double>(passes - 1)));
    // One process has no meeting: the figure changes nothing there.
    PlanOptions one = o;
    rt::apply_link_figures("boundary=40", "--link", one.figures);
    CHECK(make_plan(pp, one).predicted_s == doctest::Approx(p.predicted_s));
  }

  // Figures change the choice as they change a program's: a link a thousand times slower
  // makes passes costly, so the model runs more steps per pass.
  PlanOptions slow = o;
  rt::apply_link_figures("h2d=0.01,d2h=0.01,bidir=0.015", "--link", slow.figures);
  const Plan q = make_plan(pp, slow);
  CHECK(q.schedule.steps_per_pass ==
        rt::ooc::choose(r, 1536 * 27, slow.figures.link, m.steps, true).steps_per_pass);
  CHECK(q.schedule.steps_per_pass > p.schedule.steps_per_pass);
  CHECK(q.figures.h2d == "--link");
  CHECK(q.figures.kernel == "assumed");

  o.device_memory = 1536 * 2;
  CHECK_THROWS_AS(plan_of(m, o), LocatedPlanError);
  // Chunks and steps given by the spec are used as given, and checked against the memory.
  m.out_of_core.chunks = 2;
  m.out_of_core.steps_per_pass = 1;
  o.device_memory = 0;
  const Plan given = plan_of(m, o);
  CHECK(given.schedule.chunks == 2);
  CHECK_FALSE(given.auto_chunks);
  m.out_of_core.device_memory = 1000;
  CHECK_THROWS_AS(plan_of(m, o), rt::PlanError);
}

TEST_CASE("make_plan: --out-of-core on and off, as the program's flag") {
  Model m = ooc3d(8, 8, 100);
  PlanOptions o;
  o.device_memory = 1 << 20;  // the arrays fit
  CHECK_FALSE(plan_of(m, o).out_of_core);
  o.out_of_core = PlanOptions::OutOfCore::kOn;
  const Plan on = plan_of(m, o);
  CHECK(on.out_of_core);
  CHECK(on.reason == "asked for with --out-of-core on");
  o.out_of_core = PlanOptions::OutOfCore::kOff;
  o.device_memory = 1024;
  CHECK_FALSE(plan_of(m, o).out_of_core);
}

TEST_CASE("plan_text, plan_json and plan_svg") {
  Model m = jacobi2d(64);
  PlanOptions o;
  o.devices = 4;
  const Plan p = plan_of(m, o);
  const std::string text = text_of(m, p);
  CHECK(
      text.find("plan for 'jacobi2d': 2D grid 64x64, 4 part(s) of 4 device(s), device grid 2x2") !=
      std::string::npos);
  CHECK(text.find("[0,32)x[0,32)") != std::string::npos);
  CHECK(text.find("total: 1024 bytes exchanged per step") != std::string::npos);
  // The time loop as the program runs it, and why its exchange does not overlap: the kernel
  // here is given no global sizes, so it cannot run on slabs.
  CHECK(text.find("  time loop: jacobi, then the exchange of B; swap(A, B)\n") !=
        std::string::npos);
  CHECK(text.find("  overlap of exchanges and computation: not all: kernel 'jacobi' has 0 global "
                  "size(s) for a 2D grid\n") != std::string::npos);

  const std::string json = json_of(m, p);
  CHECK(json == json_of(m, p));
  CHECK(json.find("\"stencil\": \"jacobi2d\"") != std::string::npos);
  CHECK(json.find("\"time_loop\": [") != std::string::npos);
  CHECK(json.find("\"launch\": \"jacobi\",\n      \"exchange\": [\"B\"],\n      \"overlap\": "
                  "false,\n      \"no_overlap\": \"kernel 'jacobi' has 0 global size(s)") !=
        std::string::npos);
  CHECK(json.find("{\"swap\": [\"A\", \"B\"]}") != std::string::npos);
  CHECK(json.find("\"grid\": [2, 2]") != std::string::npos);
  CHECK(json.find("\"owned\": {\"lo\": [0, 0], \"hi\": [32, 32]}") != std::string::npos);
  CHECK(json.find("\"ghost\": {\"lo\": [0, 0], \"hi\": [33, 33]}") != std::string::npos);
  CHECK(count(json, "\"neighbours\": [") == 4);
  CHECK(count(json, "\"exchange_bytes_per_step\": 256") == 4);
  CHECK(count(json, "{") == count(json, "}"));
  CHECK(count(json, "[") == count(json, "]"));

  const std::string svg = svg_of(m, p);
  CHECK(svg == svg_of(m, p));
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(count(svg, "<title>part ") == 4);
  CHECK(count(svg, "<title>ghost cells of part ") >= 8);
  CHECK(svg.find("width=\"800\"") != std::string::npos);

  Model ooc = ooc3d(8, 8, 100);
  ooc.out_of_core.chunks = 4;
  ooc.out_of_core.steps_per_pass = 2;
  PlanOptions figures;
  rt::apply_link_figures("kernel=0.5", "calib.txt", figures.figures);
  const Plan q = plan_of(ooc, figures);
  const std::string qj = json_of(ooc, q);
  for (const char* key :
       {"\"h2d_bytes_per_pass\"", "\"d2h_bytes_per_pass\"", "\"d2d_bytes_per_pass\"",
        "\"h2d_bytes_per_pass_without_sharing\"", "\"device_bytes\"", "\"steps_per_pass\": 2",
        "\"predicted_seconds\"", "\"kernel_from\": \"calib.txt\"", "\"h2d_from\": \"assumed\""})
    CHECK_MESSAGE(qj.find(key) != std::string::npos, key);
  CHECK(text_of(ooc, q).find("4 chunk(s) of planes along z") != std::string::npos);
  CHECK(count(svg_of(ooc, q), "stroke-dasharray=\"6 3\"/>") == 3 + 1);  // 3 boundaries + legend
}

TEST_CASE("plan reports: boundaries, each part's frame past the grid's edge") {
  Model m = jacobi2d(32);
  Boundary b;
  b.kind = Boundary::Kind::kPeriodic;
  b.arrays = {0, 1};
  b.dims = {true, false, false};
  Boundary v;
  v.kind = Boundary::Kind::kValue;
  v.value = "0.5";
  v.arrays = {0, 1};
  v.dims = {false, true, false};
  m.boundaries = {b, v};
  PlanOptions o;
  o.devices = 2;
  o.strategy = rt::Strategy::kSlabs;
  const Plan p = plan_of(m, o);
  CHECK(p.partition.parts[0].ghost.str() == "[-1,33)x[-1,17)");
  const std::string text = text_of(m, p);
  CHECK(text.find("A: periodic along x, value(0.5) along y; B: periodic along x, value(0.5) "
                  "along y") != std::string::npos);
  CHECK(text.find("part 0 frame: [-1,33)x[-1,0) [-1,0)x[0,17) [32,33)x[0,17)") !=
        std::string::npos);
  const std::string json = json_of(m, p);
  CHECK(json.find("{\"array\": \"A\", \"dim\": 1, \"kind\": \"value\", \"value\": \"0.5\"}") !=
        std::string::npos);
  // The SVG: every part's frame boxes in green (3 for part 0: below y, left, right), one
  // periodic arc (x only: y's frame is value(0.5)) and the legend's line.
  const std::string svg = svg_of(m, p);
  CHECK(count(svg, "<title>boundary frame of part ") == 6);
  CHECK(svg.find("<title>boundary frame of part 0: [-1,0)x[0,17) (x: periodic)</title>") !=
        std::string::npos);
  CHECK(svg.find("<title>boundary frame of part 0: [-1,33)x[-1,0) (y: value)</title>") !=
        std::string::npos);
  CHECK(count(svg,
              "<title>periodic along x: the frame below x = 0 holds the cells below x = "
              "32") == 1);
  CHECK(count(svg, "periodic along y") == 0);
  CHECK(count(svg, "boundary frame past the grid's edge") == 1);
  // Without boundaries the reports say nothing of them.
  const Model plain = jacobi2d(32);
  CHECK(svg_of(plain, plan_of(plain, o)).find("boundary frame") == std::string::npos);
  CHECK(text_of(plain, plan_of(plain, o)).find("boundaries") == std::string::npos);
  CHECK(json_of(plain, plan_of(plain, o)).find("boundaries") == std::string::npos);
}

// model/program_plan: the facts computed once from the Model and the backend's capabilities
// (groups, results, exchanges, halos, views, the overlap rule, the time-loop actions). Models are
// built by hand so these tests do not depend on the spec readers.
#include "plan/program_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "plan/plan.hpp"

using namespace stepgen;
using namespace stepgen::model;

namespace {

Expr extent(int array, int dim) {
  Expr e;
  e.kind = Expr::Kind::kArrayDim;
  e.text = "extent";
  e.array = array;
  e.dim = dim;
  return e;
}

Expr integer(std::int64_t v) {
  Expr e;
  e.kind = Expr::Kind::kInt;
  e.int_value = v;
  return e;
}

Expr round_up(Expr e, std::int64_t c) {
  Expr r;
  r.kind = Expr::Kind::kCall;
  r.text = "round_up";
  r.args = {std::move(e), integer(c)};
  return r;
}

Expr times(Expr e, std::int64_t c) {
  Expr r;
  r.kind = Expr::Kind::kBinary;
  r.op = '*';
  r.args = {std::move(e), integer(c)};
  return r;
}

KernelArg array_arg(int array, Access access, int halo = 0) {
  KernelArg k;
  k.array = array;
  k.access = access;
  k.halo.lo = {halo, halo, 0};
  k.halo.hi = {halo, halo, 0};
  return k;
}

KernelArg scalar_arg(Expr value) {
  KernelArg k;
  k.kind = KernelArg::Kind::kScalar;
  k.value = std::move(value);
  return k;
}

/// B = f(A, halo 1); swap(A, B) on a 2D grid, with a coefficient table C read whole. The kernel
/// is given its extents and launched over round_up(extent(A, d), 8): it runs on views, one
/// work-item per cell.
Model jacobi() {
  Model m;
  m.name = "jacobi";
  m.dims = 2;
  m.domain = {64, 64, 1};
  for (const char* name : {"A", "B"}) {
    Array a;
    a.name = name;
    a.dims = 2;
    a.size = {64, 64, 1};
    m.arrays.push_back(a);
  }
  Array c;
  c.name = "C";
  c.size = {5, 1, 1};
  c.read = true;
  m.arrays.push_back(c);
  m.arrays[0].read = true;
  m.arrays[0].read_halo.lo = {1, 1, 0};
  m.arrays[0].read_halo.hi = {1, 1, 0};
  m.arrays[1].written = true;
  Kernel k;
  k.name = "step";
  k.args = {array_arg(0, Access::kRead, 1), array_arg(1, Access::kWrite),
            array_arg(2, Access::kRead), scalar_arg(extent(0, 0)), scalar_arg(extent(0, 1))};
  k.global = {round_up(extent(0, 0), 8), round_up(extent(0, 1), 8)};
  m.kernels = {k};
  Step launch;
  launch.kernel = 0;
  Step swap;
  swap.kind = Step::Kind::kSwap;
  swap.arrays = {0, 1};
  m.body = {launch, swap};
  return m;
}

ProgramOptions opencl() {
  ProgramOptions o;
  o.backend.slabs_by_work_items = true;
  return o;
}

}  // namespace

TEST_CASE("program plan: groups, results, exchanges and halos of each array") {
  const Model m = jacobi();
  const ProgramPlan p = build_program_plan(m);
  CHECK(p.model == &m);
  REQUIRE(p.arrays.size() == 3);
  CHECK(p.arrays[0].group == std::vector<int>{0, 1});
  CHECK(p.arrays[1].group == std::vector<int>{0, 1});
  CHECK(p.arrays[2].group == std::vector<int>{2});
  // A is swapped with B, which a launch writes: both hold results and are exchanged, but only
  // B is refreshed after the launch.
  CHECK(p.arrays[0].results);
  CHECK(p.arrays[0].exchanged);
  CHECK(p.arrays[0].times == 0);
  CHECK(p.arrays[1].times == 1);
  CHECK(p.arrays[1].halo.lo == rt::Vec3{1, 1, 0});  // its swap partner's halo
  CHECK_FALSE(p.arrays[2].partitioned);
  CHECK_FALSE(p.arrays[2].results);
  CHECK_FALSE(p.arrays[2].exchanged);
  CHECK(p.exchanged == std::vector<int>{0, 1});
  CHECK(p.any_exchange);
  CHECK(p.ghost_lo == std::array<rt::Index, 3>{1, 1, 0});
  CHECK(p.shrink_hi == std::array<rt::Index, 3>{1, 1, 0});
  CHECK(p.bytes_per_cell == 4);
  // The partition request is these facts plus the devices.
  PlanOptions o;
  o.devices = 2;
  const rt::PartitionRequest r = partition_request(p, o);
  CHECK(r.ghost_lo == p.ghost_lo);
  CHECK(r.bytes_per_cell == 4);
  CHECK(r.strategy == rt::Strategy::kSlabs);
  CHECK(r.devices == 2);
}

TEST_CASE("program plan: the time loop's actions in order, each launch with its exchange") {
  const Model m = jacobi();
  const ProgramPlan p = build_program_plan(m);
  REQUIRE(p.loop.size() == 2);
  CHECK(p.loop[0].kind == Action::Kind::kLaunch);
  CHECK(p.loop[0].kernel == 0);
  CHECK(p.loop[0].arrays == std::vector<int>{1});
  CHECK(p.loop[0].exchange_after);
  CHECK(p.loop[0].overlap);
  CHECK(p.loop[1].kind == Action::Kind::kSwap);
  CHECK(p.loop[1].arrays == std::vector<int>{0, 1});
  CHECK(p.deep_exchange() == nullptr);
  CHECK(p.any_overlap);
  CHECK(p.overlap_obstacle.empty());
  CHECK(p.no_overlap.empty());
  CHECK(p.trapezoid);

  // Deep halos: no exchange after a launch, one after the body for every exchanged array.
  Model deep = jacobi();
  deep.exchange_every = 3;
  const ProgramPlan d = build_program_plan(deep);
  REQUIRE(d.loop.size() == 3);
  CHECK_FALSE(d.loop[0].exchange_after);
  CHECK_FALSE(d.loop[0].overlap);
  REQUIRE(d.deep_exchange() != nullptr);
  CHECK(d.deep_exchange()->arrays == std::vector<int>{0, 1});
  CHECK(d.exchange_deep);
  CHECK(d.overlap_obstacle == "deep halos, exchanged every 3 steps");
  CHECK(d.strategy == rt::Strategy::kMinExchange);
  CHECK(d.ghost_lo == std::array<rt::Index, 3>{3, 3, 0});
  CHECK(d.arrays[1].times == 1);
}

TEST_CASE("program plan: what the launches after each one read") {
  Model m = jacobi();
  // A second launch reading B with halo 2 writes A: the first launch's planes grow by 2.
  Kernel back = m.kernels[0];
  back.name = "back";
  back.args[0] = array_arg(1, Access::kRead, 2);
  back.args[1] = array_arg(0, Access::kWrite);
  m.kernels.push_back(back);
  m.arrays[0].written = true;
  m.arrays[1].read = true;
  m.arrays[1].read_halo.lo = {2, 2, 0};
  m.arrays[1].read_halo.hi = {2, 2, 0};
  Step second;
  second.kernel = 1;
  m.body = {m.body[0], second};
  const ProgramPlan p = build_program_plan(m);
  REQUIRE(p.loop.size() == 2);
  CHECK(p.loop[0].after_lo == 2);
  CHECK(p.loop[0].after_hi == 2);
  CHECK(p.loop[0].later_lo == rt::Vec3{2, 2, 0});
  CHECK(p.loop[1].after_lo == 0);
  CHECK(p.kernels[1].reach_lo == 2);
  CHECK(p.shrink_lo == std::array<rt::Index, 3>{3, 3, 0});
}

TEST_CASE("program plan: the overlap rule, with and without the work-item rule") {
  // A kernel given no extent cannot run on views: no backend overlaps it, and the default
  // strategy is min-exchange.
  Model blind = jacobi();
  blind.kernels[0].args.resize(3);
  for (const ProgramOptions& o : {ProgramOptions{}, opencl()}) {
    const ProgramPlan p = build_program_plan(blind, o);
    CHECK(p.kernels[0].no_views ==
          "kernel 'step' is given no extent(X, 1) argument, so it cannot tell where a slab ends");
    CHECK_FALSE(p.loop[0].overlap);
    CHECK(p.loop[0].no_overlap == p.kernels[0].no_views);
    CHECK(p.overlap_obstacle == p.kernels[0].no_views);
    CHECK(p.no_overlap == p.kernels[0].no_views);
    CHECK(p.strategy == rt::Strategy::kMinExchange);
    CHECK_FALSE(p.any_overlap);
    CHECK_FALSE(p.trapezoid);
  }

  // Two work-items per cell along the slowest dimension: CUDA runs it on views; OpenCL's slabs
  // of work-items are not slabs of cells, so it neither overlaps nor runs the trapezoid there.
  Model wide = jacobi();
  wide.kernels[0].global[1] = times(extent(0, 1), 2);
  const ProgramPlan cuda = build_program_plan(wide);
  const ProgramPlan cl = build_program_plan(wide, opencl());
  CHECK(cuda.kernels[0].no_views.empty());
  CHECK(cuda.loop[0].overlap);
  CHECK(cuda.trapezoid);
  CHECK(cl.kernels[0].no_views.empty());
  CHECK_FALSE(cl.kernels[0].one_item_per_cell);
  CHECK_FALSE(cl.loop[0].overlap);
  CHECK(cl.no_overlap.find("its work-items are not one per cell") != std::string::npos);
  CHECK_FALSE(cl.trapezoid);
  // The default strategy does not depend on the backend: `stepgen plan` has none.
  CHECK(cl.overlap_obstacle.empty());
  CHECK(cl.strategy == rt::Strategy::kSlabs);
  CHECK(cuda.strategy == cl.strategy);
}

TEST_CASE("program plan: the distribution is an option of the plan, the Model stays as built") {
  Model m = jacobi();
  CHECK_FALSE(build_program_plan(m).mpi);
  ProgramOptions o;
  o.mpi = true;
  CHECK(build_program_plan(m, o).mpi);
  CHECK_FALSE(m.mpi);
  m.mpi = true;  // the spec's <distribution engine="mpi"/>
  CHECK(build_program_plan(m).mpi);
  o.mpi = false;
  CHECK_FALSE(build_program_plan(m, o).mpi);
}

TEST_CASE("program plan: the periodic arrays read past the edge after a write in the step") {
  // step writes B from A; swap(A, B); back reads A (now the buffer step wrote) with halo 1:
  // with B periodic along y, back reads past the edge a periodic frame step wrote in the step.
  Model m = jacobi();
  Kernel back = m.kernels[0];
  back.name = "back";
  back.args[0] = array_arg(0, Access::kRead, 1);
  back.args[1] = array_arg(2, Access::kWrite);
  m.kernels.push_back(back);
  Step second;
  second.kernel = 1;
  m.body.push_back(second);
  Boundary b;
  b.arrays = {0, 1};
  b.dims = {false, true, false};
  m.boundaries = {b};
  ProgramPlan p = build_program_plan(m);
  CHECK(p.frame_read_after_write[0].empty());  // no rule along x
  CHECK(p.frame_read_after_write[1] ==
        "kernel 'back' reads 'A' past the grid's edge along y after kernel 'step' wrote it in "
        "the same step");
  CHECK(p.frame_read_after_write[2].empty());
  // Without the swap, back reads A, which no launch wrote in the step: nothing to name.
  m.body = {m.body[0], m.body[2]};
  p = build_program_plan(m);
  CHECK(p.frame_read_after_write[1].empty());
  // Read at its own cell only (no halo along y): nothing either.
  m.body = jacobi().body;
  m.body.push_back(second);
  m.kernels[1].args[0] = array_arg(0, Access::kRead, 0);
  p = build_program_plan(m);
  CHECK(p.frame_read_after_write[1].empty());
}

TEST_CASE("program plan: an implied periodic rule covers the whole swap group") {
  // C periodic along x; A, read at its cells, has no rule there: A and its swap partner B (only
  // written, the buffer A reads after the swap) both get the implied periodic rule (difftest
  // seed 40000: B's frame composed as zeros out of core).
  Model m = jacobi();
  Boundary b;
  b.arrays = {2};
  b.dims = {true, false, false};
  m.boundaries = {b};
  const ProgramPlan p = build_program_plan(m);
  auto implied = [&](int array) {
    return std::any_of(p.boundaries.begin(), p.boundaries.end(), [&](const BoundaryPlan& r) {
      return r.array == array && r.dim == 0 && r.implied && r.kind == Boundary::Kind::kPeriodic;
    });
  };
  CHECK(implied(0));
  CHECK(implied(1));
  CHECK_FALSE(implied(2));  // its own rule
}

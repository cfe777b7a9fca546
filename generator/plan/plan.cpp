#include "plan/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "model/groups.hpp"
#include "model/overlap.hpp"
#include "plan/plan_format.hpp"
#include "stepgen/plan/ooc/choice.hpp"       // the chooser a program runs (not the runner)
#include "stepgen/plan/ooc/frame_rules.hpp"  // frame_request

namespace stepgen::model {

namespace {

using rt::Index;
using text::dim_name;
using text::human;

Index element_bytes(const Model& m, int array) {
  return type_info(m.arrays[static_cast<std::size_t>(array)].type).bytes;
}

bool reads(Access a) {
  return a != Access::kWrite;
}

std::vector<double> resolved_weights(const Model& m, const PlanOptions& o) {
  if (!o.weights.empty()) return o.weights;
  // The spec's weights describe its own device list; they only apply when they match.
  if (static_cast<int>(m.devices.weights.size()) == o.devices) return m.devices.weights;
  return {};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Rules: Model -> numbers (the program plan, plan/program_plan.hpp, computes each once).

rt::Halo to_rt_halo(const Halo& h, int dims) {
  if (!h.points.empty()) {
    std::vector<rt::Vec3> pts;
    for (const auto& p : h.points) pts.push_back({p[0], p[1], p[2]});
    return rt::Halo::from_points(dims, pts);
  }
  if (!h.empty())
    return rt::Halo::from_widths(dims, {h.lo[0], h.lo[1], h.lo[2]}, {h.hi[0], h.hi[1], h.hi[2]});
  rt::Halo none;
  none.dims = dims;
  return none;
}

bool is_partitioned(const Model& m, int array) {
  const Array& a = m.arrays[static_cast<std::size_t>(array)];
  return a.dims == m.dims && a.size == m.domain;
}

rt::Halo grid_halo(const Model& m) {
  // Only partitioned arrays: a whole array on every device is read without crossing parts.
  rt::Halo h;
  h.dims = m.dims;
  for (std::size_t i = 0; i < m.arrays.size(); ++i)
    if (is_partitioned(m, static_cast<int>(i)))
      h = rt::merge(h, to_rt_halo(m.arrays[i].read_halo, m.dims));
  return h;
}

namespace {

std::array<Index, 3> step_shrink(const Model& m, bool below) {
  std::array<Index, 3> sum{0, 0, 0};
  for (const Step& s : m.body) {
    if (s.kind != Step::Kind::kLaunch) continue;
    const std::array<Index, 3> widest =
        launch_shrink(m, m.kernels[static_cast<std::size_t>(s.kernel)], below);
    for (std::size_t d = 0; d < 3; ++d) sum[d] += widest[d];
  }
  return sum;
}

std::array<Index, 3> ghost(const Model& m, bool below) {
  if (m.exchange_every <= 1) {
    const rt::Halo h = grid_halo(m);
    return below ? h.lo : h.hi;
  }
  std::array<Index, 3> g = step_shrink(m, below);
  for (Index& v : g) v *= m.exchange_every;
  return g;
}

}  // namespace

std::array<Index, 3> launch_shrink(const Model& m, const Kernel& k, bool below) {
  std::array<Index, 3> widest{0, 0, 0};
  for (const KernelArg& a : k.args) {
    if (a.kind != KernelArg::Kind::kArray || !reads(a.access) || !is_partitioned(m, a.array))
      continue;
    for (std::size_t d = 0; d < 3; ++d)
      widest[d] = std::max<Index>(widest[d], below ? a.halo.lo[d] : a.halo.hi[d]);
  }
  return widest;
}

std::array<Index, 3> step_shrink_lo(const Model& m) {
  return step_shrink(m, true);
}
std::array<Index, 3> step_shrink_hi(const Model& m) {
  return step_shrink(m, false);
}
std::array<Index, 3> ghost_lo(const Model& m) {
  return ghost(m, true);
}
std::array<Index, 3> ghost_hi(const Model& m) {
  return ghost(m, false);
}

rt::Vec3 granule(const Model& m, std::array<std::string, 3>* why) {
  rt::Vec3 g{1, 1, 1};
  const std::array<Index, 3> lo = ghost_lo(m), hi = ghost_hi(m);
  static const char* const kAxis[] = {"x", "y", "z"};
  for (const Kernel& k : m.kernels)
    for (int d = 0; d < m.dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      const Index local = u < k.local.size() && k.local[u] > 0 ? k.local[u] : 1;
      const Index cells = cells_per_item(m, k, d);
      g[u] = std::lcm(g[u], local * cells);
      if (cells <= 1) continue;
      // A work-item computes `cells` cells along d (extent(X, d) / cells): the kernel assumes
      // its buffer's extent there is a multiple of it, as the grid's (a float4 view of a float
      // row computes wrong rows where a split cuts x at 50 cells). Parts cut at multiples of
      // it keep that only while the ghost widths are multiples of it too (guarded by
      // tests/e2e/vector_items_test.sh).
      const std::string per = "kernel '" + k.name + "' computes " + std::to_string(cells) +
                              " cells per work-item along " + kAxis[d] +
                              " (its global size "
                              "divides extent(X, " +
                              std::to_string(d) + ") by " + std::to_string(cells) + ")";
      if (lo[u] % cells != 0 || hi[u] % cells != 0) {
        g[u] = std::max<Index>(g[u], m.domain[u]);
        if (why)
          (*why)[u] = per + ", and its ghost widths there (" + std::to_string(lo[u]) + ", " +
                      std::to_string(hi[u]) + ") are not multiples of it: " + kAxis[d] +
                      " is not split";
      } else if (why && (*why)[u].empty()) {
        (*why)[u] =
            per + ": " + kAxis[d] + " is split at multiples of " + std::to_string(g[u]) + " cells";
      }
    }
  for (int d = m.dims; d < 3; ++d) g[static_cast<std::size_t>(d)] = 1;
  return g;
}

rt::Halo group_halo(const Model& m, int array) {
  const int dims = m.arrays[static_cast<std::size_t>(array)].dims;
  rt::Halo h;
  h.dims = dims;
  for (int a : array_group(m, array))
    h = rt::merge(h, to_rt_halo(m.arrays[static_cast<std::size_t>(a)].read_halo, dims));
  return h;
}

bool is_exchanged(const Model& m, int array) {
  return is_partitioned(m, array) && needs_exchange(m, array);
}

int exchanges_per_interval(const Model& m, int array) {
  if (!is_exchanged(m, array)) return 0;
  if (m.exchange_every > 1) return 1;
  int times = 0;
  for (const Step& s : m.body) {
    if (s.kind != Step::Kind::kLaunch) continue;
    for (const KernelArg& a : m.kernels[static_cast<std::size_t>(s.kernel)].args)
      if (a.kind == KernelArg::Kind::kArray && a.array == array && a.access != Access::kRead) {
        ++times;
        break;  // one exchange per launch, however many arguments name the array
      }
  }
  return times;
}

rt::PartitionRequest partition_request(const ProgramPlan& pp, const PlanOptions& o) {
  const Model& m = *pp.model;
  rt::PartitionRequest r;
  r.dims = m.dims;
  r.domain = {m.domain[0], m.domain[1], m.domain[2]};
  r.granule = pp.granule;
  r.halo = pp.grid_halo;
  r.ghost_lo = pp.ghost_lo;
  r.ghost_hi = pp.ghost_hi;
  r.devices = o.devices;
  r.weights = resolved_weights(m, o);
  r.strategy = o.strategy ? *o.strategy : pp.strategy;
  r.every = pp.every;
  r.bytes_per_cell = pp.bytes_per_cell;
  r.frame = pp.frame;
  return r;
}

rt::ooc::Request ooc_request(const ProgramPlan& pp, const rt::Partition& p, const PlanOptions& o) {
  const Model& m = *pp.model;
  rt::ooc::Request r;
  r.grid = p.domain;
  for (const rt::Part& part : p.parts) r.owned.push_back(part.owned);
  r.shrink_lo = pp.shrink_lo;
  r.shrink_hi = pp.shrink_hi;
  for (std::size_t i = 0; i < m.arrays.size(); ++i)
    r.arrays.push_back(
        {m.arrays[i].name, element_bytes(m, static_cast<int>(i)), pp.arrays[i].results});
  r.chunks = o.chunks > 0 ? static_cast<int>(o.chunks) : m.out_of_core.chunks;
  r.steps_per_pass =
      o.steps_per_pass > 0 ? static_cast<int>(o.steps_per_pass) : m.out_of_core.steps_per_pass;
  // As the program (rt::ooc_pass_rules): passes end at the reductions' steps and, with
  // reductions, at the outputs' and the checkpoint's too; with reductions or a monitor every
  // pass ends with a barrier.
  std::string reductions, others;
  for (const Reduction& red : m.reductions) {
    r.every = std::gcd(r.every, static_cast<rt::Index>(red.every));
    reductions += (reductions.empty() ? "" : ", ") + std::to_string(red.every);
  }
  if (!m.reductions.empty()) {
    for (const Output& out : m.outputs) {
      r.every = std::gcd(r.every, static_cast<rt::Index>(out.every));
      others += ", an output's " + std::to_string(out.every);
    }
    if (m.checkpoint.every > 0) {
      r.every = std::gcd(r.every, static_cast<rt::Index>(m.checkpoint.every));
      others += ", the checkpoint's " + std::to_string(m.checkpoint.every);
    }
    if (!others.empty())
      r.every_why = "the greatest common divisor of the steps between reductions (" + reductions +
                    ")" + others + " (with reductions, passes end at outputs and checkpoints too)";
  }
  r.pass_barriers = !m.reductions.empty() || m.monitor.present;
  r.region_sharing = m.out_of_core.region_sharing;
  r.host_per_part = pp.mpi;  // as the MPI program: each rank issues its own part's commands
  r.buffers = 3;
  // As the program (its launch table's size): the model charges each launch the latency.
  r.launches = static_cast<int>(std::count_if(pp.loop.begin(), pp.loop.end(), [](const Action& a) {
    return a.kind == Action::Kind::kLaunch;
  }));
  r.trapezoid = pp.trapezoid && o.trapezoid;
  // As the program (rt::no_band_sharing_with_records): a spec with <record> runs without band
  // sharing (a receiver samples each point from the chunk that owns it).
  r.band_sharing = std::none_of(m.body.begin(), m.body.end(),
                                [](const Step& s) { return s.kind == Step::Kind::kRecord; });
  // <boundary> frames out of core, as the program's (rt::ooc::frame_request): the frame
  // dimensions, those refilled on the chunks (one step's frame), the steps per pass allowed.
  std::vector<rt::BoundaryRule> rules;
  for (const BoundaryPlan& b : pp.boundaries) {
    const rt::BoundaryKind kind = b.kind == Boundary::Kind::kPeriodic ? rt::BoundaryKind::kPeriodic
                                  : b.kind == Boundary::Kind::kMirror ? rt::BoundaryKind::kMirror
                                  : b.kind == Boundary::Kind::kCopy   ? rt::BoundaryKind::kCopy
                                                                      : rt::BoundaryKind::kValue;
    rules.push_back({b.array, b.dim, kind, {}});
  }
  r.frame_read_after_write = pp.frame_read_after_write;
  rt::ooc::frame_request(rules.data(), static_cast<int>(rules.size()), r);
  r.frame = pp.frame;
  return r;
}

Index resident_bytes(const Model& m) {
  Index bytes = 0;
  for (std::size_t i = 0; i < m.arrays.size(); ++i)
    if (!is_partitioned(m, static_cast<int>(i))) {
      const Array& a = m.arrays[i];
      bytes += a.size[0] * a.size[1] * a.size[2] * element_bytes(m, static_cast<int>(i));
    }
  return bytes;
}

namespace {

// Why the program cannot run out of core ("" = it can): as the programs' ooc_obstacle
// (runtime main.hpp), a launch whose work-items compute several cells along the slowest
// dimension, which chunks of any plane count would cut.
std::string ooc_obstacle(const ProgramPlan& pp) {
  const Model& m = *pp.model;
  for (const Action& a : pp.loop) {
    if (a.kind != Action::Kind::kLaunch) continue;
    const Kernel& k = m.kernels[static_cast<std::size_t>(a.kernel)];
    if (const std::int64_t c = cells_per_item(m, k, m.dims - 1); c > 1)
      return "kernel '" + k.name + "' computes " + std::to_string(c) +
             " cells per work-item along the slowest dimension (its global size divides the "
             "extent by " +
             std::to_string(c) +
             "), and out of core cuts that dimension into chunks of any plane count";
  }
  return "";
}

// The out-of-core schedule of make_plan: the program's request and chooser. Throws
// rt::PlanError.
void plan_out_of_core(const ProgramPlan& pp, const PlanOptions& o, Plan& plan) {
  const Model& m = *pp.model;
  plan.out_of_core = true;
  plan.figures = o.figures;
  plan.steps = o.steps > 0 ? o.steps : m.steps;
  plan.auto_chunks = m.out_of_core.chunks == 0 && o.chunks == 0;
  plan.auto_k = m.out_of_core.steps_per_pass == 0 && o.steps_per_pass == 0;
  if (const std::string why = ooc_obstacle(pp); !why.empty())
    throw rt::PlanError("this program cannot run out of core: " + why);
  if ((plan.auto_chunks || plan.auto_k) && plan.device_memory <= 0)
    throw rt::PlanError("device_memory unknown: give --device-memory");
  const rt::ooc::Request request = ooc_request(pp, plan.partition, o);
  plan.schedule = rt::ooc::choose(request, plan.device_memory, plan.figures.link, plan.steps, true);
  plan.predicted_s = rt::ooc::predict(plan.schedule, plan.figures.link, plan.steps, true);
}

// --- `--out-of-core auto` on data that fits (docs/decisions/0001-out-of-core-auto-compares.md) ---
// The in-core run against the best out-of-core plan with the plan's figures, as a program
// given `--out-of-core auto` compares them (rt::ooc::choose_auto). Out of core when faster:
// the plan becomes that out-of-core plan; else the reason says why in core. No budget known:
// the chooser takes any plan (the data fits).
void compare_auto(const ProgramPlan& pp, const PlanOptions& o, Plan& plan) {
  const Model& m = *pp.model;
  if (!pp.boundaries.empty()) {
    plan.reason =
        rt::ooc::in_core_because(
            "the spec's <boundary> frames: compared only without them (out of core composes "
            "them on the host at every pass boundary)")
            .line.substr(13);
    return;
  }
  if (const std::string why = ooc_obstacle(pp); !why.empty()) {
    plan.reason = rt::ooc::in_core_because(why).line.substr(13);
    return;
  }
  const Index steps = o.steps > 0 ? o.steps : m.steps;
  const rt::ooc::Request request = ooc_request(pp, plan.partition, o);
  rt::ooc::Schedule sc;
  try {
    sc = rt::ooc::choose(request, plan.device_memory, o.figures.link, steps, true);
  } catch (const rt::PlanError& e) {
    plan.reason =
        rt::ooc::in_core_because(std::string("no out-of-core plan: ") + e.what()).line.substr(13);
    return;
  }
  std::size_t written = 0;
  for (const rt::ooc::Array& a : request.arrays) written += a.written ? 1 : 0;
  const double in_s =
      rt::ooc::predict_in_core(rt::ooc::in_core_work(plan.partition, request.arrays),
                               request.arrays.size(), written, o.figures.link, steps);
  const double out_s = rt::ooc::predict(sc, o.figures.link, steps, true);
  const rt::ooc::AutoChoice c = rt::ooc::choose_auto(in_s, out_s, sc, steps);
  plan.in_core_predicted_s = in_s;
  plan.reason = c.line.substr(13);  // past "out of core: ", which the printers add
  if (!c.out_of_core) return;
  plan.out_of_core = true;
  plan.figures = o.figures;
  plan.steps = steps;
  plan.auto_chunks = m.out_of_core.chunks == 0 && o.chunks == 0;
  plan.auto_k = m.out_of_core.steps_per_pass == 0 && o.steps_per_pass == 0;
  plan.schedule = std::move(sc);
  plan.predicted_s = out_s;
}
// --- end: `--out-of-core auto` on data that fits ---

}  // namespace

Plan make_plan(const ProgramPlan& pp, const PlanOptions& o) {
  const Model& m = *pp.model;
  Plan plan;
  plan.partition = rt::partition(partition_request(pp, o));
  plan.every = pp.every;
  const rt::Partition& p = plan.partition;
  const std::size_t parts = p.parts.size();
  std::vector<Index> recv(parts, 0), sent(parts, 0);
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    const int a = static_cast<int>(i);
    const int times = pp.arrays[i].times;
    if (times == 0) continue;
    ArrayExchange x;
    x.array = a;
    x.times = times;
    x.halo = pp.arrays[i].halo;
    x.transfers = rt::exchange_plan(p, x.halo, plan.every);
    for (const rt::Transfer& t : x.transfers) {
      const Index bytes = t.cells() * element_bytes(m, a);
      x.bytes_per_exchange += bytes;
      recv[static_cast<std::size_t>(t.dst)] += bytes * times;
      sent[static_cast<std::size_t>(t.src)] += bytes * times;
    }
    plan.exchanges.push_back(std::move(x));
  }
  for (std::size_t k = 0; k < parts; ++k) {
    plan.recv_bytes_per_step.push_back(recv[k] / plan.every);
    plan.send_bytes_per_step.push_back(sent[k] / plan.every);
  }
  Index total = std::accumulate(recv.begin(), recv.end(), Index{0});
  plan.exchange_bytes_per_step = total / plan.every;

  // Every device also holds the spec's tables whole (runtime/stepgen/exec/tables.hpp).
  const Index resident = resident_bytes(m) + m.table_bytes();
  for (const rt::Part& pt : p.parts) {
    Index bytes = resident;
    for (std::size_t i = 0; i < m.arrays.size(); ++i)
      if (pp.arrays[i].partitioned)
        bytes += pt.ghost.volume() * element_bytes(m, static_cast<int>(i));
    plan.buffer_bytes.push_back(bytes);
  }

  // What a program compares with its budget: every array over the largest part's ghost box.
  for (const rt::Part& pt : p.parts) {
    Index bytes = 0;
    for (std::size_t i = 0; i < m.arrays.size(); ++i)
      bytes += pt.ghost.volume() * element_bytes(m, static_cast<int>(i));
    plan.in_core_bytes = std::max(plan.in_core_bytes, bytes);
  }
  plan.device_memory = o.device_memory > 0 ? o.device_memory : m.out_of_core.device_memory;
  // The arrays get the budget less the tables every device holds, as in the program
  // (rt::table_budget of runtime/stepgen/exec/main.hpp).
  if (plan.device_memory > 0 && m.table_bytes() > 0) {
    if (m.table_bytes() >= plan.device_memory)
      throw LocatedPlanError("the tables need " + std::to_string(m.table_bytes()) +
                                 " bytes on every device but the device memory budget is " +
                                 std::to_string(plan.device_memory) +
                                 " bytes: nothing is left for the arrays",
                             m.out_of_core.loc);
    plan.device_memory -= m.table_bytes();
  }
  const bool known = plan.device_memory > 0;
  const bool fits = !known || plan.in_core_bytes <= plan.device_memory;
  using Mode = PlanOptions::OutOfCore;
  if (o.out_of_core == Mode::kOff) return plan;
  if (o.out_of_core == Mode::kOn) {
    plan.reason = "asked for with --out-of-core on";
  } else if (known && !fits) {
    plan.reason = "a part needs " + std::to_string(plan.in_core_bytes) + " bytes (" +
                  human(plan.in_core_bytes) + "), more than the device memory of " +
                  std::to_string(plan.device_memory) + " bytes (" + human(plan.device_memory) + ")";
  } else if (o.compare) {  // the data fits (or no budget): the faster
    compare_auto(pp, o, plan);
    return plan;
  } else if (known) {
    plan.reason = "not needed: the largest part needs " + std::to_string(plan.in_core_bytes) +
                  " bytes (" + human(plan.in_core_bytes) + "), within the device memory of " +
                  std::to_string(plan.device_memory) + " bytes (" + human(plan.device_memory) + ")";
    return plan;
  } else if (m.out_of_core.enabled) {
    // No budget known: a program compares with its device's free memory; the spec's
    // <out_of_core> says the arrays are not expected to fit.
    plan.reason =
        "the spec has <out_of_core> (a program streams when its arrays exceed the "
        "device memory budget; give --device-memory to plan with one)";
  } else {
    return plan;
  }
  try {
    plan_out_of_core(pp, o, plan);
  } catch (const rt::PlanError& e) {
    throw LocatedPlanError(e.what(), m.out_of_core.loc);
  }
  return plan;
}

}  // namespace stepgen::model

#include "plan/program_plan.hpp"

#include <algorithm>
#include <set>

#include "model/groups.hpp"
#include "model/overlap.hpp"
#include "plan/plan.hpp"

namespace stepgen::model {

namespace {

KernelPlan kernel_plan(const Model& m, const Kernel& k, const BackendCaps& caps) {
  KernelPlan kp;
  kp.no_views = view_obstacle(m, k);
  kp.one_item_per_cell = one_item_per_cell(m, k);
  kp.no_slabs = kp.no_views;
  if (kp.no_slabs.empty() && caps.slabs_by_work_items && !kp.one_item_per_cell)
    kp.no_slabs = "kernel '" + k.name +
                  "': its global size along the slowest dimension is not extent(X, " +
                  std::to_string(m.dims - 1) + ") or round_up(extent(X, " +
                  std::to_string(m.dims - 1) + "), c), so its work-items are not one per cell";
  if (kp.no_slabs.empty() && caps.slabs_by_work_items && !k.offset_blind.empty())
    kp.no_slabs = "kernel '" + k.name + "': " + k.offset_blind +
                  ", which a launch over part of its work-items (a slab) changes";
  for (int d = 0; d < 3; ++d) kp.follows[static_cast<std::size_t>(d)] = follows_extent(m, k, d);
  kp.shrink_lo = launch_shrink(m, k, true);
  kp.shrink_hi = launch_shrink(m, k, false);
  const auto axis = static_cast<std::size_t>(m.dims - 1);
  for (const KernelArg& a : k.args)
    if (a.kind == KernelArg::Kind::kArray && a.access != Access::kWrite) {
      kp.reach_lo = std::max(kp.reach_lo, a.halo.lo[axis]);
      kp.reach_hi = std::max(kp.reach_hi, a.halo.hi[axis]);
    }
  for (int d = 0; d < 3; ++d) kp.cells[static_cast<std::size_t>(d)] = cells_per_item(m, k, d);
  kp.uses_step = scalars_use_step(k);
  for (const KernelArg& a : k.args)
    if (a.kind == KernelArg::Kind::kArray) kp.arg_halos.push_back(to_rt_halo(a.halo, m.dims));
  return kp;
}

// The launches followed by an exchange that cannot overlap it, each kernel once in the order
// of its first launch: `obstacle` of its kernel ("; "-joined). The one overlap rule: a launch
// overlaps its exchange when an exchange follows it and its kernel runs on slabs.
std::string overlap_reasons(const ProgramPlan& p, std::string KernelPlan::*obstacle) {
  if (p.every > 1) return "deep halos, exchanged every " + std::to_string(p.every) + " steps";
  std::string why;
  std::set<int> seen;
  for (const Action& a : p.loop) {
    if (a.kind != Action::Kind::kLaunch || !a.exchange_after || !seen.insert(a.kernel).second)
      continue;
    const std::string& reason = p.kernels[static_cast<std::size_t>(a.kernel)].*obstacle;
    if (!reason.empty()) why += (why.empty() ? "" : "; ") + reason;
  }
  return why;
}

}  // namespace

namespace {

// Per dimension, the first launch that reads, with a halo along it, an array periodic there
// that a launch before it in the same step wrote (the buffer, followed through swap and
// rotate): "kernel 'B' reads 'A' past the grid's edge along y after kernel 'K' wrote it in
// the same step"; "" where none does. Out of core, where the chunks cannot refill that
// array's periodic frame from the far side (rt::ooc::frame_request), the kernels compute the
// frame as images from the other arrays' frames, which are not images beside a mirror, copy
// or value(v) rule: such a read is not exact there (difftest seed 20059).
std::array<std::string, 3> frame_reads_after_writes(const Model& m,
                                                    const std::vector<BoundaryPlan>& rules) {
  static const char* const kDim[3] = {"x", "y", "z"};
  std::array<std::string, 3> out;
  for (int d = 0; d < m.dims; ++d) {
    const auto u = static_cast<std::size_t>(d);
    auto periodic = [&](int a) {
      return std::any_of(rules.begin(), rules.end(), [&](const BoundaryPlan& b) {
        return b.array == a && b.dim == d && b.kind == Boundary::Kind::kPeriodic;
      });
    };
    std::vector<int> slot(m.arrays.size());  // the buffer each name holds
    for (std::size_t i = 0; i < slot.size(); ++i) slot[i] = static_cast<int>(i);
    std::vector<std::string> writer(m.arrays.size());  // by buffer: the kernel that wrote it
    for (const Step& s : m.body) {
      if (s.kind == Step::Kind::kSwap || s.kind == Step::Kind::kRotate) {
        if (s.arrays.empty()) continue;
        const int first = slot[static_cast<std::size_t>(s.arrays.front())];
        for (std::size_t i = 0; i + 1 < s.arrays.size(); ++i)
          slot[static_cast<std::size_t>(s.arrays[i])] =
              slot[static_cast<std::size_t>(s.arrays[i + 1])];
        slot[static_cast<std::size_t>(s.arrays.back())] = first;
        continue;
      }
      if (s.kind != Step::Kind::kLaunch) continue;
      const Kernel& k = m.kernels[static_cast<std::size_t>(s.kernel)];
      for (const KernelArg& arg : k.args) {
        if (arg.kind != KernelArg::Kind::kArray || arg.access == Access::kWrite) continue;
        if (arg.halo.lo[u] == 0 && arg.halo.hi[u] == 0) continue;
        const std::string& w =
            writer[static_cast<std::size_t>(slot[static_cast<std::size_t>(arg.array)])];
        if (w.empty() || !periodic(arg.array) || !out[u].empty()) continue;
        out[u] = "kernel '" + k.name + "' reads '" +
                 m.arrays[static_cast<std::size_t>(arg.array)].name +
                 "' past the grid's edge along " + kDim[u] + " after kernel '" + w +
                 "' wrote it in the same step";
      }
      for (const KernelArg& arg : k.args)
        if (arg.kind == KernelArg::Kind::kArray && arg.access != Access::kRead)
          writer[static_cast<std::size_t>(slot[static_cast<std::size_t>(arg.array)])] = k.name;
    }
  }
  return out;
}

}  // namespace

ProgramPlan build_program_plan(const Model& m, const ProgramOptions& options) {
  ProgramPlan p;
  p.model = &m;
  p.backend = options.backend;
  p.mpi = options.mpi.value_or(m.mpi);
  p.every = std::max(1, m.exchange_every);

  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    const int id = static_cast<int>(i);
    ArrayPlan a;
    a.group = array_group(m, id);
    a.partitioned = is_partitioned(m, id);
    a.results = holds_results(m, id);
    a.compared = a.results && m.arrays[i].save;
    a.exchanged = needs_exchange(m, id);
    a.times = exchanges_per_interval(m, id);
    a.halo = group_halo(m, id);
    if (a.exchanged) p.exchanged.push_back(id);
    p.arrays.push_back(std::move(a));
  }
  for (const Kernel& k : m.kernels) p.kernels.push_back(kernel_plan(m, k, p.backend));

  // The body's actions; then, in reverse, what the launches after each one read.
  for (std::size_t i = 0; i < m.body.size(); ++i) {
    const Step& s = m.body[i];
    Action a;
    a.step = static_cast<int>(i);
    if (s.kind == Step::Kind::kInject || s.kind == Step::Kind::kRecord) {
      const bool inject = s.kind == Step::Kind::kInject;
      a.kind = inject ? Action::Kind::kInject : Action::Kind::kRecord;
      a.arrays = s.arrays;
      a.trace_index = (inject ? p.injects : p.records)++;
      p.loop.push_back(std::move(a));
      continue;
    }
    if (s.kind != Step::Kind::kLaunch) {
      a.kind = s.kind == Step::Kind::kSwap ? Action::Kind::kSwap : Action::Kind::kRotate;
      a.arrays = s.arrays;
      p.loop.push_back(std::move(a));
      continue;
    }
    a.kind = Action::Kind::kLaunch;
    a.kernel = s.kernel;
    for (const KernelArg& arg : m.kernels[static_cast<std::size_t>(s.kernel)].args)
      if (arg.kind == KernelArg::Kind::kArray && arg.access != Access::kRead &&
          p.arrays[static_cast<std::size_t>(arg.array)].exchanged)
        a.arrays.push_back(arg.array);
    a.exchange_after = p.every == 1 && !a.arrays.empty();
    if (a.exchange_after) a.no_overlap = p.kernels[static_cast<std::size_t>(s.kernel)].no_slabs;
    a.overlap = a.exchange_after && a.no_overlap.empty();
    p.loop.push_back(std::move(a));
  }
  {
    const auto slow = static_cast<std::size_t>(m.dims - 1);
    rt::Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    for (std::size_t i = p.loop.size(); i-- > 0;) {
      Action& a = p.loop[i];
      if (a.kind != Action::Kind::kLaunch) continue;
      a.after_lo = lo[slow];
      a.after_hi = hi[slow];
      a.later_lo = lo;
      a.later_hi = hi;
      const KernelPlan& k = p.kernels[static_cast<std::size_t>(a.kernel)];
      for (std::size_t d = 0; d < 3; ++d) {
        lo[d] += k.shrink_lo[d];
        hi[d] += k.shrink_hi[d];
      }
    }
  }
  p.exchange_deep = p.every > 1 && !p.exchanged.empty();
  if (p.exchange_deep) {
    Action x;
    x.kind = Action::Kind::kExchange;
    x.arrays = p.exchanged;
    p.loop.push_back(std::move(x));
  }

  p.granule = granule(m, &p.granule_why);
  p.grid_halo = grid_halo(m);
  p.ghost_lo = ghost_lo(m);
  p.ghost_hi = ghost_hi(m);
  p.shrink_lo = step_shrink_lo(m);
  p.shrink_hi = step_shrink_hi(m);
  for (std::size_t i = 0; i < m.arrays.size(); ++i)
    p.bytes_per_cell += p.arrays[i].times * type_info(m.arrays[i].type).bytes;

  p.overlap_obstacle = overlap_reasons(p, &KernelPlan::no_views);
  p.no_overlap = overlap_reasons(p, &KernelPlan::no_slabs);
  p.strategy = p.overlap_obstacle.empty() ? rt::Strategy::kSlabs : rt::Strategy::kMinExchange;
  p.any_exchange = !p.exchanged.empty();
  p.trapezoid = true;
  for (const Action& a : p.loop) {
    if (a.kind != Action::Kind::kLaunch) continue;
    p.any_overlap = p.any_overlap || a.overlap;
    p.trapezoid = p.trapezoid && p.kernels[static_cast<std::size_t>(a.kernel)].no_slabs.empty();
  }
  // Boundaries: one rule per array and dimension, by array then dimension.
  for (const Boundary& b : m.boundaries)
    for (int a : b.arrays)
      for (int d = 0; d < m.dims; ++d)
        if (b.dims[static_cast<std::size_t>(d)]) {
          p.boundaries.push_back({a, d, b.kind, b.value});
          p.frame[static_cast<std::size_t>(d)] = true;
        }
  // An array read without a halo along a periodic dimension (a material coefficient; a
  // staggered velocity periodic along another dimension only) has no boundary of its own
  // there; but the launches compute the cells of the periodic frame as images of the far side
  // (between exchanges with deep halos, and within an out-of-core pass of several steps),
  // reading its frame cells: they must be its images, as for a periodic array, not zeros
  // (guarded by tests/boundary/periodic_coef.xml and periodic_stagger.xml, which
  // tests/boundary/kinds_test.sh runs out of core). Read without a halo there, its frame is
  // read only where frame cells are computed: no cell of the grid changes. (One read with a
  // halo there needs a boundary of its own: validation.)
  for (int d = 0; d < m.dims; ++d) {
    const bool periodic =
        std::any_of(m.boundaries.begin(), m.boundaries.end(), [&](const Boundary& b) {
          return b.kind == Boundary::Kind::kPeriodic && b.dims[static_cast<std::size_t>(d)];
        });
    if (!periodic) continue;
    // Every member of the array's swap/rotate group: the frame of the buffer a launch writes
    // (s1b, only written) is its partner's after the swap (s1a, read); composed as zeros on the
    // host at a pass's start, its cells the kernels leave unwritten there (their rim) were read
    // as zeros at the next step (difftest seed 40000: out of core with 3 steps per pass or more,
    // cells at the edges wrong).
    for (std::size_t a = 0; a < m.arrays.size(); ++a) {
      if (!m.arrays[a].read) continue;
      for (int g : p.arrays[a].group) {
        const bool has =
            std::any_of(p.boundaries.begin(), p.boundaries.end(),
                        [&](const BoundaryPlan& b) { return b.array == g && b.dim == d; });
        if (!has) p.boundaries.push_back({g, d, Boundary::Kind::kPeriodic, "", true});
      }
    }
  }
  std::sort(p.boundaries.begin(), p.boundaries.end(),
            [](const BoundaryPlan& x, const BoundaryPlan& y) {
              return x.array != y.array ? x.array < y.array : x.dim < y.dim;
            });
  p.frame_read_after_write = frame_reads_after_writes(m, p.boundaries);
  return p;
}

}  // namespace stepgen::model

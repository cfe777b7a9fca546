// `stepgen dump --stage model|plan` (plan/dump.hpp).
#include "plan/dump.hpp"

#include <sstream>

namespace stepgen::model {

namespace {

std::string expr(const Model& m, const Expr& e) {
  auto arg = [&](std::size_t i) { return i < e.args.size() ? expr(m, e.args[i]) : "?"; };
  switch (e.kind) {
    case Expr::Kind::kInt:
      return std::to_string(e.int_value);
    case Expr::Kind::kFloat:
    case Expr::Kind::kConstant:
      return e.text;
    case Expr::Kind::kStep:
      return "step";
    case Expr::Kind::kNeg:
      return "-" + arg(0);
    case Expr::Kind::kBinary:
      return "(" + arg(0) + " " + e.op + " " + arg(1) + ")";
    case Expr::Kind::kCall: {
      std::string out = e.text + "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + arg(i);
      return out + ")";
    }
    case Expr::Kind::kArrayDim: {
      bool known = e.array >= 0 && e.array < static_cast<int>(m.arrays.size());
      return e.text + "(" + (known ? m.arrays[static_cast<std::size_t>(e.array)].name : "?") +
             ", " + std::to_string(e.dim) + ")";
    }
  }
  return "?";
}

template <typename T, std::size_t N>
std::string vec(const std::array<T, N>& v, int dims) {
  std::string out;
  for (int d = 0; d < dims; ++d)
    out += (d ? "x" : "") + std::to_string(v[static_cast<std::size_t>(d)]);
  return out;
}

std::string point(const std::array<int, 3>& p, int dims) {
  std::string out = "{";
  for (int d = 0; d < dims; ++d)
    out += (d ? "," : "") + std::to_string(p[static_cast<std::size_t>(d)]);
  return out + "}";
}

std::string widths(const std::array<int, 3>& lo, const std::array<int, 3>& hi, int dims) {
  return "lo " + vec(lo, dims) + " hi " + vec(hi, dims);
}

std::string halo(const Halo& h, int dims) {
  if (h.empty()) return "none";
  std::string out = widths(h.lo, h.hi, dims);
  if (!h.points.empty()) {
    out += ", points";
    for (const auto& p : h.points) out += " " + point(p, dims);
  }
  return out;
}

std::string rt_halo(const rt::Halo& h, int dims) {
  if (h.empty()) return "none";
  std::string out = "lo " + vec(h.lo, dims) + " hi " + vec(h.hi, dims);
  if (!h.points.empty()) out += ", " + std::to_string(h.points.size()) + " points";
  return out;
}

std::string names(const Model& m, const std::vector<int>& arrays) {
  std::string out;
  for (int a : arrays)
    out += (out.empty() ? "" : " ") + (a >= 0 && a < static_cast<int>(m.arrays.size())
                                           ? m.arrays[static_cast<std::size_t>(a)].name
                                           : std::string("?"));
  return out;
}

std::string init(const Model& m, const Init& i) {
  switch (i.kind) {
    case Init::Kind::kZero:
      return "zero";
    case Init::Kind::kRandom:
      return "random(" + std::to_string(i.seed) + ")";
    case Init::Kind::kValue:
      return "value(" + i.value + ")";
    case Init::Kind::kCopy:
      return "copy(" + names(m, {i.source}) + ")";
    case Init::Kind::kFile:
      return "file(" + i.path + ")";
    case Init::Kind::kNone:
      return "none";
  }
  return "?";
}

const char* boundary_kind(Boundary::Kind k) {
  static const char* const kNames[] = {"periodic", "value", "mirror", "copy"};
  return kNames[static_cast<int>(k)];
}

const char* access(Access a) {
  return a == Access::kRead ? "read" : a == Access::kWrite ? "write" : "readwrite";
}

void model_kernels(std::ostream& o, const Model& m) {
  for (std::size_t k = 0; k < m.kernels.size(); ++k) {
    const Kernel& kn = m.kernels[k];
    o << "kernel " << k << " " << kn.name << ": "
      << (kn.language == Language::kCuda ? "cuda " : "opencl ") << kn.source;
    if (!kn.cuda_source.empty()) o << " (cuda: " << kn.cuda_source << ")";
    o << "\n  global";
    for (const Expr& g : kn.global) o << " " << expr(m, g);
    o << "\n  local ";
    if (kn.local_auto)
      o << "auto (" << kn.local_candidates.size() << " candidates)";
    else if (kn.local.empty())
      o << "the backend's default";
    else
      for (std::size_t i = 0; i < kn.local.size(); ++i) o << (i ? "x" : "") << kn.local[i];
    o << "\n";
    for (std::size_t i = 0; i < kn.args.size(); ++i) {
      const KernelArg& a = kn.args[i];
      o << "  arg " << i << ": ";
      if (a.kind == KernelArg::Kind::kScalar)
        o << "scalar " << type_info(a.scalar_type).name << " = " << expr(m, a.value);
      else if (a.kind == KernelArg::Kind::kTable)
        o << "table " << m.tables[static_cast<std::size_t>(a.table)].name;
      else
        o << "array " << names(m, {a.array}) << " " << access(a.access) << ", halo "
          << halo(a.halo, m.dims) << (a.wavefront ? ", wavefront" : "");
      o << "\n";
    }
  }
}

void model_loop(std::ostream& o, const Model& m) {
  o << "steps " << m.steps << (m.until.present ? ", until " + m.until.text : "") << "\n";
  std::size_t r = 0;
  for (std::size_t i = 0; i <= m.body.size(); ++i) {
    for (; r < m.reductions.size() && m.reductions[r].position == i; ++r) {
      const Reduction& red = m.reductions[r];
      o << "  reduce " << red.name << " = " << red.op << "(" << names(m, {red.array})
        << (red.minus >= 0 ? " - " + names(m, {red.minus}) : "") << ") every " << red.every << "\n";
    }
    if (i == m.body.size()) break;
    const Step& s = m.body[i];
    static const char* const kKinds[] = {"launch", "swap", "rotate", "inject", "record"};
    o << "  " << i << " " << kKinds[static_cast<int>(s.kind)] << " ";
    if (s.kind == Step::Kind::kLaunch)
      o << m.kernels[static_cast<std::size_t>(s.kernel)].name;
    else
      o << names(m, s.arrays);
    if (s.kind == Step::Kind::kInject || s.kind == Step::Kind::kRecord)
      o << " at " << s.points.size() << " cell(s)"
        << (s.kind == Step::Kind::kInject
                ? ", value " +
                      (s.value_file.empty() ? expr(m, s.value) : "file(" + s.value_file + ")")
                : ", every " + std::to_string(s.every) + ", file " + s.file);
    o << "\n";
  }
}

void model_settings(std::ostream& o, const Model& m) {
  for (const Boundary& b : m.boundaries) {
    o << "boundary " << boundary_kind(b.kind)
      << (b.kind == Boundary::Kind::kValue ? "(" + b.value + ")" : "") << ": " << names(m, b.arrays)
      << " in";
    for (int d = 0; d < 3; ++d)
      if (b.dims[static_cast<std::size_t>(d)])
        o << " "
          << "xyz"[d];
    o << "\n";
  }
  static const char* const kTypes[] = {"all", "gpu", "cpu"};
  o << "devices " << kTypes[static_cast<int>(m.devices.type)] << ", count "
    << (m.devices.count ? std::to_string(m.devices.count) : "all");
  for (double w : m.devices.weights) o << " " << w;
  o << "; exchange every " << m.exchange_every << "; distribution " << (m.mpi ? "mpi" : "none")
    << "\n";
  if (m.out_of_core.enabled)
    o << "out of core: chunks "
      << (m.out_of_core.chunks ? std::to_string(m.out_of_core.chunks) : "auto")
      << ", steps per pass "
      << (m.out_of_core.steps_per_pass ? std::to_string(m.out_of_core.steps_per_pass) : "auto")
      << ", region sharing " << (m.out_of_core.region_sharing ? "on" : "off") << ", device memory "
      << (m.out_of_core.device_memory ? std::to_string(m.out_of_core.device_memory) : "auto")
      << "\n";
  if (m.monitor.present)
    o << "monitor every " << m.monitor.every
      << (m.monitor.file.empty() ? "" : ", file " + m.monitor.file) << "\n";
  for (const Output& out : m.outputs)
    o << "output " << names(m, out.arrays) << " every " << out.every << " to " << out.file
      << (out.hdf5 ? " (HDF5 + XDMF)" : " (raw)") << (out.first ? ", first" : "")
      << (out.last ? ", last" : "") << "\n";
  if (m.checkpoint.enabled)
    o << "checkpoint every " << m.checkpoint.every << " to " << m.checkpoint.file << "\n";
}

}  // namespace

std::string dump_model(const Model& m) {
  std::ostringstream o;
  o << "stencil " << m.name << ": " << m.dims << "D grid " << vec(m.domain, m.dims) << "\n";
  for (const Constant& c : m.constants) o << "constant " << c.name << " = " << c.text << "\n";
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    const Array& a = m.arrays[i];
    o << "array " << i << " " << a.name << ": " << type_info(a.type).name << " "
      << vec(a.size, a.dims) << ", init " << init(m, a.init) << (a.read ? ", read" : "")
      << (a.written ? ", written" : "") << (a.save ? "" : ", scratch (save false)")
      << ", read halo " << halo(a.read_halo, m.dims) << "\n";
  }
  for (std::size_t i = 0; i < m.tables.size(); ++i) {
    const Table& t = m.tables[i];
    o << "table " << i << " " << t.name << ": " << type_info(t.type).name << " "
      << vec(t.size, t.dims) << "\n";
  }
  model_kernels(o, m);
  model_loop(o, m);
  model_settings(o, m);
  return o.str();
}

std::string dump_plan(const ProgramPlan& p) {
  const Model& m = *p.model;
  std::ostringstream o;
  o << "backend: slabs run "
    << (p.backend.slabs_by_work_items ? "as a range of work-items (global offset)"
                                      : "on views of the buffers")
    << "; " << (p.mpi ? "one MPI rank per device" : "one process") << "\n";
  for (std::size_t i = 0; i < p.arrays.size(); ++i) {
    const ArrayPlan& a = p.arrays[i];
    o << "array " << m.arrays[i].name << ": group {" << names(m, a.group) << "}"
      << (a.partitioned ? ", split over the devices" : ", copied whole")
      << (a.results ? ", results" : "") << (a.compared ? ", compared by --verify" : "")
      << (a.exchanged ? ", exchanged" : "") << ", halo " << rt_halo(a.halo, m.dims) << "\n";
  }
  for (std::size_t k = 0; k < p.kernels.size(); ++k) {
    const KernelPlan& kp = p.kernels[k];
    o << "kernel " << m.kernels[k].name << ": views "
      << (kp.no_views.empty() ? "yes" : "no (" + kp.no_views + ")") << ", slabs "
      << (kp.no_slabs.empty() ? "yes" : "no (" + kp.no_slabs + ")") << ", cells per item "
      << vec(kp.cells, m.dims) << ", follows";
    for (int d = 0; d < m.dims; ++d)
      if (kp.follows[static_cast<std::size_t>(d)])
        o << " "
          << "xyz"[d];
    o << ", shrink lo " << vec(kp.shrink_lo, m.dims) << " hi " << vec(kp.shrink_hi, m.dims)
      << ", reach " << kp.reach_lo << "/" << kp.reach_hi << (kp.uses_step ? ", uses step" : "")
      << "\n";
  }
  o << "loop (an exchange every " << p.every << " step(s)"
    << (p.exchange_deep ? ", deep halos" : "") << "):\n";
  static const char* const kKinds[] = {"launch", "swap", "rotate", "exchange", "inject", "record"};
  for (const Action& a : p.loop) {
    o << "  " << kKinds[static_cast<int>(a.kind)] << " ";
    if (a.kind == Action::Kind::kLaunch)
      o << m.kernels[static_cast<std::size_t>(a.kernel)].name
        << (a.exchange_after ? (a.overlap ? ", overlapping the exchange after it"
                                          : ", then the exchange (" + a.no_overlap + ")")
                             : "");
    else
      o << names(m, a.arrays);
    o << "\n";
  }
  o << "partition request: granule " << vec(p.granule, m.dims) << ", ghost lo "
    << vec(p.ghost_lo, m.dims) << " hi " << vec(p.ghost_hi, m.dims) << ", one step's shrink lo "
    << vec(p.shrink_lo, m.dims) << " hi " << vec(p.shrink_hi, m.dims) << ", " << p.bytes_per_cell
    << " exchanged bytes per cell, default strategy "
    << (p.strategy == rt::Strategy::kSlabs     ? "slabs"
        : p.strategy == rt::Strategy::kStepocl ? "stepocl"
                                               : "min-exchange")
    << "\n";
  if (!p.overlap_obstacle.empty()) o << "overlap: off (" << p.overlap_obstacle << ")\n";
  for (const BoundaryPlan& b : p.boundaries)
    o << "frame " << m.arrays[static_cast<std::size_t>(b.array)].name << " "
      << "xyz"[b.dim] << ": " << boundary_kind(b.kind) << (b.implied ? " (implied)" : "") << "\n";
  return o.str();
}

}  // namespace stepgen::model

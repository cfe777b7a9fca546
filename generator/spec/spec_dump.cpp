// `stepgen dump --stage spec` (spec/spec_dump.hpp).
#include "spec/spec_dump.hpp"

#include <sstream>

namespace stepgen::spec {

namespace {

std::string at(Loc l) {
  return "@" + std::to_string(l.line) + ":" + std::to_string(l.col);
}

// "'value' @line:col", or "-" when absent.
std::string text(const Text& t) {
  return t.present ? "'" + t.value + "' " + at(t.loc) : "-";
}

std::string list(const std::vector<Text>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + text(items[i]);
  return out + "]";
}

std::string points(const std::vector<HaloPoint>& ps) {
  std::string out = "[";
  for (std::size_t i = 0; i < ps.size(); ++i) {
    out += i ? " {" : "{";
    for (std::size_t j = 0; j < ps[i].offsets.size(); ++j)
      out += (j ? "," : "") + ps[i].offsets[j].value;
    out += "}";
  }
  return out + "]";
}

void kernel(std::ostream& o, const Kernel& k) {
  o << "kernel " << text(k.name) << ": source " << text(k.source) << ", language "
    << text(k.language) << ", cuda_source " << text(k.cuda_source) << "\n";
  for (const KernelArg& a : k.args) {
    o << "  arg " << at(a.loc) << ": ";
    if (a.kind == KernelArg::Kind::kScalar)
      o << "scalar " << text(a.scalar_type) << " value " << text(a.value);
    else if (a.kind == KernelArg::Kind::kTable)
      o << "table " << text(a.table) << " access " << text(a.access);
    else
      o << "array " << text(a.array) << " access " << text(a.access) << " halo " << points(a.halo)
        << " halo_lo " << list(a.halo_lo) << " halo_hi " << list(a.halo_hi) << " in_place "
        << text(a.in_place);
    o << "\n";
  }
  o << "  global " << list(k.global) << "\n  local " << list(k.local) << " candidates "
    << text(k.local_candidates) << "\n";
}

void loop(std::ostream& o, const Iterate& it) {
  if (!it.present) return;
  o << "iterate " << at(it.loc) << ": steps " << text(it.steps) << ", until " << text(it.until)
    << "\n";
  std::size_t r = 0;
  for (std::size_t i = 0; i <= it.body.size(); ++i) {
    for (; r < it.reductions.size() && it.reductions[r].position == i; ++r) {
      const Reduce& red = it.reductions[r];
      o << "  reduce " << text(red.name) << " op " << text(red.op) << " array " << text(red.array)
        << " minus " << text(red.minus) << " every " << text(red.every) << "\n";
    }
    if (i == it.body.size()) break;
    const Step& s = it.body[i];
    static const char* const kKinds[] = {"launch", "swap", "rotate", "inject", "record"};
    o << "  " << kKinds[static_cast<int>(s.kind)] << " " << at(s.loc) << ": ";
    if (s.kind == Step::Kind::kLaunch) o << text(s.kernel);
    if (s.kind != Step::Kind::kLaunch) o << list(s.arrays);
    if (s.kind == Step::Kind::kInject || s.kind == Step::Kind::kRecord) {
      o << " at";
      for (const TracePoint& p : s.points) o << " " << list(p.coords);
      if (s.at_file.present) o << " file " << text(s.at_file);
      o << (s.kind == Step::Kind::kInject ? " value " + text(s.value)
                                          : " every " + text(s.every) + " file " + text(s.file));
    }
    o << "\n";
  }
}

}  // namespace

std::string dump_spec(const SpecTree& t) {
  std::ostringstream o;
  o << "stencil " << text(t.name) << " (" << t.path << ")\n";
  for (const Constant& c : t.constants)
    o << "constant " << text(c.name) << " = " << text(c.value) << "\n";
  for (const Array& a : t.arrays)
    o << "array " << text(a.name) << ": type " << text(a.type) << ", size " << list(a.size)
      << ", init " << text(a.init) << ", save " << text(a.save) << "\n";
  for (const Table& a : t.tables)
    o << "table " << text(a.name) << ": type " << text(a.type) << ", size " << list(a.size)
      << ", init " << text(a.init) << "\n";
  for (const Kernel& k : t.kernels) kernel(o, k);
  loop(o, t.iterate);
  if (!t.shadow.empty()) o << "shadow " << points(t.shadow) << "\n";
  for (const Boundary& b : t.boundaries)
    o << "boundary " << at(b.loc) << ": arrays " << list(b.arrays) << ", dims " << list(b.dims)
      << ", kind " << text(b.kind) << "\n";
  if (t.devices.present)
    o << "devices: type " << text(t.devices.type) << ", count " << text(t.devices.count)
      << ", weights " << text(t.devices.weights) << "\n";
  if (t.exchange.present) o << "exchange: every " << text(t.exchange.every) << "\n";
  if (t.out_of_core.present)
    o << "out_of_core: chunks " << text(t.out_of_core.chunks) << ", steps_per_pass "
      << text(t.out_of_core.steps_per_pass) << ", region_sharing "
      << text(t.out_of_core.region_sharing) << ", device_memory "
      << text(t.out_of_core.device_memory) << "\n";
  if (t.distribution.present) o << "distribution: engine " << text(t.distribution.engine) << "\n";
  if (t.monitor.present)
    o << "monitor: every " << text(t.monitor.every) << ", file " << text(t.monitor.file) << "\n";
  for (const Output& out : t.outputs)
    o << "output " << at(out.loc) << ": arrays " << text(out.arrays) << ", every "
      << text(out.every) << ", file " << text(out.file) << ", first " << text(out.first)
      << ", last " << text(out.last) << "\n";
  if (t.checkpoint.present)
    o << "checkpoint: every " << text(t.checkpoint.every) << ", file " << text(t.checkpoint.file)
      << "\n";
  return o.str();
}

}  // namespace stepgen::spec

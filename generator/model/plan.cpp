#include "model/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "model/groups.hpp"
#include "model/overlap.hpp"

namespace stepgen::model {

namespace {

using rt::Index;

const char* dim_name(int d) {
  return d == 0 ? "x" : d == 1 ? "y" : "z";
}

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

std::string vec_str(const std::array<Index, 3>& v, int dims) {
  std::string s = "[";
  for (int d = 0; d < dims; ++d)
    s += (d ? "," : "") + std::to_string(v[static_cast<std::size_t>(d)]);
  return s + "]";
}

std::string extent_str(const rt::Box& b) {
  std::string s;
  for (int d = 0; d < b.dims; ++d) s += (d ? "x" : "") + std::to_string(b.extent(d));
  return s;
}

std::string ints_str(const std::vector<int>& v) {
  if (v.empty()) return "-";
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

/// "12.5 MiB" style, for people; tables keep exact byte counts.
std::string human(Index bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

/// A plain-text table: columns padded to their widest cell, numbers right-aligned.
class Table {
 public:
  Table(std::vector<std::string> header, std::string align)
      : rows_{std::move(header)}, align_(std::move(align)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str(const std::string& indent = "  ") const {
    std::vector<std::size_t> width(align_.size(), 0);
    for (const auto& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out;
    for (const auto& r : rows_) {
      std::string line = indent;
      for (std::size_t c = 0; c < r.size(); ++c) {
        const std::string pad(width[c] - r[c].size(), ' ');
        line += (c ? "  " : "") + (align_[c] == 'r' ? pad + r[c] : r[c] + pad);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
  std::string align_;
};

/// A small ordered JSON value: enough for deterministic hand-written output.
class Json {
 public:
  static Json object() { return Json(Kind::kObject); }
  static Json array() { return Json(Kind::kArray); }
  static Json string(const std::string& s) {
    Json j(Kind::kScalar);
    j.text_ = quote(s);
    return j;
  }
  static Json number(Index v) {
    Json j(Kind::kScalar);
    j.text_ = std::to_string(v);
    return j;
  }
  static Json real(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    Json j(Kind::kScalar);
    j.text_ = buf;
    return j;
  }
  static Json boolean(bool v) {
    Json j(Kind::kScalar);
    j.text_ = v ? "true" : "false";
    return j;
  }
  template <typename T>
  static Json numbers(const T& values, std::size_t count) {
    Json j = array();
    for (std::size_t i = 0; i < count; ++i) j.push(number(static_cast<Index>(values[i])));
    return j;
  }
  Json& set(const std::string& key, Json v) {
    items_.emplace_back(key, std::move(v));
    return *this;
  }
  Json& push(Json v) {
    items_.emplace_back(std::string(), std::move(v));
    return *this;
  }
  /// Containers fit on one line when short enough; otherwise one item per line.
  std::string dump(int indent = 0) const {
    if (kind_ == Kind::kScalar) return text_;
    const std::string flat = inline_form();
    if (flat.size() + static_cast<std::size_t>(indent) <= 96) return flat;
    const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
    std::string s = kind_ == Kind::kObject ? "{\n" : "[\n";
    for (std::size_t i = 0; i < items_.size(); ++i) {
      s += pad;
      if (kind_ == Kind::kObject) s += quote(items_[i].first) + ": ";
      s += items_[i].second.dump(indent + 2);
      s += i + 1 < items_.size() ? ",\n" : "\n";
    }
    return s + std::string(static_cast<std::size_t>(indent), ' ') +
           (kind_ == Kind::kObject ? "}" : "]");
  }

 private:
  enum class Kind { kScalar, kArray, kObject };
  explicit Json(Kind k) : kind_(k) {}
  std::string inline_form() const {
    if (kind_ == Kind::kScalar) return text_;
    std::string s = kind_ == Kind::kObject ? "{" : "[";
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (i) s += ", ";
      if (kind_ == Kind::kObject) s += quote(items_[i].first) + ": ";
      s += items_[i].second.inline_form();
    }
    return s + (kind_ == Kind::kObject ? "}" : "]");
  }
  static std::string quote(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      switch (c) {
        case '"':
          q += "\\\"";
          break;
        case '\\':
          q += "\\\\";
          break;
        case '\n':
          q += "\\n";
          break;
        case '\t':
          q += "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            q += buf;
          } else {
            q += c;
          }
      }
    }
    return q + "\"";
  }
  Kind kind_;
  std::string text_;
  std::vector<std::pair<std::string, Json>> items_;
};

Json box_json(const rt::Box& b) {
  return Json::object()
      .set("lo", Json::numbers(b.lo, static_cast<std::size_t>(b.dims)))
      .set("hi", Json::numbers(b.hi, static_cast<std::size_t>(b.dims)));
}

const char* strategy_name(const rt::Partition& p) {
  if (p.rationale.rfind("stepocl", 0) == 0) return "stepocl";
  return p.rationale.rfind("slabs: grid", 0) == 0 ? "slabs" : "min-exchange";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Rules: Model -> numbers.

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

rt::Vec3 granule(const Model& m) {
  rt::Vec3 g{1, 1, 1};
  for (const Kernel& k : m.kernels)
    for (std::size_t d = 0; d < k.local.size() && d < 3; ++d)
      if (k.local[d] > 0) g[d] = std::lcm(g[d], static_cast<Index>(k.local[d]));
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

rt::PartitionRequest partition_request(const Model& m, const PlanOptions& o) {
  rt::PartitionRequest r;
  r.dims = m.dims;
  r.domain = {m.domain[0], m.domain[1], m.domain[2]};
  r.granule = granule(m);
  r.halo = grid_halo(m);
  r.ghost_lo = ghost_lo(m);
  r.ghost_hi = ghost_hi(m);
  r.devices = o.devices;
  r.weights = resolved_weights(m, o);
  r.strategy = o.strategy                    ? *o.strategy
               : overlap_obstacle(m).empty() ? rt::Strategy::kSlabs
                                             : rt::Strategy::kMinExchange;
  r.every = std::max(1, m.exchange_every);
  r.bytes_per_cell = 0;
  for (std::size_t i = 0; i < m.arrays.size(); ++i)
    r.bytes_per_cell +=
        exchanges_per_interval(m, static_cast<int>(i)) * element_bytes(m, static_cast<int>(i));
  return r;
}

rt::ChunkRequest chunk_request(const Model& m, const rt::Partition& p, int part, int chunks,
                               int steps_per_pass) {
  const rt::Part& pt = p.parts[static_cast<std::size_t>(part)];
  const int s = m.dims - 1;  // chunks are slabs of the slowest dimension: contiguous planes
  const auto si = static_cast<std::size_t>(s);
  rt::ChunkRequest r;
  r.plane_lo = pt.owned.lo[si];
  r.plane_hi = pt.owned.hi[si];
  r.domain_planes = m.domain[si];
  r.halo_lo = step_shrink_lo(m)[si];
  r.halo_hi = step_shrink_hi(m)[si];
  r.chunks = chunks;
  r.steps_per_pass = steps_per_pass;
  r.region_sharing = m.out_of_core.region_sharing;
  Index cells_per_plane = 1;
  for (int d = 0; d < s; ++d) cells_per_plane *= pt.ghost.extent(d);
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    if (!is_partitioned(m, static_cast<int>(i))) continue;
    rt::ChunkArray a;
    a.bytes_per_plane = cells_per_plane * element_bytes(m, static_cast<int>(i));
    a.read_only = !holds_results(m, static_cast<int>(i));
    r.arrays.push_back(a);
  }
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

// The chunk plans of make_plan, out of core. Throws rt::PlanError.
void plan_out_of_core(const Model& m, const PlanOptions& o, Plan& plan) {
  const rt::Partition& p = plan.partition;
  const std::size_t parts = p.parts.size();
  const Index resident = resident_bytes(m);
  plan.out_of_core = true;
  plan.steps_per_pass = m.out_of_core.steps_per_pass > 0 ? m.out_of_core.steps_per_pass : 1;
  plan.device_memory = o.device_memory > 0 ? o.device_memory : m.out_of_core.device_memory;
  // The chunk loads reach k*shrink planes into the neighbours along the slowest dimension
  // (from the host), but along the other dimensions a part only has its ghost columns.
  for (int d = 0; d + 1 < m.dims; ++d)
    if (p.grid[static_cast<std::size_t>(d)] > 1 && plan.steps_per_pass > plan.every)
      throw rt::PlanError("out-of-core passes of " + std::to_string(plan.steps_per_pass) +
                          " steps need ghost columns " + std::to_string(plan.steps_per_pass) +
                          " steps deep, but the grid is split along " + dim_name(d) +
                          " and exchanges every " + std::to_string(plan.every) +
                          " step(s); set exchange_every to " + std::to_string(plan.steps_per_pass) +
                          " or use fewer devices");
  for (std::size_t k = 0; k < parts; ++k) {
    const int id = static_cast<int>(k);
    const std::string who = parts > 1 ? "part " + std::to_string(id) + " " : "the grid ";
    if (m.out_of_core.chunks > 0) {
      rt::ChunkPlan c =
          rt::chunk_plan(chunk_request(m, p, id, m.out_of_core.chunks, plan.steps_per_pass));
      if (plan.device_memory > 0 && c.device_bytes + resident > plan.device_memory)
        throw rt::PlanError(who + "in " + std::to_string(m.out_of_core.chunks) + " chunks needs " +
                            std::to_string(c.device_bytes + resident) +
                            " bytes of device memory (" + human(c.device_bytes + resident) +
                            "), more than the " + std::to_string(plan.device_memory) +
                            " available; use more chunks");
      plan.chunks.push_back(std::move(c));
      continue;
    }
    if (plan.device_memory <= 0) throw rt::PlanError("device_memory unknown: give --device-memory");
    const rt::Part& pt = p.parts[k];
    const Index planes = pt.owned.extent(m.dims - 1);
    bool fits = false;
    // Device bytes never grow with more chunks, so the first that fits is the fewest.
    for (Index c = 1; c <= planes && !fits; ++c) {
      rt::ChunkPlan cp =
          rt::chunk_plan(chunk_request(m, p, id, static_cast<int>(c), plan.steps_per_pass));
      if (cp.device_bytes + resident <= plan.device_memory) {
        plan.chunks.push_back(std::move(cp));
        fits = true;
      }
    }
    if (!fits) {
      const rt::ChunkPlan thinnest =
          rt::chunk_plan(chunk_request(m, p, id, static_cast<int>(planes), plan.steps_per_pass));
      throw rt::PlanError("device memory of " + std::to_string(plan.device_memory) + " bytes (" +
                          human(plan.device_memory) + ") is too small: " + who + "needs " +
                          std::to_string(thinnest.device_bytes + resident) +
                          " bytes even with one plane per chunk");
    }
  }
}

}  // namespace

Plan make_plan(const Model& m, const PlanOptions& o) {
  Plan plan;
  plan.partition = rt::partition(partition_request(m, o));
  plan.every = std::max(1, m.exchange_every);
  const rt::Partition& p = plan.partition;
  const std::size_t parts = p.parts.size();
  std::vector<Index> recv(parts, 0), sent(parts, 0);
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    const int a = static_cast<int>(i);
    const int times = exchanges_per_interval(m, a);
    if (times == 0) continue;
    ArrayExchange x;
    x.array = a;
    x.times = times;
    x.halo = group_halo(m, a);
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

  const Index resident = resident_bytes(m);
  for (const rt::Part& pt : p.parts) {
    Index bytes = resident;
    for (std::size_t i = 0; i < m.arrays.size(); ++i)
      if (is_partitioned(m, static_cast<int>(i)))
        bytes += pt.ghost.volume() * element_bytes(m, static_cast<int>(i));
    plan.buffer_bytes.push_back(bytes);
  }

  if (!m.out_of_core.enabled) {
    // Without <out_of_core>, a program goes out of core when a part's arrays exceed the device
    // memory budget (--out-of-core auto): so does the plan when --device-memory gives one.
    if (o.device_memory <= 0) return plan;
    plan.device_memory = o.device_memory;
    if (*std::max_element(plan.buffer_bytes.begin(), plan.buffer_bytes.end()) <= o.device_memory)
      return plan;
  }
  try {
    plan_out_of_core(m, o, plan);
  } catch (const rt::PlanError& e) {
    throw LocatedPlanError(e.what(), m.out_of_core.loc);
  }
  return plan;
}

// ---------------------------------------------------------------------------------------------
// Reports.

std::string plan_text(const Model& m, const Plan& plan) {
  const rt::Partition& p = plan.partition;
  std::string s;
  s += "plan for '" + m.name + "': " + std::to_string(m.dims) + "D grid " + extent_str(p.domain) +
       ", " + std::to_string(p.parts.size()) + " part(s) of " +
       std::to_string(p.devices_requested) + " device(s), device grid " +
       [&] {
         std::string g;
         for (int d = 0; d < m.dims; ++d)
           g += (d ? "x" : "") + std::to_string(p.grid[static_cast<std::size_t>(d)]);
         return g;
       }() +
       "\n";
  s += "  why: " + p.rationale + "\n";
  s += "  ghost widths: below " + vec_str(p.ghost_lo, m.dims) + ", above " +
       vec_str(p.ghost_hi, m.dims) + "; exchange every " + std::to_string(plan.every) +
       " step(s)\n";
  if (plan.exchanges.empty()) {
    s += "  exchanged arrays: none\n";
  } else {
    s += "  exchanged arrays:";
    for (const ArrayExchange& x : plan.exchanges)
      s += " " + m.arrays[static_cast<std::size_t>(x.array)].name + " (" +
           std::to_string(x.bytes_per_exchange) + " B per exchange, " + std::to_string(x.times) +
           "x per " + (plan.every > 1 ? std::to_string(plan.every) + " steps)" : "step)");
    s += "\n";
  }
  s += "\n";
  Table t({"part", "owned", "ghost", "buffer bytes", "neighbours", "recv B/step", "send B/step"},
          "rllrlrr");
  Index buffers = 0;
  for (const rt::Part& pt : p.parts) {
    const auto k = static_cast<std::size_t>(pt.id);
    t.add({std::to_string(pt.id), pt.owned.str(), pt.ghost.str(),
           std::to_string(plan.buffer_bytes[k]), ints_str(pt.neighbours),
           std::to_string(plan.recv_bytes_per_step[k]),
           std::to_string(plan.send_bytes_per_step[k])});
    buffers += plan.buffer_bytes[k];
  }
  s += t.str();
  s += "\n  total: " + std::to_string(plan.exchange_bytes_per_step) +
       " bytes exchanged per step (" + human(plan.exchange_bytes_per_step) + "), " +
       std::to_string(buffers) + " bytes of device buffers (" + human(buffers) + ")\n";
  if (!plan.out_of_core) {
    if (plan.device_memory > 0) {
      const Index largest = *std::max_element(plan.buffer_bytes.begin(), plan.buffer_bytes.end());
      s += "\nout of core: not needed: the largest part needs " + std::to_string(largest) +
           " bytes (" + human(largest) + "), within the device memory of " +
           std::to_string(plan.device_memory) + " bytes (" + human(plan.device_memory) + ")\n";
    }
    return s;
  }

  s += "\nout of core: " + std::to_string(plan.steps_per_pass) +
       " step(s) per pass, region sharing " + (m.out_of_core.region_sharing ? "on" : "off") +
       ", device memory " +
       (plan.device_memory > 0 ? std::to_string(plan.device_memory) + " bytes"
                               : std::string("not given")) +
       "\n";
  Index h2d = 0, h2d_plain = 0, d2h = 0, d2d = 0;
  for (std::size_t k = 0; k < plan.chunks.size(); ++k) {
    const rt::ChunkPlan& c = plan.chunks[k];
    s += "\n  part " + std::to_string(k) + ": " + std::to_string(c.chunks.size()) +
         " chunk(s) of planes along " + dim_name(m.dims - 1) + ", " +
         std::to_string(c.device_bytes) + " bytes of chunk buffers (" + human(c.device_bytes) +
         "), " + std::to_string(c.max_load_planes) + " planes per buffer\n";
    Table ct({"chunk", "own", "load", "halo planes", "from host", "shared (d2d)"}, "rllrll");
    auto range = [](Index lo, Index hi) {
      return hi > lo ? "[" + std::to_string(lo) + "," + std::to_string(hi) + ")" : std::string("-");
    };
    for (const rt::Chunk& ch : c.chunks)
      ct.add({std::to_string(ch.id), range(ch.own_lo, ch.own_hi), range(ch.load_lo, ch.load_hi),
              std::to_string(ch.halo_planes()), range(ch.h2d_lo, ch.h2d_hi),
              range(ch.shared_lo, ch.shared_hi)});
    s += ct.str("    ");
    s += "    per pass: " + std::to_string(c.h2d_planes_per_pass) + " planes to the device (" +
         std::to_string(c.h2d_planes_without_sharing) + " without sharing), " +
         std::to_string(c.d2h_planes_per_pass) + " back, " + std::to_string(c.d2d_planes_per_pass) +
         " copied on the device\n";
    s += "    bytes per pass: h2d " + std::to_string(c.h2d_bytes_per_pass) + ", without sharing " +
         std::to_string(c.h2d_bytes_without_sharing) + ", d2h " +
         std::to_string(c.d2h_bytes_per_pass) + ", d2d " + std::to_string(c.d2d_bytes_per_pass) +
         "\n";
    h2d += c.h2d_bytes_per_pass;
    h2d_plain += c.h2d_bytes_without_sharing;
    d2h += c.d2h_bytes_per_pass;
    d2d += c.d2d_bytes_per_pass;
  }
  s += "\n  total per pass: h2d " + std::to_string(h2d) + " bytes (" + human(h2d) + "; " +
       std::to_string(h2d_plain) + " without sharing, " + human(h2d_plain) + "), d2h " +
       std::to_string(d2h) + " (" + human(d2h) + "), d2d " + std::to_string(d2d) + " (" +
       human(d2d) + ")\n";
  return s;
}

std::string plan_json(const Model& m, const Plan& plan) {
  const rt::Partition& p = plan.partition;
  Json root = Json::object();
  root.set("stencil", Json::string(m.name));
  root.set("dims", Json::number(m.dims));
  root.set("domain", Json::numbers(m.domain, static_cast<std::size_t>(m.dims)));
  root.set("devices", Json::number(p.devices_requested));
  root.set("parts_used", Json::number(static_cast<Index>(p.parts.size())));
  root.set("grid", Json::numbers(p.grid, static_cast<std::size_t>(m.dims)));
  root.set("strategy", Json::string(strategy_name(p)));
  root.set("rationale", Json::string(p.rationale));
  root.set("ghost_lo", Json::numbers(p.ghost_lo, static_cast<std::size_t>(m.dims)));
  root.set("ghost_hi", Json::numbers(p.ghost_hi, static_cast<std::size_t>(m.dims)));
  root.set("exchange_every", Json::number(plan.every));
  Json arrays = Json::array();
  for (const ArrayExchange& x : plan.exchanges) {
    Json transfers = Json::array();
    for (const rt::Transfer& t : x.transfers) {
      Json boxes = Json::array();
      for (const rt::Box& b : t.boxes) boxes.push(box_json(b));
      transfers.push(Json::object()
                         .set("src", Json::number(t.src))
                         .set("dst", Json::number(t.dst))
                         .set("boxes", boxes));
    }
    arrays.push(Json::object()
                    .set("name", Json::string(m.arrays[static_cast<std::size_t>(x.array)].name))
                    .set("bytes_per_exchange", Json::number(x.bytes_per_exchange))
                    .set("exchanges_per_interval", Json::number(x.times))
                    .set("transfers", transfers));
  }
  root.set("exchanged_arrays", arrays);
  Json parts = Json::array();
  Index buffers = 0, h2d = 0, h2d_plain = 0, d2h = 0, d2d = 0, device = 0;
  for (const rt::Part& pt : p.parts) {
    const auto k = static_cast<std::size_t>(pt.id);
    Json j = Json::object();
    j.set("id", Json::number(pt.id));
    j.set("coord", Json::numbers(pt.coord, static_cast<std::size_t>(m.dims)));
    j.set("owned", box_json(pt.owned));
    j.set("ghost", box_json(pt.ghost));
    j.set("neighbours", Json::numbers(pt.neighbours, pt.neighbours.size()));
    j.set("buffer_bytes", Json::number(plan.buffer_bytes[k]));
    j.set("exchange_bytes_per_step", Json::number(plan.recv_bytes_per_step[k]));
    j.set("exchange_bytes_sent_per_step", Json::number(plan.send_bytes_per_step[k]));
    buffers += plan.buffer_bytes[k];
    if (plan.out_of_core) {
      const rt::ChunkPlan& c = plan.chunks[k];
      j.set("h2d_bytes_per_pass", Json::number(c.h2d_bytes_per_pass));
      j.set("d2h_bytes_per_pass", Json::number(c.d2h_bytes_per_pass));
      j.set("d2d_bytes_per_pass", Json::number(c.d2d_bytes_per_pass));
      j.set("h2d_bytes_per_pass_without_sharing", Json::number(c.h2d_bytes_without_sharing));
      j.set("device_bytes", Json::number(c.device_bytes));
      j.set("buffer_bytes_per_array", Json::numbers(c.buffer_bytes, c.buffer_bytes.size()));
      Json chunks = Json::array();
      for (const rt::Chunk& ch : c.chunks)
        chunks.push(
            Json::object()
                .set("own",
                     Json::array().push(Json::number(ch.own_lo)).push(Json::number(ch.own_hi)))
                .set("load",
                     Json::array().push(Json::number(ch.load_lo)).push(Json::number(ch.load_hi)))
                .set("h2d",
                     Json::array().push(Json::number(ch.h2d_lo)).push(Json::number(ch.h2d_hi)))
                .set("shared", Json::array()
                                   .push(Json::number(ch.shared_lo))
                                   .push(Json::number(ch.shared_hi))));
      j.set("chunks", chunks);
      h2d += c.h2d_bytes_per_pass;
      h2d_plain += c.h2d_bytes_without_sharing;
      d2h += c.d2h_bytes_per_pass;
      d2d += c.d2d_bytes_per_pass;
      device = std::max(device, c.device_bytes);
    }
    parts.push(j);
  }
  root.set("parts", parts);
  Json totals = Json::object();
  totals.set("exchange_bytes_per_step", Json::number(plan.exchange_bytes_per_step));
  totals.set("buffer_bytes", Json::number(buffers));
  if (plan.out_of_core) {
    totals.set("steps_per_pass", Json::number(plan.steps_per_pass));
    totals.set("region_sharing", Json::boolean(m.out_of_core.region_sharing));
    totals.set("h2d_bytes_per_pass", Json::number(h2d));
    totals.set("d2h_bytes_per_pass", Json::number(d2h));
    totals.set("d2d_bytes_per_pass", Json::number(d2d));
    totals.set("h2d_bytes_per_pass_without_sharing", Json::number(h2d_plain));
    totals.set("max_device_bytes", Json::number(device));
  }
  root.set("totals", totals);
  return root.dump() + "\n";
}

// ---------------------------------------------------------------------------------------------
// Picture.

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// Maps grid boxes to the picture: x across; y (2D) or z (3D, section through the middle of
/// y) down; 1D boxes fill a strip.
struct Canvas {
  int dims = 1;
  int down = -1;  ///< the dimension drawn downwards (-1: none)
  Index section = 0;
  double sx = 1, sy = 1, x0 = 20, y0 = 44, width = 760, height = 60;

  bool visible(const rt::Box& b) const {
    return !b.empty() && (dims < 3 || (b.lo[1] <= section && section < b.hi[1]));
  }
  /// `min_px`: thin zones (a one-cell ghost layer of a large grid) are drawn at least this
  /// wide, centred on their place, so that they stay visible; titles give the exact boxes.
  std::string rect(const rt::Box& b, const std::string& style, const std::string& title = "",
                   double min_px = 0) const {
    double x = x0 + static_cast<double>(b.lo[0]) * sx, w = static_cast<double>(b.extent(0)) * sx;
    double y = y0, h = height;
    if (down >= 0) {
      y = y0 + static_cast<double>(b.lo[static_cast<std::size_t>(down)]) * sy;
      h = static_cast<double>(b.extent(down)) * sy;
    }
    if (w < min_px) {
      x -= (min_px - w) / 2;
      w = min_px;
    }
    if (h < min_px) {
      y -= (min_px - h) / 2;
      h = min_px;
    }
    const std::string open = "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) +
                             "\" height=\"" + num(h) + "\" " + style;
    return title.empty() ? open + "/>" : open + "><title>" + title + "</title></rect>";
  }
};

const char* const kColours[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

}  // namespace

std::string plan_svg(const Model& m, const Plan& plan) {
  const rt::Partition& p = plan.partition;
  Canvas c;
  c.dims = m.dims;
  c.down = m.dims == 1 ? -1 : m.dims == 2 ? 1 : 2;
  c.section = m.domain[1] / 2;
  const double nx = static_cast<double>(m.domain[0]);
  c.sx = c.width / nx;
  if (c.down >= 0) {
    const double nv = static_cast<double>(m.domain[static_cast<std::size_t>(c.down)]);
    // Square cells when they fit; a very tall or very flat grid is stretched to stay legible.
    c.sy = std::clamp(c.sx, 40.0 / nv, 600.0 / nv);
    c.height = nv * c.sy;
  }
  const std::size_t n = p.parts.size();
  const std::size_t legend_rows = (n + 5) / 6;
  const double legend_y = c.y0 + c.height + 24;
  const double total_h = legend_y + static_cast<double>(legend_rows) * 18 + 46;

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"" + num(total_h) +
       "\" viewBox=\"0 0 800 " + num(total_h) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "  <rect width=\"800\" height=\"" + num(total_h) + "\" fill=\"#ffffff\"/>\n";
  std::string title = xml_escape(m.name) + ": " + extent_str(p.domain) + " grid, " +
                      std::to_string(n) + " part(s), device grid ";
  for (int d = 0; d < m.dims; ++d)
    title += (d ? "x" : "") + std::to_string(p.grid[static_cast<std::size_t>(d)]);
  if (m.dims == 3) title += " (x-z section at y = " + std::to_string(c.section) + ")";
  s += "  <text x=\"20\" y=\"24\" font-size=\"14\" font-weight=\"bold\">" + title + "</text>\n";

  // The domain, then each part's owned box in its colour.
  s += "  " + c.rect(p.domain, "fill=\"none\" stroke=\"#000\" stroke-width=\"2\"") + "\n";
  for (const rt::Part& pt : p.parts) {
    if (!c.visible(pt.owned)) continue;
    const char* colour = kColours[static_cast<std::size_t>(pt.id) % 12];
    s += "  " +
         c.rect(pt.owned, std::string("fill=\"") + colour + "\" stroke=\"#000\" stroke-width=\"1\"",
                "part " + std::to_string(pt.id) + " owns " + pt.owned.str()) +
         "\n";
  }
  // Ghost zones: hatched where a part keeps copies of its neighbours' cells.
  for (const rt::Part& pt : p.parts)
    for (const rt::Box& g : rt::subtract(pt.ghost, pt.owned))
      if (c.visible(g))
        s += "  " +
             c.rect(g, "fill=\"#444\" fill-opacity=\"0.35\" stroke=\"none\"",
                    "ghost cells of part " + std::to_string(pt.id) + ": " + g.str(), 4) +
             "\n";
  // Exchanged cells: what moves each exchange, outlined in red (once per box, all arrays).
  std::set<std::tuple<rt::Vec3, rt::Vec3>> marked;
  for (const ArrayExchange& x : plan.exchanges)
    for (const rt::Transfer& t : x.transfers)
      for (const rt::Box& b : t.boxes)
        if (c.visible(b) && marked.insert({b.lo, b.hi}).second)
          s += "  " +
               c.rect(b,
                      "fill=\"#d62728\" fill-opacity=\"0.5\" stroke=\"#d62728\" stroke-width=\"1\"",
                      "exchanged " + b.str(), 2) +
               "\n";
  // Out of core: chunk boundaries across each part, along the slowest dimension.
  if (plan.out_of_core)
    for (std::size_t k = 0; k < plan.chunks.size(); ++k) {
      const rt::Part& pt = p.parts[k];
      if (!c.visible(pt.owned)) continue;
      for (const rt::Chunk& ch : plan.chunks[k].chunks) {
        if (ch.id == 0) continue;
        const double at = static_cast<double>(ch.own_lo);
        std::string line;
        if (c.down < 0) {  // 1D: the slowest dimension runs across
          const double x = c.x0 + at * c.sx;
          line = "<line x1=\"" + num(x) + "\" y1=\"" + num(c.y0) + "\" x2=\"" + num(x) +
                 "\" y2=\"" + num(c.y0 + c.height) + "\"";
        } else {
          const double y = c.y0 + at * c.sy;
          line = "<line x1=\"" + num(c.x0 + static_cast<double>(pt.owned.lo[0]) * c.sx) +
                 "\" y1=\"" + num(y) + "\" x2=\"" +
                 num(c.x0 + static_cast<double>(pt.owned.hi[0]) * c.sx) + "\" y2=\"" + num(y) +
                 "\"";
        }
        s += "  " + line + " stroke=\"#1f4e9c\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n";
      }
    }
  // Labels last, so nothing covers them.
  for (const rt::Part& pt : p.parts) {
    if (!c.visible(pt.owned)) continue;
    const double w = static_cast<double>(pt.owned.extent(0)) * c.sx;
    const double h = c.down >= 0 ? static_cast<double>(pt.owned.extent(c.down)) * c.sy : c.height;
    if (w < 24 || h < 14) continue;
    const double cx = c.x0 + static_cast<double>(pt.owned.lo[0]) * c.sx + w / 2;
    const double cy =
        (c.down >= 0
             ? c.y0 + static_cast<double>(pt.owned.lo[static_cast<std::size_t>(c.down)]) * c.sy
             : c.y0) +
        h / 2 + 4;
    s += "  <text x=\"" + num(cx) + "\" y=\"" + num(cy) + "\" text-anchor=\"middle\">P" +
         std::to_string(pt.id) + "</text>\n";
  }
  // Legend: the parts' colours, then what the marks mean.
  for (std::size_t k = 0; k < n; ++k) {
    const double x = 20 + static_cast<double>(k % 6) * 126,
                 y = legend_y + static_cast<double>(k / 6) * 18;
    s += "  <rect x=\"" + num(x) + "\" y=\"" + num(y - 10) +
         "\" width=\"12\" height=\"12\" fill=\"" + kColours[k % 12] + "\" stroke=\"#000\"/>\n";
    s += "  <text x=\"" + num(x + 16) + "\" y=\"" + num(y) + "\">part " + std::to_string(k) +
         "</text>\n";
  }
  const double ky = legend_y + static_cast<double>(legend_rows) * 18 + 8;
  s += "  <rect x=\"20\" y=\"" + num(ky - 10) +
       "\" width=\"12\" height=\"12\" fill=\"#444\" fill-opacity=\"0.35\" stroke=\"#000\"/>\n";
  s += "  <text x=\"36\" y=\"" + num(ky) + "\">ghost zone (thin ones drawn 4 px)</text>\n";
  s += "  <rect x=\"246\" y=\"" + num(ky - 10) +
       "\" width=\"12\" height=\"12\" fill=\"#d62728\" fill-opacity=\"0.5\" stroke=\"#d62728\"/>\n";
  s += "  <text x=\"262\" y=\"" + num(ky) + "\">exchanged every " + std::to_string(plan.every) +
       " step(s)</text>\n";
  if (plan.out_of_core) {
    s += "  <line x1=\"480\" y1=\"" + num(ky - 4) + "\" x2=\"500\" y2=\"" + num(ky - 4) +
         "\" stroke=\"#1f4e9c\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n";
    s += "  <text x=\"506\" y=\"" + num(ky) + "\">chunk boundary</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace stepgen::model

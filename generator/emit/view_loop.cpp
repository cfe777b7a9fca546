#include <cstdio>
#include <string>
#include <vector>

#include "emit/cpp_text.hpp"
#include "emit/view_parts.hpp"

namespace stepgen::emit::view_parts {

using cpp::fill;
using model::Model;

namespace {

// The reductions, until and monitor (runtime/stepgen/exec/monitor.hpp) as the generated tables.
void reduction_tables(const Model& m, View& v) {
  View reductions{View::type::list};
  for (const model::Reduction& r : m.reductions) {
    View item;
    item.set("name", r.name);
    item.set("op", r.op == "sum"   ? "kSum"
                   : r.op == "min" ? "kMin"
                   : r.op == "max" ? "kMax"
                   : r.op == "l2"  ? "kL2"
                                   : "kLinf");
    item.set("array", "array::" + m.arrays[static_cast<std::size_t>(r.array)].name);
    item.set("minus",
             r.minus < 0 ? "-1" : "array::" + m.arrays[static_cast<std::size_t>(r.minus)].name);
    item.set("every", std::to_string(r.every));
    item.set("cpp_type",
             model::type_info(m.arrays[static_cast<std::size_t>(r.array)].type).cpp_name);
    reductions.push_back(item);
  }
  const bool any = !m.reductions.empty();
  v.set("reductions", reductions);
  v.set("has_reductions", flag(any));
  v.set("reduction_count", std::to_string(m.reductions.size()));
  v.set("has_until", flag(m.until.present));
  std::vector<std::string> uses;
  for (int u : m.until.uses) uses.push_back(std::to_string(u));
  v.set("until_cpp", m.until.cpp);
  v.set("until_text", cpp::escape(m.until.text));
  v.set("until_uses", cpp::braced(uses));
  v.set("until_use_count", std::to_string(uses.size()));
  v.set("has_monitor_table", flag(m.monitor.present));
  v.set("monitor_every", std::to_string(m.monitor.every));
  v.set("monitor_file", cpp::escape(m.monitor.file));
  // No <reduce>, until or <monitor>: no tables, rt::Problem's defaults.
  v.set("has_monitor", flag(any || m.until.present || m.monitor.present));
}

// --- Sources and receivers (<inject>, <record>): runtime/stepgen/exec/traces.hpp ----------------

// The body line of an inject or record action: its index among its kind.
void trace_body_line(const model::Action& a, View& sv) {
  const bool inject = a.kind == model::Action::Kind::kInject;
  sv.set("is_inject", flag(inject));
  sv.set("is_record", flag(!inject));
  sv.set("trace_index", std::to_string(a.trace_index));
}

// The tables of the sources (kInjects, with one value function each) and receivers (records).
void trace_tables(const Model& m, const model::ProgramPlan& plan, View& v) {
  View injects{View::type::list}, records{View::type::list};
  for (const model::Action& a : plan.loop) {
    if (a.kind != model::Action::Kind::kInject && a.kind != model::Action::Kind::kRecord) continue;
    const model::Step& s = m.body[static_cast<std::size_t>(a.step)];
    const model::Array& arr = m.arrays[static_cast<std::size_t>(s.arrays.front())];
    View t;
    t.set("index", std::to_string(a.trace_index));
    t.set("array", arr.name);
    t.set("cpp_type", model::type_info(arr.type).cpp_name);
    if (a.kind == model::Action::Kind::kInject) {
      t.set("at", cpp::vec3(s.points.front()));
      t.set("table", flag(!s.value_file.empty()));
      if (!s.value_file.empty()) {
        std::string values;
        char buf[40];
        for (std::size_t i = 0; i < s.values.size(); ++i) {
          std::snprintf(buf, sizeof buf, "%.17g", s.values[i]);
          values += std::string(i ? (i % 4 == 0 ? ",\n    " : ", ") : "") + buf;
        }
        t.set("values", values);
        const std::string table = "kInjectValues" + std::to_string(a.trace_index);
        const std::string file = cpp::literal(s.value_file);
        t.set("value", fill("rt::table_value({table}, std::size({table}), step, {file})",
                            {{"table", table}, {"file", file}}));
        t.set("covers", fill("std::size({table}), {file}", {{"table", table}, {"file", file}}));
      } else {
        t.set("value", "static_cast<double>(" + cpp::expr(m, s.value) + ")");
        t.set("covers", "-1, \"\"");
      }
      injects.push_back(t);
    } else {
      std::vector<std::string> points;
      for (const auto& p : s.points) points.push_back(cpp::vec3(p));
      t.set("points", cpp::braced(points));
      t.set("every", std::to_string(s.every));
      t.set("file", s.file);
      records.push_back(t);
    }
  }
  v.set("has_injects", flag(plan.injects > 0));
  v.set("has_records", flag(plan.records > 0));
  v.set("injects", injects);
  v.set("records", records);
}

}  // namespace

// The time-loop body as the program plan orders it: launches (each followed by the exchange
// of what it wrote, when exchanging every step, overlapped where the plan says so), swaps
// and rotations; deep halos exchange after the body.
void loop(const model::ProgramPlan& plan, View& v) {
  const Model& m = *plan.model;
  View body{View::type::list};
  std::vector<std::string> probe_launches;
  // The reductions standing before body step `position` (reduce.cpp: before the action).
  const auto reduce_items = [&](std::size_t position) {
    for (std::size_t r = 0; r < m.reductions.size(); ++r) {
      if (m.reductions[r].position != position) continue;
      View rv;
      rv.set("is_launch", flag(false));
      rv.set("is_swap", flag(false));
      rv.set("is_inject", flag(false));
      rv.set("is_record", flag(false));
      rv.set("is_reduce", flag(true));
      rv.set("reduce_index", std::to_string(r));
      rv.set("reduce_name", m.reductions[r].name);
      body.push_back(rv);
    }
  };
  for (const model::Action& a : plan.loop) {
    if (a.kind == model::Action::Kind::kExchange) continue;  // exchange_deep below
    reduce_items(static_cast<std::size_t>(a.step));
    View sv;
    sv.set("is_reduce", flag(false));
    const bool launch = a.kind == model::Action::Kind::kLaunch;
    const bool trace =
        a.kind == model::Action::Kind::kInject || a.kind == model::Action::Kind::kRecord;
    sv.set("is_launch", flag(launch));
    sv.set("is_swap", flag(!launch && !trace));
    sv.set("is_inject", flag(false));
    sv.set("is_record", flag(false));
    if (trace) {
      trace_body_line(a, sv);
      body.push_back(sv);
      continue;
    }
    std::vector<std::string> ids;
    for (int id : a.arrays) ids.push_back(cpp::array_id(m, id));
    if (launch) {
      const model::Kernel& k = m.kernels[static_cast<std::size_t>(a.kernel)];
      const model::KernelPlan& kp = plan.kernels[static_cast<std::size_t>(a.kernel)];
      sv.set("kernel", k.name);
      sv.set("exchange_each_step", flag(a.exchange_after));
      sv.set("overlap", flag(a.overlap));
      // A tuned kernel starts with its first candidate's; the tuner sets the chosen one's.
      const std::string group = std::to_string(
          k.local_auto      ? k.local_candidates.front()[static_cast<std::size_t>(m.dims - 1)]
          : k.local.empty() ? 1
                            : k.local[static_cast<std::size_t>(m.dims - 1)]);
      sv.set("exchange_arrays", cpp::braced(ids));
      // Its entry in the launch table kLaunches: what the launches after it read, every
      // dimension (the probe's margins: rt::probe_needs; out of core, the planes still read),
      // its reach and work-group size along the slowest dimension.
      sv.set("index", std::to_string(probe_launches.size()));
      const std::int64_t cells = kp.cells[static_cast<std::size_t>(m.dims - 1)];
      probe_launches.push_back(
          fill("{{kernel::{name}, {after_lo}, {after_hi}, rt::Reach{{{reach_lo}, {reach_hi}}}, "
               "rt::Group{{{group}}}{cells}}}",
               {{"name", k.name},
                {"after_lo", cpp::vec3(a.later_lo)},
                {"after_hi", cpp::vec3(a.later_hi)},
                {"reach_lo", std::to_string(kp.reach_lo)},
                {"reach_hi", std::to_string(kp.reach_hi)},
                {"group", group},
                {"cells", cells > 1 ? ", rt::CellsPerItem{" + std::to_string(cells) + "}" : ""}}));
    } else {
      sv.set("arrays", cpp::braced(ids));
    }
    body.push_back(sv);
  }
  reduce_items(m.body.size());
  reduction_tables(m, v);
  v.set("probe_launches", cpp::braced(probe_launches));
  v.set("body", body);
  trace_tables(m, plan, v);
}

}  // namespace stepgen::emit::view_parts

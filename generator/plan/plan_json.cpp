#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "plan/json_writer.hpp"
#include "plan/plan_format.hpp"
#include "plan/plan_print.hpp"

namespace stepgen::model {

using namespace text;

namespace {

// The exchanged arrays: each one's transfers (sender, receiver, boxes).
Json exchanges_json(const Model& m, const Plan& plan) {
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
  return arrays;
}

// The boundaries (<boundary>): one per array and dimension.
Json boundaries_json(const Model& m, const ProgramPlan& pp) {
  Json boundaries = Json::array();
  for (const BoundaryPlan& b : pp.boundaries)
    boundaries.push(
        Json::object()
            .set("array", Json::string(m.arrays[static_cast<std::size_t>(b.array)].name))
            .set("dim", Json::number(b.dim))
            .set("kind", Json::string(b.kind == Boundary::Kind::kPeriodic ? "periodic"
                                      : b.kind == Boundary::Kind::kMirror ? "mirror"
                                      : b.kind == Boundary::Kind::kCopy   ? "copy"
                                                                          : "value"))
            .set("value", Json::string(b.value)));
  return boundaries;
}

// The time loop's actions in order, as the program runs them.
Json loop_json(const Model& m, const ProgramPlan& pp) {
  Json loop = Json::array();
  auto names = [&m](const std::vector<int>& ids) {
    Json j = Json::array();
    for (int a : ids) j.push(Json::string(m.arrays[static_cast<std::size_t>(a)].name));
    return j;
  };
  for (const Action& a : pp.loop) {
    Json j = Json::object();
    switch (a.kind) {
      case Action::Kind::kLaunch:
        j.set("launch", Json::string(m.kernels[static_cast<std::size_t>(a.kernel)].name));
        j.set("exchange", names(a.exchange_after ? a.arrays : std::vector<int>{}));
        j.set("overlap", Json::boolean(a.overlap));
        if (!a.no_overlap.empty()) j.set("no_overlap", Json::string(a.no_overlap));
        break;
      case Action::Kind::kSwap:
        j.set("swap", names(a.arrays));
        break;
      case Action::Kind::kRotate:
        j.set("rotate", names(a.arrays));
        break;
      case Action::Kind::kExchange:
        j.set("exchange", names(a.arrays));
        break;
      case Action::Kind::kInject:
        j.set("inject", names(a.arrays));
        break;
      case Action::Kind::kRecord:
        j.set("record", names(a.arrays));
        break;
    }
    loop.push(j);
  }
  return loop;
}

// Every part: its boxes, neighbours, bytes and, out of core, its chunks; `buffers` the sum of
// the parts' buffer bytes.
Json parts_json(const Model& m, const Plan& plan, Index& buffers) {
  const rt::Partition& p = plan.partition;
  Json parts = Json::array();
  buffers = 0;
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
      const rt::ooc::Part& c = plan.schedule.parts[k];
      const auto slow = static_cast<std::size_t>(m.dims - 1);
      auto planes = [slow](const rt::Box& b) {
        return b.empty()
                   ? Json::array()
                   : Json::array().push(Json::number(b.lo[slow])).push(Json::number(b.hi[slow]));
      };
      j.set("h2d_bytes_per_pass", Json::number(c.h2d_bytes));
      j.set("d2h_bytes_per_pass", Json::number(c.d2h_bytes));
      j.set("d2d_bytes_per_pass", Json::number(c.d2d_bytes));
      j.set("device_bytes", Json::number(c.device_bytes));
      j.set("buffer_cells", Json::number(c.buffer_cells));
      Json chunks = Json::array();
      for (const rt::ooc::Chunk& ch : c.chunks)
        chunks.push(
            Json::object()
                .set("own",
                     Json::array().push(Json::number(ch.own_lo)).push(Json::number(ch.own_hi)))
                .set("load", planes(ch.load))
                .set("h2d", planes(ch.h2d))
                .set("shared", planes(ch.shared)));
      j.set("chunks", chunks);
    }
    parts.push(j);
  }
  return parts;
}

// The totals: exchange and buffer bytes, out of core the schedule and the figures it was
// planned with.
Json totals_json(const Plan& plan, Index buffers) {
  Json totals = Json::object();
  totals.set("exchange_bytes_per_step", Json::number(plan.exchange_bytes_per_step));
  totals.set("buffer_bytes", Json::number(buffers));
  if (plan.out_of_core) {
    const rt::ooc::Schedule& sc = plan.schedule;
    const rt::ooc::Link& l = plan.figures.link;
    totals.set("chunks", Json::number(sc.chunks));
    totals.set("steps_per_pass", Json::number(sc.steps_per_pass));
    totals.set("chosen_by_model", Json::object()
                                      .set("chunks", Json::boolean(plan.auto_chunks))
                                      .set("steps_per_pass", Json::boolean(plan.auto_k)));
    totals.set("region_sharing", Json::boolean(sc.region_sharing));
    totals.set("trapezoid", Json::boolean(sc.trapezoid));
    totals.set("band_sharing", Json::boolean(sc.band_sharing));
    totals.set("buffers", Json::number(sc.buffers));
    totals.set("device_memory", Json::number(plan.device_memory));
    totals.set("h2d_bytes_per_pass", Json::number(sc.h2d_bytes));
    totals.set("d2h_bytes_per_pass", Json::number(sc.d2h_bytes));
    totals.set("d2d_bytes_per_pass", Json::number(sc.d2d_bytes));
    totals.set("h2d_bytes_per_pass_without_sharing", Json::number(sc.h2d_bytes_without_sharing));
    totals.set("max_device_bytes", Json::number(sc.device_bytes));
    totals.set("steps", Json::number(plan.steps));
    totals.set("predicted_seconds", Json::real(plan.predicted_s));
    const rt::LinkFigures& f = plan.figures;
    Json figures = Json::object();
    figures.set("h2d_gbps", Json::real(l.h2d / 1e9)).set("h2d_from", Json::string(f.h2d));
    figures.set("d2h_gbps", Json::real(l.d2h / 1e9)).set("d2h_from", Json::string(f.d2h));
    figures.set("bidir_gbps", Json::real(l.bidir / 1e9)).set("bidir_from", Json::string(f.bidir));
    figures.set("kernel_ns_per_cell_step", Json::real(l.cell_step * 1e9))
        .set("kernel_from", Json::string(f.kernel));
    figures.set("d2d_gbps", Json::real(l.d2d / 1e9)).set("d2d_from", Json::string(f.d2d));
    if (l.devices_all > 1)
      figures.set("devices_all", Json::number(l.devices_all))
          .set("h2d_all_gbps", Json::real(l.h2d_all / 1e9))
          .set("d2h_all_gbps", Json::real(l.d2h_all / 1e9))
          .set("bidir_all_gbps", Json::real(l.bidir_all / 1e9))
          .set("all_from", Json::string(f.all));
    if (l.latency > 0)  // the per-command latency, where stated or measured
      figures.set("latency_us", Json::real(l.latency * 1e6))
          .set("latency_from", Json::string(f.latency));
    if (l.issue_op > 0 || l.issue_command > 0)  // the host's issue times
      figures.set("issue_op_us", Json::real(l.issue_op * 1e6))
          .set("issue_command_us", Json::real(l.issue_command * 1e6))
          .set("issue_from", Json::string(f.issue));
    if (l.message > 0)  // MPI: the pass boundary's messages
      figures.set("message_gbps", Json::real(l.message / 1e9))
          .set("message_latency_us", Json::real(l.message_latency * 1e6))
          .set("message_from", Json::string(f.message));
    if (l.boundary > 0)  // MPI: the ranks' meeting at a pass boundary
      figures.set("boundary_us", Json::real(l.boundary * 1e6));
    totals.set("figures", figures);
  }
  if (!plan.reason.empty()) totals.set("out_of_core_reason", Json::string(plan.reason));
  // `--out-of-core auto` compared the in-core run's prediction.
  if (plan.in_core_predicted_s > 0)
    totals.set("in_core_predicted_seconds", Json::real(plan.in_core_predicted_s));
  return totals;
}

}  // namespace

std::string plan_json(const ProgramPlan& pp, const Plan& plan) {
  const Model& m = *pp.model;
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
  root.set("exchanged_arrays", exchanges_json(m, plan));
  if (!pp.boundaries.empty()) root.set("boundaries", boundaries_json(m, pp));
  root.set("time_loop", loop_json(m, pp));
  Index buffers = 0;
  root.set("parts", parts_json(m, plan, buffers));
  root.set("totals", totals_json(plan, buffers));
  return root.dump() + "\n";
}

}  // namespace stepgen::model

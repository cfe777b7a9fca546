#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>

#include "plan/json_writer.hpp"
#include "plan/plan_format.hpp"
#include "plan/plan_print.hpp"

namespace stepgen::model {

using namespace text;

namespace {

// The time loop's actions in order, as the program runs them.
std::string loop_text(const ProgramPlan& pp) {
  const Model& m = *pp.model;
  auto names = [&m](const std::vector<int>& arrays, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < arrays.size(); ++i)
      s += (i ? sep : "") + m.arrays[static_cast<std::size_t>(arrays[i])].name;
    return s;
  };
  std::string s;
  for (const Action& a : pp.loop) {
    if (!s.empty()) s += "; ";
    switch (a.kind) {
      case Action::Kind::kLaunch:
        s += m.kernels[static_cast<std::size_t>(a.kernel)].name;
        if (a.exchange_after)
          s += std::string(a.overlap ? ", overlapped with" : ", then") + " the exchange of " +
               names(a.arrays, ", ");
        break;
      case Action::Kind::kSwap:
        s += "swap(" + names(a.arrays, ", ") + ")";
        break;
      case Action::Kind::kRotate:
        s += "rotate(" + names(a.arrays, ", ") + ")";
        break;
      case Action::Kind::kExchange:
        s +=
            "every " + std::to_string(pp.every) + " steps the exchange of " + names(a.arrays, ", ");
        break;
      case Action::Kind::kInject:
        s += "inject(" + names(a.arrays, ", ") + ")";
        break;
      case Action::Kind::kRecord:
        s += "record(" + names(a.arrays, ", ") + ")";
        break;
    }
  }
  return s.empty() ? "empty" : s;
}

// The boundaries (<boundary>): each array's kind per dimension, and every part's frame (its
// ghost cells past the grid's edge), filled at upload and after each exchange of its arrays.
std::string boundary_text(const ProgramPlan& pp, const rt::Partition& p) {
  if (pp.boundaries.empty()) return {};
  const Model& m = *pp.model;
  std::string s =
      "  boundaries (frames past the grid's edge, filled at upload and with each "
      "exchange of their arrays):";
  int last = -1;
  for (const BoundaryPlan& b : pp.boundaries) {
    const bool same = b.array == last;
    if (!same)
      s += std::string(last < 0 ? " " : "; ") + m.arrays[static_cast<std::size_t>(b.array)].name +
           ":";
    last = b.array;
    const char* kind = b.kind == Boundary::Kind::kPeriodic ? "periodic"
                       : b.kind == Boundary::Kind::kMirror ? "mirror"
                       : b.kind == Boundary::Kind::kCopy   ? "copy"
                                                           : "value";
    s += std::string(same ? ", " : " ") + kind +
         (b.kind == Boundary::Kind::kValue ? "(" + b.value + ")" : "") + " along " +
         dim_name(b.dim) +
         (b.implied ? " (implied: read without a halo along it, where a periodic frame is computed)"
                    : "");
  }
  s += "\n";
  for (const rt::Part& pt : p.parts) {
    const std::vector<rt::Box> frame = rt::coalesce(rt::subtract(pt.ghost, p.domain));
    if (frame.empty()) continue;
    s += "    part " + std::to_string(pt.id) + " frame:";
    for (const rt::Box& b : frame) s += " " + b.str();
    s += "\n";
  }
  return s;
}

}  // namespace

std::string plan_text(const ProgramPlan& pp, const Plan& plan) {
  const Model& m = *pp.model;
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
  for (const std::string& why : pp.granule_why)
    if (!why.empty()) s += "  cuts: " + why + "\n";
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
  s += boundary_text(pp, p);
  s += "  time loop: " + loop_text(pp) + "\n";
  if (p.parts.size() > 1 && pp.any_exchange)
    s += "  overlap of exchanges and computation: " +
         (pp.no_overlap.empty() ? std::string("every exchange") : "not all: " + pp.no_overlap) +
         "\n";
  s += "\n";
  text::Table t(
      {"part", "owned", "ghost", "buffer bytes", "neighbours", "recv B/step", "send B/step"},
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
    if (!plan.reason.empty()) s += "\nout of core: " + plan.reason + "\n";
    return s;
  }

  // What a program runs out of core: the schedule its chooser picks with these figures.
  const rt::ooc::Schedule& sc = plan.schedule;
  const rt::LinkFigures& f = plan.figures;
  const auto slow = static_cast<std::size_t>(m.dims - 1);
  char line[512];
  s += "\nout of core: " + plan.reason + "\n";
  s += "  " + std::to_string(sc.chunks) + " chunk(s)" + (plan.auto_chunks ? " (model)" : "") +
       ", " + std::to_string(sc.steps_per_pass) + " step(s) per pass" +
       (plan.auto_k ? " (model)" : "") + ", region sharing " + (sc.region_sharing ? "on" : "off") +
       ", trapezoid " + (sc.trapezoid ? "on" : "off") + ", band sharing " +
       (sc.band_sharing ? "on" : "off") + ", " + std::to_string(sc.buffers) +
       " buffer slots; device memory " +
       (plan.device_memory > 0 ? std::to_string(plan.device_memory) + " bytes"
                               : std::string("not given")) +
       "\n";
  if (plan.auto_k && !sc.max_steps_why.empty())  // <boundary> frames (rt::ooc::frame_request)
    s += "  one step per pass: " + sc.max_steps_why + "\n";
  std::snprintf(line, sizeof line,
                "  figures: h2d %.2f GB/s (%s), d2h %.2f GB/s (%s), bidirectional %.2f GB/s (%s); "
                "kernels %.3f ns per cell-step (%s); device copies %.1f GB/s (%s)\n",
                f.link.h2d / 1e9, f.h2d.c_str(), f.link.d2h / 1e9, f.d2h.c_str(),
                f.link.bidir / 1e9, f.bidir.c_str(), f.link.cell_step * 1e9, f.kernel.c_str(),
                f.link.d2d / 1e9, f.d2d.c_str());
  s += line;
  if (f.link.devices_all > 1) {
    std::snprintf(line, sizeof line,
                  "  figures, %d devices streaming at once (summed): h2d %.2f GB/s, d2h %.2f "
                  "GB/s, bidirectional %.2f GB/s (%s)\n",
                  f.link.devices_all, f.link.h2d_all / 1e9, f.link.d2h_all / 1e9,
                  f.link.bidir_all / 1e9, f.all.c_str());
    s += line;
  }
  if (f.link.latency > 0) {  // the per-command latency, where stated or measured
    std::snprintf(line, sizeof line, "  figures: per-command latency %.1f us (%s)\n",
                  f.link.latency * 1e6, f.latency.c_str());
    s += line;
  }
  if (f.link.issue_op > 0 || f.link.issue_command > 0) {  // the host's issue
    std::snprintf(line, sizeof line,
                  "  figures: the host issues an op in %.1f us + %.1f us per copy or launch (%s)\n",
                  f.link.issue_op * 1e6, f.link.issue_command * 1e6, f.issue.c_str());
    s += line;
  }
  if (f.link.message > 0) {  // MPI: the pass boundary's messages
    std::snprintf(line, sizeof line,
                  "  figures: MPI messages at %.2f GB/s (sent and received) + %.1f us each (%s)\n",
                  f.link.message / 1e9, f.link.message_latency * 1e6, f.message.c_str());
    s += line;
  }
  if (f.link.boundary > 0) {  // MPI: the ranks' meeting at a pass boundary
    std::snprintf(line, sizeof line, "  figures: MPI pass boundary's meeting %.1f us (%s)\n",
                  f.link.boundary * 1e6, f.message.c_str());
    s += line;
  }
  std::snprintf(line, sizeof line, "  predicted %.6f s for %lld step(s)\n", plan.predicted_s,
                static_cast<long long>(plan.steps));
  s += line;
  auto range = [](Index lo, Index hi) {
    return hi > lo ? "[" + std::to_string(lo) + "," + std::to_string(hi) + ")" : std::string("-");
  };
  for (std::size_t k = 0; k < sc.parts.size(); ++k) {
    const rt::ooc::Part& part = sc.parts[k];
    s += "\n  part " + std::to_string(k) + ": " + std::to_string(part.chunks.size()) +
         " chunk(s) of planes along " + dim_name(m.dims - 1) + ", " +
         std::to_string(part.device_bytes) + " bytes of chunk buffers (" +
         human(part.device_bytes) + "), " + std::to_string(part.buffer_cells) +
         " cells per buffer\n";
    text::Table ct({"chunk", "own", "load", "halo planes", "from host", "shared (d2d)"}, "rllrll");
    for (const rt::ooc::Chunk& ch : part.chunks)
      ct.add({std::to_string(ch.id), range(ch.own_lo, ch.own_hi),
              range(ch.load.lo[slow], ch.load.hi[slow]),
              std::to_string(ch.load.extent(m.dims - 1) - (ch.own_hi - ch.own_lo)),
              ch.h2d.empty() ? "-" : range(ch.h2d.lo[slow], ch.h2d.hi[slow]),
              ch.shared.empty() ? "-" : range(ch.shared.lo[slow], ch.shared.hi[slow])});
    s += ct.str("    ");
    s += "    bytes per pass: h2d " + std::to_string(part.h2d_bytes) + ", d2h " +
         std::to_string(part.d2h_bytes) + ", d2d " + std::to_string(part.d2d_bytes) + "\n";
  }
  s += "\n  total per pass: h2d " + std::to_string(sc.h2d_bytes) + " bytes (" +
       human(sc.h2d_bytes) + "; " + std::to_string(sc.h2d_bytes_without_sharing) +
       " without sharing, " + human(sc.h2d_bytes_without_sharing) + "), d2h " +
       std::to_string(sc.d2h_bytes) + " (" + human(sc.d2h_bytes) + "), d2d " +
       std::to_string(sc.d2d_bytes) + " (" + human(sc.d2d_bytes) + ")\n";
  return s;
}

}  // namespace stepgen::model

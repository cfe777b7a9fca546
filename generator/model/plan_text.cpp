#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "model/json_writer.hpp"
#include "model/plan_format.hpp"
#include "model/plan_print.hpp"

namespace stepgen::model {

using namespace text;

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

}  // namespace stepgen::model

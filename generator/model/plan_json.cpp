#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "model/json_writer.hpp"
#include "model/plan_format.hpp"
#include "model/plan_print.hpp"

namespace stepgen::model {

using namespace text;

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

}  // namespace stepgen::model

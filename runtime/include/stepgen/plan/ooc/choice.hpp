#pragma once
/// \file
/// Out of core, `--out-of-core auto` on data that fits (issue 26): the in-core run predicted
/// from the same figures as the out-of-core model (ooc::Link: the link, the kernels' seconds
/// per cell-step, the per-command latency) and compared with the best out-of-core plan's
/// prediction (ooc::choose, ooc::predict); the faster is taken and one line of the report says
/// which and why. Used by the one-process programs (main.hpp) and `stepgen plan` alike.
/// Standard library only.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/ooc/model.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt::ooc {

/// What one part of an in-core run does, in bytes and cells.
struct InCorePart {
  double upload_bytes = 0;    ///< every array over its buffer (ghost box), once
  double download_bytes = 0;  ///< the written arrays over its owned box, once
  double cells = 0;           ///< cells a step computes (its owned box)
  double halo_bytes = 0;      ///< written arrays' ghost cells refreshed each step (several parts)
  double halo_messages = 0;   ///< messages a step sends and receives (MPI)
};

/// The parts of an in-core run of `partition` with `arrays`: every array uploaded and every
/// written one downloaded, or, given `uploaded` and `downloaded` (by the arrays' names), those
/// only (in core, an array made on the devices is never uploaded, and only the arrays read
/// after the run are gathered).
inline std::vector<InCorePart> in_core_work(const Partition& partition,
                                            const std::vector<Array>& arrays,
                                            const std::vector<std::string>* uploaded = nullptr,
                                            const std::vector<std::string>* downloaded = nullptr) {
  auto in = [](const std::vector<std::string>* names, const std::string& name) {
    return !names || std::find(names->begin(), names->end(), name) != names->end();
  };
  double all = 0, written = 0, written_arrays = 0;
  for (const Array& a : arrays) {
    if (in(uploaded, a.name)) all += static_cast<double>(a.element_bytes);
    if (a.written && in(downloaded, a.name)) written += static_cast<double>(a.element_bytes);
    if (a.written) ++written_arrays;
  }
  std::vector<InCorePart> parts;
  for (const rt::Part& p : partition.parts) {
    InCorePart w;
    w.upload_bytes = static_cast<double>(p.ghost.volume()) * all;
    w.download_bytes = static_cast<double>(p.owned.volume()) * written;
    w.cells = static_cast<double>(p.owned.volume());
    if (partition.parts.size() > 1) {
      w.halo_bytes = static_cast<double>(p.ghost.volume() - p.owned.volume()) * written;
      for (const rt::Part& q : partition.parts)  // a message each way per neighbour and array
        if (&q != &p && !intersect(p.ghost, q.owned).empty()) w.halo_messages += 2 * written_arrays;
    }
    parts.push_back(w);
  }
  return parts;
}

/// The predicted seconds of an in-core run of `steps`: per part, its uploads at the link's
/// host-to-device speed, each step's kernels (cells x seconds per cell-step) and, with several
/// parts, its halos through the host both ways, then its downloads; each command (an array's
/// upload or download, a step's launch, a halo's copy each way) costs the per-command latency.
/// MPI ranks (Link::message measured): each step's halos also go as messages, as many bytes
/// received as sent, each message its latency.
/// The parts run at once, each at its share of the link (share): the slowest part's time.
inline double predict_in_core(const std::vector<InCorePart>& parts, std::size_t arrays,
                              std::size_t written, const Link& measured, Index steps) {
  const Link link = share(measured, parts.size());
  const double n = static_cast<double>(std::max<Index>(steps, 0));
  double worst = 0;
  for (const InCorePart& w : parts) {
    double t = w.upload_bytes / link.h2d + w.download_bytes / link.d2h;
    t += link.latency * static_cast<double>(arrays + written);
    t += n * (w.cells * link.cell_step + link.latency);
    if (w.halo_bytes > 0)
      t += n * (w.halo_bytes / link.d2h + w.halo_bytes / link.h2d + 2 * link.latency);
    if (w.halo_bytes > 0 && link.message > 0)
      t += n * (2 * w.halo_bytes / link.message + w.halo_messages * link.message_latency);
    worst = std::max(worst, t);
  }
  return worst;
}

/// Out of core is taken only when predicted faster by more than this share of the in-core
/// time: on a tie in core runs (no calibration, no chunk buffers, the simpler run).
constexpr double kAutoMargin = 0.05;

/// The calibration's probe when `--out-of-core auto` compares on data that fits: at most 256 MiB
/// over all arrays (out of core already decided: 1 GiB, ooc::plan). Its host samples are most of
/// the comparison's memory and time: a 1 GiB probe made wave2k 512^3's start-up (one H200,
/// CUDA) 1.1 s longer and 0.96 GiB larger than the same run without the flag.
constexpr Index kAutoProbeBytes = Index{256} << 20;

/// `--out-of-core auto`'s choice on data that fits, and its report line.
struct AutoChoice {
  bool out_of_core = false;
  double in_core_s = 0, out_of_core_s = 0;
  std::string line;  ///< "out of core: auto -> ... (predicted X s vs Y s ...: why)"
  /// Out of core: the reason the report's "out-of-core: on (...)" line gives.
  std::string reason;
};

/// The faster of the in-core run (`in_core_s`) and the best out-of-core plan (`sc`, predicted
/// `out_of_core_s`), with why: out of core wins by overlapping its copies with the kernels
/// (and region sharing), in core by moving each array once where out of core moves it once a
/// pass. `forced` ("in-core", "out-of-core"; null: none): the choice taken whatever the
/// prediction (a program's STEPGEN_AUTO_CHOICE, main_ooc.hpp), the report's line says so.
inline AutoChoice choose_auto(double in_core_s, double out_of_core_s, const Schedule& sc,
                              Index steps, const char* forced = nullptr) {
  AutoChoice c;
  c.in_core_s = in_core_s;
  c.out_of_core_s = out_of_core_s;
  c.out_of_core = out_of_core_s < in_core_s * (1 - kAutoMargin);
  if (forced) c.out_of_core = std::string(forced) == "out-of-core";
  const char* note = forced ? "; taken by STEPGEN_AUTO_CHOICE" : "";
  c.reason = forced ? "--out-of-core auto: taken by STEPGEN_AUTO_CHOICE"
                    : "--out-of-core auto: predicted faster than in core";
  const Index n = passes(steps, std::max<Index>(sc.steps_per_pass, 1));
  char buf[512];
  if (c.out_of_core)
    std::snprintf(buf, sizeof buf,
                  "out of core: auto -> out of core (predicted %.6f s vs %.6f s in core: %d "
                  "chunk(s) of %lld step(s) per pass overlap the copies with the kernels, in "
                  "core uploads before and downloads after them%s)",
                  out_of_core_s, in_core_s, sc.chunks, static_cast<long long>(sc.steps_per_pass),
                  note);
  else
    std::snprintf(
        buf, sizeof buf,
        "out of core: auto -> in core (predicted %.6f s vs %.6f s out of core: in core "
        "moves the arrays once, out of core %lld pass(es) of %d chunk(s) move them "
        "once a pass%s%s)",
        in_core_s, out_of_core_s, static_cast<long long>(n), sc.chunks,
        !forced && out_of_core_s < in_core_s ? "; out of core is not faster by more than 5%" : "",
        note);
  c.line = buf;
  return c;
}

/// The choice when no out-of-core plan can be compared (`why`: e.g. the spec's boundaries, or
/// no plan fits): in core.
inline AutoChoice in_core_because(const std::string& why) {
  AutoChoice c;
  c.line = "out of core: auto -> in core (" + why + ")";
  return c;
}

}  // namespace stepgen::rt::ooc

#pragma once
/// \file
/// The out-of-core model's figures (rt::ooc::Link: link bandwidths, kernel time per cell and
/// step, device-copy speed) as text, so that `stepgen plan` can choose chunks and steps per pass
/// with the same chooser as a program (rt::ooc::choose) from figures someone stated or a program
/// measured. The text is a list of KEY=VALUE items, separated by commas or white space:
///
///   h2d=25,d2h=26,bidir=40,kernel=0.012,d2d=1500
///
/// h2d, d2h, bidir, d2d and the *_all figures in GB/s (1e9 bytes per second), kernel in
/// nanoseconds per cell and time step, latency in microseconds per command (optional: 0, not
/// charged, when absent), issue_op and issue_command the host's microseconds to issue an op and
/// each of its copies or launches (optional: 0, the host not modelled), devices_all a count (the
/// *_all figures: the host link summed over that many devices streaming at once; see ooc::Link). A
/// program's out-of-core report ends its link lines with one such list, after "calibration:"
/// (ooc::print_report, written by ooc.hpp's ooc::link_figures_text), so its saved output is a
/// calibration file. Standard library only; the generator reads it, the programs do not need it.

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "stepgen/plan/errors.hpp"  // UsageError, parse_number
#include "stepgen/plan/ooc/link.hpp"

namespace stepgen::rt {

/// Link figures and, for each, where it came from ("assumed" until a source states it).
struct LinkFigures {
  ooc::Link link;
  std::string h2d = "assumed", d2h = "assumed", bidir = "assumed", kernel = "assumed",
              d2d = "assumed", all = "";  ///< all: the *_all figures' source ("" = none)
  std::string latency = "none";           ///< the per-command latency's source
  std::string issue = "none";             ///< the host issue figures' source
  std::string message = "none";           ///< MPI: the pass boundary's messages' source
};

/// Applies the KEY=VALUE list `text` to `f`, noting `source` as each stated figure's origin.
/// Throws UsageError naming `source`, the item and what is expected.
inline void apply_link_figures(const std::string& text, const std::string& source, LinkFigures& f) {
  std::string item;
  auto bad = [&](const std::string& why) {
    throw UsageError(
        source + ": " + why + " (expected KEY=VALUE items: h2d, d2h, bidir, d2d " +
        "in GB/s, kernel in ns per cell-step, latency, issue_op and issue_command in us; MPI: "
        "message in GB/s, message_latency and boundary in us)");
  };
  std::string all;
  for (char c : text) all += c == ',' ? ' ' : c;
  std::istringstream items(all);
  bool any = false;
  while (items >> item) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) bad("'" + item + "' is not KEY=VALUE");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    double v = 0;
    if (key == "devices_all") {
      if (!detail::parse_number(value, 1, 1e6, v) || v != static_cast<int>(v))
        bad("devices_all expects a device count, got '" + value + "'");
      f.link.devices_all = static_cast<int>(v);
      f.all = source;
      any = true;
      continue;
    }
    if (!detail::parse_number(value, 1e-9, 1e9, v) || !(v > 0))
      bad(key + " expects a positive number, got '" + value + "'");
    if (key == "h2d") {
      f.link.h2d = v * 1e9;
      f.h2d = source;
    } else if (key == "d2h") {
      f.link.d2h = v * 1e9;
      f.d2h = source;
    } else if (key == "bidir") {
      f.link.bidir = v * 1e9;
      f.bidir = source;
    } else if (key == "kernel") {
      f.link.cell_step = v * 1e-9;
      f.kernel = source;
    } else if (key == "d2d") {
      f.link.d2d = v * 1e9;
      f.d2d = source;
    } else if (key == "latency") {  // microseconds per command
      f.link.latency = v * 1e-6;
      f.latency = source;
    } else if (key == "issue_op" || key == "issue_command") {  // the host, us
      (key == "issue_op" ? f.link.issue_op : f.link.issue_command) = v * 1e-6;
      f.issue = source;
    } else if (key == "message") {  // MPI: the pass boundary's messages, GB/s both ways
      f.link.message = v * 1e9;
      f.message = source;
    } else if (key == "message_latency") {  // MPI: microseconds per message
      f.link.message_latency = v * 1e-6;
      f.message = source;
    } else if (key == "boundary") {  // MPI: microseconds per pass boundary (the meeting)
      f.link.boundary = v * 1e-6;
      f.message = source;
    } else if (key == "h2d_all" || key == "d2h_all" || key == "bidir_all") {
      (key == "h2d_all"   ? f.link.h2d_all
       : key == "d2h_all" ? f.link.d2h_all
                          : f.link.bidir_all) = v * 1e9;
      f.all = source;
    } else {
      bad("unknown figure '" + key + "'");
    }
    any = true;
  }
  if (!any) bad("no figures");
}

/// Reads a calibration file: a program's saved output (its last "calibration:" line counts) or
/// a file of KEY=VALUE items ('#' starts a comment). Throws UsageError naming the file.
inline void read_link_figures(const std::string& path, LinkFigures& f) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read calibration file '" + path + "'");
  std::string line, last_report, items;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t at = line.find("calibration:");
    if (at != std::string::npos) {
      last_report = line.substr(at + 12);
      continue;
    }
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    bool blank = true;
    for (char c : line) blank = blank && std::isspace(static_cast<unsigned char>(c));
    if (!blank) items += line + " ";
  }
  if (!last_report.empty()) {
    apply_link_figures(last_report, path, f);
  } else if (!items.empty()) {
    apply_link_figures(items, path, f);
  } else {
    throw UsageError("calibration file '" + path + "' holds no figures (no 'calibration:' line " +
                     "of a program's out-of-core report, no KEY=VALUE items)");
  }
  f.link.measured = !last_report.empty();
}

}  // namespace stepgen::rt

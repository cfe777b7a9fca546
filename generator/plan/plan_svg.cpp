#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plan/json_writer.hpp"
#include "plan/plan_format.hpp"
#include "plan/plan_print.hpp"

namespace stepgen::model {

using namespace text;

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

/// The boundary frames' marks: every part's frame boxes (its ghost box past the domain) in green,
/// titled with the kinds; for each dimension drawn that is periodic for some array, a
/// double-headed arc outside the grid between its two sides (each side's frame copies the
/// other side's cells). Empty without <boundary>.
std::string frame_marks(const ProgramPlan& pp, const rt::Partition& p, const Canvas& c) {
  if (pp.boundaries.empty()) return {};
  std::array<std::string, 3> kinds;  // per dimension: "periodic", "mirror", ... (first seen)
  for (const BoundaryPlan& b : pp.boundaries) {
    std::string& k = kinds[static_cast<std::size_t>(b.dim)];
    const char* name = b.kind == Boundary::Kind::kPeriodic ? "periodic"
                       : b.kind == Boundary::Kind::kMirror ? "mirror"
                       : b.kind == Boundary::Kind::kCopy   ? "copy"
                                                           : "value";
    if (k.find(name) == std::string::npos) k += (k.empty() ? "" : "/") + std::string(name);
  }
  std::string s;
  for (const rt::Part& pt : p.parts)
    for (const rt::Box& f : rt::coalesce(rt::subtract(pt.ghost, p.domain))) {
      if (!c.visible(f)) continue;
      // The dimensions in which the box lies past the edge.
      std::vector<int> past;
      for (int d = 0; d < c.dims; ++d) {
        const auto u = static_cast<std::size_t>(d);
        if (f.hi[u] <= p.domain.lo[u] || f.lo[u] >= p.domain.hi[u]) past.push_back(d);
      }
      std::string what;
      for (int d : past)
        what += std::string(what.empty() ? "" : ", ") + "xyz"[d] + ": " +
                kinds[static_cast<std::size_t>(d)];
      s += "  " +
           c.rect(f, "fill=\"#2ca02c\" fill-opacity=\"0.45\" stroke=\"none\"",
                  "boundary frame of part " + std::to_string(pt.id) + ": " + f.str() + " (" + what +
                      ")",
                  4) +
           "\n";
    }
  // One double-headed arc per periodic dimension drawn, outside the grid: each side's frame
  // copies the cells of the opposite side.
  for (int d : {0, c.down}) {
    if (d < 0 || kinds[static_cast<std::size_t>(d)].find("periodic") == std::string::npos) continue;
    const Index n = p.domain.extent(d);
    std::string path;
    if (d == 0) {
      const double y = c.y0 - 3, x1 = c.x0 + 0.5 * c.sx,
                   x2 = c.x0 + (static_cast<double>(n) - 0.5) * c.sx;
      path = "M" + num(x1) + "," + num(y) + " Q" + num((x1 + x2) / 2) + "," + num(c.y0 - 40) + " " +
             num(x2) + "," + num(y);
    } else {
      const double x = c.x0 - 3, y1 = c.y0 + 0.5 * c.sy,
                   y2 = c.y0 + (static_cast<double>(n) - 0.5) * c.sy;
      path = "M" + num(x) + "," + num(y1) + " Q" + num(c.x0 - 26) + "," + num((y1 + y2) / 2) + " " +
             num(x) + "," + num(y2);
    }
    const std::string axis(1, "xyz"[d]);
    s += "  <path d=\"" + path +
         "\" fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\" "
         "marker-start=\"url(#wrap)\" marker-end=\"url(#wrap)\"><title>periodic along " +
         axis + ": the frame below " + axis + " = 0 holds the cells below " + axis + " = " +
         std::to_string(n) + ", the frame from " + axis + " = " + std::to_string(n) +
         " the cells from " + axis + " = 0</title></path>\n";
  }
  return s;
}

const char* const kColours[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

}  // namespace

std::string plan_svg(const ProgramPlan& pp, const Plan& plan) {
  const Model& m = *pp.model;
  const rt::Partition& p = plan.partition;
  Canvas c;
  c.dims = m.dims;
  c.down = m.dims == 1 ? -1 : m.dims == 2 ? 1 : 2;
  c.section = m.domain[1] / 2;
  if (!pp.boundaries.empty()) {  // room for the frames and the periodic arcs above and left
    c.y0 = 74;
    c.x0 = 36;
    c.width = 744;
  }
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
  const double total_h =
      legend_y + static_cast<double>(legend_rows) * 18 + 46 + (pp.boundaries.empty() ? 0 : 18);

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"" + num(total_h) +
       "\" viewBox=\"0 0 800 " + num(total_h) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "  <rect width=\"800\" height=\"" + num(total_h) + "\" fill=\"#ffffff\"/>\n";
  if (!pp.boundaries.empty())
    s += "  <defs><marker id=\"wrap\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
         "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 "
         "L0,10 z\" "
         "fill=\"#2ca02c\"/></marker></defs>\n";
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
  // Boundary frames (<boundary>): the ghost cells past the grid's edge, in green over the
  // hatching; periodic ones with an arrow from the cells on the opposite side they copy.
  const std::string frames = frame_marks(pp, p, c);
  s += frames;
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
    for (std::size_t k = 0; k < plan.schedule.parts.size(); ++k) {
      const rt::Part& pt = p.parts[k];
      if (!c.visible(pt.owned)) continue;
      for (const rt::ooc::Chunk& ch : plan.schedule.parts[k].chunks) {
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
  if (!pp.boundaries.empty()) {
    s += "  <rect x=\"20\" y=\"" + num(ky + 8) +
         "\" width=\"12\" height=\"12\" fill=\"#2ca02c\" fill-opacity=\"0.45\" stroke=\"#000\"/>\n";
    s += "  <text x=\"36\" y=\"" + num(ky + 18) +
         "\">boundary frame past the grid's edge (arc: periodic, each side copies the "
         "other)</text>\n";
  }
  if (plan.out_of_core) {
    s += "  <line x1=\"480\" y1=\"" + num(ky - 4) + "\" x2=\"500\" y2=\"" + num(ky - 4) +
         "\" stroke=\"#1f4e9c\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n";
    s += "  <text x=\"506\" y=\"" + num(ky) + "\">chunk boundary</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace stepgen::model

#pragma once
/// \file
/// Out of core, the options: the spec's <out_of_core> as defaults, the program's flags on top
/// (--device-memory, --out-of-core, --ooc-chunks, ...). Standard library only.

#include <cctype>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt::ooc {

/// How out-of-core runs, as the spec and the command line ask.
struct Options {
  enum class Mode { kAuto, kOn, kOff };
  Mode mode = Mode::kAuto;  ///< auto: on when the arrays do not fit the budget
  Index device_memory =
      0;           ///< budget per device in bytes; 0 = auto (a safe share of the free memory)
  int chunks = 0;  ///< 0 = auto (the model)
  int steps_per_pass = 0;  ///< 0 = auto (the model)
  bool region_sharing = true;
  bool overlap = true;  ///< false: one stream, nothing overlaps (the naive scheme, for comparison)
  int buffers = 3;      ///< buffer slots per array
  bool pinned = true;   ///< direct mapping: the host arrays page-locked (false: pageable)
  bool trapezoid = true;     ///< each step computes only the planes still read (where supported)
  bool band_sharing = true;  ///< each step's lower band comes from the previous chunk (ditto)
  std::string band_sharing_off;  ///< why the program turned band sharing off ("": it did not)
  /// <local size="auto"/> kernels timed again on the chunks, the fastest kept (ooc/retune.hpp):
  /// on (when the run pays for the trials), off, always (whenever it has interior chunks).
  enum class Retune { kOff, kOn, kAlways };
  Retune retune = Retune::kOn;
  /// `--out-of-core auto` given: on data that fits, the in-core run and the best
  /// out-of-core plan are predicted and the faster taken (ooc/choice.hpp). Without the flag
  /// auto keeps its rule: out of core only when the arrays do not fit.
  bool compare = false;
};

/// The share of a device's free memory that `device_memory="auto"` uses.
constexpr double kAutoMemoryShare = 0.85;

/// Parses "8GiB", "512MiB", "1.5GB", "4096" (bytes). Throws UsageError naming the flag.
inline Index parse_size(const std::string& flag, const std::string& text) {
  // The number: digits and a '.', then the unit (no sign, exponent, hex, inf or nan).
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  double v = 0;
  const bool number = detail::parse_number(text.substr(0, digits), 0, 1e30, v);
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = -1;
  const std::pair<const char*, double> units[] = {{"", 1},
                                                  {"b", 1},
                                                  {"k", 1024.0},
                                                  {"kib", 1024.0},
                                                  {"kb", 1e3},
                                                  {"m", 1048576.0},
                                                  {"mib", 1048576.0},
                                                  {"mb", 1e6},
                                                  {"g", 1073741824.0},
                                                  {"gib", 1073741824.0},
                                                  {"gb", 1e9},
                                                  {"t", 1099511627776.0},
                                                  {"tib", 1099511627776.0},
                                                  {"tb", 1e12}};
  for (const auto& [name, s] : units)
    if (unit == name) scale = s;
  // At least a byte, at most 2^62 bytes (4 EiB): an Index with room for sums.
  const double bytes = v * scale;
  if (!number || scale < 0 || !(bytes >= 1) || bytes > 4611686018427387904.0)
    throw UsageError(flag + " expects a size such as 8GiB, 512MiB or 1000000 (bytes), from 1 " +
                     "byte to 4 EiB, got '" + text + "'");
  return static_cast<Index>(bytes);
}

/// Takes the out-of-core flags out of argv (so that parse_options never sees them) into `o`.
inline void take_options(int& argc, char** argv, Options& o) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value (see --help)");
      return argv[++i];
    };
    auto on_off = [&](const std::string& v) {
      if (v != "on" && v != "off") throw UsageError(flag + " expects on or off, got '" + v + "'");
      return v == "on";
    };
    if (flag == "--device-memory") {
      const std::string v = value();
      o.device_memory = v == "auto" ? 0 : parse_size(flag, v);
      if (o.mode == Options::Mode::kOff) o.mode = Options::Mode::kAuto;
    } else if (flag == "--out-of-core") {
      const std::string v = value();
      if (v != "on" && v != "off" && v != "auto")
        throw UsageError(flag + " expects on, off or auto, got '" + v + "'");
      o.mode = v == "on"    ? Options::Mode::kOn
               : v == "off" ? Options::Mode::kOff
                            : Options::Mode::kAuto;
      o.compare = v == "auto";  // given: compares on data that fits (docs/decisions/0001)
    } else if (flag == "--ooc-chunks") {
      const std::string v = value();
      o.chunks =
          v == "auto" ? 0 : detail::parse_integer<int>(flag, v, 1, std::numeric_limits<int>::max());
    } else if (flag == "--steps-per-pass") {
      const std::string v = value();
      o.steps_per_pass =
          v == "auto" ? 0 : detail::parse_integer<int>(flag, v, 1, std::numeric_limits<int>::max());
    } else if (flag == "--region-sharing") {
      o.region_sharing = on_off(value());
    } else if (flag == "--overlap") {
      o.overlap = on_off(value());
    } else if (flag == "--trapezoid") {
      o.trapezoid = on_off(value());
    } else if (flag == "--band-sharing") {
      o.band_sharing = on_off(value());
    } else if (flag == "--ooc-retune") {
      const std::string v = value();
      if (v != "on" && v != "off" && v != "always")
        throw UsageError(flag + " expects on, off or always, got '" + v + "'");
      o.retune = v == "on"    ? Options::Retune::kOn
                 : v == "off" ? Options::Retune::kOff
                              : Options::Retune::kAlways;
    } else if (flag == "--pinned") {
      o.pinned = on_off(value());
    } else if (flag == "--ooc-buffers") {
      o.buffers = detail::parse_integer<int>(flag, value(), 3, 64);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
}

inline void print_usage(std::FILE* out) {
  std::fprintf(
      out,
      "\nout of core (when the arrays do not fit a device; see docs/out-of-core.md):\n"
      "  --device-memory SIZE  device memory budget per device, e.g. 8GiB, 300MiB;\n"
      "                        auto = %.0f%% of its free memory (default: the spec's)\n"
      "  --out-of-core M       auto (when the arrays do not fit) | on | off; auto given:\n"
      "                        also when predicted faster than in core\n"
      "  --ooc-chunks N        chunks per device part, or auto (the model)\n"
      "  --steps-per-pass K    time steps per pass over the chunks, or auto (the model)\n"
      "  --region-sharing S    on | off: shared planes copied on the device\n"
      "  --overlap S           on | off: copies and kernels of different chunks at once\n"
      "  --ooc-buffers B       buffer slots per array, 3 to 64 (default 3)\n"
      "  --pinned S            on | off: host arrays page-locked: in core, copies at the\n"
      "                        link's speed; out of core, chunks copied straight from them\n"
      "                        (direct mapping; default on)\n"
      "  --trapezoid S         on | off: each step computes only the planes still read\n"
      "                        (kernels that can run on a slab; default on)\n"
      "  --band-sharing S      on | off: a chunk takes each step's lower band of planes\n"
      "                        from the previous chunk instead of recomputing it (OpenCL,\n"
      "                        with the trapezoid and region sharing; default on)\n"
      "  --ooc-retune S        on | off | always: kernels with <local size=\"auto\"/> have\n"
      "                        their shapes timed again on the chunks, the fastest kept\n"
      "                        (default on: when the run pays for the trials; off: the\n"
      "                        start-up choice; always: even in a short run)\n",
      100 * kAutoMemoryShare);
}

}  // namespace stepgen::rt::ooc

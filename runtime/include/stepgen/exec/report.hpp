#pragma once
/// \file
/// The run's figures (RunStats), wall-clock timers, the peak resident memory, and the report a
/// program prints at its end.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/io/links.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/errors.hpp"

namespace stepgen::rt {

/// ", part 3" for a device handle that runs part 3 of several on one device (--parts), "" for
/// a device with one part (part < 0): the end of a device's label in messages.
inline std::string part_label(int part) {
  return part >= 0 ? ", part " + std::to_string(part) : "";
}
/// Wall-clock stopwatch that accumulates.
class Stopwatch {
 public:
  using Clock = std::chrono::steady_clock;
  void start() { begin_ = Clock::now(); }
  double stop() {
    double s = std::chrono::duration<double>(Clock::now() - begin_).count();
    total_ += s;
    return s;
  }
  double total() const { return total_; }

 private:
  Clock::time_point begin_{};
  double total_ = 0;
};

/// Peak resident memory of this process, in bytes.
inline std::size_t peak_resident_bytes() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::size_t>(u.ru_maxrss) * 1024;  // Linux reports KiB
}

/// Times and volumes of one run, for the report.
struct RunStats {
  double total_s = 0;
  double kernel_s = 0;
  double exchange_s = 0;
  double host_device_s = 0;
  std::size_t exchange_bytes = 0;
  std::size_t host_device_bytes = 0;
  std::int64_t steps = 0;
  /// How the host arrays are held (rt::HostMemory::text; empty: not said).
  std::string host_memory;
  /// The host link measured at start-up (rt::measure_link), bytes per second summed over the
  /// devices, to them and back (0: not measured).
  double link_h2d = 0, link_d2h = 0;
  /// The arrays whose initial values were made on the devices, without a host copy
  /// ("A, B"; empty: none), and the bytes of the host copies the run keeps (-1: not said).
  std::string device_made;
  long long host_array_bytes = -1;
  /// The host staging of the exchanges between the process's devices (bytes; -1: not
  /// said, as for an MPI rank, whose messages have their own buffers), how it is held when not
  /// page-locked (empty: page-locked), and the arrays gathered at the end ("A, B"; empty: none).
  long long staging_bytes = -1;
  std::string staging_memory;
  std::string gathered;
  /// In core: what the run's time spent before its first step (issue 26: the fixed cost of a
  /// short run): creating the device buffers, making initial values on the devices, filling the
  /// boundary frames once (uploads: host_device_s). setup_known false: not measured (out of core).
  bool setup_known = false;
  double setup_buffers_s = 0, setup_init_s = 0, setup_frames_s = 0;
  /// An MPI rank out of core: of `exchange_s`, the time spent waiting for the pass boundary's
  /// messages to arrive and leave (the MPI waits, not the packing), on the rank that waited
  /// longest and on the one that waited least (mpi::combine); the difference is ranks reaching
  /// the boundary at different times (the rank that waited least is the one the others waited
  /// for). -1: not measured.
  double message_wait_s = -1, message_wait_least_s = -1;
  int message_wait_rank = -1, message_wait_least_rank = -1;
};

/// Whether a progress line (Monitor::progress: "\rstep N/M ...", no newline yet) is on the
/// terminal. A message printed during the run calls clear_progress_line() first, so that it
/// starts its own line; the next progress update draws the line again below it.
inline bool& progress_line_shown() {
  static bool shown = false;
  return shown;
}
inline void clear_progress_line() {
  if (!progress_line_shown()) return;
  std::printf("\r\033[K");  // back to the line's start, erase it
  progress_line_shown() = false;
}

inline void print_report(const RunStats& s, std::FILE* out) {
  auto gbps = [](std::size_t bytes, double secs) { return secs > 0 ? bytes / secs / 1e9 : 0.0; };
  std::fprintf(out, "time: %.6f s for %" PRId64 " steps (%.3f ms/step)\n", s.total_s, s.steps,
               s.steps ? 1e3 * s.total_s / static_cast<double>(s.steps) : 0.0);
  std::fprintf(out, "  kernels:      %.6f s\n", s.kernel_s);
  std::fprintf(out, "  exchange:     %.6f s, %s moved (%.2f GB/s)\n", s.exchange_s,
               human_bytes(static_cast<double>(s.exchange_bytes)).c_str(),
               gbps(s.exchange_bytes, s.exchange_s));
  if (s.message_wait_s >= 0)
    std::fprintf(out,
                 "    waiting for the messages: %.6f s on rank %d (the longest), %.6f s on rank %d "
                 "(the least; the difference: ranks reaching the pass boundaries at different "
                 "times)\n",
                 s.message_wait_s, s.message_wait_rank, s.message_wait_least_s,
                 s.message_wait_least_rank);
  std::fprintf(out, "  host<->device: %.6f s, %s moved (%.2f GB/s", s.host_device_s,
               human_bytes(static_cast<double>(s.host_device_bytes)).c_str(),
               gbps(s.host_device_bytes, s.host_device_s));
  if (s.link_h2d > 0 && s.link_d2h > 0)
    std::fprintf(out, "; link measured at start-up: %.2f GB/s to the devices, %.2f GB/s back",
                 s.link_h2d / 1e9, s.link_d2h / 1e9);
  std::fprintf(out, ")\n");
  if (s.setup_known)
    std::fprintf(out,
                 "  set-up:       %.6f s before the first step: buffers %.6f s, initial values "
                 "made on the devices %.6f s, boundary frames %.6f s (uploads: host<->device)\n",
                 s.setup_buffers_s + s.setup_init_s + s.setup_frames_s, s.setup_buffers_s,
                 s.setup_init_s, s.setup_frames_s);
  if (!s.host_memory.empty()) std::fprintf(out, "  host arrays:  %s\n", s.host_memory.c_str());
  // Which arrays have no host copy, and what the host copies weigh.
  // Plus the exchanges' staging, and which arrays came back at the end.
  if (s.host_array_bytes >= 0) {
    std::string staging;
    if (s.staging_bytes >= 0)
      staging = " + staging " + human_bytes(static_cast<double>(s.staging_bytes)) +
                (s.staging_memory.empty() ? "" : " (" + s.staging_memory + ")");
    std::fprintf(out, "  host copies:  %s%s; made on the devices: %s; gathered: %s\n",
                 human_bytes(static_cast<double>(s.host_array_bytes)).c_str(), staging.c_str(),
                 s.device_made.empty() ? "none" : s.device_made.c_str(),
                 s.gathered.empty() ? "none" : s.gathered.c_str());
  }
  std::fprintf(out, "peak resident memory: %s\n",
               human_bytes(static_cast<double>(peak_resident_bytes())).c_str());
}

}  // namespace stepgen::rt

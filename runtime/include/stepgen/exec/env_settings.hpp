// The environment variables the runtime reads (tuning, testing and debugging aids), read once
// into one struct: nothing else in runtime/ calls getenv. docs/generated.md's table
// "Environment variables" lists them; a program prints the ones set under --verbose.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stepgen::rt {

/// Every STEPGEN_* variable the runtime reads, parsed as its one reader did. A default-made
/// EnvSettings is the behaviour with none of them set. Values checked where they are used
/// (STEPGEN_LOCAL, STEPGEN_MPI_CUDA_AWARE, STEPGEN_AUTO_CHOICE) are kept as text, so that their
/// errors come at the same point of the run as before (a usage error, a collective error).
struct EnvSettings {
  /// STEPGEN_FRAMES=host: <boundary> frames refreshed through the host, as an MPI rank's
  /// periodic neighbour on another rank is (engine_frames.hpp). Default: on the devices.
  bool frames_on_host = false;
  /// STEPGEN_FRAMES=rect: OpenCL frames copied by rectangles, not by the frame kernels
  /// (engine_opencl.hpp). Default: the frame kernels where they build.
  bool frames_by_rect = false;
  /// STEPGEN_LOCAL=K=AxBxC,...: launch shapes of <local size="auto"/> kernels, as --local
  /// gives them (the flag wins; tune.hpp). Unset: none. Set, even empty, it is parsed.
  std::optional<std::string> local;
  /// STEPGEN_OVERLAP=off: exchanges never overlap computation (the report says why; to
  /// compare). Default: they overlap where the plan allows (engine.hpp).
  bool overlap_off = false;
  /// STEPGEN_HOST_COPIES=all: every array of an in-core run gets a host copy (to compare
  /// memory or bits). Default: only the arrays that need one (main_host.hpp).
  bool host_copies_all = false;
  /// STEPGEN_CUDA_PEER=off: no peer copies between GPUs, every exchange through pinned host
  /// memory (cuda_exchange.hpp). Default: peer access where both GPUs allow it.
  bool cuda_peer_off = false;
  /// STEPGEN_MPI_SHARE_DEVICES (set, not "0" nor "off"): ranks of a node may share GPUs, for
  /// testing on fewer GPUs than ranks (mpi_cuda.hpp). Default: one rank per GPU, else an error.
  bool mpi_share_devices = false;
  /// STEPGEN_MPI_CUDA_AWARE=on|off|auto: the message path of CUDA ranks (device buffers to
  /// MPI, or pinned host buffers); checked collectively by mpi::choose_message_path.
  /// Default ("" or auto): device buffers when every rank's MPI says it is CUDA-aware.
  std::string mpi_cuda_aware;
  /// STEPGEN_REDUCE_FLOAT=0|1 (benchmarks): how the OpenCL float sum and l2 kernels reach a
  /// value's class, 0: the compare for every value, 1: the hot class for both; the same bits
  /// either way (reduce_opencl.hpp). Default (unset or another value): 3.
  int reduce_float_mode = 3;
  /// STEPGEN_REDUCE_CL_OPTIONS: more OpenCL build options for the reduction programs
  /// (benchmarks, e.g. -cl-nv-maxrregcount=N; reduce_opencl.hpp). Default: none.
  std::string reduce_cl_options;
  /// STEPGEN_PROBE_INT_ZERO, _NEGATIVE, _EDGES, _SHIFT, _LINES=0: that pass or check of the
  /// kernel probe does not run (docs/spec.md, "The kernel probe"). Default: every one runs.
  bool probe_int_zero = true;
  bool probe_negative = true;
  bool probe_edges = true;
  bool probe_shift = true;
  bool probe_lines = true;
  /// STEPGEN_SPEC_DIR=DIR: where file() initial values are read when --spec-dir is not given
  /// (io/program_io.hpp). Default ("" or unset): the spec's folder at generation.
  std::string spec_dir;
  /// STEPGEN_AUTO_CHOICE=in-core|out-of-core (tests): `--out-of-core auto` takes that choice
  /// whatever the prediction; another non-empty value is an error where the choice is made
  /// (ooc/choice.hpp). Default (unset or ""): the prediction decides.
  std::string auto_choice;
  /// STEPGEN_BOUNDARY_DEBUG (set, any value): each MPI rank prints its out-of-core pass
  /// boundaries' exchange split at the end (mpi_rank.hpp). Default: not printed.
  bool boundary_debug = false;

  /// The variables that were set, NAME and value, in the order of kNames: what --verbose
  /// prints.
  std::vector<std::pair<std::string, std::string>> set;

  /// Every variable read, in the order the report prints them.
  static constexpr const char* kNames[] = {
      "STEPGEN_FRAMES",         "STEPGEN_LOCAL",          "STEPGEN_OVERLAP",
      "STEPGEN_HOST_COPIES",    "STEPGEN_CUDA_PEER",      "STEPGEN_MPI_SHARE_DEVICES",
      "STEPGEN_MPI_CUDA_AWARE", "STEPGEN_REDUCE_FLOAT",   "STEPGEN_REDUCE_CL_OPTIONS",
      "STEPGEN_PROBE_INT_ZERO", "STEPGEN_PROBE_NEGATIVE", "STEPGEN_PROBE_EDGES",
      "STEPGEN_PROBE_SHIFT",    "STEPGEN_PROBE_LINES",    "STEPGEN_SPEC_DIR",
      "STEPGEN_AUTO_CHOICE",    "STEPGEN_BOUNDARY_DEBUG"};

  /// A variable's value, or nullptr when it is unset (std::getenv's contract).
  using Lookup = std::function<const char*(const char*)>;

  /// The settings `lookup` gives (the real environment: from_environment).
  static EnvSettings parse(const Lookup& lookup) {
    EnvSettings s;
    for (const char* name : kNames)
      if (const char* v = lookup(name)) s.set.emplace_back(name, v);
    auto get = [&](const char* name) -> const char* { return lookup(name); };
    auto is = [&](const char* name, const char* value) {
      const char* v = get(name);
      return v != nullptr && std::string(v) == value;
    };
    auto text = [&](const char* name) {
      const char* v = get(name);
      return v ? std::string(v) : std::string();
    };
    s.frames_on_host = is("STEPGEN_FRAMES", "host");
    s.frames_by_rect = is("STEPGEN_FRAMES", "rect");
    if (const char* v = get("STEPGEN_LOCAL")) s.local = std::string(v);
    s.overlap_off = is("STEPGEN_OVERLAP", "off");
    s.host_copies_all = is("STEPGEN_HOST_COPIES", "all");
    s.cuda_peer_off = is("STEPGEN_CUDA_PEER", "off");
    const std::string share = text("STEPGEN_MPI_SHARE_DEVICES");
    s.mpi_share_devices = !share.empty() && share != "0" && share != "off";
    s.mpi_cuda_aware = text("STEPGEN_MPI_CUDA_AWARE");
    if (const char* v = get("STEPGEN_REDUCE_FLOAT"))
      if ((v[0] == '0' || v[0] == '1') && v[1] == '\0') s.reduce_float_mode = v[0] - '0';
    s.reduce_cl_options = text("STEPGEN_REDUCE_CL_OPTIONS");
    s.probe_int_zero = !is("STEPGEN_PROBE_INT_ZERO", "0");
    s.probe_negative = !is("STEPGEN_PROBE_NEGATIVE", "0");
    s.probe_edges = !is("STEPGEN_PROBE_EDGES", "0");
    s.probe_shift = !is("STEPGEN_PROBE_SHIFT", "0");
    s.probe_lines = !is("STEPGEN_PROBE_LINES", "0");
    s.spec_dir = text("STEPGEN_SPEC_DIR");
    s.auto_choice = text("STEPGEN_AUTO_CHOICE");
    s.boundary_debug = get("STEPGEN_BOUNDARY_DEBUG") != nullptr;
    return s;
  }

  /// The settings of this process's environment.
  static EnvSettings from_environment() {
    return parse([](const char* name) -> const char* { return std::getenv(name); });
  }

  /// The report's lines under --verbose: "environment: NAME=VALUE ..." of the variables set,
  /// or "environment: no STEPGEN_* variable set".
  void print(std::FILE* out) const {
    if (set.empty()) {
      std::fprintf(out, "environment: no STEPGEN_* variable set\n");
      return;
    }
    std::fprintf(out, "environment:");
    for (const auto& [name, value] : set) std::fprintf(out, " %s=%s", name.c_str(), value.c_str());
    std::fprintf(out, "\n");
  }
};

namespace detail {
inline EnvSettings& env_settings_slot() {
  static EnvSettings s = EnvSettings::from_environment();
  return s;
}
}  // namespace detail

/// The process's settings, read from the environment on first use and kept.
inline const EnvSettings& env_settings() {
  return detail::env_settings_slot();
}

/// For tests: `s` in place of the environment's settings while it lives (not thread-safe;
/// make it before the code under test starts threads).
class ScopedEnvSettings {
 public:
  explicit ScopedEnvSettings(EnvSettings s) : saved_(detail::env_settings_slot()) {
    detail::env_settings_slot() = std::move(s);
  }
  ~ScopedEnvSettings() { detail::env_settings_slot() = std::move(saved_); }
  ScopedEnvSettings(const ScopedEnvSettings&) = delete;
  ScopedEnvSettings& operator=(const ScopedEnvSettings&) = delete;

 private:
  EnvSettings saved_;
};

}  // namespace stepgen::rt

// The environment's settings (env_settings.hpp): each STEPGEN_* variable parsed as its reader
// in the engines did, from a given environment; the defaults with none set; what --verbose
// prints.
#include "stepgen/exec/env_settings.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <string>

using namespace stepgen::rt;

namespace {

EnvSettings parse(const std::map<std::string, std::string>& env) {
  return EnvSettings::parse([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string printed(const EnvSettings& s) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  s.print(f);
  std::rewind(f);
  std::string out;
  for (int c; (c = std::fgetc(f)) != EOF;) out += static_cast<char>(c);
  std::fclose(f);
  return out;
}

}  // namespace

TEST_CASE("environment settings: none set, the defaults") {
  const EnvSettings s = parse({});
  CHECK_FALSE(s.frames_on_host);
  CHECK_FALSE(s.frames_by_rect);
  CHECK_FALSE(s.local.has_value());
  CHECK_FALSE(s.overlap_off);
  CHECK_FALSE(s.host_copies_all);
  CHECK_FALSE(s.cuda_peer_off);
  CHECK_FALSE(s.mpi_share_devices);
  CHECK(s.mpi_cuda_aware.empty());
  CHECK(s.reduce_float_mode == 3);
  CHECK(s.reduce_cl_options.empty());
  CHECK(s.probe_int_zero);
  CHECK(s.probe_negative);
  CHECK(s.probe_edges);
  CHECK(s.probe_shift);
  CHECK(s.probe_lines);
  CHECK(s.spec_dir.empty());
  CHECK(s.auto_choice.empty());
  CHECK_FALSE(s.boundary_debug);
  CHECK(s.set.empty());
  CHECK(printed(s) == "environment: no STEPGEN_* variable set\n");
}

TEST_CASE("environment settings: each variable's values, as the engines read them") {
  CHECK(parse({{"STEPGEN_FRAMES", "host"}}).frames_on_host);
  CHECK(parse({{"STEPGEN_FRAMES", "rect"}}).frames_by_rect);
  CHECK_FALSE(parse({{"STEPGEN_FRAMES", "rect"}}).frames_on_host);
  CHECK_FALSE(parse({{"STEPGEN_FRAMES", "Host"}}).frames_on_host);
  // STEPGEN_LOCAL set, even empty, is parsed (by rt::local_overrides).
  CHECK(parse({{"STEPGEN_LOCAL", ""}}).local == std::string());
  CHECK(parse({{"STEPGEN_LOCAL", "lap=32x4"}}).local == std::string("lap=32x4"));
  CHECK(parse({{"STEPGEN_OVERLAP", "off"}}).overlap_off);
  CHECK_FALSE(parse({{"STEPGEN_OVERLAP", "0"}}).overlap_off);
  CHECK(parse({{"STEPGEN_HOST_COPIES", "all"}}).host_copies_all);
  CHECK(parse({{"STEPGEN_CUDA_PEER", "off"}}).cuda_peer_off);
  // Share: set and neither "0" nor "off".
  CHECK(parse({{"STEPGEN_MPI_SHARE_DEVICES", "1"}}).mpi_share_devices);
  CHECK(parse({{"STEPGEN_MPI_SHARE_DEVICES", "yes"}}).mpi_share_devices);
  CHECK_FALSE(parse({{"STEPGEN_MPI_SHARE_DEVICES", ""}}).mpi_share_devices);
  CHECK_FALSE(parse({{"STEPGEN_MPI_SHARE_DEVICES", "0"}}).mpi_share_devices);
  CHECK_FALSE(parse({{"STEPGEN_MPI_SHARE_DEVICES", "off"}}).mpi_share_devices);
  // Kept as text: checked collectively by mpi::choose_message_path.
  CHECK(parse({{"STEPGEN_MPI_CUDA_AWARE", "bogus"}}).mpi_cuda_aware == "bogus");
  // Float mode: exactly "0" or "1", else the default 3.
  CHECK(parse({{"STEPGEN_REDUCE_FLOAT", "0"}}).reduce_float_mode == 0);
  CHECK(parse({{"STEPGEN_REDUCE_FLOAT", "1"}}).reduce_float_mode == 1);
  for (const char* other : {"", "2", "01", "1 ", "x"}) {
    CAPTURE(other);
    CHECK(parse({{"STEPGEN_REDUCE_FLOAT", other}}).reduce_float_mode == 3);
  }
  CHECK(parse({{"STEPGEN_REDUCE_CL_OPTIONS", "-cl-nv-maxrregcount=32"}}).reduce_cl_options ==
        "-cl-nv-maxrregcount=32");
  // A probe pass is skipped by "0" only.
  const EnvSettings off = parse({{"STEPGEN_PROBE_INT_ZERO", "0"},
                                 {"STEPGEN_PROBE_NEGATIVE", "0"},
                                 {"STEPGEN_PROBE_EDGES", "0"},
                                 {"STEPGEN_PROBE_SHIFT", "0"},
                                 {"STEPGEN_PROBE_LINES", "0"}});
  CHECK_FALSE(off.probe_int_zero);
  CHECK_FALSE(off.probe_negative);
  CHECK_FALSE(off.probe_edges);
  CHECK_FALSE(off.probe_shift);
  CHECK_FALSE(off.probe_lines);
  CHECK(parse({{"STEPGEN_PROBE_EDGES", "off"}}).probe_edges);
  CHECK(parse({{"STEPGEN_SPEC_DIR", "/data"}}).spec_dir == "/data");
  CHECK(parse({{"STEPGEN_AUTO_CHOICE", "in-core"}}).auto_choice == "in-core");
  // Debug output: set at all, even empty.
  CHECK(parse({{"STEPGEN_BOUNDARY_DEBUG", ""}}).boundary_debug);
}

TEST_CASE("environment settings: --verbose names the variables set, in the table's order") {
  const EnvSettings s = parse({{"STEPGEN_OVERLAP", "off"},
                               {"STEPGEN_FRAMES", "host"},
                               {"STEPGEN_UNKNOWN", "1"},
                               {"STEPGEN_LOCAL", ""}});
  REQUIRE(s.set.size() == 3);
  CHECK(printed(s) == "environment: STEPGEN_FRAMES=host STEPGEN_LOCAL= STEPGEN_OVERLAP=off\n");
}

TEST_CASE("environment settings: a scoped replacement, then the process's again") {
  const bool before = env_settings().host_copies_all;
  {
    EnvSettings all;
    all.host_copies_all = !before;
    ScopedEnvSettings scope(all);
    CHECK(env_settings().host_copies_all == !before);
  }
  CHECK(env_settings().host_copies_all == before);
}

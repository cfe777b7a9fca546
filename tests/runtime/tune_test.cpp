// Launch shapes given at run time (tune.hpp: --local, STEPGEN_LOCAL): parsed per kernel, only
// for kernels whose spec says <local size="auto"/>, every bad entry a UsageError naming the
// source, the entry and the cause.
#include "stepgen/exec/tune.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace stepgen::rt;

namespace {

struct FakeBackend {
  struct Launch {};
};

void no_launch(const FakeBackend::Launch&) {}

// Kernels "lap" (tuned), "upd" (fixed shape), "src" (tuned) of a 3D program.
struct Kernels {
  KernelEntry<FakeBackend> entries[3];
  LocalShapes lap{3, {{32, 4, 1}}, 0}, src{3, {{8, 8, 1}}, 0};
  std::vector<TunedKernel> tuned;
  Kernels() {
    entries[0].probe.name = "lap";
    entries[1].probe.name = "upd";
    entries[2].probe.name = "src";
    for (KernelEntry<FakeBackend>& e : entries) e.launch = no_launch;
    tuned = {{0, &lap}, {2, &src}};
  }
  std::vector<LocalOverride> parse(const std::vector<std::string>& flags) {
    return local_overrides(flags, entries, 3, tuned, 3);
  }
};

std::string usage_error(Kernels& k, const std::vector<std::string>& flags) {
  try {
    k.parse(flags);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The settings of an environment whose STEPGEN_LOCAL is `local` (nullptr: unset).
EnvSettings local_env(const char* local) {
  return EnvSettings::parse([local](const char* name) -> const char* {
    return std::string(name) == "STEPGEN_LOCAL" ? local : nullptr;
  });
}

}  // namespace

TEST_CASE("local overrides: --local and STEPGEN_LOCAL, the flag last, per tuned kernel") {
  Kernels k;
  std::vector<LocalOverride> o;
  {
    ScopedEnvSettings unset(local_env(nullptr));
    CHECK(k.parse({}).empty());
  }
  {
    ScopedEnvSettings env(local_env("lap=32x1x16,src=64x4x1"));
    o = k.parse({"src=16x16x1"});
  }
  REQUIRE(o.size() == 2);
  CHECK(o[0].tuned == 0);
  CHECK(o[0].shape == std::array<std::size_t, 3>{32, 1, 16});
  CHECK(o[0].from == "STEPGEN_LOCAL");
  CHECK(o[1].tuned == 1);  // src, the second tuned kernel: the flag's shape
  CHECK(o[1].shape == std::array<std::size_t, 3>{16, 16, 1});
  CHECK(o[1].from == "--local");
}

TEST_CASE("local overrides: a fixed-shape kernel, an unknown one, a bad shape: UsageError") {
  Kernels k;
  ScopedEnvSettings unset(local_env(nullptr));
  std::string e = usage_error(k, {"upd=64x4x1"});
  CHECK(e.find("--local: 'upd=64x4x1'") != std::string::npos);
  CHECK(e.find("fixed local size") != std::string::npos);
  e = usage_error(k, {"nope=4x4x4"});
  CHECK(e.find("no kernel 'nope' (kernels: lap upd src)") != std::string::npos);
  for (const char* bad : {"lap=32x4", "lap=32x4x1x1", "lap=0x4x1", "lap=32x-4x1", "lap=32xx1",
                          "lap=32x4x1e", "lap", "=4x4x4", "lap=4x4x2097152"}) {
    CAPTURE(bad);
    CHECK(usage_error(k, {bad}).find(std::string("'") + bad + "'") != std::string::npos);
  }
  {
    ScopedEnvSettings env(local_env("lap=32x4"));
    e = usage_error(k, {});
  }
  CHECK(e.find("STEPGEN_LOCAL: 'lap=32x4': the shape needs 3 sizes") != std::string::npos);
}

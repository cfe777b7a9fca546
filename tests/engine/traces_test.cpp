// The engine's sources and receivers (runtime/stepgen/exec/engine_traces.hpp) on the host backend:
// a source on a seam between parts adds its value to every copy of its cell (owned and ghost), so
// that no exchange is needed after it, and receivers on seams and corners sample each point
// once, from the part that owns it; on any partition the arrays and the traces equal a plain
// loop with the same source bit for bit.
#include "stepgen/exec/traces.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jacobi_case.hpp"
#include "stepgen/exec/engine_host.hpp"
#include "stepgen/plan/placement.hpp"

using namespace engine_case;

// A namespace of its own (not an anonymous one): the unity build (scripts/setup.sh) compiles
// the engine tests as one file.
namespace traces_test {

const rt::Vec3 kSource = {18, 10, 0};  // on the seam of 3 slabs (y = 10) and of a 2x2 grid
double source_value(std::int64_t step) {
  return 0.5 * static_cast<double>(step + 1);
}
const rt::Inject kInject = {kA, kSource, source_value, rt::add_to_cell<float>, sizeof(float), "A"};

const std::vector<rt::Vec3> kPoints = {{18, 10, 0}, {18, 9, 0},  {0, 0, 0},
                                       {36, 28, 0}, {5, 19, 0},  {5, 20, 0},
                                       {18, 14, 0}, {19, 14, 0}, {17, 15, 0}};

template <class Engine>
void loop_with_source(Engine& run, std::int64_t steps, rt::Record& r) {
  for (std::int64_t step = run.first_step(); step < steps; ++step) {
    run.launch_and_exchange(jacobi, kLaunches[0], {kB}, step);
    run.swap({kA, kB});
    run.inject(kInject, step);  // into the new A: its owned cell and every ghost copy
    run.record(r, step);
    if (!run.end_of_step(step)) break;
  }
}

// The plain loop with the source, and A at the points after each step.
std::pair<std::vector<HostArray>, std::vector<double>> serial_with_source() {
  std::vector<HostArray> h = initial();
  std::vector<double> traces;
  const Index nx = kGrid.extent(0);
  for (std::int64_t s = 0; s < kSteps; ++s) {
    const float* a = h[kA].as<float>();
    float* b = h[kB].as<float>();
    for (Index y = 1; y + 1 < kGrid.extent(1); ++y)
      for (Index x = 1; x + 1 < nx; ++x)
        b[y * nx + x] = 0.25f * (a[y * nx + x - 1] + a[y * nx + x + 1] + a[(y - 1) * nx + x] +
                                 a[(y + 1) * nx + x]);
    std::swap(h[kA], h[kB]);
    float* na = h[kA].as<float>();
    na[kSource[1] * nx + kSource[0]] += static_cast<float>(source_value(s));
    for (const rt::Vec3& p : kPoints) traces.push_back(na[p[1] * nx + p[0]]);
  }
  return {std::move(h), std::move(traces)};
}

struct Run {
  std::vector<HostArray> host;
  std::vector<double> traces;
  std::vector<char> have;
};

Run run(const rt::PartitionRequest& request, int devices) {
  rt::Partition partition = rt::partition(request);
  std::vector<host::Device> d = place_on_devices(partition, devices);
  Run out;
  out.host = initial();
  const rt::Problem<host::Backend> p = problem(1);
  rt::Record r(kA, "A", kPoints, 2, 1, "unused.csv", sizeof(float), rt::cell_value<float>, 9);
  r.begin(kSteps);
  rt::InCore<host::Backend> engine(p, d, partition, out.host, rt::Probed{});
  static rt::Record* current = nullptr;
  current = &r;
  engine.run(kSteps, [](rt::InCore<host::Backend>& e, std::int64_t steps) {
    loop_with_source(e, steps, *current);
  });
  out.traces = r.values();
  out.have = r.have();
  return out;
}

TEST_CASE("engine traces: a source on a seam and receivers on seams, on every partition") {
  const auto [want, traces] = serial_with_source();
  struct Case {
    const char* name;
    rt::PartitionRequest request;
    int devices;
  };
  const std::vector<Case> cases = {
      {"1 part", request(1, rt::Strategy::kSlabs, 1), 1},
      {"3 slabs", request(3, rt::Strategy::kSlabs, 1), 3},
      {"2x2", request(4, rt::Strategy::kMinExchange, 1), 4},
      {"5 parts on 2 devices", request(5, rt::Strategy::kSlabs, 1), 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Run got = run(c.request, c.devices);
    for (int id = 0; id < kArrays; ++id)
      CHECK(rt::compare_arrays<float>(got.host[static_cast<std::size_t>(id)],
                                      want[static_cast<std::size_t>(id)]) == "");
    REQUIRE(got.traces.size() == traces.size());
    for (std::size_t i = 0; i < traces.size(); ++i) {
      CAPTURE(i);
      CHECK(got.have[i] == 1);  // every point sampled, by the one part that owns it
      CHECK(got.traces[i] == traces[i]);
    }
  }
}

}  // namespace traces_test

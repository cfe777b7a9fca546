// The engine tests' case (tests/engine): a 2D Jacobi step written for one device (over its
// whole buffer, guarded at the buffer's edge), its arrays, problem and partition request on
// the host backend, its initial values and the plain loop over the grid they are checked
// against. Included by the tests of one process (engine_test.cpp) and of MPI ranks with
// several parts (rank_parts_test.cpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "stepgen/exec/engine_host.hpp"
#include "stepgen/plan/placement.hpp"

namespace engine_case {

using namespace stepgen;
using rt::Box;
using rt::HostArray;
using rt::Index;

enum : int { kA, kB, kArrays };
const Box kGrid = Box::from_extent(2, {37, 29, 1});
constexpr std::int64_t kSteps = 7;

inline rt::Halo five_point(int = 0) {
  return rt::Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}});
}

// The single-device kernel: every cell of the buffer but its edge, as one device computes them.
inline void jacobi(const host::Launch& at) {
  const Box& g = at.part.ghost;
  for (Index y = g.lo[1] + 1; y < g.hi[1] - 1; ++y)
    for (Index x = g.lo[0] + 1; x < g.hi[0] - 1; ++x)
      at.at<float>(kB, x, y) = 0.25f * (at.at<float>(kA, x - 1, y) + at.at<float>(kA, x + 1, y) +
                                        at.at<float>(kA, x, y - 1) + at.at<float>(kA, x, y + 1));
}

const std::vector<rt::ProbeLaunch> kLaunches = {
    {0, {0, 0, 0}, {0, 0, 0}, rt::Reach{1, 1}, rt::Group{1}, rt::CellsPerItem{1}}};

template <class Engine>
void time_loop(Engine& run, std::int64_t steps) {
  for (std::int64_t step = run.first_step(); step < steps; ++step) {
    run.launch_and_exchange(jacobi, kLaunches[0], {kB}, step);
    run.reduce(0, step);
    run.swap({kA, kB});
    if (!run.end_of_step(step)) break;
  }
}

const rt::ArrayInfo kInfo[kArrays] = {
    {"A", sizeof(float), rt::kExchanged | rt::kResult | rt::kFloating | rt::kStoredBack,
     rt::compare_arrays<float>, rt::init_random<float>(7u)},
    {"B", sizeof(float), rt::kExchanged | rt::kResult | rt::kFloating | rt::kStoredBack,
     rt::compare_arrays<float>, rt::init_copy(kA)},
};

inline rt::Problem<host::Backend> problem(int every) {
  rt::Problem<host::Backend> p;
  p.dims = 2;
  p.exchange_every = every;
  p.arrays = kInfo;
  p.array_count = kArrays;
  p.array_halo = five_point;
  p.launches = &kLaunches;
  return p;
}

inline rt::PartitionRequest request(int parts, rt::Strategy strategy, int every,
                                    std::vector<double> weights = {}) {
  rt::PartitionRequest r;
  r.dims = 2;
  r.domain = kGrid.extents();
  r.halo = five_point();
  r.ghost_lo = {every, every, 0};
  r.ghost_hi = {every, every, 0};
  r.devices = parts;
  r.weights = std::move(weights);
  r.every = every;
  r.strategy = strategy;
  return r;
}

// A random, B = copy(A): on the host, or (held false) made on the devices by the engine.
inline std::vector<HostArray> initial(bool held = true) {
  std::vector<HostArray> host;
  host.emplace_back("A", sizeof(float), kGrid);
  host.emplace_back("B", sizeof(float), kGrid);
  if (!held) {
    for (HostArray& a : host) a = HostArray::absent(a.name, a.element_bytes, kGrid);
    return host;
  }
  float* a = host[kA].as<float>();
  for (Index i = 0; i < kGrid.volume(); ++i)
    a[i] = rt::random_value<float>(7u, static_cast<std::uint64_t>(i));
  host[kB].bytes = host[kA].bytes;
  return host;
}

// The plain loop over the whole grid.
inline std::vector<HostArray> serial() {
  std::vector<HostArray> h = initial();
  for (std::int64_t s = 0; s < kSteps; ++s) {
    const float* a = h[kA].as<float>();
    float* b = h[kB].as<float>();
    const Index nx = kGrid.extent(0);
    for (Index y = 1; y + 1 < kGrid.extent(1); ++y)
      for (Index x = 1; x + 1 < nx; ++x)
        b[y * nx + x] = 0.25f * (a[y * nx + x - 1] + a[y * nx + x + 1] + a[(y - 1) * nx + x] +
                                 a[(y + 1) * nx + x]);
    std::swap(h[kA], h[kB]);
  }
  return h;
}

// A random(7), B = copy(A), over `box` of the grid.
inline std::vector<HostArray> initial_over(const Box& box) {
  std::vector<HostArray> host;
  host.emplace_back("A", sizeof(float), box);
  host.emplace_back("B", sizeof(float), box);
  for (Index y = box.lo[1]; y < box.hi[1]; ++y)
    for (Index x = box.lo[0]; x < box.hi[0]; ++x)
      host[kA].as<float>()[(y - box.lo[1]) * box.extent(0) + (x - box.lo[0])] =
          rt::random_value<float>(7u, static_cast<std::uint64_t>(y * kGrid.extent(0) + x));
  host[kB].bytes = host[kA].bytes;
  return host;
}

// `devices` host devices for `partition`, its parts placed on them as --parts places them (a
// device handle per part where parts share a device).
inline std::vector<host::Device> place_on_devices(rt::Partition& partition, int devices) {
  rt::place_parts(partition, devices);
  std::vector<host::Device> d(static_cast<std::size_t>(devices));
  for (int i = 0; i < devices; ++i) d[static_cast<std::size_t>(i)].index = i;
  if (rt::shares_devices(partition)) d = host::Backend::part_devices(std::move(d), partition);
  return d;
}

}  // namespace engine_case

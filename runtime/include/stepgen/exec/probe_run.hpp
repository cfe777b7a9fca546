#pragma once
/// \file
/// The kernel probe on a device (probe.hpp measures, this runs the kernels): each kernel
/// launched over a small box of host values on one device of the program (probe_runner): at
/// start-up on the probe's own values (probe_kernels), then, once the host arrays hold the
/// values the run starts from, on those (probe_initial_data, probe_data.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/probe_data.hpp"

namespace stepgen::rt {

/// A kernel as the start-up probe sees it (probe.hpp) with its launch function.
template <class B>
struct KernelEntry {
  ProbeKernel probe;
  void (*launch)(const typename B::Launch&);
};

/// Every array's element type, by id, as the probe fills it.
template <class B>
std::vector<ProbeElement> probe_elements(const Problem<B>& problem) {
  std::vector<ProbeElement> elements;
  for (int id = 0; id < problem.array_count; ++id)
    elements.push_back(
        {problem.arrays[id].name, problem.arrays[id].element_bytes, problem.arrays[id].floating()});
  return elements;
}

/// The run of kernel `entry` on device `d` (its built kernels `k`) that the probe calls: the
/// host values uploaded over the box, one launch over the whole box at the step, read back. In
/// the kernel's first run while `guarded` is false, each buffer it writes is followed by a
/// guard zone of known bytes (probe_guard_planes), checked after the launch: a kernel writing
/// past its buffer is an error naming it; `guarded` is then set.
template <class B>
ProbeStepRun probe_runner(const Problem<B>& problem, const Box& grid, const typename B::Device& d,
                          const typename B::Kernels& k, const KernelEntry<B>& entry,
                          bool& guarded) {
  std::vector<bool> writes(static_cast<std::size_t>(problem.array_count), false);
  for (const ProbeArg& a : entry.probe.args)
    if (a.written) writes[static_cast<std::size_t>(a.array)] = true;
  return [&problem, &grid, &d, &k, &entry, &guarded, writes](std::vector<HostArray>& values,
                                                             const Box& box, std::int64_t step) {
    std::vector<typename B::Buffer> buf;
    std::vector<Box> space;         // each buffer's box: the box, then its guard's planes
    std::vector<HostArray> guards;  // by array; empty where there is none
    const auto axis = static_cast<std::size_t>(box.dims - 1);
    for (int id = 0; id < problem.array_count; ++id) {
      const auto u = static_cast<std::size_t>(id);
      const std::size_t bytes = problem.arrays[id].element_bytes;
      Box b = box;
      guards.emplace_back();
      if (!guarded && writes[u]) {
        b.hi[axis] += probe_guard_planes(grid, box, bytes);
        Box tail = b;
        tail.lo[axis] = box.hi[axis];
        guards.back() = HostArray(problem.arrays[id].name, bytes, tail);
        for (std::size_t j = 0; j < guards.back().bytes.size(); ++j)
          guards.back().bytes.data()[j] = probe_guard_byte(j);
      }
      space.push_back(b);
      buf.push_back(B::create_buffer(d, b, bytes, problem.arrays[id].name));
      B::write_box(d, buf.back(), b, values[u], box);
      if (!guards.back().bytes.empty())
        B::write_box(d, buf.back(), b, guards.back(), guards.back().box);
    }
    Part part;
    part.owned = part.ghost = box;
    entry.launch(B::whole(d, k, buf, part, step));
    for (std::size_t u = 0; u < buf.size(); ++u) {
      B::read_box(d, buf[u], space[u], values[u], box);
      if (!guards[u].bytes.empty()) B::read_box(d, buf[u], space[u], guards[u], guards[u].box);
    }
    B::finish(d);
    for (const HostArray& g : guards) {
      const std::string why = probe_guard_error(entry.probe.name, g.name, box, g.element_bytes,
                                                g.bytes.data(), g.bytes.size());
      if (!why.empty()) throw RunError(why);
    }
    guarded = true;
  };
}

/// Runs every kernel once over a small box on device `d` and measures what it writes and reads
/// (rt::probe_kernel): a declared halo too small is an error, the rim a kernel leaves decides
/// how it runs on views and how wide ghost zones and chunk windows must be.
template <class B>
Probed probe_kernels(const Problem<B>& problem, const Box& grid, const typename B::Device& d,
                     const KernelEntry<B>* entries, std::size_t count, std::int64_t steps) {
  const typename B::Kernels k =
      problem.build_kernels ? problem.build_kernels(d) : typename B::Kernels{};
  Probed probed;
  for (std::size_t i = 0; i < count; ++i) {
    bool guarded = false;  // the kernel's first run has guard zones after the buffers it writes
    ProbeKernel kernel = entries[i].probe;
    kernel.steps = steps;  // a kernel using `step` is probed at steps spread over the run
    probed.kernels.push_back(probe_kernel(kernel, grid, probe_elements(problem),
                                          probe_runner(problem, grid, d, k, entries[i], guarded)));
  }
  if (problem.launches) probe_needs(probed, *problem.launches, problem.dims);
  return probed;
}
template <class B, std::size_t N>
Probed probe_kernels(const Problem<B>& problem, const Box& grid, const typename B::Device& d,
                     const KernelEntry<B> (&entries)[N], std::int64_t steps) {
  return probe_kernels(problem, grid, d, entries, N, steps);
}

/// The kernel probe's reads on the program's initial data (probe_data.hpp), on device `d`,
/// once `host` holds the values the run starts from at step `step` (0, or a restart's): every
/// kernel the start-up probe measured (`probed`) runs over boxes centred on cells chosen from
/// those values. Returns the errors found ("" none), as probe_report words them.
template <class B>
std::string probe_initial_data(const Problem<B>& problem, const Box& grid,
                               const typename B::Device& d, const KernelEntry<B>* entries,
                               std::size_t count, const std::vector<HostArray>& host,
                               const Probed& probed, std::int64_t step) {
  if (probed.kernels.size() != count) return {};
  const typename B::Kernels k =
      problem.build_kernels ? problem.build_kernels(d) : typename B::Kernels{};
  const std::vector<ProbeElement> elements = probe_elements(problem);
  std::string errors;
  for (std::size_t i = 0; i < count; ++i) {
    bool guarded = true;  // checked at start-up
    for (const std::string& e :
         probe_on_data(entries[i].probe, probed.kernels[i], grid, elements, problem.arrays, host,
                       probe_runner(problem, grid, d, k, entries[i], guarded), step))
      errors += "\n  " + e;
  }
  if (errors.empty()) return {};
  return "the kernel probe found a declared halo too small on the program's initial data:" + errors;
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// One kernel's probe in progress (probe.hpp runs it, probe_reads.hpp holds the read passes):
/// the kernel, its box, the arrays it reads and writes, the step it runs at and the integer fill
/// its written cells were measured with.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "stepgen/exec/probe_values.hpp"

namespace stepgen::rt::detail {

/// A base of the read probe: values, the kernel's output on them, and how they were filled.
struct ProbeBase {
  std::vector<HostArray> in, out;
  bool zero = false;  ///< integer arrays at 0: a CPU device may trap (ProbeZeroGuard)
  std::string how;    ///< for the messages: "with its integer arrays at 0", ...
};

/// What the read probe found of one array it reads, over every base and step.
struct ProbeArrayReads {
  int id = 0;
  Halo declared;                      ///< the union of its arguments' halos
  std::set<Vec3> offsets;             ///< every offset seen read
  std::map<Vec3, std::string> where;  ///< how each offset was first seen (base, step)
  std::string whole_line, across;     ///< a whole line read; a read across the buffer
};

struct ProbeSession {
  const ProbeKernel& k;
  const Box& grid;
  const std::vector<ProbeElement>& elements;
  const ProbeStepRun& run_at;
  KernelProbe& r;
  Box box;
  int dims = 0;
  Vec3 ext{1, 1, 1}, mid{0, 0, 0};
  Index n = 0, mid_i = 0;
  std::set<int> written, read;
  bool reads_int = false, reads_float = false;
  std::int64_t step = 0;   ///< the step the kernel runs at now
  bool ints_zero = false;  ///< the fill the written cells were measured with (integers at 0)

  ProbeSession(const ProbeKernel& kernel, const Box& g, const std::vector<ProbeElement>& e,
               const ProbeStepRun& run, KernelProbe& result, const Box& b)
      : k(kernel), grid(g), elements(e), run_at(run), r(result), box(b), dims(g.dims) {
    ext = box.extents();
    n = box.volume();
    mid = {ext[0] / 2, ext[1] / 2, ext[2] / 2};
    mid_i = index(mid);
    for (const ProbeArg& a : k.args) {
      if (a.written) written.insert(a.array);
      if (a.read) read.insert(a.array);
    }
    for (int id : read)
      (elements[static_cast<std::size_t>(id)].floating ? reads_float : reads_int) = true;
  }

  /// Runs the kernel over `b` at the current step; `zero`: its integer arrays are 0.
  void run(std::vector<HostArray>& a, const Box& b, bool zero) {
    ProbeZeroGuard guard(zero ? k.name : nullptr);
    ++r.runs;
    run_at(a, b, step);
  }
  void run(std::vector<HostArray>& a, bool zero) { run(a, box, zero); }
  /// The probe's values over `b` in the measured fill.
  std::vector<HostArray> values(const Box& b, std::uint32_t seed) const {
    return probe_values(elements, b, seed, ints_zero);
  }
  Vec3 point(Index i) const { return {i % ext[0], (i / ext[0]) % ext[1], i / (ext[0] * ext[1])}; }
  Index index(const Vec3& c) const { return c[0] + ext[0] * (c[1] + ext[1] * c[2]); }
  /// Cells (flags over the box) of a written array whose value differs between `a` and `b`.
  std::vector<char> changed(const std::vector<HostArray>& a,
                            const std::vector<HostArray>& b) const {
    std::vector<char> mask(static_cast<std::size_t>(n), 0);
    for (int w : written) {
      const auto wu = static_cast<std::size_t>(w);
      for (Index i = 0; i < n; ++i)
        if (probe_differs(a[wu], b[wu], elements[wu].bytes, i))
          mask[static_cast<std::size_t>(i)] = 1;
    }
    return mask;
  }
  /// " at step S" where the kernel uses `step`.
  std::string at_step() const {
    return k.uses_step ? " at step " + std::to_string(step) : std::string();
  }
};

}  // namespace stepgen::rt::detail

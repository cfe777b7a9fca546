#pragma once
/// \file
/// The kernel probe on the program's own initial data (issue 49): once the host arrays hold the
/// values the run starts from (their initial values, file(), --load, a checkpoint), each kernel
/// runs again on the start-up probe's box with those values, and its reads are probed there as
/// at start-up (probe_reads.hpp: the middle cell changed, every written cell that changes reads
/// it): on the data as they are, and with each array it reads filled in turn with each of a few
/// values the data hold (an integer array's first 8 distinct values, a floating one's least and
/// greatest, and 0). A branch that only the real data take (a mask of other values than 0 and
/// 1..7, `obst[c] == 2`; a test such as `h[c] > 1.5`) is then seen wherever it is taken in the
/// grid. At the run's first step. Backend-neutral: the backend gives the run (probe_run.hpp).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// What the data probe knows of an array's initial value where the run keeps no host copy
/// (made on the devices): zero, value(v), random(seed) or copy(X), as ArrayInfo::init.
namespace detail {

/// The element at global cell `c` of the grid from `a` (holding it), as raw bytes.
inline const unsigned char* probe_data_at(const HostArray& a, const Vec3& c) {
  const Vec3 e = a.box.extents();
  const Index i =
      (c[0] - a.box.lo[0]) + e[0] * ((c[1] - a.box.lo[1]) + e[1] * (c[2] - a.box.lo[2]));
  return a.bytes.data() + static_cast<std::size_t>(i) * a.element_bytes;
}

/// Whether host copy `a` holds every cell of `box`.
inline bool probe_data_holds(const HostArray& a, const Box& box) {
  return a.held && !a.bytes.empty() && intersect(a.box, box) == box;
}

}  // namespace detail

/// The values array `id` starts the run with over `box` (cells of `grid`): its host copy's
/// where it holds the box, else its initial value made as the devices make it (zero, value(v),
/// random(seed), copy(X)); the probe's own values where neither (a host copy that does not
/// hold the box, as an MPI rank's of another rank's cells).
inline HostArray probe_initial_box(const ArrayInfo* arrays, int id,
                                   const std::vector<HostArray>& host, const Box& grid,
                                   const Box& box, const std::vector<ProbeElement>& elements,
                                   int depth = 0) {
  const auto u = static_cast<std::size_t>(id);
  const std::size_t eb = arrays[id].element_bytes;
  HostArray out("probe", eb, box);
  const Vec3 g = grid.extents();
  auto each = [&](auto&& put) {
    Index i = 0;
    for (Index z = box.lo[2]; z < box.hi[2]; ++z)
      for (Index y = box.lo[1]; y < box.hi[1]; ++y)
        for (Index x = box.lo[0]; x < box.hi[0]; ++x, ++i)
          put(out.bytes.data() + static_cast<std::size_t>(i) * eb, Vec3{x, y, z});
  };
  if (u < host.size() && detail::probe_data_holds(host[u], box)) {
    each([&](unsigned char* to, const Vec3& c) {
      std::memcpy(to, detail::probe_data_at(host[u], c), eb);
    });
    return out;
  }
  const ArrayInit& init = arrays[id].init;
  switch (init.kind) {
    case ArrayInit::kZero:
      return out;  // zero-filled
    case ArrayInit::kValue:
      each([&](unsigned char* to, const Vec3&) {
        std::memcpy(to, &init.value, std::min(eb, sizeof init.value));
      });
      return out;
    case ArrayInit::kRandom:
      each([&](unsigned char* to, const Vec3& c) {
        const auto index = static_cast<std::uint64_t>(
            (c[0] - grid.lo[0]) + g[0] * ((c[1] - grid.lo[1]) + g[1] * (c[2] - grid.lo[2])));
        const std::uint64_t bits = random_bits(init.seed, index, init.type);
        std::memcpy(to, &bits, std::min(eb, sizeof bits));
      });
      return out;
    case ArrayInit::kCopy:
      if (init.source >= 0 && depth < 16)
        return probe_initial_box(arrays, init.source, host, grid, box, elements, depth + 1);
      break;
    default:
      break;
  }
  return std::move(probe_values(elements, box, 1)[u]);
}

/// A value an array the kernel reads holds in the program's initial data, that the data probe
/// fills that whole array with in one of its bases.
struct ProbeDataValue {
  int array = 0;
  std::uint64_t bits = 0;  ///< the element's bytes (the low element_bytes)
  std::string text;        ///< for the messages: "9", "-0.5"
};

/// The values the data probe fills the arrays kernel `k` reads with (at most 24): for each one
/// with a host copy (values from a file, --load or a checkpoint; those made on the devices are
/// the data's box as it is), an integer array's first 8 distinct values, a floating one's
/// least and greatest and 0 where it holds one. A host copy of more than 2^24 cells is scanned
/// with a stride.
inline std::vector<ProbeDataValue> probe_data_values(const ProbeKernel& k,
                                                     const std::vector<HostArray>& host,
                                                     const Box& grid,
                                                     const std::vector<ProbeElement>& elements) {
  std::vector<ProbeDataValue> out;
  std::set<int> read;
  for (const ProbeArg& a : k.args)
    if (a.read) read.insert(a.array);
  for (int id : read) {
    const auto u = static_cast<std::size_t>(id);
    if (u >= host.size() || !host[u].held || host[u].bytes.empty()) continue;
    const HostArray& a = host[u];
    const ProbeElement& e = elements[u];
    const Box b = intersect(a.box, grid);
    const Index n = b.volume();
    if (n <= 0 || e.bytes > 8) continue;
    const Index stride = std::max<Index>(1, n >> 24);
    const Vec3 be = b.extents();
    auto bits_at = [&](Index i) {
      std::uint64_t v = 0;
      const Vec3 c{b.lo[0] + i % be[0], b.lo[1] + (i / be[0]) % be[1],
                   b.lo[2] + i / (be[0] * be[1])};
      std::memcpy(&v, detail::probe_data_at(a, c), e.bytes);
      return v;
    };
    if (!e.floating) {
      std::set<std::uint64_t> seen;
      for (Index i = 0; i < n && seen.size() < 8; i += stride)
        if (seen.insert(bits_at(i)).second) {
          std::uint64_t v = bits_at(i);
          // Sign-extended for the message (the probe's integer types are signed or unsigned
          // alike here: the text only names the value).
          long long shown = 0;
          if (e.bytes == 8) {
            std::memcpy(&shown, &v, 8);
          } else {
            const std::uint64_t sign = std::uint64_t{1} << (8 * e.bytes - 1);
            shown = static_cast<long long>((v ^ sign) - sign);
          }
          out.push_back({id, v, std::to_string(shown)});
        }
      continue;
    }
    if (e.bytes != 4 && e.bytes != 8) continue;
    auto value = [&](std::uint64_t v) {
      if (e.bytes == 4) {
        float f;
        const auto w = static_cast<std::uint32_t>(v);
        std::memcpy(&f, &w, 4);
        return static_cast<double>(f);
      }
      double d;
      std::memcpy(&d, &v, 8);
      return d;
    };
    std::uint64_t lo = 0, hi = 0;
    bool any = false, zero = false;
    for (Index i = 0; i < n; i += stride) {
      const std::uint64_t v = bits_at(i);
      const double x = value(v);
      if (x != x) continue;  // NaN
      if (!any || x < value(lo)) lo = v;
      if (!any || x > value(hi)) hi = v;
      zero = zero || x == 0;
      any = true;
    }
    if (!any) continue;
    auto text = [&](std::uint64_t v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", value(v));
      return std::string(buf);
    };
    out.push_back({id, lo, text(lo)});
    if (value(hi) != value(lo)) out.push_back({id, hi, text(hi)});
    if (zero && value(lo) != 0 && value(hi) != 0) out.push_back({id, 0, "0"});
  }
  if (out.size() > 24) out.resize(24);
  return out;
}

/// The kernel's reads probed on the program's initial data (the file's header), on a box of the
/// size the start-up probe measured on (`measured.box`, at the grid's centre; within the host
/// arrays' cells where they hold only some: an MPI rank's) at `step`: one base holds
/// the arrays' initial values there (probe_initial_box), and one more for each value of
/// probe_data_values holds them with that array filled with that value everywhere (so a branch
/// the data take only at some cells, `m[c] == 9`, `h[c] > 2.5`, is taken at every cell of the
/// box); on each, the middle cell of each array it reads is changed (twice) and every written
/// cell that changes reads it (probe_middle). Returns the errors (a read outside the declared
/// halo, a whole line) the start-up probe did not give, each saying on which base it was seen.
/// Nothing where the start-up probe could not probe the kernel or saw it write nothing.
inline std::vector<std::string> probe_on_data(const ProbeKernel& k, const KernelProbe& measured,
                                              const Box& grid,
                                              const std::vector<ProbeElement>& elements,
                                              const ArrayInfo* arrays,
                                              const std::vector<HostArray>& host,
                                              const ProbeStepRun& run, std::int64_t step) {
  std::vector<std::string> errors;
  if (!measured.probed || !measured.wrote) return errors;
  KernelProbe found;
  found.kernel = k.name;
  // An MPI rank's host arrays hold its own cells: the box moves into them (centred there,
  // its size kept), so that the data it probes are this rank's.
  Box box = measured.box;
  for (const HostArray& h : host) {
    if (!h.held || h.bytes.empty() || detail::probe_data_holds(h, box)) continue;
    const Box in = intersect(h.box, grid);
    for (int d = 0; d < grid.dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      const Index e = box.extent(d);
      if (e >= grid.extent(d) || in.extent(d) < e) continue;
      box.lo[u] = in.lo[u] + (in.extent(d) - e) / 2;
      box.hi[u] = box.lo[u] + e;
    }
    break;
  }
  detail::ProbeSession s(k, grid, elements, run, found, box);
  s.step = step;
  std::vector<detail::ProbeBase> bases(1);
  for (int id = 0; id < static_cast<int>(elements.size()); ++id)
    bases[0].in.push_back(probe_initial_box(arrays, id, host, grid, s.box, elements));
  bases[0].how = " on the program's initial data";
  for (const ProbeDataValue& v : probe_data_values(k, host, grid, elements)) {
    detail::ProbeBase b;
    b.in = bases[0].in;
    HostArray& a = b.in[static_cast<std::size_t>(v.array)];
    for (std::size_t i = 0; i + a.element_bytes <= a.bytes.size(); i += a.element_bytes)
      std::memcpy(a.bytes.data() + i, &v.bits, a.element_bytes);
    b.how = " on the program's initial data with '" +
            elements[static_cast<std::size_t>(v.array)].name + "' at " + v.text +
            " everywhere (a value it holds)";
    bases.push_back(std::move(b));
  }
  for (detail::ProbeBase& b : bases) {
    b.out = b.in;
    s.run(b.out, false);
  }
  std::vector<detail::ProbeArrayReads> reads = detail::probe_read_arrays(s);
  for (detail::ProbeArrayReads& a : reads) {
    detail::probe_middle(s, bases, a);
    detail::probe_read_verdict(s, a);
  }
  for (const std::string& e : found.errors)
    if (std::find(measured.errors.begin(), measured.errors.end(), e) == measured.errors.end())
      errors.push_back(e);
  return errors;
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// Out of core, the host-side copy of a box between host arrays (a one-process run's snapshots
/// of the cells parts read from each other at pass boundaries: ooc/transfers.hpp plans them).

#include <algorithm>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
#include "stepgen/plan/ooc/transfers.hpp"

namespace stepgen::rt::ooc {

/// Copies the cells of `box` from `src` into `dst`, host arrays of any boxes. Large copies
/// (the foreign cells snapshotted at every pass boundary of a several-part run: hundreds of MB
/// at 1160^3) are split by planes of the slowest dimension over up to 16 threads, which move
/// several times the bytes per second of one.
inline void copy_host_box(const HostArray& src, HostArray& dst, const Box& box) {
  if (box.empty()) return;
  const RectCopy s = rect_of(box, src.box, src.element_bytes);
  const RectCopy t = rect_of(box, dst.box, dst.element_bytes);
  auto planes = [&](std::size_t z0, std::size_t z1) {
    for (std::size_t z = z0; z < z1; ++z)
      for (std::size_t y = 0; y < s.region[1]; ++y)
        std::memcpy(dst.bytes.data() + t.offset() + y * t.row_pitch + z * t.slice_pitch,
                    src.bytes.data() + s.offset() + y * s.row_pitch + z * s.slice_pitch,
                    s.region[0]);
  };
  const std::size_t bytes = s.region[0] * s.region[1] * s.region[2];
  // 16 MiB a thread at least. The cores asked once: hardware_concurrency() reads the system
  // each call (5 us here), and the pass boundaries copy a few small boxes (MPI: 2-6 a boundary).
  static const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n =
      std::min<std::size_t>({cores, 16, s.region[2], std::max<std::size_t>(bytes >> 24, 1)});
  std::vector<std::thread> threads;
  std::size_t done = 0;  // planes handed out
  try {
    for (std::size_t i = 1; i < n; ++i) {
      const std::size_t z0 = s.region[2] * i / n, z1 = s.region[2] * (i + 1) / n;
      threads.emplace_back(planes, z0, z1);
      done = z1;
    }
  } catch (const std::system_error&) {
    // No more threads: this one copies what was not handed out.
  }
  const std::size_t first = n > 1 ? s.region[2] / n : s.region[2];
  planes(0, first);
  if (done == 0 && first < s.region[2])
    planes(first, s.region[2]);
  else if (done != 0 && done < s.region[2])
    planes(done, s.region[2]);
  for (std::thread& th : threads) th.join();
}

}  // namespace stepgen::rt::ooc

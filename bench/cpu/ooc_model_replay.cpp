// The out-of-core model replayed on logged inputs (`bench/run.sh replay` feeds it): per
// line a run's name, grid size N (N^3 acoustic: three rotated float pressures and a read-only
// float velocity, halo 4), chunks, k, trapezoid, band sharing, the link (h2d, d2h, bidirectional
// GB/s), the kernels' ns per cell-step, device copies GB/s and the measured seconds (24 steps);
// prints the predicted seconds and the error. -DCONVERT_PER_PROBE_CELL: the logged kernels' figure
// is per probe cell (before the model counted computed cells only) and is converted.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "stepgen/exec/ooc.hpp"
using namespace stepgen::rt;
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string name;
    int n, chunks, k, trap, bands;
    double h2d, d2h, bidir, cell_ns, d2d, measured;
    in >> name >> n >> chunks >> k >> trap >> bands >> h2d >> d2h >> bidir >> cell_ns >> d2d >>
        measured;
    ooc::Request r;
    r.grid = Box::from_extent(3, {n, n, n});
    r.owned = {r.grid};
    r.shrink_lo = {4, 4, 4};
    r.shrink_hi = {4, 4, 4};
    r.arrays = {{"p0", 4, true}, {"p1", 4, true}, {"p2", 4, true}, {"vel", 4, false}};
    r.chunks = chunks;
    r.steps_per_pass = k;
    r.trapezoid = trap;
    r.band_sharing = bands;
    ooc::Schedule sc = ooc::schedule(r);
    ooc::Link link;
    link.h2d = h2d * 1e9;
    link.d2h = d2h * 1e9;
    link.bidir = bidir * 1e9;
    link.d2d = d2d * 1e9;
    link.cell_step = cell_ns * 1e-9;
#ifdef CONVERT_PER_PROBE_CELL
    // The logged kernels' figure divided by every probe cell: per computed cell now.
    const Box probe = ooc::probe_planes(sc.parts[0].reach, 3, 16, Index{1} << 30);
    const Index planes = probe.extent(2);
    link.cell_step *=
        static_cast<double>(planes) / static_cast<double>(ooc::computed_planes(sc, planes));
#endif
    const double p = ooc::predict(sc, link, 24, true);
    std::printf("%-34s %8.3f %8.3f %+6.1f%%\n", name.c_str(), p, measured,
                100 * (p / measured - 1));
  }
}

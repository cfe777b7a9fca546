// Writes the snapshot series that tests/io/check_snapshots.py reads back with h5py:
//   DIR/wave.h5 + wave.xdmf   3D, four element types, arrays written as several parts' boxes
//   DIR/gray.h5 + gray.xdmf   2D, written by the writer thread (SnapshotWriter)
//   DIR/line.h5               1D (no XDMF)
//   DIR/same.h5               what tests/io/snapshot_mpi.cpp writes in parallel, written whole
// and DIR/manifest.txt: one line "FILE STEP ARRAY TYPE RAW" per dataset, RAW holding the bytes
// that were written (the reference).
#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "snapshot_values.hpp"
#include "stepgen/exec/io/snapshot_writer.hpp"

namespace io = stepgen::rt::io;
using stepgen::rt::Box;

namespace {

struct Writer {
  std::string dir;
  std::ofstream manifest;
  explicit Writer(std::string d) : dir(std::move(d)), manifest(dir + "/manifest.txt") {}

  /// The array `name` at `step` over `grid`, as the pieces `boxes`; the reference saved.
  io::SnapshotArray array(const std::string& file, long step, const std::string& name,
                          const std::string& type, const Box& grid, const std::vector<Box>& boxes,
                          std::vector<std::vector<unsigned char>>& keep) {
    const std::size_t eb = io::element_type(type).bytes;
    const auto all = io_test::values(name, step, grid, eb);
    const std::string raw = "raw_" + file + "_" + name + "_" + std::to_string(step) + ".bin";
    io_test::save(dir + "/" + raw, all);
    manifest << file << ".h5 " << step << " " << name << " " << type << " " << raw << "\n";
    io::SnapshotArray a{name, type, {}};
    for (const Box& b : boxes) {
      keep.push_back(io_test::cut(all, grid, b, eb));
      a.pieces.push_back({b, keep.back().data()});
    }
    return a;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: snapshot_write DIR\n");
    return 2;
  }
  try {
    Writer w(argv[1]);
    {
      const Box grid = Box::from_extent(3, {37, 23, 11});
      io::SnapshotGeometry geometry{{0.5, -1, 2}, {0.25, 0.5, 2}, 1e-3};
      io::SnapshotSeries series(w.dir + "/wave.h5", grid, geometry);
      std::vector<Box> quarters;
      for (const Box& by : io_test::slabs(grid, 1, 2))
        for (const Box& b : io_test::slabs(by, 2, 2)) quarters.push_back(b);
      for (long step : {0L, 50L, 100L}) {
        std::vector<std::vector<unsigned char>> keep;
        keep.reserve(16);
        series.write(step,
                     {w.array("wave", step, "p", "double", grid, quarters, keep),
                      w.array("wave", step, "u", "float", grid, {grid}, keep),
                      w.array("wave", step, "flag", "int", grid, io_test::slabs(grid, 0, 3), keep),
                      w.array("wave", step, "mask", "uchar", grid, {grid}, keep)});
      }
    }
    {
      const Box grid = Box::from_extent(2, {64, 48, 1});
      io::SnapshotWriter writer(std::make_unique<io::SnapshotSeries>(w.dir + "/gray.h5", grid), 2);
      for (long step = 0; step < 5; ++step) {
        std::vector<std::vector<unsigned char>> keep;
        keep.reserve(8);
        writer.submit(step,
                      {w.array("gray", step, "h", "float", grid, io_test::slabs(grid, 1, 2), keep),
                       w.array("gray", step, "n", "long", grid, io_test::slabs(grid, 0, 2), keep)});
        for (auto& k : keep) std::fill(k.begin(), k.end(), 0xee);  // submit copied them
      }
      writer.close();
    }
    {
      const Box grid = Box::from_extent(1, {100, 1, 1});
      io::SnapshotSeries series(w.dir + "/line.h5", grid);
      std::vector<std::vector<unsigned char>> keep;
      keep.reserve(4);
      series.write(3, {w.array("line", 3, "q", "short", grid, io_test::slabs(grid, 0, 3), keep)});
    }
    {
      const Box grid = Box::from_extent(3, {37, 23, 11});
      io::SnapshotSeries series(w.dir + "/same.h5", grid);
      for (long step : {0L, 10L}) {
        std::vector<std::vector<unsigned char>> keep;
        keep.reserve(4);
        series.write(step, {w.array("same", step, "p", "double", grid, {grid}, keep),
                            w.array("same", step, "flag", "int", grid, {grid}, keep)});
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snapshot_write: %s\n", e.what());
    return 1;
  }
}

// Parallel HDF5 (H5Pset_fapl_mpio, collective writes): the ranks write DIR/mpi.h5 together,
// each its own slabs of the grid (rank 0 two of them, the last rank of 3 or more none), with the
// values tests/io/snapshot_write.cpp writes whole into DIR/same.h5; check_snapshots.py --same
// compares the two files. Built against parallel HDF5 only.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "snapshot_values.hpp"
#include "stepgen/exec/io/snapshot.hpp"  // mpi.h too, without its C++ bindings

namespace io = stepgen::rt::io;
using stepgen::rt::Box;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    if (argc != 2) throw std::runtime_error("usage: snapshot_mpi DIR");
    const Box grid = Box::from_extent(3, {37, 23, 11});
    // Slabs in z. 2 ranks: 3 slabs, rank 0 two of them. 3 or more: one per rank, rank 0 also
    // takes the last rank's, which has none (it still joins every collective write).
    const std::vector<Box> slabs = io_test::slabs(grid, 2, size == 2 ? 3 : size);
    std::vector<Box> mine;
    const auto at = [&](int i) { return slabs[static_cast<std::size_t>(i)]; };
    if (size == 1) mine = slabs;
    if (size == 2) mine = rank == 0 ? std::vector<Box>{at(0), at(1)} : std::vector<Box>{at(2)};
    if (size >= 3 && rank == 0) mine = {at(0), at(size - 1)};
    if (size >= 3 && rank > 0 && rank < size - 1) mine = {at(rank)};
    io::SnapshotSeries series(std::string(argv[1]) + "/mpi.h5", grid, MPI_COMM_WORLD);
    for (long step : {0L, 10L}) {
      std::vector<std::vector<unsigned char>> keep;
      keep.reserve(8);
      std::vector<io::SnapshotArray> arrays;
      for (const auto& [name, type] :
           {std::pair<std::string, std::string>{"p", "double"}, {"flag", "int"}}) {
        const std::size_t eb = io::element_type(type).bytes;
        const auto all = io_test::values(name, step, grid, eb);
        io::SnapshotArray a{name, type, {}};
        for (const Box& b : mine) {
          keep.push_back(io_test::cut(all, grid, b, eb));
          a.pieces.push_back({b, keep.back().data()});
        }
        arrays.push_back(a);
      }
      series.write(step, arrays);
    }
    // Pieces that leave part of the grid unwritten: every rank refuses the write (no hang).
    if (size > 1) {
      const std::vector<float> some(static_cast<std::size_t>(grid.volume()), 1.0f);
      std::vector<io::Piece> pieces;
      if (rank > 0) pieces.push_back({slabs.back(), some.data()});
      try {
        series.write(20, {{"q", "float", pieces}});
        throw std::runtime_error("a write that leaves cells unwritten was accepted");
      } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).find("the ranks' pieces cover") == std::string::npos) throw;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snapshot_mpi (rank %d): %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}

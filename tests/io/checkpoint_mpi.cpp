// A checkpoint written by 2 or 3 MPI ranks (runtime/include/stepgen/exec/io/checkpoint_mpi.hpp):
// the ranks own z slabs (rank 0 two of them; with 3 ranks the last owns none), write one file,
// which equals byte for byte the file one process writes from the whole arrays; every rank then
// reads back another partition's box (y slabs) bit for bit. A folder that does not exist and
// pieces that leave cells out are errors on every rank alike (no rank left waiting).
#include "stepgen/exec/io/checkpoint_mpi.hpp"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "snapshot_values.hpp"
#include "stepgen/exec/io/checkpoint_reader.hpp"

namespace io = stepgen::rt::io;
using stepgen::rt::Box;

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, status = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    require(argc == 2, "usage: checkpoint_mpi DIR");
    const std::string dir = argv[1];
    const Box grid = Box::from_extent(3, {97, 61, 120});  // doubles: two checksum blocks
    const std::vector<Box> slabs = io_test::slabs(grid, 2, size == 2 ? 3 : size);
    const auto at = [&](int i) { return slabs[static_cast<std::size_t>(i)]; };
    std::vector<Box> mine;
    if (size == 1) mine = slabs;
    if (size == 2) mine = rank == 0 ? std::vector<Box>{at(0), at(1)} : std::vector<Box>{at(2)};
    if (size >= 3 && rank == 0) mine = {at(0), at(size - 1)};
    if (size >= 3 && rank > 0 && rank < size - 1) mine = {at(rank)};

    const std::vector<std::pair<std::string, std::string>> names{{"p", "double"}, {"flag", "int"}};
    std::vector<std::vector<unsigned char>> whole, keep;
    keep.reserve(8);
    std::vector<io::CheckpointSource> sources;
    for (const auto& [name, type] : names) {
      const std::size_t eb = io::element_type(type).bytes;
      whole.push_back(io_test::values(name, 40, grid, eb));
      io::CheckpointSource s{name, type, {}};
      for (const Box& b : mine) {
        keep.push_back(io_test::cut(whole.back(), grid, b, eb));
        s.pieces.push_back({b, keep.back().data()});
      }
      sources.push_back(s);
    }
    io::write_checkpoint(MPI_COMM_WORLD, dir + "/mpi.ckpt", "hash-M", 40, grid, sources);

    // The same file as one process writes.
    if (rank == 0) {
      std::vector<io::CheckpointSource> one;
      for (std::size_t i = 0; i < names.size(); ++i)
        one.push_back({names[i].first, names[i].second, {{grid, whole[i].data()}}});
      io::write_checkpoint(dir + "/serial.ckpt", "hash-M", 40, grid, one);
      require(bytes_of(dir + "/mpi.ckpt") == bytes_of(dir + "/serial.ckpt"),
              "the MPI checkpoint differs from the one-process checkpoint");
    }
    // Restart on another partition: rank r reads y slab r of each array.
    io::CheckpointReader r(dir + "/mpi.ckpt");
    r.expect("hash-M", grid, names);
    require(r.info().step == 40, "step");
    const Box box = io_test::slabs(grid, 1, size)[static_cast<std::size_t>(rank)];
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::size_t eb = io::element_type(names[i].second).bytes;
      std::vector<unsigned char> got(static_cast<std::size_t>(box.volume()) * eb);
      r.read(names[i].first, box, got.data());
      require(got == io_test::cut(whole[i], grid, box, eb),
              "array " + names[i].first + " read back differs");
    }

    // Errors, on every rank alike.
    std::string error;
    try {
      io::write_checkpoint(MPI_COMM_WORLD, dir + "/no/such/mpi.ckpt", "hash-M", 41, grid, sources);
    } catch (const stepgen::rt::RunError& e) {
      error = e.what();
    }
    require(
        error.find("cannot write checkpoint '" + dir + "/no/such/mpi.ckpt'") != std::string::npos,
        "a missing folder gave: " + error);
    if (size > 1) {
      std::vector<io::CheckpointSource> short_of = sources;
      if (rank == 1) short_of[1].pieces.clear();
      error.clear();
      try {
        io::write_checkpoint(MPI_COMM_WORLD, dir + "/mpi.ckpt", "hash-M", 41, grid, short_of);
      } catch (const std::invalid_argument& e) {
        error = e.what();
      }
      require(error.find("checkpoint array flag: the ranks' pieces cover") != std::string::npos,
              "pieces short of the grid gave: " + error);
      require(io::CheckpointReader(dir + "/mpi.ckpt").info().step == 40,
              "the checkpoint was replaced");
    }
    std::printf("rank %d of %d: ok\n", rank, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_mpi (rank %d): %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}

// Built with -fsanitize=thread: a snapshot writer thread (its XDMF saved atomically after each
// step) and the main thread (checkpoints) create temporary files at the same time; any data race
// ThreadSanitizer sees fails the test (exit status 66).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "stepgen/io/checkpoint.hpp"
#include "stepgen/io/snapshot_writer.hpp"

namespace io = stepgen::rt::io;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    const std::string dir = argv[1];
    const auto grid = stepgen::rt::Box::from_extent(2, {64, 64, 1});
    std::vector<float> values(static_cast<std::size_t>(grid.volume()), 1.0f);
    io::SnapshotWriter writer(std::make_unique<io::SnapshotSeries>(dir + "/series.h5", grid), 8);
    for (int step = 0; step < 40; ++step) {
      writer.submit(step, {{"u", "float", {{grid, values.data()}}}});
      io::write_checkpoint(dir + "/run.ckpt", "h", step, grid,
                           {{"u", "float", {{grid, values.data()}}}});
    }
    writer.close();
    std::printf("ok\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "threads_test: %s\n", e.what());
    return 1;
  }
}

// Built with -fsanitize=thread: a snapshot writer thread (its XDMF saved atomically after each
// step) and the main thread (checkpoints) create temporary files at the same time, while a
// checkpoint writer thread (io::CheckpointWriter, 4 threads per file) writes a larger array in
// the background; any data race ThreadSanitizer sees fails the test (exit status 66).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepgen/exec/io/checkpoint.hpp"
#include "stepgen/exec/io/checkpoint_writer.hpp"
#include "stepgen/exec/io/snapshot_writer.hpp"

namespace io = stepgen::rt::io;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    const std::string dir = argv[1];
    const auto grid = stepgen::rt::Box::from_extent(2, {64, 64, 1});
    std::vector<float> values(static_cast<std::size_t>(grid.volume()), 1.0f);
    io::SnapshotWriter writer(std::make_unique<io::SnapshotSeries>(dir + "/series.h5", grid), 8);
    const auto big = stepgen::rt::Box::from_extent(2, {1024, 4096 + 17, 1});  // 4+ blocks
    std::vector<float> large(static_cast<std::size_t>(big.volume()), 2.0f);
    io::CheckpointWriter background(4);
    for (int step = 0; step < 40; ++step) {
      if (step % 10 == 0) {
        for (const auto& done : background.wait())
          if (done.step != step - 10) throw std::runtime_error("checkpoints out of order");
        large[static_cast<std::size_t>(step)] = static_cast<float>(step);  // not in flight
        background.submit(dir + "/big.ckpt", "h", step, big,
                          {{"u", "float", {{big, large.data()}}}});
      }
      writer.submit(step, {{"u", "float", {{grid, values.data()}}}});
      io::write_checkpoint(dir + "/run.ckpt", "h", step, grid,
                           {{"u", "float", {{grid, values.data()}}}});
    }
    writer.close();
    background.close();
    std::printf("ok\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "threads_test: %s\n", e.what());
    return 1;
  }
}

// The kill -9 test's program (tests/io/checkpoint_kill.sh).
//   checkpoint_loop write PATH MIB   writes checkpoints of step 1, 2, ... to PATH forever, each
//                                    of one array of MIB MiB whose every byte is the step's low
//                                    byte, and prints "step N" once each is complete
//   checkpoint_loop write-background PATH MIB
//                                    the same through io::CheckpointWriter (a writer thread,
//                                    several threads per file): step N+1's values are filled
//                                    while step N is written, "step N" printed once complete
//   checkpoint_loop check PATH       reads PATH whole (every checksum checked) and checks that
//                                    its values match its step; prints "ok step N"
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "stepgen/exec/io/checkpoint_reader.hpp"
#include "stepgen/exec/io/checkpoint_writer.hpp"

namespace io = stepgen::rt::io;

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 2 ? argv[1] : "";
    if (mode == "write" && argc == 4) {
      const long mib = std::atol(argv[3]);
      const auto grid = stepgen::rt::Box::from_extent(2, {1024, mib * 1024 / 4, 1});  // floats
      std::vector<unsigned char> values(static_cast<std::size_t>(grid.volume()) * 4);
      for (std::int64_t step = 1;; ++step) {
        std::fill(values.begin(), values.end(), static_cast<unsigned char>(step));
        io::write_checkpoint(argv[2], "kill-test", step, grid,
                             {{"u", "float", {{grid, values.data()}}}});
        std::printf("step %lld\n", static_cast<long long>(step));
        std::fflush(stdout);
      }
    }
    if (mode == "write-background" && argc == 4) {
      const long mib = std::atol(argv[3]);
      const auto grid = stepgen::rt::Box::from_extent(2, {1024, mib * 1024 / 4, 1});  // floats
      std::vector<unsigned char> values[2];
      for (auto& v : values) v.resize(static_cast<std::size_t>(grid.volume()) * 4);
      io::CheckpointWriter writer;
      for (std::int64_t step = 1;; ++step) {
        // The buffer of step - 2, complete: the other one may be in flight.
        std::vector<unsigned char>& v = values[step % 2];
        std::fill(v.begin(), v.end(), static_cast<unsigned char>(step));
        for (const auto& done : writer.wait())
          std::printf("step %lld\n", static_cast<long long>(done.step));
        std::fflush(stdout);
        writer.submit(argv[2], "kill-test", step, grid, {{"u", "float", {{grid, v.data()}}}});
      }
    }
    if (mode == "check" && argc == 3) {
      io::CheckpointReader r(argv[2]);
      r.expect("kill-test", r.info().grid, {{"u", "float"}});
      std::vector<unsigned char> values(static_cast<std::size_t>(r.info().grid.volume()) * 4);
      r.read("u", values.data());
      for (unsigned char v : values)
        if (v != static_cast<unsigned char>(r.info().step)) {
          std::fprintf(stderr, "checkpoint_loop: values do not match step %lld\n",
                       static_cast<long long>(r.info().step));
          return 1;
        }
      std::printf("ok step %lld\n", static_cast<long long>(r.info().step));
      return 0;
    }
    std::fprintf(stderr,
                 "usage: checkpoint_loop write PATH MIB | write-background PATH MIB | check "
                 "PATH\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_loop: %s\n", e.what());
    return 1;
  }
}

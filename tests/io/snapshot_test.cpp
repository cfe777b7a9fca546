// Snapshot series (runtime/include/stepgen/exec/io/snapshot.hpp, snapshot_writer.hpp): the errors,
// each naming the file, the step and the HDF5 call; the writer thread reports a failure at the
// next call. (Values and XDMF: tests/io/snapshot_write.cpp and check_snapshots.py.)
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "stepgen/exec/io/snapshot_writer.hpp"

namespace rt = stepgen::rt;
namespace io = stepgen::rt::io;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/stepgen-io-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const std::string& f) const { return path + "/" + f; }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

const rt::Box kGrid = rt::Box::from_extent(2, {8, 6, 1});
const std::vector<float> kValues(48, 1.5f);

io::SnapshotArray array(const std::string& name) {
  return {name, "float", {{kGrid, kValues.data()}}};
}

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  MESSAGE("'" << part << "' not in: " << text);
  return false;
}

}  // namespace

TEST_CASE("the XDMF file is named after the HDF5 file") {
  CHECK(io::xdmf_path_for("out/wave.h5") == "out/wave.xdmf");
  CHECK(io::xdmf_path_for("wave.hdf5") == "wave.xdmf");
  CHECK(io::xdmf_path_for("wave") == "wave.xdmf");
  CHECK(io::snapshot_group(50) == "step_000050");
  CHECK(io::snapshot_group(12345678) == "step_12345678");
}

TEST_CASE("a series that cannot be created names the file and the HDF5 call") {
  TempDir dir;
  const std::string e = error_of([&] { io::SnapshotSeries s(dir / "no/such/wave.h5", kGrid); });
  CHECK(
      has(e, "cannot create snapshot file '" + dir.path + "/no/such/wave.h5': H5Fcreate failed: "));
}

TEST_CASE("a step written twice, or an array twice in a step, is an error naming both") {
  TempDir dir;
  io::SnapshotSeries s(dir / "wave.h5", kGrid);
  s.write(10, {array("p")});
  CHECK(has(error_of([&] { s.write(10, {array("p")}); }),
            "snapshot file '" + dir.path + "/wave.h5' (step 10): the step was written already"));
  CHECK(has(error_of([&] {
              s.write(20, {array("p"), array("p")});
            }),
            "(step 20, array p): H5Dcreate2 step_000020/p failed: "));
  // Overlapping or outside pieces: a caller's bug.
  io::SnapshotArray overlap{"q", "float", {{kGrid, kValues.data()}, {kGrid, kValues.data()}}};
  CHECK_THROWS_AS(s.write(30, {overlap}), std::invalid_argument);
  // One process writes the whole grid: a piece short of it would leave cells unwritten.
  const rt::Box half = rt::Box::from_extent(2, {8, 3, 1});
  const std::string gap = error_of([&] {
    s.write(30, {{"q", "float", {{half, kValues.data()}}}});
  });
  CHECK(has(gap, "snapshot of array q: the pieces cover 24 of the grid's 48 cells"));
  io::SnapshotWriter w(std::make_unique<io::SnapshotSeries>(dir / "w.h5", kGrid));
  CHECK_THROWS_AS(w.submit(1, {{"q", "float", {{half, kValues.data()}}}}), std::invalid_argument);
  CHECK_THROWS_AS(w.submit(1, {{"q", "quad", {{kGrid, kValues.data()}}}}), std::invalid_argument);
  w.close();
  // The XDMF, rewritten after each complete step, is there with no temporary file beside it.
  CHECK(std::ifstream(dir / "wave.xdmf").good());
  CHECK(std::system(("test -z \"$(ls -A '" + dir.path +
                     "' | grep -v -e '^wave.h5$' -e '^wave.xdmf$' -e '^w.h5$')\"")
                        .c_str()) == 0);
}

TEST_CASE(
    "the writer thread reports a failure at the next call, naming the file and the HDF5 call") {
  TempDir dir;
  auto writer = std::make_unique<io::SnapshotWriter>(
      std::make_unique<io::SnapshotSeries>(dir / "w.h5", kGrid), 1);
  writer->submit(1, {array("p")});
  writer->flush();
  writer->submit(2, {array("p"), array("p")});  // returns: the failure comes later
  const std::string e = error_of([&] { writer->flush(); });
  CHECK(has(e, "cannot write snapshot file '" + dir.path + "/w.h5' (step 2, array p): H5Dcreate2"));
  CHECK(has(error_of([&] { writer->submit(3, {array("p")}); }), "stopped after an earlier error"));
  CHECK_NOTHROW(writer->close());  // reported once
  writer.reset();
}

TEST_CASE("the writer thread reports a file that went away, at submit, flush or close") {
  TempDir dir;
  for (int where = 0; where < 3; ++where) {
    io::SnapshotWriter writer(std::make_unique<io::SnapshotSeries>(dir / "gone.h5", kGrid), 1);
    writer.submit(0, {array("p")});
    writer.flush();
    std::remove((dir / "gone.h5").c_str());
    writer.submit(1, {array("p")});
    std::string e;
    if (where == 0) {
      // The queue holds one step: the next submit waits for the failed one and reports it.
      e = error_of([&] { writer.submit(2, {array("p")}); });
      if (e == "(no error)") e = error_of([&] { writer.flush(); });
    }
    if (where == 1) e = error_of([&] { writer.flush(); });
    if (where == 2) e = error_of([&] { writer.close(); });
    CHECK(
        has(e, "cannot write snapshot file '" + dir.path + "/gone.h5' (step 1): H5Fopen failed: "));
  }
}

TEST_CASE("submit copies the values: the caller may reuse its buffers at once") {
  TempDir dir;
  std::vector<float> buffer(48, 2.0f);
  {
    io::SnapshotWriter writer(std::make_unique<io::SnapshotSeries>(dir / "c.h5", kGrid), 4);
    for (int step = 0; step < 4; ++step) {
      std::fill(buffer.begin(), buffer.end(), static_cast<float>(step));
      writer.submit(step, {{"p", "float", {{kGrid, buffer.data()}}}});
    }
    std::fill(buffer.begin(), buffer.end(), -1.0f);
    writer.close();
  }
  // Read back with HDF5 itself: step k holds k everywhere.
  io::h5::quiet();
  io::h5::Handle file(H5Fopen((dir / "c.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  REQUIRE(file >= 0);
  for (int step = 0; step < 4; ++step) {
    io::h5::Handle set(H5Dopen2(file, ("/" + io::snapshot_group(step) + "/p").c_str(), H5P_DEFAULT),
                       H5Dclose);
    REQUIRE(set >= 0);
    std::vector<float> got(48);
    REQUIRE(H5Dread(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got.data()) >= 0);
    CHECK(got == std::vector<float>(48, static_cast<float>(step)));
  }
}

TEST_CASE("submit with borrow writes from the caller's buffer, unchanged until flush returns") {
  // In core the snapshots are written from the host copies themselves: the caller changes its
  // buffer only after flush() (the next fetch waits for the writer).
  TempDir dir;
  std::vector<float> buffer(48, 0.0f);
  {
    io::SnapshotWriter writer(std::make_unique<io::SnapshotSeries>(dir / "b.h5", kGrid), 2);
    for (int step = 0; step < 3; ++step) {
      writer.flush();
      for (std::size_t i = 0; i < buffer.size(); ++i)
        buffer[i] = static_cast<float>(step * 100 + static_cast<int>(i));
      writer.submit(step, {{"p", "float", {{kGrid, buffer.data()}}}}, true);
    }
    writer.flush();
    std::fill(buffer.begin(), buffer.end(), -1.0f);
    writer.close();
  }
  io::h5::quiet();
  io::h5::Handle file(H5Fopen((dir / "b.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  REQUIRE(file >= 0);
  for (int step = 0; step < 3; ++step) {
    io::h5::Handle set(H5Dopen2(file, ("/" + io::snapshot_group(step) + "/p").c_str(), H5P_DEFAULT),
                       H5Dclose);
    REQUIRE(set >= 0);
    std::vector<float> got(48), want(48);
    REQUIRE(H5Dread(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got.data()) >= 0);
    for (std::size_t i = 0; i < want.size(); ++i)
      want[i] = static_cast<float>(step * 100 + static_cast<int>(i));
    CHECK(got == want);
  }
}

TEST_CASE(
    "a series is never written through a link: refused at a symbolic link, a hard link kept") {
  TempDir dir;
  auto read = [](const std::string& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  { std::ofstream(dir / "mine.dat") << "the user's file"; }
  REQUIRE(symlink((dir / "mine.dat").c_str(), (dir / "s.h5").c_str()) == 0);
  CHECK(has(error_of([&] { io::SnapshotSeries s(dir / "s.h5", kGrid); }),
            "'" + (dir / "s.h5") + "' is a symbolic link (to " + (dir / "mine.dat") +
                "); a run writes no file through a link"));
  CHECK(read(dir / "mine.dat") == "the user's file");
  // A hard link: the series replaces the name, the other name keeps its file.
  REQUIRE(link((dir / "mine.dat").c_str(), (dir / "h.h5").c_str()) == 0);
  {
    io::SnapshotSeries s(dir / "h.h5", kGrid);
    s.write(0, {array("p")});
  }
  CHECK(read(dir / "mine.dat") == "the user's file");
  // Replaced by a link between two steps: the next step is refused, the link's file unchanged.
  io::SnapshotSeries s(dir / "r.h5", kGrid);
  s.write(0, {array("p")});
  REQUIRE(std::rename((dir / "r.h5").c_str(), (dir / "moved.h5").c_str()) == 0);
  REQUIRE(symlink((dir / "mine.dat").c_str(), (dir / "r.h5").c_str()) == 0);
  CHECK(has(error_of([&] { s.write(4, {array("p")}); }),
            "(step 4): it was replaced by a symbolic link (not written through)"));
  CHECK(read(dir / "mine.dat") == "the user's file");
}

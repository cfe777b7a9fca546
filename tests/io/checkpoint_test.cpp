// Checkpoint files (runtime/include/stepgen/exec/io/checkpoint.hpp): round trips bit for bit over
// any partition, and a clear error for each way a file can be wrong.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stepgen/exec/io/checkpoint_reader.hpp"
#include "stepgen/exec/io/checkpoint_writer.hpp"

namespace rt = stepgen::rt;
namespace io = stepgen::rt::io;

namespace {

/// A fresh folder for one test case, removed with its files at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/stepgen-io-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const std::string& f) const { return path + "/" + f; }
};

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(g());
  return v;
}

/// The values of `box` cut out of a whole-grid array `all` (row-major, x fastest).
std::vector<unsigned char> cut(const std::vector<unsigned char>& all, const rt::Box& grid,
                               const rt::Box& box, std::size_t eb) {
  std::vector<unsigned char> out;
  for (rt::Index z = box.lo[2]; z < box.hi[2]; ++z)
    for (rt::Index y = box.lo[1]; y < box.hi[1]; ++y) {
      const auto at =
          static_cast<std::size_t>(((z * grid.extent(1)) + y) * grid.extent(0) + box.lo[0]) * eb;
      out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(at),
                 all.begin() + static_cast<std::ptrdiff_t>(
                                   at + static_cast<std::size_t>(box.extent(0)) * eb));
    }
  return out;
}

rt::Box box3(rt::Vec3 lo, rt::Vec3 hi) {
  rt::Box b;
  b.dims = 3;
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// Splits `grid` into `n` slabs along dimension `d`.
std::vector<rt::Box> slabs(const rt::Box& grid, int d, int n) {
  std::vector<rt::Box> out;
  const auto i = static_cast<std::size_t>(d);
  for (int k = 0; k < n; ++k) {
    rt::Box b = grid;
    b.lo[i] = grid.lo[i] + grid.extent(d) * k / n;
    b.hi[i] = grid.lo[i] + grid.extent(d) * (k + 1) / n;
    out.push_back(b);
  }
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const rt::RunError& e) {
    return e.what();
  }
  return "(no error)";
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Two arrays of different types on a grid big enough for several checksum blocks.
struct Fixture {
  TempDir dir;
  rt::Box grid = rt::Box::from_extent(3, {97, 61, 120});  // doubles: 5.4 MiB, two blocks
  std::vector<unsigned char> p = random_bytes(static_cast<std::size_t>(grid.volume()) * 8, 1);
  std::vector<unsigned char> flag = random_bytes(static_cast<std::size_t>(grid.volume()) * 4, 2);
  std::string path = dir / "run.ckpt";
  std::vector<std::pair<std::string, std::string>> names{{"p", "double"}, {"flag", "int"}};
  void write(std::int64_t step = 40) {
    io::write_checkpoint(
        path, "hash-A", step, grid,
        {{"p", "double", {{grid, p.data()}}}, {"flag", "int", {{grid, flag.data()}}}});
  }
};

}  // namespace

TEST_CASE("CRC-64/XZ gives the standard check value") {
  CHECK(io::crc64("123456789", 9) == 0x995dc9bbdf1939faULL);
  CHECK(io::crc64("", 0) == 0);
  // Split updates equal one update (the slicing loop and the byte loop agree).
  const auto bytes = random_bytes(1000, 3);
  io::Crc64 c;
  c.update(bytes.data(), 13);
  c.update(bytes.data() + 13, 987);
  CHECK(c.value() == io::crc64(bytes.data(), bytes.size()));
}

TEST_CASE("a checkpoint round trips bit for bit, written and read over any partition") {
  Fixture f;
  SUBCASE("written whole") {
    f.write();
  }
  SUBCASE("written as three parts' owned boxes (x slabs) and one empty part") {
    std::vector<io::Piece> pp, pf;
    std::vector<std::vector<unsigned char>> keep;
    for (const rt::Box& b : slabs(f.grid, 0, 3)) {
      keep.push_back(cut(f.p, f.grid, b, 8));
      pp.push_back({b, keep.back().data()});
      keep.push_back(cut(f.flag, f.grid, b, 4));
      pf.push_back({b, keep.back().data()});
    }
    pp.push_back({box3({5, 5, 5}, {5, 6, 6}), nullptr});  // an empty box: nothing to write
    io::write_checkpoint(f.path, "hash-A", 40, f.grid, {{"p", "double", pp}, {"flag", "int", pf}});
  }
  io::CheckpointReader r(f.path);
  CHECK(r.info().step == 40);
  CHECK(r.info().spec_hash == "hash-A");
  CHECK(r.info().grid.extents() == f.grid.extents());
  r.expect("hash-A", f.grid, f.names);
  std::vector<unsigned char> whole(f.p.size());
  r.read("p", whole.data());
  CHECK(whole == f.p);
  // Restart on another partition: 4 z slabs, then a 2x2 split in y and z.
  for (const rt::Box& b : slabs(f.grid, 2, 4)) {
    std::vector<unsigned char> got(static_cast<std::size_t>(b.volume()) * 4);
    r.read("flag", b, got.data());
    CHECK(got == cut(f.flag, f.grid, b, 4));
  }
  for (const rt::Box& by : slabs(f.grid, 1, 2))
    for (const rt::Box& b : slabs(by, 2, 2)) {
      std::vector<unsigned char> got(static_cast<std::size_t>(b.volume()) * 8);
      r.read("p", b, got.data());
      CHECK(got == cut(f.p, f.grid, b, 8));
    }
  // The file is laid out as docs/io.md says: signature, version, arrays at 4 KiB multiples.
  const std::string bytes = read_file(f.path);
  CHECK(bytes.compare(0, 8, std::string(io::kCheckpointMagic, 8)) == 0);
  CHECK(bytes.find("stepgen checkpoint\nspec_hash hash-A\nstep 40\n") == io::kCheckpointPreamble);
  CHECK(r.info().arrays[0].offset % io::kCheckpointAlign == 0);
  CHECK(std::memcmp(bytes.data() + r.info().arrays[0].offset, f.p.data(), f.p.size()) == 0);
}

TEST_CASE("a 2D and a 1D checkpoint round trip") {
  TempDir dir;
  for (int dims : {1, 2}) {
    const rt::Box grid = rt::Box::from_extent(dims, {33, dims == 2 ? 17 : 1, 1});
    const auto v = random_bytes(static_cast<std::size_t>(grid.volume()) * 2, 4);
    const std::string path = dir / ("d" + std::to_string(dims) + ".ckpt");
    std::vector<io::Piece> pieces;
    std::vector<std::vector<unsigned char>> keep;
    for (const rt::Box& b : slabs(grid, dims - 1, 3)) {
      keep.push_back(cut(v, grid, b, 2));
      pieces.push_back({b, keep.back().data()});
    }
    io::write_checkpoint(path, "h", 7, grid, {{"s", "short", pieces}});
    io::CheckpointReader r(path);
    r.expect("h", grid, {{"s", "short"}});
    std::vector<unsigned char> got(v.size());
    r.read("s", got.data());
    CHECK(got == v);
  }
}

TEST_CASE("a checkpoint replaces the previous one and leaves no temporary file") {
  Fixture f;
  f.write(10);
  f.p[0] ^= 1;
  f.write(20);
  io::CheckpointReader r(f.path);
  CHECK(r.info().step == 20);
  std::vector<unsigned char> got(f.p.size());
  r.read("p", got.data());
  CHECK(got == f.p);
  CHECK(std::system(("test -z \"$(ls -A '" + f.dir.path + "' | grep -v '^run.ckpt$')\"").c_str()) ==
        0);
}

TEST_CASE(
    "restarting from a checkpoint of another spec, grid or set of arrays names each "
    "difference") {
  Fixture f;
  f.write();
  io::CheckpointReader r(f.path);
  const std::string spec = error_of([&] { r.expect("hash-B", f.grid, f.names); });
  CHECK(spec.find("run.ckpt") != std::string::npos);
  CHECK(spec.find("another spec (spec hash hash-A, this program's hash-B)") != std::string::npos);
  const std::string grid = error_of([&] {
    r.expect("hash-A", rt::Box::from_extent(3, {97, 61, 64}), f.names);
  });
  CHECK(grid.find("its grid is 97x61x120, this program's 97x61x64") != std::string::npos);
  const std::string missing = error_of([&] {
    r.expect("hash-A", f.grid, {{"p", "double"}, {"flag", "int"}, {"q", "float"}});
  });
  CHECK(missing.find("array q is missing from it") != std::string::npos);
  const std::string extra = error_of([&] { r.expect("hash-A", f.grid, {{"p", "double"}}); });
  CHECK(extra.find("it holds array flag, which this program does not have") != std::string::npos);
  const std::string type = error_of([&] {
    r.expect("hash-A", f.grid, {{"p", "float"}, {"flag", "int"}});
  });
  CHECK(type.find("array p is double in it, float here") != std::string::npos);
  const std::string all = error_of([&] {
    r.expect("hash-B", rt::Box::from_extent(2, {97, 61, 1}), {{"p", "double"}});
  });
  CHECK(all.find("another spec") != std::string::npos);
  CHECK(all.find("its grid is 97x61x120, this program's 97x61") != std::string::npos);
  CHECK(all.find("array flag") != std::string::npos);
}

TEST_CASE("a truncated, corrupted or foreign file is a clear error, never wrong values") {
  Fixture f;
  f.write();
  const std::string good = read_file(f.path);
  const std::string bad = f.dir / "bad.ckpt";
  auto open_error = [&](const std::string& bytes) {
    write_file(bad, bytes);
    return error_of([&] { io::CheckpointReader r(bad); });
  };
  CHECK(error_of([&] { io::CheckpointReader r(f.dir / "none.ckpt"); }).find("does not exist") !=
        std::string::npos);
  CHECK(error_of([&] { io::CheckpointReader r(f.dir.path); }).find("is a directory") !=
        std::string::npos);
  CHECK(open_error("").find("not a stepgen checkpoint") != std::string::npos);
  CHECK(open_error("P3\n4 4\nhello, world\n").find("not a stepgen checkpoint") !=
        std::string::npos);
  CHECK(open_error(good.substr(0, 12)).find("truncated (it holds 12 bytes") != std::string::npos);
  CHECK(open_error(good.substr(0, 100)).find("truncated") != std::string::npos);
  const std::string cut_short = open_error(good.substr(0, good.size() - 1));
  CHECK(cut_short.find("bad.ckpt': it is truncated (it holds " + std::to_string(good.size() - 1) +
                       " bytes, its header needs " + std::to_string(good.size()) +
                       ") (array flag)") != std::string::npos);
  std::string version = good;
  version[8] = 2;
  CHECK(open_error(version).find("format version 2, this program reads version 1") !=
        std::string::npos);
  std::string header = good;
  header[io::kCheckpointPreamble + 30] ^= 0x20;
  CHECK(open_error(header).find("its header is corrupted") != std::string::npos);
  // A header whose checksum matches but whose step is negative (crafted, or a writer's bug):
  // the run would start before step 0 and rewrite the series of the steps it repeats.
  f.write(-3);
  CHECK(open_error(read_file(f.path)).find("its header is not valid (step)") != std::string::npos);
  f.write();
  // One flipped bit in the second block of p: the whole read and a box in that block fail,
  // a box in the first block still reads (the check is per block).
  std::string data = good;
  io::CheckpointReader r(f.path);
  const auto& p = r.info().arrays[0];
  const std::size_t at = p.offset + io::kCheckpointBlock + 12345;
  data[at] = static_cast<char>(data[at] ^ 0x04);
  write_file(bad, data);
  io::CheckpointReader damaged(bad);
  std::vector<unsigned char> all(f.p.size());
  const std::string corrupt = error_of([&] { damaged.read("p", all.data()); });
  CHECK(corrupt.find("bad.ckpt': array p is corrupted (the checksum of bytes 4194304 to") !=
        std::string::npos);
  const rt::Box first = box3({0, 0, 0}, {97, 61, 2});
  std::vector<unsigned char> some(static_cast<std::size_t>(first.volume()) * 8);
  damaged.read("p", first, some.data());
  CHECK(some == cut(f.p, f.grid, first, 8));
  damaged.read("flag", all.data());  // the other array is intact
}

TEST_CASE("a checkpoint that cannot be written is an error and leaves the previous one") {
  Fixture f;
  f.write(10);
  const std::string before = read_file(f.path);
  const std::string e = error_of(
      [&] { io::write_checkpoint(f.dir / "no/such/folder/run.ckpt", "hash-A", 20, f.grid, {}); });
  CHECK(e.find("cannot write checkpoint") != std::string::npos);
  CHECK(e.find("does not exist") != std::string::npos);
  if (geteuid() != 0) {  // root writes into read-only folders
    chmod(f.dir.path.c_str(), 0500);
    const std::string ro = error_of([&] { f.write(20); });
    chmod(f.dir.path.c_str(), 0700);
    CHECK(ro.find("cannot create a file in the folder") != std::string::npos);
  }
  CHECK(read_file(f.path) == before);
  CHECK_THROWS_AS(io::write_checkpoint(
                      f.path, "h", 1, f.grid,
                      {{"p", "double", {{rt::Box::from_extent(3, {97, 61, 119}), f.p.data()}}}}),
                  std::invalid_argument);
}

// ckptbg: several threads write a checkpoint (each a contiguous range of blocks: gather,
// CRC-64, pwrite), and a writer thread writes it in the background.
TEST_CASE("a checkpoint written by 1 thread equals the one written by N threads byte for byte") {
  Fixture f;
  // Three arrays, 7 blocks in all; p also as x slabs (gathered per block by each thread).
  const rt::Box& g = f.grid;
  const auto q = random_bytes(static_cast<std::size_t>(g.volume()) * 8, 5);
  std::vector<io::Piece> slabs_p;
  std::vector<std::vector<unsigned char>> keep;
  for (const rt::Box& b : slabs(g, 0, 3)) {
    keep.push_back(cut(f.p, g, b, 8));
    slabs_p.push_back({b, keep.back().data()});
  }
  const std::vector<io::CheckpointSource> arrays{{"p", "double", slabs_p},
                                                 {"flag", "int", {{g, f.flag.data()}}},
                                                 {"q", "double", {{g, q.data()}}}};
  io::write_checkpoint(f.dir / "one.ckpt", "hash-A", 40, g, arrays, 1);
  const std::string one = read_file(f.dir / "one.ckpt");
  for (unsigned threads : {2u, 3u, 8u, 0u}) {
    CAPTURE(threads);
    io::write_checkpoint(f.dir / "n.ckpt", "hash-A", 40, g, arrays, threads);
    CHECK(read_file(f.dir / "n.ckpt") == one);
  }
  io::CheckpointReader r(f.dir / "one.ckpt");
  std::vector<unsigned char> got(f.p.size());
  r.read("p", got.data());
  CHECK(got == f.p);
  r.read("q", got.data());
  CHECK(got == q);
  CHECK(io::checkpoint_threads() >= 1);
  CHECK(io::checkpoint_threads() <= 8);
}

TEST_CASE("a checkpoint written in the background: one in flight, announced when complete") {
  Fixture f;
  io::CheckpointWriter w(3);
  CHECK(w.poll().empty());
  CHECK(w.wait().empty());
  const std::vector<io::CheckpointSource> arrays{{"p", "double", {{f.grid, f.p.data()}}},
                                                 {"flag", "int", {{f.grid, f.flag.data()}}}};
  w.submit(f.path, "hash-A", 10, f.grid, arrays);
  // The second waits for the first (its buffers are borrowed: unchanged until wait()).
  w.submit(f.path, "hash-A", 20, f.grid, arrays);
  const auto done = w.wait();
  REQUIRE(done.size() == 2);
  CHECK(done[0].step == 10);
  CHECK(done[1].step == 20);
  CHECK(done[1].path == f.path);
  CHECK(done[1].bytes == f.p.size() + f.flag.size());
  CHECK(done[1].seconds >= 0);
  CHECK(w.waited_s() >= 0);
  // The same bytes as a checkpoint written in the foreground.
  const std::string background = read_file(f.path);
  f.write(20);
  CHECK(read_file(f.path) == background);
  w.close();
  CHECK(w.done().empty());
}

TEST_CASE("a background checkpoint's failure names file and cause at the next call, never lost") {
  Fixture f;
  f.write(10);
  const std::string before = read_file(f.path);
  const std::vector<io::CheckpointSource> arrays{{"p", "double", {{f.grid, f.p.data()}}},
                                                 {"flag", "int", {{f.grid, f.flag.data()}}}};
  SUBCASE("at wait()") {
    io::CheckpointWriter w;
    w.submit(f.dir / "no/such/folder/run.ckpt", "hash-A", 20, f.grid, arrays);
    const std::string e = error_of([&] { w.wait(); });
    CHECK(e.find("cannot write checkpoint '" + f.dir.path + "/no/such/folder/run.ckpt'") !=
          std::string::npos);
    CHECK(e.find("does not exist") != std::string::npos);
    // Reported once; the writer goes on.
    w.submit(f.path, "hash-A", 30, f.grid, arrays);
    CHECK(w.wait().at(0).step == 30);
  }
  SUBCASE("at the next submit()") {
    io::CheckpointWriter w;
    w.submit(f.dir / "no/such/folder/run.ckpt", "hash-A", 20, f.grid, arrays);
    CHECK(error_of([&] {
            w.submit(f.path, "hash-A", 30, f.grid, arrays);
          }).find("does not exist") != std::string::npos);
    CHECK(read_file(f.path) == before);
  }
  SUBCASE("at close()") {
    io::CheckpointWriter w;
    w.submit(f.dir / "no/such/folder/run.ckpt", "hash-A", 20, f.grid, arrays);
    CHECK(error_of([&] { w.close(); }).find("does not exist") != std::string::npos);
    CHECK(read_file(f.path) == before);
  }
}

TEST_CASE("a checkpoint keeps the reductions' last values bit for bit, NaN included") {
  // A restart gives them back to the monitor: an `until` over a reduction computed before the
  // checkpoint's step reads what the straight run reads, so the restarted run stops at the
  // same step.
  TempDir dir;
  const rt::Box grid = rt::Box::from_extent(1, {8, 1, 1});
  std::vector<float> v(8, 1.5f);
  const std::string path = dir / "r.ckpt";
  const io::CheckpointReductions red = {
      {"res", 0.1 + 0.2}, {"mx", -1.0214697122573853e-300}, {"none", std::nan("")}};
  io::write_checkpoint(path, "h", 7, grid,
                       {{"a", "float", {{grid, reinterpret_cast<unsigned char*>(v.data())}}}}, 1,
                       red);
  io::CheckpointReader r(path);
  r.expect("h", grid, {{"a", "float"}});
  const io::CheckpointReductions& got = r.info().reductions;
  REQUIRE(got.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(got[i].first == red[i].first);
    CHECK(std::memcmp(&got[i].second, &red[i].second, sizeof(double)) == 0);
  }
  // A checkpoint without reductions has none (older files read as before).
  io::write_checkpoint(path, "h", 7, grid,
                       {{"a", "float", {{grid, reinterpret_cast<unsigned char*>(v.data())}}}});
  CHECK(io::CheckpointReader(path).info().reductions.empty());
}

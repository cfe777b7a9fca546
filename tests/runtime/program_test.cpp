// The generated programs' command line and raw files (program.hpp, ooc.hpp's flags): numeric
// flags in range or a UsageError naming the flag and the range; --load and --save targets
// checked before the run; saves written atomically, every write checked.
#include "stepgen/exec/program.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/main.hpp"
#include "stepgen/exec/ooc.hpp"

using namespace stepgen::rt;

namespace {

ProgramInfo test_info() {
  ProgramInfo info;
  info.name = "prog";
  info.spec = "prog.xml";
  info.backend = "opencl";
  info.default_device_type = "all";
  info.default_device_count = 0;
  info.default_steps = 10;
  info.arrays = {"A", "B"};
  info.array_bytes = {16, 8};
  return info;
}

/// parse_options over `args` (after the program's name); "" when it succeeds, else the
/// message of the UsageError (any other exception fails the test).
std::string usage_error(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  try {
    int argc = static_cast<int>(argv.size());
    ooc::Options ooc;
    ooc::take_options(argc, argv.data(), ooc);
    parse_options(argc, argv.data(), test_info());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

/// A fresh folder under the system's temporary folder, removed with its files at the end.
struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    pattern += "/stepgen-program-test-XXXXXX";
    std::vector<char> b(pattern.begin(), pattern.end());
    b.push_back('\0');
    REQUIRE(mkdtemp(b.data()) != nullptr);
    path = b.data();
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    const std::string command = "ls -A '" + path + "'";
    FILE* ls = popen(command.c_str(), "r");
    char line[512];
    while (ls != nullptr && std::fgets(line, sizeof line, ls) != nullptr) {
      std::string n = line;
      if (!n.empty() && n.back() == '\n') n.pop_back();
      names.push_back(n);
    }
    if (ls != nullptr) pclose(ls);
    return names;
  }
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string check_error(const Options& o) {
  try {
    check_files(o, test_info());
  } catch (const RunError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("numeric flags: the whole text, in range, else a UsageError naming flag and range") {
  CHECK(usage_error({"--devices", "3", "--steps", "0", "--weights", "1,2.5,1e-3"}).empty());
  CHECK(usage_error({"--steps", "9223372036854775807"}).empty());
  CHECK(usage_error({"--devices", "2147483647"}).empty());
  for (const char* bad : {"4294967297", "2147483648", "0", "-1", "3x", "", " 3", "+3", "1e3"})
    CHECK(usage_error({"--devices", bad}) ==
          "--devices expects an integer from 1 to 2147483647, got '" + std::string(bad) + "'");
  for (const char* bad : {"-1", "9223372036854775808", "3x", "1.5", "0x10"})
    CHECK(usage_error({"--steps", bad}) ==
          "--steps expects an integer from 0 to 9223372036854775807, got '" + std::string(bad) +
              "'");
  for (const char* bad : {"0", "1,0", "inf", "nan", "1e400", "1,,2", "0x10", "-1", "2e6", "1,"})
    CHECK(usage_error({"--weights", bad}).rfind("--weights expects numbers from 1e-6 to 1e6", 0) ==
          0);
  CHECK(usage_error({"--ooc-chunks", "4294967297"}) ==
        "--ooc-chunks expects an integer from 1 to 2147483647, got '4294967297'");
  CHECK(usage_error({"--steps-per-pass", "0"}) ==
        "--steps-per-pass expects an integer from 1 to 2147483647, got '0'");
  CHECK(usage_error({"--ooc-buffers", "2"}) ==
        "--ooc-buffers expects an integer from 3 to 64, got '2'");
  CHECK(usage_error({"--ooc-chunks", "auto", "--steps-per-pass", "7"}).empty());
  for (const char* bad : {"inf", "nan", "1e3", "-5", "0", "99999999TiB", "0x10GiB", "8XiB", ""})
    CHECK(usage_error({"--device-memory", bad})
              .rfind("--device-memory expects a size such as 8GiB", 0) == 0);
  CHECK(usage_error({"--device-memory", "1.5GiB"}).empty());
  CHECK(ooc::parse_size("--device-memory", "1.5GiB") == 1610612736);
  CHECK(usage_error({"--bogus"}) == "unknown option '--bogus' (see --help)");
  CHECK(usage_error({"--save", "Q=x"}) == "--save: no array named 'Q' (arrays: A B)");
  CHECK(usage_error({"--steps"}) == "--steps needs a value (see --help)");
}

TEST_CASE("run_main: status 2 for a usage error, 1 for any other, the body's otherwise") {
  CHECK(run_main("prog", [] { return 0; }) == 0);
  CHECK(run_main("prog", [] { return 3; }) == 3);
  CHECK(run_main("prog", []() -> int { throw UsageError("bad flag"); }) == 2);
  CHECK(run_main("prog", []() -> int { throw RunError("no device"); }) == 1);
}

TEST_CASE("check_files: --load and --save targets checked before the run") {
  TempDir dir;
  const std::string d = dir.path;
  write_file(d + "/a16.raw", std::string(16, 'a'));
  write_file(d + "/short.raw", "abc");
  REQUIRE(mkfifo((d + "/fifo").c_str(), 0600) == 0);
  REQUIRE(mkdir((d + "/sub").c_str(), 0700) == 0);
  REQUIRE(symlink("nowhere/x.raw", (d + "/dangling").c_str()) == 0);

  Options o;
  o.loads = {{"A", d + "/a16.raw"}};
  o.saves = {{"A", d + "/new.raw"}, {"B", d + "/a16.raw"}};
  CHECK(check_error(o).empty());
  CHECK(dir.entries().size() == 5);  // the probes left nothing behind

  auto load = [&](const std::string& name, const std::string& path) {
    Options l;
    l.loads = {{name, path}};
    return check_error(l);
  };
  CHECK(load("A", d + "/sub") ==
        "--load A=" + d + "/sub: '" + d + "/sub' is a directory, not a regular file");
  CHECK(load("A", d + "/fifo") ==
        "--load A=" + d + "/fifo: '" + d + "/fifo' is a FIFO, not a regular file");
  CHECK(load("A", "/dev/null") ==
        "--load A=/dev/null: '/dev/null' is a character device, not a regular file");
  CHECK(load("A", d + "/missing") ==
        "--load A=" + d + "/missing: '" + d + "/missing' does not exist");
  CHECK(load("B", d + "/short.raw") == "--load B=" + d + "/short.raw: '" + d +
                                           "/short.raw' holds 3 bytes but array B needs 8 bytes");

  auto save = [&](const std::string& path) {
    Options s;
    s.saves = {{"A", path}};
    return check_error(s);
  };
  CHECK(save("/dev/full").find("'/dev/full' is a character device, not a regular file") !=
        std::string::npos);
  CHECK(save(d + "/sub").find("is a directory, not a regular file") != std::string::npos);
  CHECK(save(d + "/fifo").find("is a FIFO, not a regular file") != std::string::npos);
  CHECK(save(d + "/no/such/A.raw") == "--save A=" + d + "/no/such/A.raw: the folder '" + d +
                                          "/no/such' does not exist (No such file or directory)");
  CHECK(save(d + "/short.raw/A.raw").find("is not a folder") != std::string::npos);
  CHECK(save(d + "/dangling") == "--save A=" + d + "/dangling: '" + d +
                                     "/dangling' is a symbolic link (to nowhere/x.raw); a run "
                                     "writes no file through a link: remove the link, or give "
                                     "the path of the file itself");
  Options twice;
  twice.saves = {{"A", d + "/x.raw"}, {"B", d + "/sub/../x.raw"}};
  CHECK_THROWS_AS(check_files(twice, test_info()), UsageError);
  CHECK(dir.entries().size() == 5);
}

TEST_CASE("save_raw: atomic, the permissions kept, write errors reported") {
  TempDir dir;
  const std::string d = dir.path;
  HostArray a("A", 4, Box::from_extent(1, {4, 1, 1}));
  for (std::size_t i = 0; i < a.bytes.size(); ++i) a.bytes[i] = static_cast<unsigned char>(i + 1);
  const std::string want(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size());

  save_raw(a, d + "/new.raw");
  CHECK(read_file(d + "/new.raw") == want);
  CHECK(dir.entries() == std::vector<std::string>{"new.raw"});
  {
    const mode_t mask = umask(022);  // a new file gets what the umask gives, as with open()
    save_raw(a, d + "/new022.raw");
    umask(mask);
    struct stat st {};
    REQUIRE(stat((d + "/new022.raw").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);
    REQUIRE(unlink((d + "/new022.raw").c_str()) == 0);
  }

  write_file(d + "/old.raw", "previous contents, longer than the array");
  REQUIRE(chmod((d + "/old.raw").c_str(), 0640) == 0);
  save_raw(a, d + "/old.raw");
  CHECK(read_file(d + "/old.raw") == want);
  struct stat st {};
  REQUIRE(stat((d + "/old.raw").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);

  // A symbolic link is never written through (the file it points to may be the user's), nor
  // replaced: refused (a usage error naming the link and its target), both unchanged. Every
  // atomic writer (saves, checkpoints, raw outputs, XDMF, traces, the monitor) goes through it.
  write_file(d + "/target.raw", "x");
  REQUIRE(symlink("target.raw", (d + "/link.raw").c_str()) == 0);
  const std::string refusal = "'" + d + "/link.raw' is a symbolic link (to target.raw)";
  CHECK_THROWS_WITH_AS(save_raw(a, d + "/link.raw"), doctest::Contains(refusal.c_str()),
                       UsageError);
  CHECK_THROWS_AS(write_atomically(d + "/link.raw", a.bytes.data(), 4, "the monitor's table"),
                  UsageError);
  CHECK(read_file(d + "/target.raw") == "x");
  REQUIRE(lstat((d + "/link.raw").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));

  // Not a regular file: refused, untouched.
  CHECK_THROWS_WITH_AS(save_raw(a, "/dev/full"),
                       doctest::Contains("'/dev/full' is a character device"), RunError);
  CHECK(dir.entries().size() == 4);  // new, old, target, link: no temporary file left
}

TEST_CASE("write_all: every write checked (ENOSPC on /dev/full)") {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::vector<unsigned char> data(100000, 7);
  CHECK(file::write_all(fd, data.data(), data.size()) == ENOSPC);
  ::close(fd);
}

TEST_CASE("load_raw: regular files of the array's size only") {
  TempDir dir;
  HostArray a("A", 4, Box::from_extent(1, {4, 1, 1}));
  write_file(dir.path + "/ok.raw", std::string(16, 'z'));
  load_raw(a, dir.path + "/ok.raw");
  CHECK(a.bytes[15] == 'z');
  CHECK_THROWS_WITH_AS(load_raw(a, dir.path),
                       doctest::Contains("is a directory, not a regular file"), RunError);
  write_file(dir.path + "/long.raw", std::string(17, 'z'));
  CHECK_THROWS_WITH_AS(load_raw(a, dir.path + "/long.raw"),
                       doctest::Contains("holds 17 bytes but array A needs 16 bytes"), RunError);
}

// Issue 26: in core, the host arrays are page-locked where the system allows it; where it
// refuses, they are pageable (slower copies, the same results) and the report says why.
TEST_CASE("pageable_fallback: page-locked arrays, pageable once an allocation is refused") {
  int calls = 0;
  unsigned char pinned_bytes[64] = {};
  HostAllocator pinned = [&](std::size_t n, const std::string& name) -> HostBytes {
    ++calls;
    if (name == "big") throw RunError("cudaHostAlloc(big) failed on host: out of memory");
    return HostBytes(pinned_bytes, n, nullptr);
  };
  HostMemory memory;
  const HostAllocator alloc = pageable_fallback(pinned, memory);
  CHECK(memory.text().empty());  // no host array made: the report's line is left out
  const Box grid = Box::from_extent(1, {4, 1, 1});
  HostArray a("A", 4, grid, alloc);
  CHECK(a.bytes.adopted());
  CHECK(a.bytes.data() == pinned_bytes);
  CHECK(memory.text() == "page-locked");
  HostArray big("big", 4, grid, alloc);
  CHECK_FALSE(big.bytes.adopted());
  CHECK(big.bytes.size() == 16);
  HostArray c("C", 4, grid, alloc);  // after a refusal: pageable, not asked again
  CHECK_FALSE(c.bytes.adopted());
  CHECK(calls == 2);
  CHECK(memory.text() ==
        "1 of 3 page-locked, the others pageable (page-locking failed: cudaHostAlloc(big) "
        "failed on host: out of memory)");

  HostMemory off;
  const HostAllocator none = pageable_fallback({}, off);
  HostArray d("D", 4, grid, none);
  CHECK_FALSE(d.bytes.adopted());
  CHECK(off.text() == "pageable (--pinned off)");
}

TEST_CASE("print_report: host<->device against the link measured at start-up") {
  RunStats s;
  s.total_s = 1;
  s.steps = 10;
  s.host_device_s = 0.5;
  s.host_device_bytes = std::size_t{1} << 30;
  s.host_memory = "page-locked";
  s.link_h2d = 53.2e9;
  s.link_d2h = 54.1e9;
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  print_report(s, f);
  std::rewind(f);
  std::string text;
  for (int ch; (ch = std::fgetc(f)) != EOF;) text += static_cast<char>(ch);
  std::fclose(f);
  CHECK(text.find("  host<->device: 0.500000 s, 1.00 GiB moved (2.15 GB/s; link measured at "
                  "start-up: 53.20 GB/s to the devices, 54.10 GB/s back)\n") != std::string::npos);
  CHECK(text.find("  host arrays:  page-locked\n") != std::string::npos);
}

// hostmem: the host copies line adds the exchanges' staging (when said: an MPI rank's is not)
// and the arrays gathered at the end.
TEST_CASE("print_report: host copies, the exchanges' staging and the arrays gathered") {
  auto report = [](const RunStats& s) {
    std::FILE* f = std::tmpfile();
    REQUIRE(f);
    print_report(s, f);
    std::rewind(f);
    std::string text;
    for (int ch; (ch = std::fgetc(f)) != EOF;) text += static_cast<char>(ch);
    std::fclose(f);
    return text;
  };
  RunStats s;
  s.host_array_bytes = 3 << 20;
  s.device_made = "B";
  s.staging_bytes = 28 << 10;
  s.gathered = "A";
  CHECK(report(s).find("\n  host copies:  3.00 MiB + staging 28.00 KiB; made on the devices: B; "
                       "gathered: A\n") != std::string::npos);
  s.staging_memory = "pageable: page-locking failed: no";
  s.gathered.clear();
  CHECK(report(s).find("  host copies:  3.00 MiB + staging 28.00 KiB (pageable: page-locking "
                       "failed: no); made on the devices: B; gathered: none\n") !=
        std::string::npos);
  s.staging_bytes = -1;  // an MPI rank: its messages' buffers are not counted here
  CHECK(report(s).find("  host copies:  3.00 MiB; made on the devices: B; gathered: none\n") !=
        std::string::npos);
  s.host_array_bytes = -1;  // out of core: no such line
  CHECK(report(s).find("host copies") == std::string::npos);
}

// hostmem: --save and --verify of a written array the run did not gather are internal errors
// naming the array (its host bytes hold its initial values); unwritten arrays need no gather.
TEST_CASE("require_gathered: a written array read after the run must have been gathered") {
  const ArrayInfo written{"A", 4, kExchanged | kResult | kFloating};
  const ArrayInfo input{"vel", 4, kFloating};
  const std::vector<bool> gathered{false, false};
  CHECK_THROWS_WITH_AS(require_gathered(gathered, written, 0, "--save A"),
                       "internal error: --save A reads array A after the run, which did not "
                       "gather it (its last values are on the devices)",
                       RunError);
  CHECK_NOTHROW(require_gathered(gathered, input, 1, "--save vel"));
  CHECK_NOTHROW(require_gathered({true, false}, written, 0, "--verify"));
}

// devinit: the device kernels' integer-only random bits (rt::random_bits, written again in
// init_opencl.hpp / init_cuda.hpp) equal random_value<T>; a HostArray without a host copy
// refuses reads.
TEST_CASE("random_bits equals random_value for float, double and integers") {
  using namespace stepgen;
  std::size_t wrong = 0;
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{42}})
    for (std::uint64_t i = 0; i < 20000; ++i) {
      const float f = rt::random_value<float>(seed, i);
      const double d = rt::random_value<double>(seed, i);
      std::uint32_t fb = 0;
      std::uint64_t db = 0;
      std::memcpy(&fb, &f, 4);
      std::memcpy(&db, &d, 8);
      if (rt::random_bits(seed, i, rt::ArrayInit::kFloat) != fb) ++wrong;
      if (rt::random_bits(seed, i, rt::ArrayInit::kDouble) != db) ++wrong;
      if (rt::random_bits(seed, i, rt::ArrayInit::kInteger) !=
          static_cast<std::uint64_t>(rt::random_value<std::int32_t>(seed, i)))
        ++wrong;
    }
  CHECK(wrong == 0);
  rt::HostArray absent = rt::HostArray::absent("A", 4, rt::Box::from_extent(1, {8, 1, 1}));
  CHECK(!absent.held);
  CHECK(absent.bytes.size() == 0);
  CHECK_THROWS_AS(absent.as<float>(), rt::RunError);
  CHECK_THROWS_AS(rt::save_raw(absent, "/nonexistent/x.raw"), rt::RunError);
}

// devinit: the groups of a device fill (rt::fill_groups, both backends' launches): along x as
// many as a row needs up to 4096, then y, then z; the kernels' loops stride past them.
TEST_CASE("fill_groups: a row's groups along x, then rows and planes, at most 4096 in all") {
  using namespace stepgen;
  // The groups of nx x ny x nz cells in blocks of bx x by, as {x, y, z}.
  auto groups = [](std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t bx,
                   std::int64_t by) {
    rt::FillGeometry b{};
    b.nx = nx;
    b.ny = ny;
    b.nz = nz;
    const rt::FillGroups g = rt::fill_groups(b, bx, by);
    return std::vector<std::int64_t>{g.x, g.y, g.z};
  };
  using V = std::vector<std::int64_t>;
  // 1000 x 37 x 5 cells in blocks of 256 x 1: 4 along x, then all 37 rows, then 5 planes.
  CHECK(groups(1000, 37, 5, 256, 1) == V{4, 37, 5});
  // Blocks of 32 x 8: rows in groups of 8.
  CHECK(groups(20, 100, 1, 32, 8) == V{1, 13, 1});
  // One long row (rt::fill_geometry's whole planes): 4096 groups, each looping over many cells.
  CHECK(groups(std::int64_t{1} << 30, 1, 1, 128, 1) == V{4096, 1, 1});
  // Many planes: the groups stop at 4096 in all, y and z at most 65535.
  CHECK(groups(64, 512, 100000, 64, 1) == V{1, 512, 8});
  CHECK(groups(1 << 20, 1 << 20, 3, 256, 1) == V{4096, 1, 1});
}

// --verify's message tells the two values apart: a double printed with 9 digits would show
// "0.577385165 vs 0.577385165" for values that differ in the 11th.
TEST_CASE("verify: the first differing element is printed with every digit that differs") {
  const Box box = Box::from_extent(1, {4, 1, 1});
  auto pair_of = [&](std::size_t elem) {
    return std::make_pair(HostArray("u", elem, box), HostArray("u", elem, box));
  };
  {
    auto [got, want] = pair_of(sizeof(double));
    double* g = reinterpret_cast<double*>(got.bytes.data());
    double* w = reinterpret_cast<double*>(want.bytes.data());
    for (int i = 0; i < 4; ++i) g[i] = w[i] = 0.25 * i;
    g[2] = 0.5773851650490525;
    w[2] = 0.57738516505679;
    CHECK(compare_arrays<double>(got, want) ==
          "u differs at 1 of 4 elements; first at (2,0,0): 0.57738516504905246 vs "
          "0.57738516505679005");
  }
  {
    auto [got, want] = pair_of(sizeof(float));
    float* g = reinterpret_cast<float*>(got.bytes.data());
    float* w = reinterpret_cast<float*>(want.bytes.data());
    for (int i = 0; i < 4; ++i) g[i] = w[i] = 1.0f;
    g[1] = std::nextafter(1.0f, 2.0f);
    g[3] = 0.0f;
    CHECK(compare_arrays<float>(got, want) ==
          "u differs at 2 of 4 elements; first at (1,0,0): 1.00000012 vs 1");
  }
  {
    // 64-bit integers past 2^53, where a double would print both alike.
    auto [got, want] = pair_of(sizeof(std::int64_t));
    std::int64_t* g = reinterpret_cast<std::int64_t*>(got.bytes.data());
    std::int64_t* w = reinterpret_cast<std::int64_t*>(want.bytes.data());
    for (int i = 0; i < 4; ++i) g[i] = w[i] = 7;
    g[0] = (std::int64_t{1} << 60) + 1;
    w[0] = std::int64_t{1} << 60;
    CHECK(compare_arrays<std::int64_t>(got, want) ==
          "u differs at 1 of 4 elements; first at (0,0,0): 1152921504606846977 vs "
          "1152921504606846976");
  }
  {
    // Values that print alike but differ in their bits (NaN payloads): their bytes too.
    auto [got, want] = pair_of(sizeof(float));
    std::uint32_t* g = reinterpret_cast<std::uint32_t*>(got.bytes.data());
    std::uint32_t* w = reinterpret_cast<std::uint32_t*>(want.bytes.data());
    for (int i = 0; i < 4; ++i) g[i] = w[i] = 0x3f800000u;
    g[0] = 0x7fc00001u;
    w[0] = 0x7fc00000u;
    CHECK(compare_arrays<float>(got, want) ==
          "u differs at 1 of 4 elements; first at (0,0,0): nan (0x0100c07f) vs nan (0x0000c07f)");
  }
  {
    auto [got, want] = pair_of(sizeof(double));
    std::memset(got.bytes.data(), 0, got.bytes.size());
    std::memset(want.bytes.data(), 0, want.bytes.size());
    CHECK(compare_arrays<double>(got, want).empty());
  }
}

namespace {
// Whether `T{A...}` compiles: how the generated program fills the description's tables.
template <class T, class... A>
auto braces(int) -> decltype(T{std::declval<A>()...}, std::true_type{});
template <class T, class... A>
std::false_type braces(...);
template <class T, class... A>
constexpr bool kBraces = decltype(braces<T, A...>(0))::value;
}  // namespace

// The description's fields have distinct types: the generated initialiser of an array compiles
// in its order only, and no bool or integer stands for a set of flags (a field reordered, or
// the old four booleans in a row, is a compile error, not a silently different array).
TEST_CASE("description: an array's initialiser compiles in its field order only") {
  static_assert(kBraces<ArrayInfo, const char*, std::size_t, ArrayFlags, CompareArrays, ArrayInit>);
  static_assert(!kBraces<ArrayInfo, const char*, std::size_t, bool, bool, bool, bool>);
  static_assert(!kBraces<ArrayInfo, const char*, std::size_t, unsigned>);
  static_assert(!kBraces<ArrayInfo, const char*, std::size_t, CompareArrays, ArrayFlags>);
  static_assert(!kBraces<OutputSpec, const char*, std::int64_t, bool, bool, bool>);
  static_assert(!kBraces<OutputSpec, const char*, std::int64_t, ArrayFlags>);  // another kind
  const ArrayInfo scratch{"s", 4, kExchanged | kFloating | kStoredBack};
  CHECK(scratch.exchanged());
  CHECK(scratch.floating());
  CHECK(scratch.stored_back());
  CHECK_FALSE(scratch.result());
  CHECK(scratch.scratch());
  const ArrayInfo input{"vel", 4, kNoFlags};
  CHECK_FALSE(input.exchanged());
  CHECK_FALSE(input.scratch());
  const OutputSpec o{"u.h5", 10, kHdf5 | kLast, {0}};
  CHECK(o.hdf5());
  CHECK(o.last());
  CHECK_FALSE(o.first());
}

// A kernel's probe entry likewise: an access is one typed value, never two booleans in a row,
// and the follow set, slab use and step use each have their own type.
TEST_CASE("description: a kernel's probe entry compiles in its field order only") {
  static_assert(kBraces<ProbeArg, int, ArgAccess, Halo>);
  static_assert(!kBraces<ProbeArg, int, bool, bool, Halo>);
  static_assert(!kBraces<ProbeArg, int, bool, Halo>);
  static_assert(kBraces<ProbeKernel, const char*, std::vector<ProbeArg>, FollowDims, SlabUse>);
  static_assert(
      !kBraces<ProbeKernel, const char*, std::vector<ProbeArg>, std::array<bool, 3>, bool>);
  static_assert(!kBraces<ProbeKernel, const char*, std::vector<ProbeArg>, SlabUse, FollowDims>);
  static_assert(
      !kBraces<ProbeKernel, const char*, std::vector<ProbeArg>, FollowDims, SlabUse, Vec3, bool>);
  const ProbeArg in{3, ArgAccess::kRead, Halo::from_points(2, {{-1, 0, 0}})};
  CHECK(in.array == 3);
  CHECK(in.read);
  CHECK_FALSE(in.written);
  const ProbeArg both{1, ArgAccess::kReadWrite, Halo::from_points(2, {})};
  CHECK(both.read);
  CHECK(both.written);
  const ProbeKernel k{"k",       {in, both},        kFollowsX | kFollowsZ, SlabUse::kWholeBuffer,
                      {4, 1, 1}, StepUse::kUsesStep};
  CHECK(k.follows == std::array<bool, 3>{true, false, true});
  CHECK_FALSE(k.views);
  CHECK(k.shift == Vec3{4, 1, 1});
  CHECK(k.uses_step);
  const ProbeKernel plain{"p", {}, kFollowsNone, SlabUse::kOnSlabs};
  CHECK(plain.follows == std::array<bool, 3>{false, false, false});
  CHECK(plain.views);
  CHECK_FALSE(plain.uses_step);
}

// And a launch's entry: its reach, work-group size and cells per work-item are each their own
// type, so four integers in a row (the old entry) do not compile.
TEST_CASE("description: a launch's entry compiles in its field order only") {
  static_assert(kBraces<ProbeLaunch, int, Vec3, Vec3, Reach, Group>);
  static_assert(kBraces<ProbeLaunch, int, Vec3, Vec3, Reach, Group, CellsPerItem>);
  static_assert(!kBraces<ProbeLaunch, int, Vec3, Vec3, Index, Index, std::size_t>);
  static_assert(!kBraces<ProbeLaunch, int, Vec3, Vec3, Index, Index, std::size_t, Index>);
  static_assert(!kBraces<ProbeLaunch, int, Vec3, Vec3, Group, Reach>);
  const ProbeLaunch l{2, {0, 1, 0}, {0, 2, 0}, Reach{3, 1}, Group{16}, CellsPerItem{4}};
  CHECK(l.kernel == 2);
  CHECK(l.after_lo == Vec3{0, 1, 0});
  CHECK(l.after_hi == Vec3{0, 2, 0});
  CHECK(l.reach_lo == 3);
  CHECK(l.reach_hi == 1);
  CHECK(l.group == 16);
  CHECK(l.cells == 4);
  CHECK(ProbeLaunch{0, {}, {}, Reach{}, Group{8}}.cells == 1);
}

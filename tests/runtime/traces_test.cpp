// Receivers' tables and trace files (runtime/include/stepgen/exec/traces.hpp): which steps are
// sampled, the CSV text (header, step index, digits that read back the same bits), a hole is
// an error, the atomic write; sources' addition in the array's type.
#include "stepgen/exec/traces.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace rt = stepgen::rt;

namespace {
rt::Record float_record(std::int64_t every, const std::string& file = "t.csv") {
  return rt::Record(0, "p", {{1, 2, 3}, {4, 5, 6}}, 3, every, file, sizeof(float),
                    rt::cell_value<float>, rt::trace_digits<float>());
}
}  // namespace

TEST_CASE("traces: every k steps, rows indexed by the 0-based step") {
  rt::Record r = float_record(3);
  r.begin(10);  // steps 2, 5, 8
  CHECK(r.rows() == 3);
  for (std::int64_t s = 0; s < 10; ++s) CHECK(r.due(s) == ((s + 1) % 3 == 0));
  for (std::int64_t s : {2, 5, 8}) {
    r.put(s, 0, static_cast<double>(s));
    r.put(s, 1, 0.1f);
  }
  r.put(11, 0, 99.0);  // past the run (a calibration chunk): ignored
  const std::string csv = r.csv();
  CHECK(csv == "step,p[1 2 3],p[4 5 6]\n2,2,0.100000001\n5,5,0.100000001\n8,8,0.100000001\n");
  // 9 digits read a float back to the same bits.
  CHECK(static_cast<float>(std::strtod("0.100000001", nullptr)) == 0.1f);
}

TEST_CASE("traces: a run resumed at step `first` writes the rows from there on") {
  rt::Record r = float_record(2);
  r.begin(8, 4);  // steps 1, 3 skipped; 5, 7 sampled
  for (std::int64_t s : {5, 7}) {
    r.put(s, 0, 1.0);
    r.put(s, 1, 2.0);
  }
  CHECK(r.csv() == "step,p[1 2 3],p[4 5 6]\n5,1,2\n7,1,2\n");
}

TEST_CASE("traces: a point never sampled is an error, never a silent hole") {
  rt::Record r = float_record(1);
  r.begin(2);
  r.put(0, 0, 1.0);
  r.put(0, 1, 1.0);
  r.put(1, 0, 1.0);
  CHECK_THROWS_WITH_AS(r.csv(), doctest::Contains("point 1 of array p was not sampled at step 1"),
                       rt::RunError);
}

TEST_CASE("traces: doubles print 17 digits, integers as integers") {
  rt::Record d(0, "q", {{0, 0, 0}}, 1, 1, "d.csv", sizeof(double), rt::cell_value<double>,
               rt::trace_digits<double>());
  d.begin(1);
  d.put(0, 0, 0.1);
  CHECK(d.csv() == "step,q[0]\n0,0.10000000000000001\n");
  rt::Record i(0, "n", {{0, 0, 0}}, 2, 1, "i.csv", sizeof(int), rt::cell_value<int>,
               rt::trace_digits<int>());
  i.begin(1);
  i.put(0, 0, -42.0);
  CHECK(i.csv() == "step,n[0 0]\n0,-42\n");
}

TEST_CASE("traces: the file is written atomically, the trace read back whole") {
  char folder[] = "/tmp/stepgen-traces-XXXXXX";
  REQUIRE(mkdtemp(folder) != nullptr);
  const std::string path = std::string(folder) + "/t.csv";
  rt::Record r = float_record(1, path);
  r.begin(1);
  r.put(0, 0, 1.5);
  r.put(0, 1, -2.0);
  r.write();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "step,p[1 2 3],p[4 5 6]\n0,1.5,-2\n");
  rt::Records list{&r, 1};
  CHECK_NOTHROW(rt::check_trace_files(list));
  ::unlink(path.c_str());
  ::rmdir(folder);
}

TEST_CASE("traces: inject adds in the array's type") {
  float f = 1.0f;
  rt::add_to_cell<float>(reinterpret_cast<unsigned char*>(&f), 1e-8);  // float(1e-8) + 1 == 1
  CHECK(f == 1.0f);
  double d = 1.0;
  rt::add_to_cell<double>(reinterpret_cast<unsigned char*>(&d), 1e-8);
  CHECK(d == 1.0 + 1e-8);
  int n = 5;
  rt::add_to_cell<int>(reinterpret_cast<unsigned char*>(&n), 2.75);  // int(2.75) = 2
  CHECK(n == 7);
  CHECK_THROWS_WITH_AS(rt::table_value(&d, 1, 1, "w.raw"),
                       doctest::Contains("w.raw holds 1 values (one per step), none for step 1"),
                       rt::RunError);
}

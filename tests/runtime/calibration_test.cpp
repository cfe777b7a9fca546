// stepgen/plan/calibration.hpp: the out-of-core model's figures as text. A program's report ends
// its link lines with them (ooc::print_report), and `stepgen plan --calibration` reads them back.
#include "stepgen/plan/calibration.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "stepgen/exec/ooc.hpp"  // the report whose last line is a calibration

using namespace stepgen::rt;

namespace {

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("stepgen_calibration_" + name)).string();
}

}  // namespace

TEST_CASE("calibration: a program's report is a calibration file") {
  ooc::Stats s;
  s.on = true;
  s.link.h2d = 24.5e9;
  s.link.d2h = 26.25e9;
  s.link.bidir = 40.125e9;
  s.link.cell_step = 0.0125e-9;
  s.link.d2d = 1500e9;
  s.link.measured = true;
  s.link.devices_all = 2;
  s.link.h2d_all = 40e9;
  s.link.d2h_all = 41e9;
  s.link.bidir_all = 60e9;
  const std::string path = temp_file("report.txt");
  std::FILE* out = std::fopen(path.c_str(), "wb");
  REQUIRE(out);
  std::fprintf(out, "some run\n");
  ooc::print_report(s, out);
  std::fprintf(out, "verify: ok\n");
  std::fclose(out);

  LinkFigures f;
  read_link_figures(path, f);
  CHECK(f.link.h2d == doctest::Approx(24.5e9));
  CHECK(f.link.d2h == doctest::Approx(26.25e9));
  CHECK(f.link.bidir == doctest::Approx(40.125e9));
  CHECK(f.link.cell_step == doctest::Approx(0.0125e-9));
  CHECK(f.link.d2d == doctest::Approx(1500e9));
  CHECK(f.link.devices_all == 2);
  CHECK(f.link.h2d_all == doctest::Approx(40e9));
  CHECK(f.link.bidir_all == doctest::Approx(60e9));
  CHECK(f.link.measured);
  CHECK(f.h2d == path);
  CHECK(f.kernel == path);
  CHECK(f.all == path);
  std::filesystem::remove(path);
}

TEST_CASE("calibration: stated figures, their sources, and errors that name the cause") {
  LinkFigures f;
  CHECK(f.h2d == "assumed");
  apply_link_figures("h2d=12.5, kernel=0.5", "--link", f);
  CHECK(f.link.h2d == doctest::Approx(12.5e9));
  CHECK(f.link.cell_step == doctest::Approx(0.5e-9));
  CHECK(f.h2d == "--link");
  CHECK(f.kernel == "--link");
  CHECK(f.d2h == "assumed");
  CHECK(f.link.d2h == ooc::Link().d2h);

  // A hand-written file: KEY=VALUE items, '#' comments.
  const std::string path = temp_file("hand.txt");
  std::ofstream(path) << "# measured by hand\nd2h=8   # GB/s\nbidir=12\n";
  read_link_figures(path, f);
  CHECK(f.link.d2h == doctest::Approx(8e9));
  CHECK(f.d2h == path);
  CHECK(f.h2d == "--link");  // kept
  CHECK_FALSE(f.link.measured);

  // MPI: the pass boundary's messages, GB/s and microseconds.
  apply_link_figures("message=3.5,message_latency=12", "--link", f);
  CHECK(f.link.message == doctest::Approx(3.5e9));
  CHECK(f.link.message_latency == doctest::Approx(12e-6));
  CHECK(f.message == "--link");
  apply_link_figures("boundary=25.5", "--link", f);  // MPI: the ranks' meeting, microseconds
  CHECK(f.link.boundary == doctest::Approx(25.5e-6));

  CHECK_THROWS_WITH_AS(apply_link_figures("h2d=fast", "--link", f),
                       doctest::Contains("--link: h2d expects a positive number, got 'fast'"),
                       UsageError);
  CHECK_THROWS_WITH_AS(apply_link_figures("pcie=3", "--link", f),
                       doctest::Contains("unknown figure 'pcie'"), UsageError);
  CHECK_THROWS_WITH_AS(apply_link_figures("h2d", "--link", f),
                       doctest::Contains("'h2d' is not KEY=VALUE"), UsageError);
  CHECK_THROWS_WITH_AS(apply_link_figures("h2d=0", "--link", f),
                       doctest::Contains("positive number"), UsageError);
  std::ofstream(path) << "# nothing\n";
  CHECK_THROWS_WITH_AS(read_link_figures(path, f), doctest::Contains("holds no figures"),
                       UsageError);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH_AS(read_link_figures(path, f), doctest::Contains("cannot read"), UsageError);
}

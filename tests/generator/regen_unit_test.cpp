// The pieces regeneration is built from, in memory: three-way merges (libgit2), unified diffs,
// conflict-marker detection, the spec path named by headers, and the update plan's decisions.
// tests/regen/regen_test.sh drives the same through the command line, on disk.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "emit/merge.hpp"
#include "emit/provenance.hpp"
#include "emit/regenerate.hpp"

namespace fs = std::filesystem;
using namespace stepgen::emit;

TEST_CASE("merge_three_way: separate edits merge cleanly, overlapping ones conflict") {
  const std::string base = "a\nb\nc\nd\ne\nf\ng\n";
  MergeResult clean =
      merge_three_way(base, "a\nB (mine)\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nF\ng\n", "x.cpp");
  CHECK(clean.clean);
  CHECK(clean.text == "a\nB (mine)\nc\nd\ne\nF\ng\n");
  MergeResult conflict =
      merge_three_way(base, "a\nb\nC1\nd\ne\nf\ng\n", "a\nb\nC2\nd\ne\nf\ng\n", "x.cpp");
  CHECK_FALSE(conflict.clean);
  CHECK(conflict.text.find("<<<<<<< yours: x.cpp\nC1\n=======\nC2\n>>>>>>> stepgen: x.cpp\n") !=
        std::string::npos);
  CHECK(has_conflict_markers(conflict.text));
  CHECK_FALSE(has_conflict_markers("int x;  // <<<<<<< yours: not at a line start\n"));
}

TEST_CASE("unified_diff: git's format, empty for equal texts") {
  const std::string a = "one\ntwo\n", b = "one\nthree\n";
  CHECK(unified_diff(&a, &a, "f.txt").empty());
  std::string d = unified_diff(&a, &b, "f.txt");
  CHECK(d.find("--- a/f.txt\n+++ b/f.txt\n") != std::string::npos);
  CHECK(d.find("-two\n+three\n") != std::string::npos);
  CHECK(unified_diff(nullptr, &a, "f.txt").find("--- /dev/null") != std::string::npos);
}

TEST_CASE("spec_path_from: relative to the output folder, never absolute") {
  CHECK(spec_path_from("/work/repo/specs/j.xml", "/work/repo/gen/j") == "../../specs/j.xml");
  CHECK(spec_path_from("/work/repo/j.xml", "/work/repo/out") == "../j.xml");
  CHECK(spec_path_from("/tmp/j.xml", "/home/me/out") == "j.xml");  // only / in common
  CHECK(spec_path_from("/work/repo/j.xml", "") == "j.xml");
}

TEST_CASE("plan_update: unedited files update, edits merge, nothing is decided by writing") {
  const fs::path dir = fs::temp_directory_path() / "stepgen-regen-unit";
  fs::remove_all(dir);
  OutputSet first;
  first.add("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
  first.add("b.txt", "b\n");
  UpdatePlan created = plan_update(first, dir.string(), {});
  CHECK_FALSE(created.dir_exists);
  CHECK_FALSE(created.up_to_date());
  CHECK_FALSE(fs::exists(dir));  // planning writes nothing
  apply_update(created);
  CHECK(plan_update(first, dir.string(), {}).up_to_date());
  CHECK(read_file_if_exists((dir / ".stepgen/a.txt").string()) ==
        std::string("1\n2\n3\n4\n5\n6\n7\n8\n"));

  {
    std::ofstream edit(dir / "a.txt", std::ios::binary | std::ios::trunc);
    edit << "1 mine\n2\n3\n4\n5\n6\n7\n8\n";
  }
  OutputSet second;
  second.add("a.txt", "1\n2\n3\n4\n5\n6\n7\n8 new\n");
  second.add("b.txt", "b2\n");
  UpdatePlan plan = plan_update(second, dir.string(), {});
  REQUIRE(plan.files.size() == 2);
  CHECK(plan.files[0].change == Change::kMerge);
  CHECK(plan.files[0].after == std::string("1 mine\n2\n3\n4\n5\n6\n7\n8 new\n"));
  CHECK(plan.files[1].change == Change::kUpdate);
  CHECK(plan.conflicts().empty());
  apply_update(plan);
  CHECK(read_file_if_exists((dir / "a.txt").string()) ==
        std::string("1 mine\n2\n3\n4\n5\n6\n7\n8 new\n"));
  fs::remove_all(dir);
}

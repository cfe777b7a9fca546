// The pieces regeneration is built from, in memory: three-way merges (libgit2), unified diffs,
// conflict-marker detection, the spec path named by headers, and the update plan's decisions;
// on disk: links and special files, atomic writes, leftover temporary files and the folder lock.
// tests/regen/regen_test.sh drives the same through the command line, on disk.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
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

TEST_CASE("spec_path_from: the same header lines whichever link leads to the folders") {
  const fs::path dir = fs::temp_directory_path() / "stepgen-spec-path-links";
  fs::remove_all(dir);
  fs::create_directories(dir / "project" / "specs");
  fs::create_directory_symlink("project", dir / "link");
  { std::ofstream(dir / "project" / "specs" / "j.xml") << "<x/>"; }
  fs::create_symlink("j.xml", dir / "project" / "specs" / "alias.xml");
  const std::string out = (dir / "project" / "gen").string();
  CHECK(spec_path_from((dir / "project/specs/j.xml").string(), out) == "../specs/j.xml");
  CHECK(spec_path_from((dir / "link/specs/j.xml").string(), out) == "../specs/j.xml");
  CHECK(spec_path_from((dir / "link/specs/j.xml").string(), (dir / "link/gen").string()) ==
        "../specs/j.xml");
  // A spec that is itself a link keeps the name it was given.
  CHECK(spec_path_from((dir / "link/specs/alias.xml").string(), out) == "../specs/alias.xml");
  fs::remove_all(dir);
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

TEST_CASE("merge_three_way: a side that looks binary gives no text, never an empty file") {
  const std::string base = "a\nb\nc\n", theirs = "a\nb\nC\n";
  CHECK(looks_binary(std::string("x\0y", 3)));
  CHECK_FALSE(looks_binary(base));
  CHECK_FALSE(looks_binary(std::string(8000, 'x') + '\0'));  // git looks at 8,000 bytes
  for (const std::string& ours : {std::string("A\0\nb\nc\n", 7), std::string("a\0\0\0", 4)}) {
    MergeResult merged = merge_three_way(base, ours, theirs, "x.cpp");
    CHECK(merged.binary);
    CHECK_FALSE(merged.clean);
  }
  MergeResult text = merge_three_way(base, "A\nb\nc\n", theirs, "x.cpp");
  CHECK_FALSE(text.binary);
  CHECK(text.text == "A\nb\nC\n");
}

namespace {
// A fresh, empty folder for one test case.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("stepgen-regen-unit-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}
// The change planned for `path`.
const FileChange& change_of(const UpdatePlan& plan, const std::string& path) {
  for (const FileChange& c : plan.files)
    if (c.path == path) return c;
  FAIL("no planned change for " << path);
  return plan.files.front();
}
std::string text_of(const fs::path& p) {
  return read_file_if_exists(p.string()).value_or("<none>");
}
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

TEST_CASE("plan_update: an edit that cannot be merged as text is left as is and reported") {
  const fs::path dir = scratch("binary");
  OutputSet first;
  first.add("a.txt", "1\n2\n3\n");
  apply_update(plan_update(first, dir.string(), {}));
  const std::string mine("1 mine\0\n2\n3\n", 12);
  put(dir / "a.txt", mine);
  OutputSet second;
  second.add("a.txt", "1\n2\n3 new\n");
  UpdatePlan plan = plan_update(second, dir.string(), {});
  REQUIRE(plan.files.size() == 1);
  CHECK(plan.files[0].change == Change::kCannotMerge);
  CHECK(plan.files[0].after == mine);
  CHECK(plan.files[0].pristine_after == std::string("1\n2\n3\n"));
  CHECK(plan.conflicts() == std::vector<std::string>{"a.txt"});
  CHECK(change_note(plan.files[0]).find("your file holds NUL bytes") != std::string::npos);
  apply_update(plan);
  CHECK(read_file_if_exists((dir / "a.txt").string()) == mine);
  UpdateOptions force;
  force.force = true;
  apply_update(plan_update(second, dir.string(), force));
  CHECK(read_file_if_exists((dir / "a.txt.orig").string()) == mine);
  CHECK(read_file_if_exists((dir / "a.txt").string()) == std::string("1\n2\n3 new\n"));
  fs::remove_all(dir);
}

TEST_CASE("plan_update: links and special files inside the folder stop it, all of them named") {
  const fs::path dir = scratch("links");
  const fs::path outside = scratch("links-outside");
  put(outside / "precious.txt", "precious\n");
  OutputSet out;
  out.add("a.txt", "a\n");
  out.add("k/b.txt", "b\n");
  apply_update(plan_update(out, dir.string(), {}));
  fs::create_symlink(outside / "precious.txt", dir / ".stepgen/notes.txt");
  fs::remove_all(dir / "k");
  fs::create_directory_symlink(outside, dir / "k");
  REQUIRE(::mkfifo((dir / ".stepgen/pipe").c_str(), 0600) == 0);
  try {
    plan_update(out, dir.string(), {});
    FAIL("no PathError");
  } catch (const PathError& e) {
    const std::string what = e.what();
    CHECK(what.find((dir / ".stepgen/notes.txt").string() + ": error: is a symbolic link") !=
          std::string::npos);
    CHECK(what.find((dir / "k").string() + ": error: is a symbolic link") != std::string::npos);
    CHECK(what.find((dir / ".stepgen/pipe").string() + ": error: is a FIFO") != std::string::npos);
  }
  CHECK(read_file_if_exists((outside / "precious.txt").string()) == std::string("precious\n"));
  CHECK_THROWS_AS(read_file_if_exists((dir / ".stepgen/notes.txt").string()), PathError);
  fs::remove_all(dir);
  fs::remove_all(outside);
}

TEST_CASE("write_file_if_changed: only regular files are replaced, atomically") {
  const fs::path dir = scratch("write");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  fs::create_directory(dir / "folder");
  put(dir / "target.txt", "mine\n");
  fs::create_symlink(dir / "target.txt", dir / "link");
  for (const char* name : {"fifo", "folder", "link"})
    CHECK_THROWS_AS(write_file_if_changed((dir / name).string(), "x\n"), PathError);
  CHECK(fs::is_fifo(fs::symlink_status(dir / "fifo")));
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link")));
  CHECK(read_file_if_exists((dir / "target.txt").string()) == std::string("mine\n"));

  // A replaced file keeps its permissions; an unchanged one is not rewritten.
  fs::permissions(dir / "target.txt", fs::perms(0750));
  CHECK(write_file_if_changed((dir / "target.txt").string(), "new\n"));
  CHECK(fs::status(dir / "target.txt").permissions() == fs::perms(0750));
  CHECK_FALSE(write_file_if_changed((dir / "target.txt").string(), "new\n"));

  // A failed write (a file size limit) leaves the old file and no temporary file.
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit old_limit;
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 16;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  CHECK_THROWS_AS(write_file_if_changed((dir / "target.txt").string(), std::string(1000, 'x')),
                  EmitError);
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  CHECK(read_file_if_exists((dir / "target.txt").string()) == std::string("new\n"));
  CHECK(names_in(dir) == std::vector<std::string>{"fifo", "folder", "link", "target.txt"});

  // write_new_file never replaces anything, not even a dangling link.
  CHECK_THROWS_AS(write_new_file((dir / "target.txt").string(), "x\n"), PathError);
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  CHECK_THROWS_AS(write_new_file((dir / "dangling").string(), "x\n"), PathError);
  CHECK_FALSE(fs::exists(dir / "nowhere"));
  write_new_file((dir / "new/file.txt").string(), "n\n");
  CHECK(read_file_if_exists((dir / "new/file.txt").string()) == std::string("n\n"));
  fs::remove_all(dir);
}

TEST_CASE("temporary files: unique names, recognised and removed by the next locked run") {
  CHECK(is_temporary_name(".a.cpp.stepgen-tmp-1234-0123abcd"));
  CHECK(is_temporary_name("a.cpp.stepgen-tmp"));  // stepgen 0.1's name
  CHECK_FALSE(is_temporary_name("a.cpp"));
  CHECK_FALSE(is_temporary_name(".a.cpp.stepgen-tmp-1234-0123abc"));
  CHECK_FALSE(is_temporary_name(".a.cpp.stepgen-tmp-x-0123abcd"));
  CHECK(temporary_target(".a.cpp.stepgen-tmp-1234-0123abcd") == "a.cpp");
  CHECK(temporary_target("a.cpp.stepgen-tmp") == "a.cpp");
  CHECK(temporary_target("a.cpp").empty());
  const fs::path dir = scratch("leftovers");
  OutputSet out;
  out.add("a.txt", "a\nb\n");
  apply_update(plan_update(out, dir.string(), {}));
  put(dir / ".a.txt.stepgen-tmp-99-0000beef", "a\n");  // a write cut short: part of the file
  put(dir / ".stepgen/.a.txt.stepgen-tmp-99-0000cafe", "half");
  UpdatePlan unlocked = plan_update(out, dir.string(), {});
  CHECK(unlocked.leftovers.size() == 2);
  CHECK(unlocked.saved.empty());
  CHECK_FALSE(unlocked.up_to_date());
  apply_update(unlocked);  // not locked: another run may be writing them
  CHECK(fs::exists(dir / ".a.txt.stepgen-tmp-99-0000beef"));
  UpdateOptions locked;
  locked.locked = true;
  apply_update(plan_update(out, dir.string(), locked));
  CHECK(names_in(dir) == std::vector<std::string>{".stepgen", "a.txt"});
  CHECK(names_in(dir / ".stepgen") == std::vector<std::string>{"a.txt", "manifest"});
  CHECK(plan_update(out, dir.string(), {}).up_to_date());

  // A save that landed while a run swapped the file, then a kill -9, leaves the save only in
  // the temporary file: the next run must not remove it. Bytes found nowhere else are kept
  // under a new name and reported.
  put(dir / ".a.txt.stepgen-tmp-99-0000f00d", "a\nb\nmy save\n");
  UpdatePlan plan = plan_update(out, dir.string(), locked);
  CHECK(plan.leftovers.empty());
  REQUIRE(plan.saved.size() == 1);
  CHECK(plan.saved[0].second == "a.txt.stepgen-saved");
  CHECK(plan.conflicts() == std::vector<std::string>{"a.txt.stepgen-saved"});
  apply_update(plan);
  CHECK(text_of(dir / "a.txt.stepgen-saved") == "a\nb\nmy save\n");
  // A file of the user's whose name only looks like a temporary one, of no file stepgen
  // writes: not stepgen's, left alone, never removed.
  put(dir / "draft.stepgen-tmp", "draft\n");
  put(dir / ".stepgen/keep.stepgen-tmp", "keep\n");
  apply_update(plan_update(out, dir.string(), locked));
  CHECK(text_of(dir / "draft.stepgen-tmp") == "draft\n");
  CHECK(text_of(dir / ".stepgen/keep.stepgen-tmp") == "keep\n");
  fs::remove_all(dir);
}

TEST_CASE(
    "manifest: a file found with stepgen's bytes is the user's: kept when no longer generated") {
  // Generating into the project folder, the kernel copy kernels/v1.cl is the spec's own kernel
  // source; when the spec moves to v2.cl, regeneration must keep v1.cl, the only copy.
  const fs::path dir = scratch("adopted");
  put(dir / "kernels/v1.cl", "kernel v1\n");
  OutputSet first;
  first.add("kernels/v1.cl", "kernel v1\n");
  first.add("prog.cpp", "main\n");
  apply_update(plan_update(first, dir.string(), {}));
  CHECK(text_of(dir / ".stepgen/manifest").find("adopted kernels/v1.cl") != std::string::npos);
  put(dir / "kernels/v1.cl", "kernel v1, improved\n");  // the user goes on editing the source
  OutputSet second;
  second.add("kernels/v1.cl", "kernel v1, improved\n");
  second.add("prog.cpp", "main\n");
  apply_update(plan_update(second, dir.string(), {}));
  OutputSet third;  // the spec now names v2.cl
  third.add("kernels/v2.cl", "kernel v2\n");
  third.add("prog.cpp", "main 2\n");
  const UpdatePlan plan = plan_update(third, dir.string(), {});
  CHECK(change_of(plan, "kernels/v1.cl").change == Change::kKeepAdopted);
  CHECK(plan.conflicts().empty());
  apply_update(plan);
  CHECK(text_of(dir / "kernels/v1.cl") == "kernel v1, improved\n");
  CHECK_FALSE(fs::exists(dir / ".stepgen/kernels/v1.cl"));  // no longer tracked
  // A file stepgen created itself and nobody edited is still removed when no longer generated.
  OutputSet fourth;
  fourth.add("prog.cpp", "main 2\n");
  apply_update(plan_update(fourth, dir.string(), {}));
  CHECK_FALSE(fs::exists(dir / "kernels/v2.cl"));
  CHECK(text_of(dir / "kernels/v1.cl") == "kernel v1, improved\n");
  fs::remove_all(dir);
}

TEST_CASE("manifest: adopted, then edited, then no longer generated: kept as an edited file") {
  // Kept, reported, and still listed in the manifest, so that generating it again merges the
  // edits.
  const fs::path dir = scratch("adopted-edited");
  put(dir / "k.cl", "kernel\n");
  OutputSet with;
  with.add("k.cl", "kernel\n");
  with.add("prog.cpp", "main\n");
  apply_update(plan_update(with, dir.string(), {}));  // adopted
  put(dir / "k.cl", "kernel, mine\n");
  OutputSet without;
  without.add("prog.cpp", "main\n");
  const UpdatePlan gone = plan_update(without, dir.string(), {});
  CHECK(change_of(gone, "k.cl").change == Change::kKeepStale);
  CHECK(gone.conflicts() == std::vector<std::string>{"k.cl"});
  apply_update(gone);
  CHECK(text_of(dir / ".stepgen/manifest").find("adopted,stale k.cl") != std::string::npos);
  OutputSet again;
  again.add("k.cl", "kernel\nmore\n");
  again.add("prog.cpp", "main\n");
  const UpdatePlan back = plan_update(again, dir.string(), {});
  CHECK(change_of(back, "k.cl").change == Change::kConflict);  // merged (both changed line 1)
  apply_update(plan_update(without, dir.string(), {}));
  CHECK(fs::exists(dir / "k.cl"));  // never removed
  fs::remove_all(dir);
}

TEST_CASE("manifest: a pristine copy changed behind stepgen's back is no base: the file is left") {
  // `find out -name '*.cpp' -exec sed -i ...` edits the file and its pristine copy alike; a
  // regeneration that saw no edit would replace the file and lose it.
  const fs::path dir = scratch("damaged");
  OutputSet first;
  first.add("prog.cpp", "int main() {\n  return 0;\n}\n");
  apply_update(plan_update(first, dir.string(), {}));
  const std::string edited = "int main() {\n  banner();\n  return 0;\n}\n";
  put(dir / "prog.cpp", edited);
  put(dir / ".stepgen/prog.cpp", edited);
  OutputSet second;
  second.add("prog.cpp", "int main() {\n  return 1;\n}\n");
  const UpdatePlan plan = plan_update(second, dir.string(), {});
  CHECK(change_of(plan, "prog.cpp").change == Change::kCannotMerge);
  CHECK(change_of(plan, "prog.cpp").reason.find("is not the one stepgen wrote") !=
        std::string::npos);
  CHECK(plan.conflicts() == std::vector<std::string>{"prog.cpp"});
  apply_update(plan);
  CHECK(text_of(dir / "prog.cpp") == edited);
  // Reported again until --force, which saves the user's file as .orig.
  CHECK(plan_update(second, dir.string(), {}).conflicts() == std::vector<std::string>{"prog.cpp"});
  UpdateOptions force;
  force.force = true;
  apply_update(plan_update(second, dir.string(), force));
  CHECK(text_of(dir / "prog.cpp.orig") == edited);
  CHECK(text_of(dir / "prog.cpp") == "int main() {\n  return 1;\n}\n");
  CHECK(plan_update(second, dir.string(), {}).up_to_date());
  // A damaged pristine copy of a file the user deleted is written anew, and trusted again.
  put(dir / ".stepgen/prog.cpp", "damaged\n");
  fs::remove(dir / "prog.cpp");
  OutputSet third;
  third.add("prog.cpp", "int main() {\n  return 2;\n}\n");
  apply_update(plan_update(third, dir.string(), {}));  // stays deleted
  CHECK_FALSE(fs::exists(dir / "prog.cpp"));
  CHECK(plan_update(third, dir.string(), {}).up_to_date());
  put(dir / "prog.cpp", "int main() {\n  return 2;\n}\n// mine\n");  // brought back, edited
  CHECK(change_of(plan_update(third, dir.string(), {}), "prog.cpp").change == Change::kNone);
  fs::remove_all(dir);
}

TEST_CASE("manifest: files in .stepgen/ it does not list are not stepgen's; older folders") {
  const fs::path dir = scratch("unlisted");
  OutputSet out;
  out.add("prog.cpp", "main\n");
  apply_update(plan_update(out, dir.string(), {}));
  put(dir / ".stepgen/README", "my notes\n");  // not listed: the user's, never removed
  put(dir / "README", "my notes\n");
  apply_update(plan_update(out, dir.string(), {}));
  CHECK(text_of(dir / ".stepgen/README") == "my notes\n");
  CHECK(text_of(dir / "README") == "my notes\n");
  // A folder of an older stepgen (no manifest): its pristine copies are trusted; the manifest is
  // written by the next run, which is then up to date.
  fs::remove(dir / ".stepgen/README");
  fs::remove(dir / ".stepgen/manifest");
  put(dir / "prog.cpp", "main, mine\n");
  OutputSet second;
  second.add("prog.cpp", "main\nmore\n");
  const UpdatePlan plan = plan_update(second, dir.string(), {});
  CHECK(change_of(plan, "prog.cpp").change == Change::kConflict);
  CHECK_FALSE(plan.manifest_before);
  apply_update(plan);
  CHECK(fs::exists(dir / ".stepgen/manifest"));
  fs::remove_all(dir);
}

TEST_CASE("manifest: a path leading out of the folder stops regeneration, nothing touched") {
  const fs::path dir = scratch("escape");
  OutputSet out;
  out.add("prog.cpp", "main\n");
  apply_update(plan_update(out, dir.string(), {}));
  const fs::path outside = dir.parent_path() / "stepgen-regen-unit-escape-victim.txt";
  put(outside, "victim\n");
  put(dir / ".stepgen/x", "victim\n");  // a pristine copy equal to it: "unedited"
  std::string manifest = text_of(dir / ".stepgen/manifest");
  for (const char* bad : {"../stepgen-regen-unit-escape-victim.txt",
                          "/tmp/stepgen-regen-unit-escape-victim.txt", ".stepgen/x", "a/../../b"}) {
    CAPTURE(bad);
    put(dir / ".stepgen/manifest",
        manifest + "85e5dbd6ee0bd4d0ea2d5f4ec5e6f1a1b7f2b3a0 - " + std::string(bad) + "\n");
    CHECK_THROWS_WITH_AS(plan_update(out, dir.string(), {}),
                         doctest::Contains("not a path inside the folder"), PathError);
  }
  CHECK(text_of(outside) == "victim\n");
  // Emptied: an error, since every file would count as adopted and edits would not merge.
  put(dir / ".stepgen/manifest", "");
  CHECK_THROWS_WITH_AS(plan_update(out, dir.string(), {}), doctest::Contains("it lists no file"),
                       PathError);
  fs::remove(outside);
  fs::remove_all(dir);
}

TEST_CASE("manifest: an edited file no longer generated is reported once, then merges back") {
  // Switching --target and back keeps the base of an edited file; edits in a file no longer
  // generated are reported, not dropped from the build with exit status 0.
  const fs::path dir = scratch("stale");
  OutputSet opencl;
  opencl.add("prog.cpp", "1\n2\n3\n4\n5\n6\n");
  apply_update(plan_update(opencl, dir.string(), {}));
  put(dir / "prog.cpp", "1 mine\n2\n3\n4\n5\n6\n");
  OutputSet cuda;
  cuda.add("prog.cu", "cuda\n");
  UpdatePlan plan = plan_update(cuda, dir.string(), {});
  CHECK(change_of(plan, "prog.cpp").change == Change::kKeepStale);
  CHECK(plan.conflicts() == std::vector<std::string>{"prog.cpp"});  // needs the user's attention
  CHECK(change_note(change_of(plan, "prog.cpp")).find("no longer part of the program") !=
        std::string::npos);
  apply_update(plan);
  plan = plan_update(cuda, dir.string(), {});  // reported once
  CHECK(plan.conflicts().empty());
  CHECK(plan.up_to_date());
  OutputSet back;  // opencl again, with a change: merged with the kept base
  back.add("prog.cpp", "1\n2\n3\n4\n5\n6 new\n");
  plan = plan_update(back, dir.string(), {});
  CHECK(change_of(plan, "prog.cpp").change == Change::kMerge);
  apply_update(plan);
  CHECK(text_of(dir / "prog.cpp") == "1 mine\n2\n3\n4\n5\n6 new\n");
  fs::remove_all(dir);
}

TEST_CASE("manifest: edits of a file whose output moved are carried to its new path") {
  // A second kernel file of the same name moves the copies to kernels/<folder>/; the edits of
  // kernels/twostage.cl must follow it, not drop out of the build with exit status 0.
  const fs::path dir = scratch("moved");
  OutputSet first;
  first.add("kernels/k.cl", "kernel\n");
  apply_update(plan_update(first, dir.string(), {}));
  put(dir / "kernels/k.cl", "kernel, edited\n");
  OutputSet second;
  second.add("kernels/spec/k.cl", "kernel\n");
  second.add("kernels/other/k.cl", "another\n");
  const UpdatePlan plan = plan_update(second, dir.string(), {});
  CHECK(change_of(plan, "kernels/spec/k.cl").change == Change::kCarry);
  CHECK(change_of(plan, "kernels/k.cl").carried_to == "kernels/spec/k.cl");
  CHECK(plan.conflicts().empty());
  apply_update(plan);
  CHECK(text_of(dir / "kernels/spec/k.cl") == "kernel, edited\n");
  CHECK(text_of(dir / "kernels/k.cl") == "kernel, edited\n");  // kept as is
  CHECK(text_of(dir / ".stepgen/kernels/spec/k.cl") == "kernel\n");
  CHECK(plan_update(second, dir.string(), {}).up_to_date());
  fs::remove_all(dir);
}

TEST_CASE("OutputLock: one run at a time per folder") {
  const fs::path dir = scratch("lock");
  {
    OutputLock lock(dir.string(), true);
    REQUIRE(lock.held());
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(fd >= 0);
    CHECK(::flock(fd, LOCK_EX | LOCK_NB) != 0);  // another open of the folder waits
    CHECK(::flock(fd, LOCK_SH | LOCK_NB) != 0);
    ::close(fd);
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  CHECK(::flock(fd, LOCK_EX | LOCK_NB) == 0);  // released with the lock object
  ::close(fd);
  CHECK_FALSE(OutputLock((dir / "missing").string(), true).held());
  fs::remove_all(dir);
}

TEST_CASE("apply_update: a file saved after planning read it is left, and merged next time") {
  // A save landing while stepgen runs (an editor's auto-save beside a build-driven
  // regeneration) is never overwritten by the merge of the bytes stepgen had read.
  const fs::path dir = scratch("race");
  OutputSet first;
  first.add("prog.cpp", "1\n2\n3\n4\n5\n6\n");
  first.add("old.cpp", "old\n");
  apply_update(plan_update(first, dir.string(), {}));
  put(dir / "prog.cpp", "1 mine\n2\n3\n4\n5\n6\n");
  OutputSet second;
  second.add("prog.cpp", "1\n2\n3\n4\n5\n6 new\n");  // old.cpp: no longer generated, unedited
  const UpdatePlan plan = plan_update(second, dir.string(), {});
  CHECK(change_of(plan, "prog.cpp").change == Change::kMerge);
  CHECK(change_of(plan, "old.cpp").change == Change::kRemove);
  put(dir / "prog.cpp", "1 mine\n2\n3 saved meanwhile\n4\n5\n6\n");  // after planning read it
  put(dir / "old.cpp", "old, edited meanwhile\n");
  const std::vector<std::string> changed = apply_update(plan);
  CHECK(changed == std::vector<std::string>{"old.cpp", "prog.cpp"});
  CHECK(text_of(dir / "prog.cpp") == "1 mine\n2\n3 saved meanwhile\n4\n5\n6\n");
  CHECK(text_of(dir / "old.cpp") == "old, edited meanwhile\n");
  CHECK(text_of(dir / ".stepgen/prog.cpp") == "1\n2\n3\n4\n5\n6\n");  // not advanced
  // The next run merges the save with the new output (the pristine copy is still trusted).
  const UpdatePlan next = plan_update(second, dir.string(), {});
  CHECK(change_of(next, "prog.cpp").change == Change::kMerge);
  CHECK(change_of(next, "old.cpp").change == Change::kKeepStale);
  CHECK(apply_update(next).empty());
  CHECK(text_of(dir / "prog.cpp") == "1 mine\n2\n3 saved meanwhile\n4\n5\n6 new\n");
  fs::remove_all(dir);
}

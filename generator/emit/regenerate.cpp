#include "emit/regenerate.hpp"

#include <fcntl.h>
#include <git2.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "emit/merge.hpp"

namespace stepgen::emit {

namespace fs = std::filesystem;

namespace {

std::string under(const std::string& dir, const std::string& relative) {
  return (fs::path(dir) / relative).string();
}

std::string pristine_relative(const std::string& relative) {
  return std::string(kPristineDir) + "/" + relative;
}

std::string pristine_path(const std::string& dir, const std::string& relative) {
  return under(dir, pristine_relative(relative));
}

// --- the manifest (.stepgen/manifest) ---------------------------------------------------------

// What the manifest says of one tracked path.
struct Tracked {
  std::vector<std::string> hashes;  // the pristine copy's accepted hashes
  bool adopted = false, stale = false;
};
using Manifest = std::map<std::string, Tracked>;

constexpr const char* kManifestHeader =
    "# stepgen's manifest: the files stepgen tracks in this folder, one per line: the hash of\n"
    "# its pristine copy in .stepgen/ (git hash-object), flags (adopted: yours before stepgen\n"
    "# tracked it, never removed; stale: no longer generated, kept for your edits), its path.\n"
    "# Written by stepgen; do not edit (docs/regenerating.md).\n";

// git's blob hash of `text` (as `git hash-object`), through libgit2.
std::string blob_hash(const std::string& text) {
  static const int once = git_libgit2_init();
  (void)once;
  git_oid oid;
  if (git_odb_hash(&oid, text.data(), text.size(), GIT_OBJECT_BLOB) != 0)
    throw EmitError("cannot hash a file (libgit2 git_odb_hash)");
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

// Whether `path` (relative, '/' separated) stays inside the output folder and outside .stepgen/.
bool inside_folder(const std::string& path);

// The manifest's text; nullopt when it is not one (then it is an error: `why`).
std::optional<Manifest> parse_manifest(const std::string& text, std::string& why) {
  Manifest m;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos || b + 1 >= line.size()) {
      why = "line " + std::to_string(number) + " is not 'HASH FLAGS PATH'";
      return std::nullopt;
    }
    Tracked t;
    std::istringstream hashes(line.substr(0, a));
    for (std::string h; std::getline(hashes, h, ',');)
      if (!h.empty()) t.hashes.push_back(h);
    std::istringstream flags(line.substr(a + 1, b - a - 1));
    for (std::string f; std::getline(flags, f, ',');) {
      t.adopted = t.adopted || f == "adopted";
      t.stale = t.stale || f == "stale";
    }
    // Paths are read, replaced and removed under the folder: none may lead out of it (an
    // edited manifest must not make stepgen remove ../x).
    const std::string path = line.substr(b + 1);
    if (!inside_folder(path)) {
      why =
          "line " + std::to_string(number) + " names '" + path + "', not a path inside the folder";
      return std::nullopt;
    }
    m[path] = t;
  }
  return m;
}

std::string manifest_text(const Manifest& m) {
  std::string text = kManifestHeader;
  for (const auto& [path, t] : m) {
    std::string hashes;
    for (const std::string& h : t.hashes) hashes += (hashes.empty() ? "" : ",") + h;
    std::string flags = t.adopted ? "adopted" : "";
    if (t.stale) flags += flags.empty() ? "stale" : ",stale";
    text += hashes + " " + (flags.empty() ? "-" : flags) + " " + path + "\n";
  }
  return text;
}

// Why stepgen stops at each kind of path (after "PATH: error: is a FIFO").
constexpr const char* kOnlyFiles = "; stepgen replaces only regular files (move it away)";
constexpr const char* kNoLinks =
    "; stepgen follows no link inside the output folder (replace it by "
    "a folder, or generate into another folder)";
constexpr const char* kOnlyPristine =
    "; .stepgen/ holds only the pristine copies stepgen writes (remove it)";

// The output folder as planning sees it: read without following a symbolic link anywhere below
// the folder. Every path regeneration must not touch is noted (and planning then fails).
class Folder {
 public:
  explicit Folder(std::string dir) : dir_(std::move(dir)) {}

  std::string full(const std::string& relative) const { return under(dir_, relative); }
  void note(const std::string& relative, const std::string& why) {
    problems_.insert(full(relative) + ": error: " + why);
  }
  const std::set<std::string>& problems() const { return problems_; }

  // True when every folder on the way to `relative` is a real folder (a missing one counts, and
  // `missing` is set); a link or a file on the way is noted.
  bool parents_safe(const std::string& relative, bool* missing = nullptr) {
    fs::path prefix;
    const fs::path path(relative);
    for (auto it = path.begin(); it != path.end(); ++it) {
      if (std::next(it) == path.end()) break;
      prefix /= *it;
      std::error_code ec;
      fs::file_status st = fs::symlink_status(full(prefix.generic_string()), ec);
      if (st.type() == fs::file_type::not_found) {
        if (missing) *missing = true;
        return true;
      }
      if (st.type() == fs::file_type::directory) continue;
      if (ec)
        throw EmitError("cannot examine '" + full(prefix.generic_string()) + "': " + ec.message());
      const std::string where = prefix.generic_string();
      std::string what = not_a_regular_file(full(where));
      note(where, (what.empty() ? "is a file" : what) +
                      (st.type() == fs::file_type::symlink ? std::string(kNoLinks)
                       : where == kPristineDir             ? std::string(kOnlyPristine)
                                                           : "; stepgen needs a folder there"));
      return false;
    }
    return true;
  }

  // The regular file at `relative`; nullopt when there is none, or something else is there (noted
  // with `rule`).
  std::optional<std::string> read(const std::string& relative, const char* rule) {
    bool missing = false;
    if (!parents_safe(relative, &missing) || missing) return std::nullopt;
    std::string why = not_a_regular_file(full(relative));
    if (why.empty()) return read_file_if_exists(full(relative));
    note(relative, why + rule);
    return std::nullopt;
  }

  // True when nothing at all is at `relative` (not even a dangling link).
  bool free(const std::string& relative) const {
    std::error_code ec;
    return fs::symlink_status(full(relative), ec).type() == fs::file_type::not_found;
  }

 private:
  std::string dir_;
  std::set<std::string> problems_;
};

// A path an emitter produced must stay inside the output folder and outside .stepgen/.
bool inside_folder(const std::string& path) {
  const fs::path p(path);
  bool bad = path.empty() || p.is_absolute() || *p.begin() == kPristineDir || path == kManifest;
  for (const char ch : path) bad = bad || static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
  for (const fs::path& part : p) bad = bad || part.empty() || part == "." || part == "..";
  return !bad;
}

void check_generated_path(const std::string& path) {
  if (!inside_folder(path))
    throw EmitError("internal error: the generated path '" + path + "' is not inside the folder");
}

// The first of PATH.orig, PATH.orig.1, ... that does not exist: an older .orig is never replaced.
std::string free_orig_path(const Folder& folder, const std::string& relative) {
  std::string name = relative + ".orig";
  for (int i = 1; !folder.free(name); ++i) {
    if (i > 10000) throw EmitError("no free name for '" + folder.full(relative) + ".orig'");
    name = relative + ".orig." + std::to_string(i);
  }
  return name;
}

// Why a three-way merge gave no text: which side git takes for binary.
std::string cannot_merge_reason(const Folder& folder, const std::string& path,
                                const std::string& base, const std::string& ours,
                                const std::string& theirs) {
  if (looks_binary(ours))
    return "your file holds NUL bytes (binary data, or text in UTF-16 or UTF-32 rather than "
           "UTF-8)";
  if (looks_binary(base))
    return "its pristine copy " + folder.full(pristine_relative(path)) +
           " holds NUL bytes (it is damaged)";
  if (looks_binary(theirs)) return "the new output holds NUL bytes";
  return "a side is too large for a text merge";
}

// A file stepgen generates now: decide what happens to the user's copy.
// Whether the pristine copy read for a tracked path is not what the manifest says stepgen wrote.
bool is_damaged(const Tracked* entry, const std::optional<std::string>& pristine) {
  if (!entry || !pristine) return false;
  const std::string h = blob_hash(*pristine);
  return std::find(entry->hashes.begin(), entry->hashes.end(), h) == entry->hashes.end();
}

// `entry`: what the manifest says of `path` (nullptr: not tracked); `legacy`: no manifest, every
// pristine copy is trusted. `damaged`: set when the pristine copy is not the one stepgen wrote.
FileChange plan_generated(Folder& folder, const std::string& path, const std::string& fresh,
                          const UpdateOptions& options, const Tracked* entry, bool legacy,
                          bool& damaged) {
  FileChange c;
  c.path = path;
  c.before = folder.read(path, kOnlyFiles);
  if (legacy || entry) c.pristine_before = folder.read(pristine_relative(path), kOnlyPristine);
  damaged = is_damaged(entry, c.pristine_before);
  c.adopted = entry && entry->adopted;
  c.pristine_after = fresh;
  c.after = fresh;
  auto force = [&] {
    c.change = Change::kForce;
    c.orig_path = free_orig_path(folder, path);
  };
  if (!c.before) {
    damaged = false;  // no user's file to protect: the pristine copy is written anew
    if (!c.pristine_before) {
      c.change = Change::kCreate;
    } else if (options.force) {
      c.change = Change::kCreate;
    } else {
      c.change = Change::kKeepDeleted;  // the user deleted it: do not bring it back
      c.after.reset();
    }
    return c;
  }
  const std::string& ours = *c.before;
  if (ours == fresh) {
    c.change = Change::kNone;
    // Found with stepgen's bytes before stepgen tracked it: the user's (a kernel generated onto
    // its own source, a file copied in): tracked from now on, but never removed. (A path the
    // manifest lists without its pristine copy is one a killed run was writing: stepgen's.)
    if (!c.pristine_before && !entry) c.adopted = true;
    damaged = false;  // the pristine copy is written again
    return c;
  }
  if (damaged) {
    // The base is not what stepgen wrote (edited, or a tool run over the whole folder): the
    // user's edits cannot be told from stepgen's output. Left as is until --force.
    if (options.force) {
      force();
      damaged = false;
      return c;
    }
    c.change = Change::kCannotMerge;
    c.after = ours;
    c.pristine_after = c.pristine_before;
    c.reason = "its pristine copy " + folder.full(pristine_relative(path)) +
               (looks_binary(*c.pristine_before)
                    ? " holds NUL bytes (it is damaged)"
                    : " is not the one stepgen wrote (edited, or changed by a tool run over the "
                      "whole folder), so your edits cannot be told from stepgen's output");
    return c;
  }
  if (!c.pristine_before) {
    // Not written by stepgen (or by a stepgen that kept no pristine copy): never replace it
    // silently, since it may hold work of the user's.
    if (options.force) {
      force();
    } else {
      c.change = Change::kForeign;
      c.after = ours;
      c.pristine_after.reset();
    }
    return c;
  }
  const std::string& base = *c.pristine_before;
  if (ours == base) {
    c.change = Change::kUpdate;
    return c;
  }
  if (options.force) {
    force();
    return c;
  }
  if (has_conflict_markers(ours) && !has_conflict_markers(base)) {
    // Merging on top of unresolved markers would nest them; keep the old base until resolved.
    c.change = Change::kUnresolved;
    c.after = ours;
    c.pristine_after = base;
    return c;
  }
  if (fresh == base) {  // nothing new from stepgen: the user's file stays as it is
    c.change = Change::kNone;
    c.after = ours;
    return c;
  }
  MergeResult merged = merge_three_way(base, ours, fresh, path);
  if (merged.binary) {
    // No text to write: the user's file and its pristine copy stay as they are, and it is
    // reported until the user fixes it or regenerates with --force.
    c.change = Change::kCannotMerge;
    c.after = ours;
    c.pristine_after = base;
    c.reason = cannot_merge_reason(folder, path, base, ours, fresh);
    return c;
  }
  c.after = merged.text;
  c.change =
      merged.clean ? (merged.text == ours ? Change::kNone : Change::kMerge) : Change::kConflict;
  return c;
}

// A file stepgen tracks (it has a pristine copy, or the manifest lists it) but no longer
// generates. `damaged`: as plan_generated's.
FileChange plan_stale(Folder& folder, const std::string& path, const Tracked* entry,
                      bool& damaged) {
  FileChange c;
  c.path = path;
  c.before = folder.read(path, kOnlyFiles);
  c.pristine_before = folder.read(pristine_relative(path), kOnlyPristine);
  damaged = is_damaged(entry, c.pristine_before);
  if (!c.before) {
    c.change = Change::kRemove;  // deleted by the user: its pristine copy goes too
    damaged = false;
  } else if (entry && entry->adopted && c.before == c.pristine_before && !damaged) {
    c.change = Change::kKeepAdopted;  // the user's before stepgen tracked it: never removed
    c.after = c.before;
  } else if (c.before == c.pristine_before && !damaged) {
    c.change = Change::kRemove;
  } else {
    c.adopted = entry && entry->adopted;  // edited since: kept as any edited file (stale)
    // Edited: kept, with its pristine copy (generating it again merges); reported the first
    // time only.
    c.change = entry && entry->stale ? Change::kNone : Change::kKeepStale;
    c.after = c.before;
    c.pristine_after = c.pristine_before;
    c.stale = true;
  }
  return c;
}

// A file whose edits were kept as stale this run, and a new path whose output is exactly the
// stale file's pristine copy (the output moved: a kernel copy to another folder): the user's
// file is carried to the new path, which then merges from there on.
void carry_moved_edits(std::map<std::string, FileChange>& changes) {
  for (auto& [path, c] : changes) {
    if (c.change != Change::kKeepStale || !c.before || !c.pristine_before) continue;
    for (auto& [to, g] : changes) {
      if (g.change != Change::kCreate || g.after != c.pristine_before) continue;
      g.change = Change::kCarry;
      g.after = c.before;
      g.carried_from = path;
      c.carried_to = to;
      c.pristine_after.reset();  // kept as is, no longer tracked
      c.stale = false;
      break;
    }
  }
}

// The temporary files found (`temps`, relative paths): a killed run's files of paths stepgen
// writes are removed when their bytes are found elsewhere, kept under a new name when not (a
// user's file swapped out by replace_file: a save that landed just before the kill); temporary
// names of other files are not stepgen's.
void classify_temporaries(Folder& folder, const std::map<std::string, FileChange>& changes,
                          const std::vector<std::string>& temps, UpdatePlan& plan) {
  std::set<std::string> taken;  // the names given to kept files
  for (const std::string& temp : temps) {
    const fs::path p(temp);
    const std::string target_name = temporary_target(p.filename().string());
    std::string target = (p.parent_path() / target_name).generic_string();
    bool pristine = false;
    if (target.rfind(std::string(kPristineDir) + "/", 0) == 0) {
      target = target.substr(std::string(kPristineDir).size() + 1);
      pristine = true;
    }
    if (pristine && target == kManifest) {  // stepgen's own file
      plan.leftovers.push_back(temp);
      continue;
    }
    const auto it = changes.find(target);
    if (target_name.empty() || it == changes.end()) continue;  // not a file stepgen writes
    const FileChange& c = it->second;
    const std::optional<std::string> bytes = folder.read(temp, kOnlyFiles);
    if (!bytes) continue;
    auto part_of = [&](const std::optional<std::string>& text) {
      return text && text->compare(0, bytes->size(), *bytes) == 0;  // equal, or cut short
    };
    // Pristine copies hold only stepgen's output; a user's file is the file, its pristine copy,
    // the new output, or a part of one.
    if (pristine || part_of(c.before) || part_of(c.pristine_before) || part_of(c.after) ||
        part_of(c.pristine_after)) {
      plan.leftovers.push_back(temp);
      continue;
    }
    std::string name = target + ".stepgen-saved";
    for (int i = 1; !folder.free(name) || taken.count(name); ++i) {
      if (i > 10000)
        throw EmitError("no free name for '" + folder.full(target) + ".stepgen-saved'");
      name = target + ".stepgen-saved." + std::to_string(i);
    }
    taken.insert(name);
    plan.saved.emplace_back(temp, name);
  }
}

}  // namespace

OutputLock::OutputLock(const std::string& dir, bool exclusive,
                       const std::function<void()>& waiting) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  const int mode = exclusive ? LOCK_EX : LOCK_SH;
  int rc = ::flock(fd, mode | LOCK_NB);
  if (rc != 0 && errno == EWOULDBLOCK) {
    if (waiting) waiting();
    while ((rc = ::flock(fd, mode)) != 0 && errno == EINTR) {
    }
  }
  if (rc != 0) {  // no locks here (ENOLCK, EOPNOTSUPP...): go on without
    ::close(fd);
    return;
  }
  fd_ = fd;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

std::vector<std::string> UpdatePlan::conflicts() const {
  std::vector<std::string> paths;
  for (const FileChange& c : files)
    if (c.change == Change::kConflict || c.change == Change::kCannotMerge ||
        c.change == Change::kUnresolved || c.change == Change::kForeign ||
        (c.change == Change::kKeepStale && c.carried_to.empty()))
      paths.push_back(c.path);
  for (const auto& [temp, name] : saved) paths.push_back(name);
  return paths;
}

bool UpdatePlan::up_to_date() const {
  if (!dir_exists || !leftovers.empty() || !saved.empty() || manifest_before != manifest_after)
    return false;
  for (const FileChange& c : files)
    if (c.before != c.after || c.pristine_before != c.pristine_after || !c.orig_path.empty())
      return false;
  return conflicts().empty();
}

UpdatePlan plan_update(const OutputSet& out, const std::string& dir, const UpdateOptions& options) {
  UpdatePlan plan;
  plan.dir = dir;
  plan.remove_leftovers = options.locked;
  std::error_code ec;
  plan.dir_exists = fs::is_directory(dir, ec);  // the folder named may be a link: the user's choice
  if (!plan.dir_exists && fs::exists(dir, ec))
    throw EmitError("'" + dir + "' exists and is not a folder");

  Folder folder(dir);
  // The manifest (none: a folder an older stepgen wrote, or a new one: every pristine copy is
  // trusted).
  std::optional<Manifest> manifest;
  plan.manifest_before = folder.read(pristine_relative(kManifest), kOnlyPristine);
  if (plan.manifest_before) {
    std::string why;
    manifest = parse_manifest(*plan.manifest_before, why);
    if (manifest && manifest->empty()) {  // stepgen always tracks some file: emptied
      manifest.reset();
      why = "it lists no file";
    }
    if (!manifest)
      folder.note(pristine_relative(kManifest),
                  "is not stepgen's manifest (" + why +
                      "); remove it, and stepgen trusts every pristine copy in .stepgen/ again");
  }
  const bool legacy = !plan.manifest_before;
  auto entry_of = [&](const std::string& path) -> const Tracked* {
    if (!manifest) return nullptr;
    auto it = manifest->find(path);
    return it == manifest->end() ? nullptr : &it->second;
  };
  std::map<std::string, FileChange> changes;
  std::set<std::string> damaged;  // pristine copies that are not what stepgen wrote
  auto plan_one = [&](const std::string& path, const std::string* fresh) {
    bool bad = false;
    changes.emplace(
        path, fresh ? plan_generated(folder, path, *fresh, options, entry_of(path), legacy, bad)
                    : plan_stale(folder, path, entry_of(path), bad));
    if (bad) damaged.insert(path);
  };
  for (const auto& [path, text] : out.files()) {
    check_generated_path(path);
    plan_one(path, &text);
  }

  std::vector<std::string> temps;  // temporary names found (killed runs' files, or a user's)
  // Every pristine copy, and anything else in .stepgen/ (an error unless a regular file or a
  // folder). The iterator follows no link; paths are taken lexically, never through a link.
  const fs::path pristine_root = fs::path(dir) / kPristineDir;
  if (fs::symlink_status(pristine_root, ec).type() == fs::file_type::directory) {
    for (auto it = fs::recursive_directory_iterator(pristine_root, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      const fs::file_type type = it->symlink_status(ec).type();
      if (ec) break;
      const std::string relative = it->path().lexically_relative(dir).generic_string();
      if (type == fs::file_type::directory) continue;
      if (type != fs::file_type::regular) {
        folder.note(relative, not_a_regular_file(it->path().string()) + kOnlyPristine);
        continue;
      }
      if (is_temporary_name(it->path().filename().string())) {
        temps.push_back(relative);
        continue;
      }
      std::string path = it->path().lexically_relative(pristine_root).generic_string();
      // The manifest itself; with a manifest, a file it does not list is not stepgen's.
      if (path == kManifest || (manifest && !manifest->count(path))) continue;
      if (!changes.count(path)) plan_one(path, nullptr);
    }
    if (ec) throw EmitError("cannot list '" + pristine_root.string() + "': " + ec.message());
  } else {
    folder.parents_safe(pristine_relative("x"));  // notes a .stepgen that is not a folder
  }

  // Temporary files a killed run left beside the files it was writing.
  std::set<std::string> folders;
  for (const auto& [path, text] : out.files())
    folders.insert(fs::path(path).parent_path().generic_string());
  for (const std::string& f : folders) {
    bool missing = false;
    if (!plan.dir_exists || !folder.parents_safe(f + (f.empty() ? "" : "/") + "x", &missing) ||
        missing)
      continue;
    for (auto it = fs::directory_iterator(folder.full(f), ec); !ec && it != fs::end(it);
         it.increment(ec))
      if (it->symlink_status(ec).type() == fs::file_type::regular &&
          is_temporary_name(it->path().filename().string()))
        temps.push_back(it->path().lexically_relative(dir).generic_string());
  }

  // Tracked paths whose pristine copy is gone (the listing above did not meet them).
  if (manifest)
    for (const auto& [path, t] : *manifest)
      if (!changes.count(path)) plan_one(path, nullptr);
  carry_moved_edits(changes);
  classify_temporaries(folder, changes, temps, plan);

  // The manifest after this run, and the one written first (every hash before or after).
  Manifest after, during;
  for (const auto& [path, c] : changes) {
    const Tracked* old_entry = entry_of(path);
    std::vector<std::string> before_hashes;
    if (old_entry) before_hashes = old_entry->hashes;
    if (legacy && c.pristine_before) before_hashes.push_back(blob_hash(*c.pristine_before));
    if (c.pristine_after) {
      Tracked t;
      // A damaged pristine copy keeps the hashes stepgen wrote: it stays untrusted.
      t.hashes = damaged.count(path) ? before_hashes
                                     : std::vector<std::string>{blob_hash(*c.pristine_after)};
      t.adopted = c.adopted;
      t.stale = c.stale;
      after[path] = t;
    }
    if (c.pristine_after || !before_hashes.empty()) {
      Tracked t = c.pristine_after ? after[path] : (old_entry ? *old_entry : Tracked{});
      for (const std::string& h : before_hashes)
        if (std::find(t.hashes.begin(), t.hashes.end(), h) == t.hashes.end()) t.hashes.push_back(h);
      during[path] = t;
    }
  }
  plan.manifest_after = manifest_text(after);
  plan.manifest_during = manifest_text(during);

  if (!folder.problems().empty()) {
    std::string lines;
    for (const std::string& p : folder.problems()) lines += (lines.empty() ? "" : "\n") + p;
    throw PathError(lines);
  }
  for (auto& entry : changes) plan.files.push_back(std::move(entry.second));
  std::sort(plan.leftovers.begin(), plan.leftovers.end());
  return plan;
}

std::vector<std::string> apply_update(const UpdatePlan& plan) {
  std::vector<std::string> changed;  // since planning read them: left as they are
  std::error_code ec;
  // A path planning found to be a regular file is checked again just before it is removed.
  auto remove_file = [&](const std::string& path) {
    check_replaceable(path);
    fs::remove(path, ec);
    if (ec) throw EmitError("cannot remove '" + path + "': " + ec.message());
  };
  if (plan.remove_leftovers) {
    for (const std::string& leftover : plan.leftovers) remove_file(under(plan.dir, leftover));
    for (const auto& [temp, name] : plan.saved)  // bytes found nowhere else: a visible name
      rename_new(under(plan.dir, temp), under(plan.dir, name));
  }
  // The manifest first lists every path with both its old and new hashes, so that a run killed
  // below leaves pristine copies the next run trusts; the final manifest comes last.
  const std::string manifest = pristine_path(plan.dir, kManifest);
  if (plan.manifest_during && plan.manifest_during != plan.manifest_before)
    write_file_if_changed(manifest, *plan.manifest_during);
  // Writes first, removals after: a run killed between them has written every carried file
  // before the pristine copy it was carried from goes (files sort by path, not by kind).
  auto apply_one = [&](const FileChange& c) {
    const std::string path = under(plan.dir, c.path);
    if (!c.orig_path.empty()) {
      // The user's bytes go to a new file first; only then is theirs replaced.
      if (!c.before) throw EmitError("internal error: nothing to save as '" + c.orig_path + "'");
      write_new_file(under(plan.dir, c.orig_path), *c.before);
    }
    // The user's file is replaced or removed only while it holds what planning read.
    if (c.after) {
      if (c.after != c.before &&
          replace_file(path, *c.after, c.before) == Replaced::kChangedMeanwhile) {
        changed.push_back(c.path);
        return;  // its pristine copy stays: the next run merges the new save
      }
    } else if (c.before && c.change == Change::kRemove) {
      if (!remove_file_if(path, *c.before)) {
        changed.push_back(c.path);
        return;
      }
    }
    const std::string pristine = pristine_path(plan.dir, c.path);
    if (c.pristine_after) {
      write_file_if_changed(pristine, *c.pristine_after);
    } else if (c.pristine_before) {
      remove_file(pristine);
    }
  };
  auto writes = [](const FileChange& c) { return c.pristine_after || c.after != c.before; };
  for (const FileChange& c : plan.files)
    if (writes(c)) apply_one(c);
  for (const FileChange& c : plan.files)
    if (!writes(c)) apply_one(c);
  // With a file left as it was, its pristine copy is the old one: the manifest written first
  // (old and new hashes) stays.
  if (plan.manifest_after && changed.empty()) write_file_if_changed(manifest, *plan.manifest_after);
  return changed;
}

// change_note() in the conditional, for `generate --check` (which writes nothing).
static std::string would_note(const FileChange& c) {
  switch (c.change) {
    case Change::kMerge:
      return "stepgen: would merge your edits of " + c.path + " with the new output";
    case Change::kConflict:
      return "stepgen: would CONFLICT in " + c.path +
             ": your edits and the new output overlap (regenerating writes <<<<<<< markers)";
    case Change::kRemove:
      return c.before ? "stepgen: would remove " + c.path + " (no longer generated)" : "";
    default:
      return change_note(c);
  }
}

std::string describe_changes(const UpdatePlan& plan) {
  std::string text;
  if (!plan.dir_exists) text += "stepgen: '" + plan.dir + "' does not exist\n";
  for (const std::string& leftover : plan.leftovers)
    text += "stepgen: " + leftover + " is a temporary file left by an interrupted run\n";
  for (const auto& [temp, name] : plan.saved)
    text += "stepgen: " + temp +
            ", left by an interrupted run, holds bytes found nowhere else: it would be kept as " +
            name + "\n";
  if (plan.manifest_before != plan.manifest_after)
    text += "stepgen: the manifest " + std::string(kPristineDir) + "/" + kManifest +
            (plan.manifest_before ? " would change\n" : " would be written\n");
  for (const FileChange& c : plan.files) {
    const std::string* before = c.before ? &*c.before : nullptr;
    const std::string* after = c.after ? &*c.after : nullptr;
    text += unified_diff(before, after, c.path);
    if (c.pristine_before != c.pristine_after && c.before == c.after &&
        c.change != Change::kKeepDeleted)
      text += "stepgen: the pristine copy " + std::string(kPristineDir) + "/" + c.path +
              " would change\n";
    std::string note = would_note(c);
    if (!note.empty() && c.change != Change::kCreate && c.change != Change::kUpdate)
      text += note + "\n";
  }
  return text;
}

std::string change_note(const FileChange& c) {
  switch (c.change) {
    case Change::kMerge:
      return "stepgen: merged your edits of " + c.path + " with the new output";
    case Change::kConflict:
      return "stepgen: CONFLICT in " + c.path +
             ": your edits and the new output overlap (resolve the "
             "<<<<<<< markers, then regenerate)";
    case Change::kCannotMerge:
      return "stepgen: cannot merge your edits of " + c.path + ": " + c.reason +
             ": your file is left as is (--force replaces it by the new output, saving yours as " +
             c.path + ".orig)";
    case Change::kUnresolved:
      return "stepgen: " + c.path +
             " still holds conflict markers: left as is until they are resolved";
    case Change::kForeign:
      return "stepgen: " + c.path +
             " was not written by stepgen and differs from its output: left as is "
             "(--force replaces it, saving yours as " +
             c.path + ".orig)";
    case Change::kForce:
      return "stepgen: replaced " + c.path + " by the new output; your version is saved as " +
             c.orig_path;
    case Change::kKeepDeleted:
      return "stepgen: " + c.path + " was deleted by you: not recreated (--force recreates it)";
    case Change::kRemove:
      return c.before ? "stepgen: removed " + c.path + " (no longer generated)" : "";
    case Change::kKeepStale:
      if (!c.carried_to.empty())
        return "stepgen: " + c.path + " is no longer generated: its output is now " + c.carried_to +
               ", where your edits were carried over; " + c.path + " is kept as is";
      return "stepgen: " + c.path +
             " is no longer generated, so your edits in it are no longer part of the program: "
             "carry them over to the files generated now (" +
             c.path + " is kept; reported this once)";
    case Change::kKeepAdopted:
      return "stepgen: " + c.path +
             " is no longer generated; kept, as it was in the folder before stepgen wrote it";
    case Change::kCarry:
      return "stepgen: carried your edits of " + c.carried_from + " over to " + c.path +
             " (where its output moved)";
    default:
      return "";
  }
}

}  // namespace stepgen::emit

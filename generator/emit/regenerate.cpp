#include "emit/regenerate.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "emit/merge.hpp"

namespace stepgen::emit {

namespace fs = std::filesystem;

namespace {

std::string under(const std::string& dir, const std::string& relative) {
  return (fs::path(dir) / relative).string();
}

std::string pristine_path(const std::string& dir, const std::string& relative) {
  return (fs::path(dir) / kPristineDir / relative).string();
}

// The first of PATH.orig, PATH.orig.1, ... that does not exist: an older .orig is never replaced.
std::string free_orig_path(const std::string& dir, const std::string& relative) {
  std::string name = relative + ".orig";
  std::error_code ec;
  for (int i = 1; fs::exists(under(dir, name), ec) || fs::is_symlink(under(dir, name), ec); ++i)
    name = relative + ".orig." + std::to_string(i);
  return name;
}

// A file stepgen generates now: decide what happens to the user's copy.
FileChange plan_generated(const std::string& dir, const std::string& path, const std::string& fresh,
                          const UpdateOptions& options) {
  FileChange c;
  c.path = path;
  c.before = read_file_if_exists(under(dir, path));
  c.pristine_before = read_file_if_exists(pristine_path(dir, path));
  c.pristine_after = fresh;
  c.after = fresh;
  auto force = [&] {
    c.change = Change::kForce;
    c.orig_path = free_orig_path(dir, path);
  };

  if (!c.before) {
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
  c.after = merged.text;
  c.change =
      merged.clean ? (merged.text == ours ? Change::kNone : Change::kMerge) : Change::kConflict;
  return c;
}

// A file stepgen generated before (it has a pristine copy) but no longer generates.
FileChange plan_stale(const std::string& dir, const std::string& path) {
  FileChange c;
  c.path = path;
  c.before = read_file_if_exists(under(dir, path));
  c.pristine_before = read_file_if_exists(pristine_path(dir, path));
  if (c.before && c.before != c.pristine_before) {
    c.change = Change::kKeepStale;  // edited: it is the user's file now
    c.after = c.before;
  } else {
    c.change = Change::kRemove;
  }
  return c;
}

}  // namespace

std::vector<std::string> UpdatePlan::conflicts() const {
  std::vector<std::string> paths;
  for (const FileChange& c : files)
    if (c.change == Change::kConflict || c.change == Change::kUnresolved ||
        c.change == Change::kForeign)
      paths.push_back(c.path);
  return paths;
}

bool UpdatePlan::up_to_date() const {
  if (!dir_exists) return false;
  for (const FileChange& c : files)
    if (c.before != c.after || c.pristine_before != c.pristine_after || !c.orig_path.empty())
      return false;
  return conflicts().empty();
}

UpdatePlan plan_update(const OutputSet& out, const std::string& dir, const UpdateOptions& options) {
  UpdatePlan plan;
  plan.dir = dir;
  std::error_code ec;
  plan.dir_exists = fs::is_directory(dir, ec);
  if (!plan.dir_exists && fs::exists(dir, ec))
    throw EmitError("'" + dir + "' exists and is not a folder");

  std::map<std::string, FileChange> changes;
  for (const auto& [path, text] : out.files())
    changes.emplace(path, plan_generated(dir, path, text, options));

  const fs::path pristine_root = fs::path(dir) / kPristineDir;
  if (fs::is_directory(pristine_root, ec)) {
    for (auto it = fs::recursive_directory_iterator(pristine_root, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      std::string path = fs::relative(it->path(), pristine_root).generic_string();
      if (!changes.count(path)) changes.emplace(path, plan_stale(dir, path));
    }
    if (ec) throw EmitError("cannot list '" + pristine_root.string() + "': " + ec.message());
  }
  for (auto& entry : changes) plan.files.push_back(std::move(entry.second));
  return plan;
}

void apply_update(const UpdatePlan& plan) {
  std::error_code ec;
  for (const FileChange& c : plan.files) {
    const std::string path = under(plan.dir, c.path);
    if (!c.orig_path.empty() && c.before) {
      // The user's bytes go to a new file first; only then is theirs replaced.
      const std::string orig = under(plan.dir, c.orig_path);
      if (fs::exists(orig, ec)) throw EmitError("internal error: '" + orig + "' exists");
      write_file_if_changed(orig, *c.before);
    }
    if (c.after) {
      if (c.after != c.before) write_file_if_changed(path, *c.after);
    } else if (c.before && c.change == Change::kRemove) {
      fs::remove(path, ec);
      if (ec) throw EmitError("cannot remove '" + path + "': " + ec.message());
    }
    const std::string pristine = pristine_path(plan.dir, c.path);
    if (c.pristine_after) {
      write_file_if_changed(pristine, *c.pristine_after);
    } else if (c.pristine_before) {
      fs::remove(pristine, ec);
      if (ec) throw EmitError("cannot remove '" + pristine + "': " + ec.message());
    }
  }
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
      return "stepgen: " + c.path + " is no longer generated; your edited copy is kept";
    default:
      return "";
  }
}

}  // namespace stepgen::emit

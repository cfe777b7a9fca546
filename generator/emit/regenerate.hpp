#pragma once
/// \file
/// Regenerating into a folder that may hold hand edits. stepgen keeps the pristine copy of every
/// file it writes under DIR/.stepgen/; on regeneration a file the user edited is merged three
/// ways (base: the pristine copy, ours: the user's file, theirs: the new output). Everything is
/// decided in memory first (an UpdatePlan), so `generate --check` reports exactly what
/// `generate` would write, and nothing is written when planning fails.

#include <optional>
#include <string>
#include <vector>

#include "emit/output.hpp"

namespace stepgen::emit {

/// The folder under the output folder that holds the pristine copies.
inline constexpr const char* kPristineDir = ".stepgen";

/// What regeneration does to one path.
enum class Change {
  kNone,         ///< already up to date
  kCreate,       ///< a new file
  kUpdate,       ///< an unedited file replaced by the new output
  kMerge,        ///< the user's edits merged cleanly into the new output
  kConflict,     ///< the merge conflicts: written with conflict markers
  kUnresolved,   ///< still holds conflict markers of an earlier merge: left alone
  kForeign,      ///< exists, was not written by stepgen and differs: left alone
  kForce,        ///< --force: replaced by the new output, the user's file saved as .orig
  kKeepDeleted,  ///< generated before and deleted by the user: stays deleted
  kRemove,       ///< no longer generated and unedited: removed
  kKeepStale,    ///< no longer generated but edited: kept, and no longer tracked
};

/// One path of the output folder, before and after regeneration.
struct FileChange {
  std::string path;  ///< relative to the output folder, '/' separated
  Change change = Change::kNone;
  std::optional<std::string> before, after;                    ///< the file (nullopt: absent)
  std::optional<std::string> pristine_before, pristine_after;  ///< its pristine copy
  std::string orig_path;  ///< kForce: where the user's file is saved (relative), else ""
};

/// Every path regeneration looks at, sorted.
struct UpdatePlan {
  std::string dir;
  bool dir_exists = false;
  std::vector<FileChange> files;

  /// Files left for the user to resolve (kConflict, kUnresolved, kForeign).
  std::vector<std::string> conflicts() const;
  /// True when applying the plan would write, remove or rename nothing.
  bool up_to_date() const;
};

struct UpdateOptions {
  bool force = false;  ///< overwrite edited, foreign and deleted files (saving edits as .orig)
};

/// Decides what regenerating `out` into `dir` does. Reads, never writes. Throws EmitError.
UpdatePlan plan_update(const OutputSet& out, const std::string& dir, const UpdateOptions& options);

/// Carries out `plan`: for each path, first saves the user's file as .orig (never over an
/// existing file), then writes the file (only when its bytes change), then its pristine copy.
void apply_update(const UpdatePlan& plan);

/// The unified diff of everything apply_update() would change (for `generate --check`).
std::string describe_changes(const UpdatePlan& plan);

/// A one-line note for the user about `c` ("" when there is nothing to say).
std::string change_note(const FileChange& c);

}  // namespace stepgen::emit

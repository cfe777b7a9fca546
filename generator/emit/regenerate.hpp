#pragma once
/// \file
/// Regenerating into a folder that may hold hand edits. stepgen keeps the pristine copy of every
/// file it writes under DIR/.stepgen/; on regeneration a file the user edited is merged three
/// ways (base: the pristine copy, ours: the user's file, theirs: the new output). Everything is
/// decided in memory first (an UpdatePlan), so `generate --check` reports exactly what
/// `generate` would write, and nothing is written when planning fails.
///
/// Nothing outside the output folder is ever read as stepgen's, written or removed: planning
/// follows no symbolic link inside the folder, and a link, FIFO, device or folder where stepgen
/// reads or writes a file (or anything but a regular file or a folder inside `.stepgen/`) stops
/// regeneration with a PathError naming every such path, before anything is written.

#include <functional>
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
  kCannotMerge,  ///< edited, and a side is not text (NUL bytes, UTF-16): left alone
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
  std::string reason;     ///< kCannotMerge: which side is not text, for the user
};

/// Every path regeneration looks at, sorted.
struct UpdatePlan {
  std::string dir;
  bool dir_exists = false;
  std::vector<FileChange> files;
  /// Temporary files that a killed run left (relative paths), removed when remove_leftovers.
  std::vector<std::string> leftovers;
  bool remove_leftovers = false;

  /// Files left for the user to resolve (kConflict, kCannotMerge, kUnresolved, kForeign).
  std::vector<std::string> conflicts() const;
  /// True when applying the plan would write, remove or rename nothing.
  bool up_to_date() const;
};

struct UpdateOptions {
  bool force = false;  ///< overwrite edited, foreign and deleted files (saving edits as .orig)
  /// The caller holds an exclusive OutputLock on the folder, so temporary files found there are
  /// a killed run's, not a running one's: apply_update() removes them.
  bool locked = false;
};

/// An advisory lock (flock) on the output folder itself, so that runs into one folder take turns:
/// `generate` holds it exclusively from planning to the end of apply_update(), `generate --check`
/// shared. It is released when the process ends, however it ends. No file is created for it.
class OutputLock {
 public:
  /// Locks the folder `dir`; calls `waiting` once before waiting for another run to finish.
  /// Holds nothing when `dir` is not a folder, or its file system has no locks (some network
  /// file systems): each file is still written atomically under a name no other run uses.
  OutputLock(const std::string& dir, bool exclusive, const std::function<void()>& waiting = {});
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// Decides what regenerating `out` into `dir` does. Reads, never writes. Throws PathError
/// (every path that regeneration may not touch, one per line) or EmitError.
UpdatePlan plan_update(const OutputSet& out, const std::string& dir, const UpdateOptions& options);

/// Carries out `plan`: for each path, first saves the user's file as .orig (never over an
/// existing file), then writes the file (only when its bytes change), then its pristine copy, so
/// that a run killed at any point leaves old or new complete files that the next run completes.
void apply_update(const UpdatePlan& plan);

/// The unified diff of everything apply_update() would change (for `generate --check`).
std::string describe_changes(const UpdatePlan& plan);

/// A one-line note for the user about `c` ("" when there is nothing to say).
std::string change_note(const FileChange& c);

}  // namespace stepgen::emit

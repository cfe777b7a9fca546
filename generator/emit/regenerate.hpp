#pragma once
/// \file
/// Regenerating into a folder that may hold hand edits. stepgen keeps the pristine copy of every
/// file it writes under DIR/.stepgen/; on regeneration a file the user edited is merged three
/// ways (base: the pristine copy, ours: the user's file, theirs: the new output). Everything is
/// decided in memory first (an UpdatePlan), so `generate --check` reports exactly what
/// `generate` would write, and nothing is written when planning fails.
///
/// DIR/.stepgen/manifest lists the files stepgen tracks: each pristine copy's hash (git's blob
/// hash), whether the file was the user's before stepgen tracked it (found with the bytes
/// stepgen would write: "adopted", never removed), and whether it is no longer generated but
/// kept for the user's edits ("stale"). A pristine copy whose hash is not the manifest's was
/// changed by something else (a tool run over the whole folder): it is not trusted as a base.
/// Files in .stepgen/ that the manifest does not list are not stepgen's: never read or removed.
/// A folder without a manifest (written by an older stepgen) is read as before: every file in
/// .stepgen/ is a pristine copy; the next regeneration writes the manifest.
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
/// The manifest's name in kPristineDir (no generated file has this path).
inline constexpr const char* kManifest = "manifest";

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
  kKeepStale,    ///< no longer generated but edited: kept (reported once; its pristine copy too,
                 ///< so that generating it again merges), or its edits carried to `carried_to`
  kKeepAdopted,  ///< no longer generated, and the user's before stepgen tracked it: kept
  kCarry,        ///< a new path where a file's output moved: the user's edits carried over
};

/// One path of the output folder, before and after regeneration.
struct FileChange {
  std::string path;  ///< relative to the output folder, '/' separated
  Change change = Change::kNone;
  std::optional<std::string> before, after;                    ///< the file (nullopt: absent)
  std::optional<std::string> pristine_before, pristine_after;  ///< its pristine copy
  std::string orig_path;  ///< kForce: where the user's file is saved (relative), else ""
  std::string reason;     ///< kCannotMerge: which side is not text, for the user
  /// kKeepStale: the path its output moved to, where its edits were carried (kCarry), or "";
  /// kCarry: the path the edits came from.
  std::string carried_to, carried_from;
  /// For the manifest, after regeneration: found with stepgen's bytes before stepgen tracked it
  /// (never removed), no longer generated but kept for the user's edits.
  bool adopted = false, stale = false;
};

/// Every path regeneration looks at, sorted.
struct UpdatePlan {
  std::string dir;
  bool dir_exists = false;
  std::vector<FileChange> files;
  /// The manifest's text before and after (nullopt: none), and the one written before any
  /// other file (every hash before or after accepted: a run killed midway leaves pristine
  /// copies the next run trusts).
  std::optional<std::string> manifest_before, manifest_during, manifest_after;
  /// Temporary files that a killed run left (relative paths), removed when remove_leftovers:
  /// those of the files stepgen writes whose bytes are found elsewhere (the file, its pristine
  /// copy, the new output, or a part of it: a write cut short). A temporary name of a file
  /// stepgen does not write is not stepgen's: not listed, never removed.
  std::vector<std::string> leftovers;
  /// Temporary files holding bytes found nowhere else (a user's file a killed run had swapped
  /// out: a save that landed meanwhile), with the new name each is kept under (FILE.stepgen-
  /// saved, never replacing a file), when remove_leftovers; reported for the user.
  std::vector<std::pair<std::string, std::string>> saved;
  bool remove_leftovers = false;

  /// Files left for the user to resolve (kConflict, kCannotMerge, kUnresolved, kForeign, and
  /// kKeepStale when its edits were not carried: they are no longer part of the program), and
  /// the files `saved` keeps.
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
/// Returns the paths left as they were because they changed since planning read them (a save
/// while stepgen ran): their pristine copies are not advanced, so the next run merges.
std::vector<std::string> apply_update(const UpdatePlan& plan);

/// The unified diff of everything apply_update() would change (for `generate --check`).
std::string describe_changes(const UpdatePlan& plan);

/// A one-line note for the user about `c` ("" when there is nothing to say).
std::string change_note(const FileChange& c);

}  // namespace stepgen::emit

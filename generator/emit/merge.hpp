#pragma once
/// \file
/// Text operations stepgen takes from libgit2 rather than writing its own: three-way file
/// merges (git_merge_file), unified diffs (git_patch_from_buffers) and content hashes.

#include <string>

namespace stepgen::emit {

/// The outcome of a three-way merge.
struct MergeResult {
  std::string text;  ///< the merged file; holds standard conflict markers when !clean
  bool clean = true;
  /// libgit2 took a side for binary (looks_binary()) and merged nothing: `text` is empty and is
  /// not a file's content (clean is false).
  bool binary = false;
};

/// Merges `ours` (the user's file) and `theirs` (the new output) from their common `base` (the
/// previous output). Conflicts are marked `<<<<<<< yours: PATH`, `=======`,
/// `>>>>>>> stepgen: PATH`. A side that looks binary gives no text (MergeResult::binary). Throws
/// EmitError when libgit2 fails.
MergeResult merge_three_way(const std::string& base, const std::string& ours,
                            const std::string& theirs, const std::string& path);

/// A unified diff from `before` to `after`, with paths `a/PATH` and `b/PATH` (git's format,
/// `/dev/null` for a missing side); empty when the texts are equal.
std::string unified_diff(const std::string* before, const std::string* after,
                         const std::string& path);

/// The SHA-1 (git blob id) of `data`, as 40 hex digits.
std::string content_hash(const std::string& data);

/// True when git (and git_merge_file) takes `data` for binary: a NUL byte in its first 8,000 bytes
/// (a binary file, or text in UTF-16 or UTF-32).
bool looks_binary(const std::string& data);

/// True when `text` holds a line starting with the conflict markers merge_three_way writes.
bool has_conflict_markers(const std::string& text);

}  // namespace stepgen::emit

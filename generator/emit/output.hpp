#pragma once
/// \file
/// Generated files are rendered into memory first (an OutputSet) and written to disk only when
/// generation succeeded, and then only the files whose bytes changed. Every file stepgen writes
/// goes through write_file_if_changed() or write_new_file(): they replace only regular files
/// (never a symbolic link, folder, FIFO or device at the target), and write atomically: a
/// temporary file with a unique name in the same folder, fsync, then a rename.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "spec/spec_tree.hpp"

namespace stepgen::emit {

/// A failure while emitting (an unreadable kernel file, a template error): no file is written.
class EmitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An emitting failure caused by one part of the spec (a kernel without a source for the
/// target): printed at `loc`, file:line:col with the line, as the spec's own errors are.
class LocatedEmitError : public EmitError {
 public:
  LocatedEmitError(const std::string& message, spec::Loc where) : EmitError(message), loc(where) {}
  spec::Loc loc;
};

/// A path stepgen will not write, read or remove (a symbolic link, a FIFO where a file goes...).
/// what() is one or more complete lines `PATH: error: why`, without the final newline.
class PathError : public EmitError {
 public:
  using EmitError::EmitError;
};

/// Files by path relative to the output directory ('/' separated), in sorted order.
class OutputSet {
 public:
  /// Adds a file; adding the same path twice is an error in the emitter.
  void add(const std::string& path, std::string content);
  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  std::map<std::string, std::string> files_;
};

struct WriteResult {
  std::vector<std::string> written;    ///< created or changed
  std::vector<std::string> unchanged;  ///< same bytes: left alone (mtime kept)
};

/// Writes every file under `dir` (created as needed), skipping files whose bytes are equal.
WriteResult write_output(const OutputSet& out, const std::string& dir);

/// What is at `path`, the last component not followed when it is a symbolic link: "" when
/// nothing is there or a regular file is, else why stepgen may not replace it ("is a symbolic
/// link (to T)", "is a folder", "is a FIFO", "is a device", "is a socket"). Throws EmitError
/// when `path` cannot be examined.
std::string not_a_regular_file(const std::string& path);

/// Throws PathError "PATH: error: is a FIFO; ..." unless `path` is absent or a regular file.
void check_replaceable(const std::string& path);

/// The bytes of the regular file at `path`, or nullopt when nothing is there. Throws PathError
/// when something else is there (a symbolic link is not followed) or it cannot be read.
std::optional<std::string> read_file_if_exists(const std::string& path);

/// Writes `content` to `path` (folders created as needed) atomically, unless the file already
/// holds exactly these bytes (its mtime is then kept). Only a regular file or a new path is
/// replaced; a replaced file keeps its permissions. Returns true when it wrote. Throws EmitError
/// (the temporary file is then removed).
bool write_file_if_changed(const std::string& path, const std::string& content);

/// What replace_file() did.
enum class Replaced { kWritten, kUnchanged, kChangedMeanwhile };

/// As write_file_if_changed(), but only while `path` holds `expected` (nullopt: nothing is
/// there), the bytes the caller decided from: a file changed or created since then (a user's
/// save while stepgen runs) is left as it is, kChangedMeanwhile. The new file is swapped in
/// (renameat2 RENAME_EXCHANGE) and the file it replaced compared with `expected`: when it
/// differs, the two are swapped back, so no save is lost whenever it lands. Where the file
/// system cannot swap, the file is compared just before the rename. Throws EmitError.
Replaced replace_file(const std::string& path, const std::string& content,
                      const std::optional<std::string>& expected);

/// Removes the file at `path` only while it holds `expected` (moved aside, compared, then
/// removed or moved back): false when it changed meanwhile (it is then left). Throws EmitError.
bool remove_file_if(const std::string& path, const std::string& expected);

/// Writes `content` atomically to `path`, which must not exist (it is never replaced, even when
/// created meanwhile). Throws EmitError.
void write_new_file(const std::string& path, const std::string& content);

/// Renames the file `from` to `to`, which must not exist (never replaced, even when created
/// meanwhile: renameat2 RENAME_NOREPLACE, else a hard link). Throws PathError when `to` exists.
void rename_new(const std::string& from, const std::string& to);

/// True when `name` (a file name, no folder) is that of a temporary file stepgen writes before
/// renaming it: such a file is only left behind by a run that was killed.
bool is_temporary_name(const std::string& name);

/// The name of the file a temporary file named `name` was written for (".a.cpp.stepgen-tmp-
/// PID-RANDOM" and "a.cpp.stepgen-tmp": "a.cpp"); "" when `name` is not a temporary name.
std::string temporary_target(const std::string& name);

}  // namespace stepgen::emit

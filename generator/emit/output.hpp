#pragma once
/// \file
/// Generated files are rendered into memory first (an OutputSet) and written to disk only when
/// generation succeeded, and then only the files whose bytes changed.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace stepgen::emit {

/// A failure while emitting (an unreadable kernel file, a template error): no file is written.
class EmitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

/// The bytes of the regular file at `path`, or nullopt when there is none. Throws EmitError
/// when it exists but cannot be read.
std::optional<std::string> read_file_if_exists(const std::string& path);

/// Writes `content` to `path` (folders created as needed) through a temporary file and a
/// rename, unless the file already holds exactly these bytes (its mtime is then kept).
/// Returns true when it wrote. Throws EmitError.
bool write_file_if_changed(const std::string& path, const std::string& content);

}  // namespace stepgen::emit

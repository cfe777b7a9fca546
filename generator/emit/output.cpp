#include "emit/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

namespace stepgen::emit {

namespace fs = std::filesystem;

void OutputSet::add(const std::string& path, std::string content) {
  if (!files_.emplace(path, std::move(content)).second)
    throw EmitError("internal error: '" + path + "' generated twice");
}

namespace {

constexpr const char* kTempMark = ".stepgen-tmp-";

std::string system_error(const std::string& what, const std::string& path, int error) {
  return what + " '" + path + "': " + std::strerror(error);
}

// lstat(): false when nothing is there; throws when the path cannot be examined.
bool stat_no_follow(const std::string& path, struct stat& st) {
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  throw EmitError(system_error("cannot examine", path, errno));
}

std::string describe(const struct stat& st, const std::string& path) {
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    fs::path to = fs::read_symlink(path, ec);
    return ec ? "is a symbolic link" : "is a symbolic link (to " + to.string() + ")";
  }
  if (S_ISDIR(st.st_mode)) return "is a folder";
  if (S_ISFIFO(st.st_mode)) return "is a FIFO";
  if (S_ISCHR(st.st_mode)) return "is a character device";
  if (S_ISBLK(st.st_mode)) return "is a block device";
  if (S_ISSOCK(st.st_mode)) return "is a socket";
  return S_ISREG(st.st_mode) ? "" : "is not a regular file";
}

std::string read_all(int fd, const std::string& path) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw EmitError(system_error("cannot read", path, errno));
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

// Best effort: makes a rename in `folder` durable. Some file systems cannot sync a folder; the
// file's own bytes were synced before the rename, so a crash leaves the old or the new file.
void sync_folder(const fs::path& folder) {
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// A new file beside `target` with a name no other process uses (".NAME.stepgen-tmp-PID-RANDOM",
// created with O_EXCL), removed again unless commit() is called after it was renamed.
class TempFile {
 public:
  explicit TempFile(const fs::path& target) {
    static std::mt19937_64 random(std::random_device{}() ^
                                  (static_cast<std::uint64_t>(::getpid()) << 32));
    const std::string name = target.filename().string().substr(0, 160);
    for (int attempt = 0; attempt < 100; ++attempt) {
      char suffix[32];
      std::snprintf(suffix, sizeof suffix, "%ld-%08x", static_cast<long>(::getpid()),
                    static_cast<unsigned>(random() & 0xffffffffu));
      path_ = target.parent_path() / ("." + name + kTempMark + suffix);
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd_ >= 0) return;
      if (errno != EEXIST) throw EmitError(system_error("cannot create", path_.string(), errno));
    }
    throw EmitError("cannot create a temporary file beside '" + target.string() + "'");
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }

  // Writes `content`, gives the file `mode` (when >= 0), syncs and closes it.
  void write(const std::string& content, int mode) {
    const char* at = content.data();
    std::size_t left = content.size();
    while (left > 0) {
      ssize_t n = ::write(fd_, at, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw EmitError(system_error("cannot write", path_.string(), errno));
      at += n;
      left -= static_cast<std::size_t>(n);
    }
    if (mode >= 0 && ::fchmod(fd_, static_cast<mode_t>(mode)) != 0)
      throw EmitError(system_error("cannot set the permissions of", path_.string(), errno));
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
      throw EmitError(system_error("cannot write", path_.string(), errno));
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw EmitError(system_error("cannot write", path_.string(), errno));
  }
  const fs::path& path() const { return path_; }
  void commit() { committed_ = true; }

 private:
  fs::path path_;
  int fd_ = -1;
  bool committed_ = false;
};

void create_parent(const fs::path& path) {
  if (path.parent_path().empty()) return;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    throw EmitError("cannot create folder '" + path.parent_path().string() + "': " + ec.message());
}

}  // namespace

std::string not_a_regular_file(const std::string& path) {
  struct stat st;
  if (!stat_no_follow(path, st)) return "";
  return describe(st, path);
}

void check_replaceable(const std::string& path) {
  std::string why = not_a_regular_file(path);
  if (!why.empty())
    throw PathError(path + ": error: " + why + "; stepgen replaces only regular files");
}

std::optional<std::string> read_file_if_exists(const std::string& path) {
  struct stat st;
  if (!stat_no_follow(path, st)) return std::nullopt;
  if (!S_ISREG(st.st_mode))
    throw PathError(path + ": error: " + describe(st, path) + "; stepgen reads only regular files");
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw EmitError(system_error("cannot read", path, errno));
  struct stat opened;
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    throw PathError(path + ": error: is not a regular file; stepgen reads only regular files");
  }
  try {
    std::string text = read_all(fd, path);
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

bool write_file_if_changed(const std::string& target, const std::string& content) {
  const fs::path path = target;
  check_replaceable(target);
  struct stat st;
  const bool exists = stat_no_follow(target, st);
  if (exists && static_cast<std::size_t>(st.st_size) == content.size() &&
      read_file_if_exists(target) == content)
    return false;
  create_parent(path);
  // Write beside the target, then rename: a failure or a kill never leaves a half-written file.
  TempFile tmp(path);
  tmp.write(content, exists ? static_cast<int>(st.st_mode & 07777) : -1);
  if (::rename(tmp.path().c_str(), path.c_str()) != 0)
    throw EmitError(system_error("cannot write", target, errno));
  tmp.commit();
  sync_folder(path.parent_path());
  return true;
}

namespace {
// The bytes of the regular file at `path`; nullopt when it cannot be read as one.
std::optional<std::string> bytes_or_nothing(const fs::path& path) {
  try {
    return read_file_if_exists(path.string());
  } catch (const EmitError&) {
    return std::nullopt;
  }
}
}  // namespace

Replaced replace_file(const std::string& target, const std::string& content,
                      const std::optional<std::string>& expected) {
  const fs::path path = target;
  check_replaceable(target);
  struct stat st;
  const bool exists = stat_no_follow(target, st);
  if (!expected) {  // a new file: never over one that appeared meanwhile
    if (exists) return Replaced::kChangedMeanwhile;
    try {
      write_new_file(target, content);
    } catch (const PathError&) {
      return Replaced::kChangedMeanwhile;  // created since
    }
    return Replaced::kWritten;
  }
  if (!exists) return Replaced::kChangedMeanwhile;  // deleted since
  if (static_cast<std::size_t>(st.st_size) == content.size() &&
      read_file_if_exists(target) == content)
    return Replaced::kUnchanged;
  create_parent(path);
  TempFile tmp(path);
  tmp.write(content, static_cast<int>(st.st_mode & 07777));
  if (::renameat2(AT_FDCWD, tmp.path().c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    // The temporary name now holds the file that was at `path`.
    if (bytes_or_nothing(tmp.path()) == expected) {
      sync_folder(path.parent_path());
      return Replaced::kWritten;  // the old file goes with the temporary name
    }
    // Changed since it was read: swap back; the new output goes with the temporary name.
    if (::renameat2(AT_FDCWD, tmp.path().c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0) {
      tmp.commit();  // it holds the user's file: never removed
      throw EmitError(target + " changed while stepgen replaced it, and could not be put back (" +
                      std::strerror(errno) + "): your version is " + tmp.path().string());
    }
    return Replaced::kChangedMeanwhile;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    throw EmitError(system_error("cannot write", target, errno));
  // A file system that cannot swap: compare just before the rename.
  if (read_file_if_exists(target) != expected) return Replaced::kChangedMeanwhile;
  if (::rename(tmp.path().c_str(), path.c_str()) != 0)
    throw EmitError(system_error("cannot write", target, errno));
  tmp.commit();
  sync_folder(path.parent_path());
  return Replaced::kWritten;
}

bool remove_file_if(const std::string& target, const std::string& expected) {
  check_replaceable(target);
  const fs::path path = target;
  // Move it aside under a temporary name (the name is made, then the file renamed over it).
  TempFile aside(path);
  aside.write("", -1);
  if (::rename(path.c_str(), aside.path().c_str()) != 0) {
    if (errno == ENOENT) return true;  // already gone
    throw EmitError(system_error("cannot remove", target, errno));
  }
  if (bytes_or_nothing(aside.path()) == expected) {
    sync_folder(path.parent_path());
    return true;  // removed with the temporary name
  }
  // Changed since it was read: back to its name, unless a file was made there meanwhile.
  aside.commit();
  bool back =
      ::renameat2(AT_FDCWD, aside.path().c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0;
  if (!back && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
    back = ::link(aside.path().c_str(), path.c_str()) == 0;  // does not replace either
    if (back) ::unlink(aside.path().c_str());
  }
  if (!back)
    throw EmitError(target + " changed while stepgen removed it, and could not be put back: " +
                    "your version is " + aside.path().string());
  return false;
}

void write_new_file(const std::string& target, const std::string& content) {
  const fs::path path = target;
  struct stat st;
  if (stat_no_follow(target, st))
    throw PathError(target + ": error: exists (" +
                    (S_ISREG(st.st_mode) ? std::string("a file") : describe(st, target).substr(5)) +
                    "): not replaced");
  create_parent(path);
  TempFile tmp(path);
  tmp.write(content, -1);
  // RENAME_NOREPLACE: a file created at `target` since the check above is not replaced either.
  if (::renameat2(AT_FDCWD, tmp.path().c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) throw PathError(target + ": error: exists: not replaced");
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
      throw EmitError(system_error("cannot write", target, errno));
    // A file system without RENAME_NOREPLACE: a hard link does not replace either.
    if (::link(tmp.path().c_str(), path.c_str()) != 0) {
      if (errno == EEXIST) throw PathError(target + ": error: exists: not replaced");
      throw EmitError(system_error("cannot write", target, errno));
    }
    ::unlink(tmp.path().c_str());
  }
  tmp.commit();
  sync_folder(path.parent_path());
}

void rename_new(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
    sync_folder(fs::path(to).parent_path());
    return;
  }
  if (errno == EEXIST) throw PathError(to + ": error: exists: not replaced");
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    throw EmitError(system_error("cannot rename " + from + " to", to, errno));
  if (::link(from.c_str(), to.c_str()) != 0) {  // does not replace either
    if (errno == EEXIST) throw PathError(to + ": error: exists: not replaced");
    throw EmitError(system_error("cannot rename " + from + " to", to, errno));
  }
  ::unlink(from.c_str());
  sync_folder(fs::path(to).parent_path());
}

bool is_temporary_name(const std::string& name) {
  // ".NAME.stepgen-tmp-PID-RANDOM" (and "NAME.stepgen-tmp", what stepgen 0.1 left behind).
  const std::string old_suffix = ".stepgen-tmp";
  if (name.size() > old_suffix.size() &&
      name.compare(name.size() - old_suffix.size(), old_suffix.size(), old_suffix) == 0)
    return true;
  const std::size_t mark = name.rfind(kTempMark);
  if (name.empty() || name[0] != '.' || mark == std::string::npos || mark < 2) return false;
  const std::string tail = name.substr(mark + std::strlen(kTempMark));
  const std::size_t dash = tail.find('-');
  if (dash == 0 || dash == std::string::npos || tail.size() - dash - 1 != 8) return false;
  for (std::size_t i = 0; i < tail.size(); ++i)
    if (i != dash && !(i < dash ? std::isdigit(static_cast<unsigned char>(tail[i]))
                                : std::isxdigit(static_cast<unsigned char>(tail[i]))))
      return false;
  return true;
}

std::string temporary_target(const std::string& name) {
  if (!is_temporary_name(name)) return "";
  const std::size_t mark = name.rfind(kTempMark);
  if (mark != std::string::npos && name[0] == '.' && mark >= 2) return name.substr(1, mark - 1);
  return name.substr(0, name.size() - std::strlen(".stepgen-tmp"));
}

WriteResult write_output(const OutputSet& out, const std::string& dir) {
  WriteResult result;
  for (const auto& [relative, content] : out.files()) {
    if (write_file_if_changed((fs::path(dir) / relative).string(), content))
      result.written.push_back(relative);
    else
      result.unchanged.push_back(relative);
  }
  return result;
}

}  // namespace stepgen::emit

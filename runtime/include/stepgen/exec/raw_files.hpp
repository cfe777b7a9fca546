#pragma once
/// \file
/// The files of --load and --save: checks before the run (readable, writable, no link, the
/// folder there), raw little-endian reads, and atomic writes (a temporary file beside the
/// target, fsync, rename, the folder synced; removed on a signal or an error).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/io/links.hpp"
#include "stepgen/exec/program_options.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {
/// Raw array files: checked before the run, read whole, written atomically (a temporary file
/// in the same folder, every write, the flush to storage and the close checked, then renamed
/// over the target: a kill or a full disk leaves the previous file as it was).
namespace file {

inline std::string errno_text(int e) {
  return std::strerror(e);
}

/// "a directory", "a FIFO", ...: what a path that is not a regular file is.
inline std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

/// The folder part of `path` ("." when it has none).
inline std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// The regular file a save to `path` replaces or creates: `path` itself. `exists` tells whether
/// it exists. Throws UsageError (prefixed by `what`) when `path` is a symbolic link (never
/// written through, nor replaced: link_refusal), RunError when it exists but is no regular
/// file.
inline std::string save_target(const std::string& what, const std::string& path, bool& exists) {
  exists = false;
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)  // those two: create_temporary says which
      throw RunError(what + ": cannot access '" + path + "': " + errno_text(errno));
    return path;
  }
  if (S_ISLNK(st.st_mode)) throw UsageError(link_refusal(what, path));
  if (!S_ISREG(st.st_mode))
    throw RunError(what + ": '" + path + "' is " + kind_of(st.st_mode) +
                   ", not a regular file (a save replaces only regular files, or creates one)");
  exists = true;
  return path;
}

/// The temporary files of the last writes, removed when SIGINT, SIGTERM or SIGHUP ends the
/// process: a signal during a write leaves no `.NAME.stepgen-XXXXXX` behind, and the file
/// written stays whole, since the rename never happened (guarded by tests/io/checkpoint_kill.sh,
/// ctest "io: kill -9 during a checkpoint leaves the previous one intact"). A ring of slots,
/// each published by an atomic flag after its path is written, so that the handler reads only
/// whole paths; a path is published before its file is created (O_EXCL: a name already taken
/// is withdrawn at once, the only moment a signal could remove a file not ours: another
/// program's temporary of the same random name); a temporary renamed or removed since is
/// simply not there (unlink fails). The handler is installed only where the signal's
/// disposition is the default (an MPI launcher's or the user's own handler stays), then
/// restores the default and raises the signal again.
struct TemporaryFiles {
  static constexpr int kSlots = 32;
  char path[kSlots][PATH_MAX] = {};
  std::atomic<bool> ready[kSlots] = {};
  std::atomic<unsigned> next{0};

  static TemporaryFiles& get() {
    static TemporaryFiles files;
    return files;
  }
  static void on_signal(int sig) {
    TemporaryFiles& f = get();
    for (int i = 0; i < kSlots; ++i)
      if (f.ready[i].load()) ::unlink(f.path[i]);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  /// Installs the handler (once), before any temporary file exists: a signal between a file's
  /// creation and the handler's installation killed the process with the file left (CI's
  /// checkpoint_kill.sh, one run in many).
  static void install() {
    static const bool installed = [] {
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa {};
        sa.sa_handler = &TemporaryFiles::on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
      }
      return true;
    }();
    (void)installed;
  }
  /// Publishes `temp` before the file is created (so that a signal at any moment after its
  /// creation removes it); returns its slot, or -1 (a path too long to hold).
  int add(const std::string& temp) {
    install();
    if (temp.size() >= PATH_MAX) return -1;
    const unsigned i = next.fetch_add(1) % kSlots;
    ready[i].store(false);
    std::memcpy(path[i], temp.c_str(), temp.size() + 1);
    ready[i].store(true);
    return static_cast<int>(i);
  }
  /// Withdraws slot `i` (its file was not created: the name was taken, not ours to remove).
  void drop(int i) {
    if (i >= 0) ready[static_cast<std::size_t>(i)].store(false);
  }
};

/// Creates a new, empty, uniquely named file beside `target` (".NAME.stepgen-XXXXXX") with the
/// target's permissions (or those a new file gets). Returns its descriptor; `temp` its path.
/// Thread-safe (a snapshot writer thread and the main thread may save at once). An interrupt
/// (SIGINT, SIGTERM, SIGHUP) removes it (TemporaryFiles).
inline int create_temporary(const std::string& what, const std::string& target, bool exists,
                            std::string& temp) {
  const std::string folder = folder_of(target);
  const std::size_t slash = target.find_last_of('/');
  const std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  const std::string stem =
      (slash == std::string::npos ? std::string() : target.substr(0, slash + 1)) + "." + name +
      ".stepgen-";
  // open(O_CREAT | O_EXCL, 0666) rather than mkstemp (0600): a new file gets the permissions
  // the umask gives, without changing the process's umask (other threads may create files).
  static std::atomic<std::uint64_t> counter{0};  // a snapshot writer thread saves too
  const std::uint64_t seed =
      static_cast<std::uint64_t>(getpid()) * 2654435761U ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  int fd = -1, e = 0;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    std::uint64_t x = seed + std::uint64_t{0x9e3779b97f4a7c15} * ++counter;
    temp = stem;
    for (int i = 0; i < 6; ++i, x /= 36) temp += digits[x % 36];
    const int slot = TemporaryFiles::get().add(temp);  // before the file exists
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    e = errno;
    if (fd < 0) TemporaryFiles::get().drop(slot);
    if (fd < 0 && e != EEXIST) break;
  }
  if (fd < 0) {
    struct stat st {};
    if (stat(folder.c_str(), &st) != 0)
      throw RunError(what + ": the folder '" + folder + "' does not exist (" + errno_text(e) + ")");
    if (!S_ISDIR(st.st_mode)) throw RunError(what + ": '" + folder + "' is not a folder");
    throw RunError(what + ": cannot create a file in the folder '" + folder +
                   "': " + errno_text(e));
  }
  struct stat st {};
  if (exists && stat(target.c_str(), &st) == 0)
    (void)fchmod(fd, st.st_mode & 07777);  // a replaced file keeps its permissions (best effort)
  return fd;
}

/// Writes `n` bytes at `data` to `fd`, all of them: partial writes continue, EINTR retries.
/// Returns 0 or the errno of the failed write.
inline int write_all(int fd, const unsigned char* data, std::size_t n) {
  while (n > 0) {
    const std::size_t piece = std::min<std::size_t>(n, std::size_t{1} << 30);
    const ssize_t w = ::write(fd, data, piece);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

/// Flushes a folder's entries to storage (after a rename into it); best effort.
inline void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  ::close(fd);
}

/// Checks before the run that `path` can be read as a raw file of `bytes` bytes (0: any size).
inline void check_readable(const std::string& what, const std::string& path, std::size_t bytes,
                           const std::string& array) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw RunError(what + ": " +
                   (errno == ENOENT ? "'" + path + "' does not exist"
                                    : "cannot access '" + path + "': " + errno_text(errno)));
  if (!S_ISREG(st.st_mode))
    throw RunError(what + ": '" + path + "' is " + kind_of(st.st_mode) + ", not a regular file");
  if (bytes != 0 && static_cast<std::size_t>(st.st_size) != bytes)
    throw RunError(what + ": '" + path + "' holds " + std::to_string(st.st_size) +
                   " bytes but array " + array + " needs " + std::to_string(bytes) + " bytes");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw RunError(what + ": cannot open '" + path + "' to read: " + errno_text(errno));
  ::close(fd);
}

/// Checks before the run that a save to `path` can be made: the target is a regular file or
/// new, and a file can be created in its folder (a probe, removed at once).
inline void check_writable(const std::string& what, const std::string& path) {
  bool exists = false;
  const std::string target = save_target(what, path, exists);
  if (exists && access(target.c_str(), W_OK) != 0)
    throw RunError(what + ": '" + path + "' is read-only (" + errno_text(errno) + ")");
  std::string temp;
  const int fd = create_temporary(what, target, exists, temp);
  ::close(fd);
  ::unlink(temp.c_str());
}

}  // namespace file

/// Checks every --load and --save of `o` before the run (`info.array_bytes`, when given, the
/// size each loaded file must have): a run of hours must not end in a save that cannot be made.
/// Throws RunError naming the flag.
inline void check_files(const Options& o, const ProgramInfo& info) {
  auto bytes_of = [&](const std::string& name) -> std::size_t {
    for (std::size_t i = 0; i < info.arrays.size() && i < info.array_bytes.size(); ++i)
      if (info.arrays[i] == name) return info.array_bytes[i];
    return 0;
  };
  for (const auto& [name, path] : o.loads)
    file::check_readable("--load " + name + "=" + path, path, bytes_of(name), name);
  std::vector<std::string> targets;
  for (const auto& [name, path] : o.saves) {
    const std::string what = "--save " + name + "=" + path;
    file::check_writable(what, path);
    bool exists = false;
    std::string target = file::save_target(what, path, exists);
    char* real = realpath(file::folder_of(target).c_str(), nullptr);
    if (real != nullptr) {
      const std::size_t slash = target.find_last_of('/');
      target = std::string(real) + "/" +
               (slash == std::string::npos ? target : target.substr(slash + 1));
      std::free(real);
    }
    if (std::find(targets.begin(), targets.end(), target) != targets.end())
      throw UsageError(what + ": another --save writes the same file");
    targets.push_back(target);
  }
}

/// Reads a raw file into `a`; the file must be a regular file of exactly the array's bytes.
inline void load_raw(HostArray& a, const std::string& path) {
  a.require("--load");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw RunError("cannot open '" + path + "' to load array " + a.name + ": " +
                   file::errno_text(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) throw RunError("cannot read '" + path + "': " + file::errno_text(errno));
  if (!S_ISREG(st.st_mode))
    throw RunError("'" + path + "' is " + file::kind_of(st.st_mode) +
                   ", not a regular file (to load array " + a.name + ")");
  if (static_cast<std::size_t>(st.st_size) != a.bytes.size())
    throw RunError("'" + path + "' holds " + std::to_string(st.st_size) + " bytes but array " +
                   a.name + " needs " + std::to_string(a.bytes.size()) + " bytes");
  unsigned char* out = a.bytes.data();
  std::size_t left = a.bytes.size();
  while (left > 0) {
    const ssize_t r = ::read(fd, out, std::min<std::size_t>(left, std::size_t{1} << 30));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw RunError("cannot read '" + path + "': " + file::errno_text(errno));
    if (r == 0) throw RunError("'" + path + "' became shorter while it was read");
    out += r;
    left -= static_cast<std::size_t>(r);
  }
}

/// Writes `n` bytes to `path` atomically: into a new temporary file beside it, each write, the
/// flush to storage (fsync) and the close checked, then renamed over it. On failure the
/// temporary file is removed, `path` is as it was, and RunError says why (`what` names the
/// array). A kill leaves `path` as it was and at worst a ".NAME.stepgen-XXXXXX" beside it.
inline void write_atomically(const std::string& path, const unsigned char* data, std::size_t n,
                             const std::string& what) {
  bool exists = false;
  const std::string target = file::save_target("cannot write " + what, path, exists);
  std::string temp;
  const int fd = file::create_temporary("cannot write " + what, target, exists, temp);
  int error = file::write_all(fd, data, n);
  if (error == 0 && fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temp.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    throw RunError("cannot write '" + path + "' for " + what + ": " + file::errno_text(error) +
                   (exists ? " (the previous file is unchanged)" : ""));
  }
  file::sync_folder(file::folder_of(target));
}

inline void save_raw(const HostArray& a, const std::string& path) {
  a.require("--save");
  write_atomically(path, a.bytes.data(), a.bytes.size(), "array " + a.name);
}

}  // namespace stepgen::rt

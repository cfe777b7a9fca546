#include "spec/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace stepgen::spec {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) return false;
  }
  return true;
}

// True when the first character that is not blank (or a UTF-8 byte order mark) is '<'.
bool looks_like_xml(const std::string& text) {
  std::size_t i = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i < text.size() && text[i] == '<';
}

}  // namespace

namespace {

// "a directory", "a FIFO", ...: what a file that is not regular is, for messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string too_large(const std::string& size, std::size_t limit) {
  return "is too large (" + size + " bytes; at most " + std::to_string(limit) + " are read)";
}

}  // namespace

std::string file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return "does not exist";
    return std::string("cannot be examined (") + std::strerror(errno) + ")";
  }
  if (!S_ISREG(st.st_mode))
    return std::string("is not a regular file (") + kind_of(st.st_mode) + ")";
  return {};
}

bool read_regular_file(const std::string& path, std::size_t limit, std::string& text,
                       std::string& error) {
  // The type is checked before opening (open() of a FIFO waits for a writer) and again on the
  // descriptor, opened without blocking, in case the path changed in between.
  if (std::string problem = file_problem(path); !problem.empty()) {
    error = problem;
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    error = std::string("cannot be opened (") + std::strerror(errno) + ")";
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "is not a regular file";
    return false;
  }
  if (static_cast<unsigned long long>(st.st_size) > limit) {
    error = too_large(std::to_string(st.st_size), limit);
    return false;
  }
  std::string out;
  out.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("cannot be read (") + std::strerror(errno) + ")";
      return false;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > limit) {  // the file grew while we read it
      error = too_large("more than " + std::to_string(limit), limit);
      return false;
    }
  }
  text = std::move(out);
  return true;
}

bool load_spec_text(const std::string& path, std::string& text, std::string& error) {
  return read_regular_file(path, kMaxSpecBytes, text, error);
}

bool check_spec_text(const std::string& text, Diagnostics& diags) {
  if (text.size() > kMaxSpecBytes) {
    diags.error({}, "spec is too large (" + std::to_string(text.size()) +
                        " bytes; specs may have at most " + std::to_string(kMaxSpecBytes) + ")");
    return false;
  }
  std::size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    diags.error(offset_to_loc(text, nul), "spec holds a NUL byte (is it a text file?)");
    return false;
  }
  return true;
}

std::optional<SpecTree> read_spec(const std::string& path, const std::string& text,
                                  Diagnostics& diags) {
  if (ends_with(path, ".xml")) return read_xml(path, text, diags);
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return read_yaml(path, text, diags);
  return looks_like_xml(text) ? read_xml(path, text, diags) : read_yaml(path, text, diags);
}

}  // namespace stepgen::spec

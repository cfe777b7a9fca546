#pragma once
/// \file
/// The errors a program and the planning it shares with the generator throw (RunError, and
/// UsageError for a bad command line or figure) and the number parsing and byte counts their
/// messages use. Standard library only: the generator's planning includes it.

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace stepgen::rt {

/// A run-time failure the program reports and exits on (status 1), never a crash.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bad command line (an unknown flag, a value of the wrong form or out of range): the
/// program exits with status 2, the usual status of a usage error.
class UsageError : public RunError {
 public:
  using RunError::RunError;
};

/// A byte count for a message: "512 B", "1.50 GiB".
inline std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char s[32];
  std::snprintf(s, sizeof s, u == 0 ? "%.0f %s" : "%.2f %s", b, units[u]);
  return s;
}

namespace detail {

/// Parses a decimal number (digits, '.', an exponent; no hex, inf or nan) in [min, max].
/// Returns false when the text is not such a number or is out of range.
inline bool parse_number(const std::string& text, double min, double max, double& v) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' &&
        c != '+' && c != '-')
      return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(text.c_str(), &end);
  return *end == '\0' && errno == 0 && std::isfinite(v) && v >= min && v <= max;
}

}  // namespace detail

}  // namespace stepgen::rt

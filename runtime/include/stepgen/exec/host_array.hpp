#pragma once
/// \file
/// Host memory of a run: HostBytes (owned or borrowed, page-locked or not), the allocators and
/// how the report names them (HostMemory), rt::HostArray (an array's cells over a box, or absent
/// when made on the devices), and the bit-for-bit comparison --verify uses.
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

#include "stepgen/description/description.hpp"
#include "stepgen/exec/io/links.hpp"
#include "stepgen/exec/program_options.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {
/// The bytes of a host array: owned heap memory (zeroed) by default, or memory allocated
/// elsewhere, e.g. page-locked by a backend for direct mapping, which `keep` frees when the
/// last HostBytes that adopted it goes. Copies are deep: a copy constructed is owned (a copy of
/// pinned memory is pageable), a copy assigned over bytes of the same size lands in their memory
/// (pinned stays pinned); moves and swaps keep the memory where it is.
class HostBytes {
 public:
  HostBytes() = default;
  explicit HostBytes(std::size_t n) : owned_(n), data_(owned_.data()), size_(n) {}
  /// Adopts `n` bytes at `data`; `keep` (may be null) owns them.
  HostBytes(unsigned char* data, std::size_t n, std::shared_ptr<void> keep)
      : data_(data), size_(n), keep_(std::move(keep)) {}
  HostBytes(const HostBytes& o)
      : owned_(o.data_, o.data_ + o.size_), data_(owned_.data()), size_(o.size_) {}
  /// Copies the values; into the memory already held when the sizes agree, so that an array
  /// given page-locked memory keeps it (`B = A` of an initial value `copy(A)`).
  HostBytes& operator=(const HostBytes& o) {
    if (this == &o) return *this;
    if (size_ == o.size_ && data_ != nullptr) {
      std::memcpy(data_, o.data_, size_);
      return *this;
    }
    *this = HostBytes(o);
    return *this;
  }
  HostBytes(HostBytes&& o) noexcept { swap(o); }
  HostBytes& operator=(HostBytes&& o) noexcept {
    HostBytes gone(std::move(o));
    swap(gone);
    return *this;
  }
  ~HostBytes() = default;
  void swap(HostBytes& o) noexcept {
    owned_.swap(o.owned_);  // a vector's swap keeps its buffer: data_ stays valid
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    keep_.swap(o.keep_);
  }
  friend void swap(HostBytes& a, HostBytes& b) noexcept { a.swap(b); }

  unsigned char* data() { return data_; }
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  unsigned char& operator[](std::size_t i) { return data_[i]; }
  const unsigned char& operator[](std::size_t i) const { return data_[i]; }
  /// True when the bytes were allocated elsewhere (pinned by a backend).
  bool adopted() const { return size_ > 0 && owned_.empty(); }

 private:
  std::vector<unsigned char> owned_;
  unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  std::shared_ptr<void> keep_;
};

// HostAllocator: description.hpp (the generated make_host_arrays takes one).

/// How the host arrays of a run are held, for the report: how many are page-locked, how many
/// pageable and why.
struct HostMemory {
  int pinned = 0;
  int pageable = 0;
  std::string why;  ///< why arrays are pageable ("--pinned off", the failed allocation)

  /// "" when no host array was made (every array made on the devices): the report says
  /// nothing of how they would have been held.
  std::string text() const {
    if (pageable == 0 && pinned == 0) return "";
    if (pageable == 0 && pinned > 0) return "page-locked";
    std::string s = pinned > 0
                        ? std::to_string(pinned) + " of " + std::to_string(pinned + pageable) +
                              " page-locked, the others pageable"
                        : "pageable";
    return why.empty() ? s : s + " (" + why + ")";
  }
};

/// Page-locked host arrays from `pinned` (empty: none), falling back to pageable heap memory
/// when an allocation fails (RunError): that array and the ones after it are pageable, and
/// `memory` (which must outlive the allocator) counts them and keeps the first failure.
/// Pageable arrays cost speed, not correctness: in core the copies then go through the
/// driver's staging buffers.
inline HostAllocator pageable_fallback(HostAllocator pinned, HostMemory& memory) {
  return [pinned = std::move(pinned), &memory](std::size_t n, const std::string& name) {
    if (pinned && memory.why.empty()) {
      try {
        HostBytes b = pinned(n, name);
        ++memory.pinned;
        return b;
      } catch (const RunError& e) {
        memory.why = std::string("page-locking failed: ") + e.what();
      }
    }
    if (!pinned && memory.why.empty()) memory.why = "--pinned off";
    ++memory.pageable;
    return HostBytes(n);
  };
}

/// One array's storage on the host: raw bytes, x fastest, over the whole grid.
struct HostArray {
  std::string name;
  std::size_t element_bytes = 0;
  Box box;  ///< the whole grid
  HostBytes bytes;
  /// False when the array has no host copy (its values live on the devices only:
  /// made there, never uploaded nor gathered); name, element size and box stay, `bytes` is
  /// empty. Every consumer of the bytes checks it (require): a missing copy is an internal
  /// error, never a read of empty memory.
  bool held = true;

  HostArray() = default;
  HostArray(std::string n, std::size_t elem, const Box& grid, const HostAllocator& alloc = {})
      : name(std::move(n)), element_bytes(elem), box(grid) {
    const std::size_t size = static_cast<std::size_t>(grid.volume()) * elem;
    bytes = alloc ? alloc(size, name) : HostBytes(size);
  }
  /// An array without a host copy (held false, no bytes).
  static HostArray absent(std::string n, std::size_t elem, const Box& grid) {
    HostArray a;
    a.name = std::move(n);
    a.element_bytes = elem;
    a.box = grid;
    a.held = false;
    return a;
  }
  /// Throws (an internal error naming `what`) when the array has no host copy.
  void require(const char* what) const {
    if (!held)
      throw RunError(std::string("internal error: ") + what + " needs the host copy of array " +
                     name + ", which this run does not keep (its values are on the devices)");
  }
  template <typename T>
  T* as() {
    require("a host read or write");
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* as() const {
    require("a host read");
    return reinterpret_cast<const T*>(bytes.data());
  }
};

/// Compares two arrays bit for bit. Returns "" when equal, else a line naming the first
/// differing index (as coordinates) and both values printed through `show`.
/// One element as `--verify` prints it: every digit that tells two values apart (floating
/// point: max_digits10, so that two doubles that differ never print alike; integers exactly).
template <typename T>
std::string element_text(const T& v) {
  char buf[64];
  if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(buf, sizeof buf, "%.*Lg", std::numeric_limits<T>::max_digits10,
                  static_cast<long double>(v));
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  }
  return buf;
}

/// An element's bytes in hexadecimal, as they lie in memory.
inline std::string element_bytes_text(const void* p, std::size_t n) {
  std::string s = "0x";
  char buf[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<const unsigned char*>(p)[i]);
    s += buf;
  }
  return s;
}

template <typename T>
std::string compare_arrays(const HostArray& got, const HostArray& want) {
  std::size_t n = got.bytes.size() / sizeof(T);
  const T* a = got.as<T>();
  const T* b = want.as<T>();
  std::size_t differing = 0, first = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      if (first == n) first = i;
      ++differing;
    }
  }
  if (differing == 0) return {};
  Vec3 e = got.box.extents();
  std::size_t x = first % static_cast<std::size_t>(e[0]);
  std::size_t y = (first / static_cast<std::size_t>(e[0])) % static_cast<std::size_t>(e[1]);
  std::size_t z = first / static_cast<std::size_t>(e[0] * e[1]);
  std::string g = element_text(a[first]), w = element_text(b[first]);
  // Values that print alike and differ in their bits (NaNs of other payloads): the bytes too.
  if (g == w) {
    g += " (" + element_bytes_text(&a[first], sizeof(T)) + ")";
    w += " (" + element_bytes_text(&b[first], sizeof(T)) + ")";
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "%s differs at %zu of %zu elements; first at (%zu,%zu,%zu): ", got.name.c_str(),
                differing, n, x, y, z);
  return line + g + " vs " + w;
}

}  // namespace stepgen::rt

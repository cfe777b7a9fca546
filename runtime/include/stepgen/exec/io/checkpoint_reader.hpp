#pragma once
/// \file
/// Reading a checkpoint (checkpoint.hpp) for a restart: the header checked at once, the values
/// read as any box of the grid (the owned boxes of any partition: a run may resume on another
/// number of devices or ranks, or out of core), every block read checked against its CRC-64.
/// Standard library and POSIX only.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/io/checkpoint.hpp"

namespace stepgen::rt::io {

/// A checkpoint opened for a restart: the header read and checked at once (a file that is not
/// a checkpoint, of another format version, with a damaged header or shorter than its header
/// says is a RunError naming the file and what is wrong); values read as boxes, each block read
/// checked against its CRC.
class CheckpointReader {
 public:
  explicit CheckpointReader(const std::string& path) : path_(path) {
    fd_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      fail(errno == ENOENT ? "it does not exist" : "cannot open it: " + file::errno_text(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail("cannot read it: " + file::errno_text(errno));
    if (!S_ISREG(st.st_mode)) fail("it is " + file::kind_of(st.st_mode) + ", not a regular file");
    size_ = static_cast<std::uint64_t>(st.st_size);
    unsigned char pre[kCheckpointPreamble] = {};
    const std::size_t got = read_at(pre, sizeof pre, 0);
    if (got < 8 || std::memcmp(pre, kCheckpointMagic, 8) != 0)
      fail("it is not a stepgen checkpoint (it does not begin with the checkpoint signature)");
    if (got < kCheckpointPreamble) fail(truncated(kCheckpointPreamble));
    const auto version = detail::get_le(pre + 8, 4);
    if (version != kCheckpointVersion)
      fail("it has format version " + std::to_string(version) + ", this program reads version " +
           std::to_string(kCheckpointVersion));
    const auto text_bytes = detail::get_le(pre + 12, 4);
    if (kCheckpointPreamble + text_bytes > size_) fail(truncated(kCheckpointPreamble + text_bytes));
    std::string text(text_bytes, '\0');
    read_at(text.data(), text.size(), kCheckpointPreamble);
    if (crc64(text.data(), text.size()) != detail::get_le(pre + 16, 8))
      fail("its header is corrupted (the header's checksum does not match)");
    parse(text);
    for (const CheckpointArray& a : info_.arrays)
      if (a.offset + a.bytes > size_)
        fail(truncated(a.offset + a.bytes) + " (array " + a.name + ")");
  }
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& path() const { return path_; }
  const CheckpointInfo& info() const { return info_; }

  /// Checks that the checkpoint is one this program can resume from: the same spec (hash), the
  /// same grid, and exactly the arrays `arrays` (name, spec type). Throws RunError listing every
  /// difference.
  void expect(const std::string& spec_hash, const Box& grid,
              const std::vector<std::pair<std::string, std::string>>& arrays) const {
    std::vector<std::string> diff;
    if (info_.spec_hash != spec_hash)
      diff.push_back("it was written by another spec (spec hash " + info_.spec_hash +
                     ", this program's " + spec_hash + ")");
    if (info_.grid.dims != grid.dims || info_.grid.extents() != grid.extents())
      diff.push_back("its grid is " + extents_text(info_.grid) + ", this program's " +
                     extents_text(grid));
    for (const auto& [name, type] : arrays) {
      const CheckpointArray* a = info_.find(name);
      if (a == nullptr)
        diff.push_back("array " + name + " is missing from it");
      else if (a->type != type)
        diff.push_back("array " + name + " is " + a->type + " in it, " + type + " here");
    }
    for (const CheckpointArray& a : info_.arrays) {
      const bool known = std::any_of(arrays.begin(), arrays.end(),
                                     [&](const auto& p) { return p.first == a.name; });
      if (!known) diff.push_back("it holds array " + a.name + ", which this program does not have");
    }
    if (diff.empty()) return;
    std::string message = "cannot restart from '" + path_ + "': ";
    for (std::size_t i = 0; i < diff.size(); ++i) message += (i ? "; " : "") + diff[i];
    throw RunError(message);
  }

  /// Reads the values of `array` in `box` (a box of the grid, in the grid's coordinates) into
  /// `out`, row-major over the box, x fastest. Every block of the file it reads is checked
  /// against its CRC: RunError naming the array and block when one does not match.
  void read(const std::string& array, const Box& box, void* out) const {
    const CheckpointArray* a = info_.find(array);
    if (a == nullptr) fail("it holds no array " + array);
    if (box.dims != info_.grid.dims || !info_.grid.contains(box))
      throw std::invalid_argument("checkpoint read of " + box.str() + " outside the grid " +
                                  info_.grid.str());
    if (box.empty()) return;
    const std::size_t eb = a->element_bytes;
    const auto nx = static_cast<std::uint64_t>(info_.grid.extent(0));
    const auto ny = static_cast<std::uint64_t>(info_.grid.extent(1));
    const auto bx0 = static_cast<std::uint64_t>(box.lo[0] - info_.grid.lo[0]);
    const auto row_bytes = static_cast<std::uint64_t>(box.extent(0)) * eb;
    auto* dst = static_cast<unsigned char*>(out);
    std::vector<unsigned char> block;
    std::uint64_t loaded = ~std::uint64_t{0};
    for (Index z = box.lo[2]; z < box.hi[2]; ++z)
      for (Index y = box.lo[1]; y < box.hi[1]; ++y) {
        const std::uint64_t row = static_cast<std::uint64_t>(z - info_.grid.lo[2]) * ny +
                                  static_cast<std::uint64_t>(y - info_.grid.lo[1]);
        std::uint64_t at = (row * nx + bx0) * eb;  // byte in the array
        std::uint64_t left = row_bytes;
        while (left > 0) {
          const std::uint64_t b = at / info_.block_bytes;
          if (b != loaded) {
            load_block(*a, b, block);
            loaded = b;
          }
          const std::uint64_t in = at - b * info_.block_bytes;
          const std::uint64_t n = std::min<std::uint64_t>(left, block.size() - in);
          std::memcpy(dst, block.data() + in, n);
          dst += n;
          at += n;
          left -= n;
        }
      }
  }

  /// Reads the whole grid of `array` into `out`.
  void read(const std::string& array, void* out) const { read(array, info_.grid, out); }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw RunError("cannot restart from '" + path_ + "': " + why);
  }
  std::string truncated(std::uint64_t needs) const {
    return "it is truncated (it holds " + std::to_string(size_) + " bytes, its header needs " +
           std::to_string(needs) + ")";
  }
  static std::string extents_text(const Box& b) {
    std::string s;
    for (int d = 0; d < b.dims; ++d) s += (d ? "x" : "") + std::to_string(b.extent(d));
    return s;
  }

  std::size_t read_at(void* to, std::size_t n, std::uint64_t at) const {
    auto* p = static_cast<unsigned char*>(to);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(at + done));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail("cannot read it: " + file::errno_text(errno));
      if (r == 0) break;
      done += static_cast<std::size_t>(r);
    }
    return done;
  }

  void load_block(const CheckpointArray& a, std::uint64_t b,
                  std::vector<unsigned char>& out) const {
    const std::uint64_t begin = b * info_.block_bytes;
    const std::uint64_t n = std::min<std::uint64_t>(info_.block_bytes, a.bytes - begin);
    out.resize(n);
    if (read_at(out.data(), n, a.offset + begin) != n)
      fail("it is truncated (it became shorter while it was read)");
    if (crc64(out.data(), n) != a.crc[b])
      fail("array " + a.name + " is corrupted (the checksum of bytes " + std::to_string(begin) +
           " to " + std::to_string(begin + n) + " of its " + std::to_string(a.bytes) +
           " does not match)");
  }

  /// Parses the header text; a damaged one (its CRC matched, so written so) is a RunError.
  void parse(const std::string& text) {
    std::istringstream in(text);
    std::string line, key;
    auto bad = [&](const std::string& why) { fail("its header is not valid (" + why + ")"); };
    if (!std::getline(in, line) || line != "stepgen checkpoint") bad("first line");
    std::size_t count = 0;
    bool have_count = false;
    while (std::getline(in, line)) {
      std::istringstream l(line);
      l >> key;
      if (key == "spec_hash") {
        info_.spec_hash = line.size() > 10 ? line.substr(10) : "";
      } else if (key == "step") {
        if (!(l >> info_.step) || info_.step < 0) bad("step");  // a run starts at step >= 0
      } else if (key == "dims") {
        if (!(l >> info_.grid.dims) || info_.grid.dims < 1 || info_.grid.dims > 3) bad("dims");
      } else if (key == "grid") {
        for (std::size_t d = 0; d < 3; ++d)
          if (!(l >> info_.grid.hi[d]) || info_.grid.hi[d] < 0) bad("grid");
      } else if (key == "byte_order") {
        std::string order;
        l >> order;
        if (order != "little") fail("it was written on a " + order + "-endian machine");
      } else if (key == "reduction") {
        std::string name, bits;
        if (!(l >> name >> bits) || bits.size() != 16) bad("reduction");
        std::uint64_t v = 0;
        try {
          v = std::stoull(bits, nullptr, 16);
        } catch (const std::exception&) {
          bad("reduction " + name);
        }
        double value = 0;
        std::memcpy(&value, &v, sizeof value);
        info_.reductions.emplace_back(name, value);
      } else if (key == "block_bytes") {
        if (!(l >> info_.block_bytes) || info_.block_bytes == 0) bad("block_bytes");
      } else if (key == "arrays") {
        if (!(l >> count)) bad("arrays");
        have_count = true;
      } else if (key == "array") {
        CheckpointArray a;
        std::string kind;
        if (!(l >> a.name >> a.type >> a.element_bytes >> a.offset >> a.bytes >> kind) ||
            kind != "crc64")
          bad("array");
        const ElementType* t = find_element_type(a.type);
        if (t == nullptr || t->bytes != a.element_bytes) bad("array " + a.name + "'s type");
        std::string hex;
        while (l >> hex) {
          char* end = nullptr;
          a.crc.push_back(std::strtoull(hex.c_str(), &end, 16));
          if (hex.size() != 16 || *end != '\0') bad("array " + a.name + "'s checksums");
        }
        if (a.crc.size() != (a.bytes + info_.block_bytes - 1) / info_.block_bytes)
          bad("array " + a.name + "'s checksums");
        info_.arrays.push_back(std::move(a));
      }
      // Other keys: written by a later minor revision; ignored.
    }
    if (!have_count || count != info_.arrays.size()) bad("array count");
    const auto cells = static_cast<std::uint64_t>(info_.grid.volume());
    for (const CheckpointArray& a : info_.arrays)
      if (a.bytes != cells * a.element_bytes) bad("array " + a.name + "'s size");
  }

  /// Closes the file also when the constructor throws.
  struct Fd {
    int fd = -1;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
    operator int() const { return fd; }  // NOLINT: used as the descriptor
  };

  std::string path_;
  Fd fd_;
  std::uint64_t size_ = 0;
  CheckpointInfo info_;
};

}  // namespace stepgen::rt::io

#pragma once
/// \file
/// Checkpoint files: a set of arrays over the whole grid with a header (spec hash, step, grid,
/// arrays, a CRC-64 per block of each array), written atomically (a temporary file beside the
/// target, fsync'ed, renamed over it: a kill leaves the previous checkpoint as it was), read
/// back as owned boxes of any partition so that a run may resume on another number of devices
/// or ranks. The layout is described in docs/io.md. Standard library and POSIX only, so that
/// every generated program can checkpoint, with or without HDF5.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "stepgen/box.hpp"
#include "stepgen/io/checksum.hpp"
#include "stepgen/io/types.hpp"
#include "stepgen/program.hpp"

namespace stepgen::rt::io {

/// The first 8 bytes of every checkpoint (PNG's trick: a non-ASCII byte, then a name, then a
/// newline, so that text-mode or 7-bit damage is caught as "not a checkpoint").
inline constexpr char kCheckpointMagic[8] = {'\x89', 'S', 'G', 'C', 'K', 'P', 'T', '\n'};
inline constexpr std::uint32_t kCheckpointVersion = 1;
/// The fixed part: magic, version (u32), header text length (u32), CRC-64 of the text (u64).
inline constexpr std::size_t kCheckpointPreamble = 24;
/// Arrays start at multiples of this (page and file-system block aligned).
inline constexpr std::size_t kCheckpointAlign = 4096;
/// Each array's bytes are checksummed in blocks of this size, so that a part reading its own
/// box checks the blocks it reads and no more.
inline constexpr std::size_t kCheckpointBlock = std::size_t{4} << 20;

/// One array of a checkpoint as its header lists it.
struct CheckpointArray {
  std::string name;
  std::string type;  ///< the spec's type name
  std::size_t element_bytes = 0;
  std::uint64_t offset = 0;  ///< of its first byte in the file
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> crc;  ///< CRC-64/XZ of each block of kCheckpointBlock bytes
};

/// What a checkpoint holds, apart from the values.
struct CheckpointInfo {
  std::string spec_hash;
  std::int64_t step = 0;
  Box grid;
  std::size_t block_bytes = kCheckpointBlock;
  std::vector<CheckpointArray> arrays;
  const CheckpointArray* find(const std::string& name) const {
    for (const CheckpointArray& a : arrays)
      if (a.name == name) return &a;
    return nullptr;
  }
};

/// An array to checkpoint: its values over the whole grid, as pieces (one whole-grid piece, or
/// the owned boxes of the parts, which must tile the grid).
struct CheckpointSource {
  std::string name;
  std::string type;
  std::vector<Piece> pieces;
};

namespace detail {

inline void put_le(unsigned char* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline std::uint64_t get_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

inline std::string hex64(std::uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016" PRIx64, v);
  return s;
}

/// The header text of `info` (every checksum 16 hex digits: its length does not depend on
/// their values).
inline std::string checkpoint_text(const CheckpointInfo& info) {
  std::ostringstream t;
  t << "stepgen checkpoint\n"
    << "spec_hash " << info.spec_hash << "\n"
    << "step " << info.step << "\n"
    << "dims " << info.grid.dims << "\n"
    << "grid " << info.grid.extent(0) << " " << info.grid.extent(1) << " " << info.grid.extent(2)
    << "\n"
    << "byte_order little\n"
    << "block_bytes " << info.block_bytes << "\n"
    << "arrays " << info.arrays.size() << "\n";
  for (const CheckpointArray& a : info.arrays) {
    t << "array " << a.name << " " << a.type << " " << a.element_bytes << " " << a.offset << " "
      << a.bytes << " crc64";
    for (std::uint64_t c : a.crc) t << " " << hex64(c);
    t << "\n";
  }
  return t.str();
}

inline std::uint64_t round_up(std::uint64_t v, std::uint64_t to) {
  return (v + to - 1) / to * to;
}

/// Copies the bytes [e0, e1) (in elements, row-major over `grid`) of an array held as `pieces`
/// into `out` (when a single piece holds them contiguously, points `out` at them instead).
inline void gather_range(const Box& grid, const std::vector<Piece>& pieces, std::size_t eb,
                         std::uint64_t e0, std::uint64_t e1, std::vector<unsigned char>& buffer,
                         const unsigned char*& out) {
  const auto nx = static_cast<std::uint64_t>(grid.extent(0));
  const auto ny = static_cast<std::uint64_t>(grid.extent(1));
  if (pieces.size() == 1 && pieces[0].box == grid) {
    out = static_cast<const unsigned char*>(pieces[0].data) + e0 * eb;
    return;
  }
  buffer.resize((e1 - e0) * eb);
  out = buffer.data();
  for (std::uint64_t e = e0; e < e1;) {
    const std::uint64_t row = e / nx, x0 = e % nx;
    const std::uint64_t x1 = std::min<std::uint64_t>(nx, x0 + (e1 - e));
    const auto y = static_cast<Index>(row % ny) + grid.lo[1];
    const auto z = static_cast<Index>(row / ny) + grid.lo[2];
    for (const Piece& p : pieces) {
      const Box& b = p.box;
      if (y < b.lo[1] || y >= b.hi[1] || z < b.lo[2] || z >= b.hi[2]) continue;
      const auto bx0 = static_cast<std::uint64_t>(b.lo[0] - grid.lo[0]);
      const auto bx1 = static_cast<std::uint64_t>(b.hi[0] - grid.lo[0]);
      const std::uint64_t lo = std::max(x0, bx0), hi = std::min(x1, bx1);
      if (lo >= hi) continue;
      const auto ex = static_cast<std::uint64_t>(b.extent(0));
      const auto ey = static_cast<std::uint64_t>(b.extent(1));
      const std::uint64_t src =
          (static_cast<std::uint64_t>(z - b.lo[2]) * ey + static_cast<std::uint64_t>(y - b.lo[1])) *
              ex +
          (lo - bx0);
      std::memcpy(buffer.data() + (row * nx + lo - e0) * eb,
                  static_cast<const unsigned char*>(p.data) + src * eb, (hi - lo) * eb);
    }
    e += x1 - x0;
  }
}

inline int pwrite_all(int fd, const unsigned char* data, std::size_t n, off_t at) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, data, n, at);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    data += w;
    n -= static_cast<std::size_t>(w);
    at += w;
  }
  return 0;
}

}  // namespace detail

/// Writes a checkpoint of `arrays` at `step` to `path`, atomically: into a new temporary file
/// beside it (".NAME.stepgen-XXXXXX"), every write, the flush to storage (fsync) and the close
/// checked, then renamed over `path`. On failure the temporary file is removed, `path` is as it
/// was, and RunError says why; a kill leaves `path` as it was. Each array's pieces must tile
/// `grid` (parts' owned boxes); std::invalid_argument otherwise (a caller's bug).
inline void write_checkpoint(const std::string& path, const std::string& spec_hash,
                             std::int64_t step, const Box& grid,
                             const std::vector<CheckpointSource>& arrays) {
  if (grid.lo != Vec3{0, 0, 0}) throw std::invalid_argument("checkpoint grid must start at 0");
  if (spec_hash.find_first_of("\n\r") != std::string::npos)
    throw std::invalid_argument("checkpoint spec hash holds a line break");
  CheckpointInfo info;
  info.spec_hash = spec_hash;
  info.step = step;
  info.grid = grid;
  for (const CheckpointSource& s : arrays) {
    const ElementType& t = element_type(s.type);
    if (s.name.empty() || s.name.find_first_of(" \t\n\r") != std::string::npos)
      throw std::invalid_argument("checkpoint array name '" + s.name + "' is empty or has a space");
    if (info.find(s.name) != nullptr)
      throw std::invalid_argument("checkpoint array '" + s.name + "' given twice");
    const std::string wrong = check_pieces(grid, s.pieces, true);
    if (!wrong.empty()) throw std::invalid_argument("checkpoint array " + s.name + ": " + wrong);
    CheckpointArray a;
    a.name = s.name;
    a.type = t.name;
    a.element_bytes = t.bytes;
    a.bytes = static_cast<std::uint64_t>(grid.volume()) * t.bytes;
    a.crc.assign((a.bytes + info.block_bytes - 1) / info.block_bytes, 0);
    info.arrays.push_back(std::move(a));
  }
  // The text's length does not depend on the offsets' and checksums' values once the offsets
  // are fixed: lay out with zero offsets, then with the real ones until the length settles.
  std::uint64_t data_start = 0;
  for (int round = 0; round < 4; ++round) {
    const std::uint64_t start = detail::round_up(
        kCheckpointPreamble + detail::checkpoint_text(info).size(), kCheckpointAlign);
    std::uint64_t at = start;
    for (CheckpointArray& a : info.arrays) {
      a.offset = at;
      at = detail::round_up(at + a.bytes, kCheckpointAlign);
    }
    if (start == data_start) break;
    data_start = start;
  }

  const std::string what = "cannot write checkpoint '" + path + "'";
  bool exists = false;
  const std::string target = file::save_target(what, path, exists);
  std::string temp;
  const int fd = file::create_temporary(what, target, exists, temp);
  int error = 0;
  std::string during;
  std::vector<unsigned char> buffer;
  // Values first, at their offsets; the header last at offset 0, once the checksums are known.
  for (std::size_t i = 0; i < info.arrays.size() && error == 0; ++i) {
    CheckpointArray& a = info.arrays[i];
    during = " (array " + a.name + ")";
    const std::uint64_t elements = a.bytes / a.element_bytes;
    const std::uint64_t per_block = info.block_bytes / a.element_bytes;
    for (std::size_t b = 0; b < a.crc.size() && error == 0; ++b) {
      const std::uint64_t e0 = b * per_block, e1 = std::min(elements, e0 + per_block);
      const unsigned char* bytes = nullptr;
      detail::gather_range(grid, arrays[i].pieces, a.element_bytes, e0, e1, buffer, bytes);
      const std::size_t n = (e1 - e0) * a.element_bytes;
      a.crc[b] = crc64(bytes, n);
      error = detail::pwrite_all(fd, bytes, n, static_cast<off_t>(a.offset + e0 * a.element_bytes));
    }
  }
  if (error == 0) {
    during = " (header)";
    const std::string text = detail::checkpoint_text(info);
    std::vector<unsigned char> head(kCheckpointPreamble + text.size());
    std::memcpy(head.data(), kCheckpointMagic, 8);
    detail::put_le(head.data() + 8, kCheckpointVersion, 4);
    detail::put_le(head.data() + 12, text.size(), 4);
    detail::put_le(head.data() + 16, crc64(text.data(), text.size()), 8);
    std::memcpy(head.data() + kCheckpointPreamble, text.data(), text.size());
    error = detail::pwrite_all(fd, head.data(), head.size(), 0);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno, during = " (flush to storage)";
  if (::close(fd) != 0 && error == 0) error = errno, during = " (close)";
  if (error == 0 && std::rename(temp.c_str(), target.c_str()) != 0)
    error = errno, during = " (rename of " + temp + ")";
  if (error != 0) {
    ::unlink(temp.c_str());
    throw RunError(what + ": " + file::errno_text(error) + during +
                   (exists ? "; the previous checkpoint is unchanged" : ""));
  }
  file::sync_folder(file::folder_of(target));
}

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
        if (!(l >> info_.step)) bad("step");
      } else if (key == "dims") {
        if (!(l >> info_.grid.dims) || info_.grid.dims < 1 || info_.grid.dims > 3) bad("dims");
      } else if (key == "grid") {
        for (std::size_t d = 0; d < 3; ++d)
          if (!(l >> info_.grid.hi[d]) || info_.grid.hi[d] < 0) bad("grid");
      } else if (key == "byte_order") {
        std::string order;
        l >> order;
        if (order != "little") fail("it was written on a " + order + "-endian machine");
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

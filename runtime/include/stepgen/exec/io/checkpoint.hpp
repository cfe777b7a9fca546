#pragma once
/// \file
/// Checkpoint files: a set of arrays over the whole grid with a header (spec hash, step, grid,
/// arrays, a CRC-64 per block of each array), written atomically (a temporary file beside the
/// target, fsync'ed, renamed over it: a kill leaves the previous checkpoint as it was). This
/// header: the format and the writer; checkpoint_reader.hpp reads them back as owned boxes of
/// any partition, checkpoint_mpi.hpp writes one from the ranks of an MPI run. The layout is
/// described in docs/io.md. Standard library and POSIX only, so that every generated program
/// can checkpoint, with or without HDF5.

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
#include <exception>
#include <mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "stepgen/exec/io/types.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/checksum.hpp"

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

/// The reductions' last values at a checkpoint's step, by name: a restart gives them back to
/// the monitor, so that an `until` over a reduction computed before the step (every 250, the
/// run restarted at 300) reads what the straight run reads, not nan, and stops at the same
/// step (guarded by the doctest "a checkpoint keeps the reductions' last values bit for bit,
/// NaN included"). Header lines `reduction NAME BITS
/// VALUE`, BITS the double's 16 hex digits (exact), VALUE for people.
using CheckpointReductions = std::vector<std::pair<std::string, double>>;

/// What a checkpoint holds, apart from the values.
struct CheckpointInfo {
  std::string spec_hash;
  CheckpointReductions reductions;
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
    << "block_bytes " << info.block_bytes << "\n";
  for (const auto& [name, value] : info.reductions) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    t << "reduction " << name << " " << hex64(bits) << " " << text << "\n";
  }
  t << "arrays " << info.arrays.size() << "\n";
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

namespace detail {

/// The header of a checkpoint of `arrays` (checksums still zero), its arrays laid out. Checks
/// the arguments (std::invalid_argument: a caller's bug); `whole`: each array's pieces must tile
/// the grid (else, under MPI, a rank's pieces lie in it without overlapping).
inline CheckpointInfo checkpoint_layout(const std::string& spec_hash, std::int64_t step,
                                        const Box& grid,
                                        const std::vector<CheckpointSource>& arrays, bool whole,
                                        const CheckpointReductions& reductions = {}) {
  if (grid.lo != Vec3{0, 0, 0}) throw std::invalid_argument("checkpoint grid must start at 0");
  if (spec_hash.find_first_of("\n\r") != std::string::npos)
    throw std::invalid_argument("checkpoint spec hash holds a line break");
  CheckpointInfo info;
  info.spec_hash = spec_hash;
  info.step = step;
  info.grid = grid;
  for (const auto& r : reductions)
    if (r.first.empty() || r.first.find_first_of(" \t\n\r") != std::string::npos)
      throw std::invalid_argument("checkpoint reduction name '" + r.first +
                                  "' is empty or has a space");
  info.reductions = reductions;
  for (const CheckpointSource& s : arrays) {
    const ElementType& t = element_type(s.type);
    if (s.name.empty() || s.name.find_first_of(" \t\n\r") != std::string::npos)
      throw std::invalid_argument("checkpoint array name '" + s.name + "' is empty or has a space");
    if (info.find(s.name) != nullptr)
      throw std::invalid_argument("checkpoint array '" + s.name + "' given twice");
    const std::string wrong = check_pieces(grid, s.pieces, whole);
    if (!wrong.empty()) throw std::invalid_argument("checkpoint array " + s.name + ": " + wrong);
    CheckpointArray a;
    a.name = s.name;
    a.type = t.name;
    a.element_bytes = t.bytes;
    a.bytes = static_cast<std::uint64_t>(grid.volume()) * t.bytes;
    a.crc.assign((a.bytes + info.block_bytes - 1) / info.block_bytes, 0);
    info.arrays.push_back(std::move(a));
  }
  // The text's length depends on the offsets' digits: lay out until the data start settles.
  std::uint64_t data_start = 0;
  for (int round = 0; round < 4; ++round) {
    const std::uint64_t start =
        round_up(kCheckpointPreamble + checkpoint_text(info).size(), kCheckpointAlign);
    std::uint64_t at = start;
    for (CheckpointArray& a : info.arrays) {
      a.offset = at;
      at = round_up(at + a.bytes, kCheckpointAlign);
    }
    if (start == data_start) break;
    data_start = start;
  }
  return info;
}

/// The temporary file a checkpoint is written into (".NAME.stepgen-XXXXXX" beside the target,
/// with its permissions), renamed over the target by finish(). Failures are kept, not thrown
/// (an MPI rank 0 must go on taking part in collectives): error() says the first one. Removed
/// when not finished.
class CheckpointOutput {
 public:
  explicit CheckpointOutput(const std::string& path)
      : path_(path), what_("cannot write checkpoint '" + path + "'") {
    try {
      target_ = file::save_target(what_, path, exists_);
      fd_ = file::create_temporary(what_, target_, exists_, temp_);
    } catch (const RunError& e) {
      error_ = e.what();
    }
  }
  ~CheckpointOutput() {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_.empty() && !renamed_) ::unlink(temp_.c_str());
  }
  CheckpointOutput(const CheckpointOutput&) = delete;
  CheckpointOutput& operator=(const CheckpointOutput&) = delete;

  const std::string& error() const { return error_; }
  /// Whether a write failed (callable from the writing threads).
  bool failed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return !error_.empty();
  }

  /// Writes `n` bytes at offset `at` (skipped after a failure); `during` names the array.
  /// Several threads may write at once (at disjoint offsets).
  void write(const unsigned char* data, std::size_t n, std::uint64_t at,
             const std::string& during) {
    if (failed()) return;
    const int e = pwrite_all(fd_, data, n, static_cast<off_t>(at));
    if (e != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      fail(e, " (" + during + ")");
      return;
    }
#ifdef SYNC_FILE_RANGE_WRITE
    // Linux: start writing these pages to storage now, while the next blocks are gathered and
    // checksummed, rather than all of them at the final fsync (which still checks every one).
    (void)::sync_file_range(fd_, static_cast<off_t>(at), static_cast<off_t>(n),
                            SYNC_FILE_RANGE_WRITE);
#endif
  }

  /// Writes the header (`info` with its checksums), flushes to storage, closes and renames
  /// over the target. Returns "" or the first failure's message (the target then unchanged).
  std::string finish(const CheckpointInfo& info) {
    if (error_.empty()) {
      const std::string text = checkpoint_text(info);
      std::vector<unsigned char> head(kCheckpointPreamble + text.size());
      std::memcpy(head.data(), kCheckpointMagic, 8);
      put_le(head.data() + 8, kCheckpointVersion, 4);
      put_le(head.data() + 12, text.size(), 4);
      put_le(head.data() + 16, crc64(text.data(), text.size()), 8);
      std::memcpy(head.data() + kCheckpointPreamble, text.data(), text.size());
      write(head.data(), head.size(), 0, "header");
    }
    if (error_.empty() && ::fsync(fd_) != 0) fail(errno, " (flush to storage)");
    if (fd_ >= 0 && ::close(fd_) != 0 && error_.empty()) fail(errno, " (close)");
    fd_ = -1;
    if (error_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0)
      fail(errno, " (rename of " + temp_ + ")");
    if (!error_.empty()) return error_;
    renamed_ = true;
    file::sync_folder(file::folder_of(target_));
    return {};
  }

 private:
  void fail(int e, const std::string& during) {
    if (error_.empty())
      error_ = what_ + ": " + file::errno_text(e) + during +
               (exists_ ? "; the previous checkpoint is unchanged" : "");
  }

  std::string path_, what_, target_, temp_, error_;
  bool exists_ = false, renamed_ = false;
  int fd_ = -1;
  std::mutex mutex_;  ///< error_ while several threads write
};

}  // namespace detail

/// The threads write_checkpoint uses by default: min(8, hardware_concurrency), at least 1.
inline unsigned checkpoint_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return std::max(1u, std::min(8u, n));
}

/// Writes a checkpoint of `arrays` at `step` to `path`, atomically: into a new temporary file
/// beside it (".NAME.stepgen-XXXXXX"), the values first, the header last, every write, the
/// flush to storage (fsync) and the close checked, then renamed over `path`. On failure the
/// temporary file is removed, `path` is as it was, and RunError says why; a kill leaves `path`
/// as it was. Each array's pieces must tile `grid` (parts' owned boxes); std::invalid_argument
/// otherwise (a caller's bug). The values are written by `threads` threads (0:
/// checkpoint_threads()), each taking a contiguous range of the checksum blocks (of all the
/// arrays in file order): gather, CRC-64, pwrite at the block's offset, so that the checksums
/// of one thread overlap the writes of another. The file's bytes do not depend on `threads`.
inline void write_checkpoint(const std::string& path, const std::string& spec_hash,
                             std::int64_t step, const Box& grid,
                             const std::vector<CheckpointSource>& arrays, unsigned threads = 0,
                             const CheckpointReductions& reductions = {}) {
  CheckpointInfo info = detail::checkpoint_layout(spec_hash, step, grid, arrays, true, reductions);
  detail::CheckpointOutput out(path);
  if (!out.error().empty()) throw RunError(out.error());
  // Every block of every array, in file order.
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  for (std::size_t i = 0; i < info.arrays.size(); ++i)
    for (std::size_t b = 0; b < info.arrays[i].crc.size(); ++b) blocks.emplace_back(i, b);
  auto write_blocks = [&](std::size_t from, std::size_t to) {
    std::vector<unsigned char> buffer;
    for (std::size_t k = from; k < to && !out.failed(); ++k) {
      const auto [i, b] = blocks[k];
      CheckpointArray& a = info.arrays[i];
      const std::uint64_t elements = a.bytes / a.element_bytes;
      const std::uint64_t per_block = info.block_bytes / a.element_bytes;
      const std::uint64_t e0 = b * per_block, e1 = std::min(elements, e0 + per_block);
      const unsigned char* bytes = nullptr;
      detail::gather_range(grid, arrays[i].pieces, a.element_bytes, e0, e1, buffer, bytes);
      const std::size_t n = (e1 - e0) * a.element_bytes;
      a.crc[b] = crc64(bytes, n);  // each block's checksum written by one thread only
      out.write(bytes, n, a.offset + e0 * a.element_bytes, "array " + a.name);
    }
  };
  const std::size_t count = std::max<std::size_t>(
      1, std::min<std::size_t>(threads ? threads : checkpoint_threads(), blocks.size()));
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> failures(count);
  auto range = [&](std::size_t t) {
    try {
      write_blocks(blocks.size() * t / count, blocks.size() * (t + 1) / count);
    } catch (...) {
      failures[t] = std::current_exception();
    }
  };
  std::size_t started = 1;
  try {
    for (; started < count; ++started) pool.emplace_back(range, started);
  } catch (const std::system_error&) {  // no more threads: this one writes the rest
  }
  range(0);  // the first range on this thread
  for (std::size_t t = started; t < count; ++t) range(t);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& f : failures)
    if (f) std::rethrow_exception(f);  // (std::bad_alloc; the temporary file is removed)
  const std::string error = out.finish(info);
  if (!error.empty()) throw RunError(error);
}

}  // namespace stepgen::rt::io

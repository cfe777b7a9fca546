#pragma once
/// \file
/// MPI for generated programs, whatever the backend (one rank drives one device):
/// - `Session`: MPI_Init/Finalize, this rank's place (rank, node, node-local rank) and the
///   failure policy: an error every rank meets alike (options, the split) is printed once by
///   rank 0 and every rank exits 1; any other error prints its rank, node and device and aborts
///   the whole job (MPI_Abort), so that no rank waits forever for one that is gone.
/// - `BasicHaloExchange<Staging>`: the exchange plan's transfers this rank takes part in, as
///   non-blocking point-to-point messages of packed boxes, written once for every backend; the
///   staging says where packed boxes live and the caller packs and unpacks them.
///   `HaloExchange` keeps them in host memory (OpenCL, out-of-core pass boundaries);
///   mpi_cuda.hpp's staging keeps them in pinned host or device memory.
/// - MPI-IO: each rank reads its box of an array from the one raw file, and writes its owned box
///   into it, by collective calls over subarray datatypes; no rank holds the whole grid.
/// - Small collectives for the report and --verify (stats, labels, gathering owned boxes).
/// - Out of core per rank: the collectives that make every rank choose the same schedule (the
///   smallest budget, the slowest link) and that sum the ranks' out-of-core statistics.
/// Depends on MPI and the standard library (and box.hpp, exchange.hpp, init.hpp, ooc.hpp,
/// program.hpp).

// This runtime uses MPI's C API only; the C++ bindings of older MPIs only add warnings.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/description/reduce.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

namespace stepgen::mpi {

/// An error that every rank meets alike (bad options, a split that cannot be made): rank 0
/// reports it once and every rank exits with status 1, without aborting the job. (A
/// rt::UsageError, a bad command line, is met alike too: reported once, status 2.)
class UniformError : public rt::RunError {
 public:
  using rt::RunError::RunError;
};

/// Throws RunError("CALL failed: MPI's message") when `rc` is not MPI_SUCCESS.
inline void check(int rc, const std::string& call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw rt::RunError(call + " failed: " +
                     (length ? std::string(text, static_cast<std::size_t>(length))
                             : "MPI error " + std::to_string(rc)));
}

/// MPI_Init ... MPI_Finalize around the program, and where this rank runs.
class Session {
 public:
  Session(int& argc, char**& argv) {
    MPI_Init(&argc, &argv);  // an MPI that cannot start aborts here by itself
    // Errors come back as codes: every call is checked and reported with its name.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Ranks that share memory share a node: they take that node's devices in order.
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_),
          "MPI_Comm_split_type");
    MPI_Comm_rank(node_, &node_rank_);
    MPI_Comm_size(node_, &node_size_);
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    if (MPI_Get_processor_name(name, &length) == MPI_SUCCESS)
      host_.assign(name, static_cast<std::size_t>(length));
    int first = node_rank_ == 0 ? 1 : 0;
    check(MPI_Allreduce(&first, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce(nodes)");
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    MPI_Comm_free(&node_);
    MPI_Finalize();
  }

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// This rank's place among the ranks of its node (0 .. node_size()-1): its device's index.
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }
  int nodes() const { return nodes_; }
  const std::string& host() const { return host_; }
  /// "rank 1 of 4 on node7": how error messages name this rank.
  std::string where() const {
    return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " on " + host_ +
           (device_.empty() ? "" : ", " + device_);
  }
  /// Collective: throws on a rank started with other arguments than rank 0 (an MPMD launch of
  /// different options would split the grid or count steps differently and wait forever).
  void check_same_arguments(int argc, char** argv) const {
    std::string mine;
    for (int i = 1; i < argc; ++i) mine += std::string(argv[i]) + '\n';
    std::string first = mine;
    int length = static_cast<int>(first.size());
    check(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast(arguments)");
    first.resize(static_cast<std::size_t>(length));
    check(MPI_Bcast(first.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast(arguments)");
    if (first != mine)
      throw rt::RunError(
          "started with other arguments than rank 0; every rank must run the same program "
          "with the same options");
  }
  /// Names the device this rank drives, for error messages.
  void set_device(std::string label) { device_ = std::move(label); }

  /// Runs `body` (which returns the exit status) under the failure policy above.
  template <typename Body>
  int run(const char* program, Body&& body) {
    try {
      return body();
    } catch (const rt::UsageError& e) {  // the same command line on every rank: status 2
      if (rank_ == 0) std::fprintf(stderr, "%s: error: %s\n", program, e.what());
      return 2;
    } catch (const UniformError& e) {
      if (rank_ == 0) std::fprintf(stderr, "%s: error: %s\n", program, e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: error: %s: %s\n", program, where().c_str(), e.what());
      std::fflush(stderr);
      std::fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 1;
    }
  }

 private:
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1, nodes_ = 1;
  MPI_Comm node_ = MPI_COMM_NULL;
  std::string host_ = "?";
  std::string device_;
};

/// Owns a committed MPI datatype.
class Datatype {
 public:
  explicit Datatype(MPI_Datatype t) : t_(t) {}
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;
  ~Datatype() {
    if (t_ != MPI_DATATYPE_NULL) MPI_Type_free(&t_);
  }
  MPI_Datatype get() const { return t_; }

 private:
  MPI_Datatype t_;
};

/// The cells `sub` of an array laid out over `whole` (x fastest), as one MPI datatype of
/// `element_bytes`-byte elements: a subarray in C order (slowest dimension first).
inline Datatype box_type(const rt::Box& whole, const rt::Box& sub, std::size_t element_bytes) {
  if (!whole.contains(sub))
    throw rt::RunError("internal error: box " + sub.str() + " is not inside " + whole.str());
  int sizes[3], subsizes[3], starts[3];
  for (int d = 0; d < 3; ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (whole.extent(d) > INT_MAX)
      throw rt::RunError("the grid's extent " + std::to_string(whole.extent(d)) +
                         " is too large for MPI's int sizes");
    sizes[2 - d] = static_cast<int>(whole.extent(d));
    subsizes[2 - d] = static_cast<int>(sub.extent(d));
    starts[2 - d] = static_cast<int>(sub.lo[i] - whole.lo[i]);
  }
  MPI_Datatype element = MPI_DATATYPE_NULL, t = MPI_DATATYPE_NULL;
  check(MPI_Type_contiguous(static_cast<int>(element_bytes), MPI_BYTE, &element),
        "MPI_Type_contiguous");
  Datatype element_owner(element);
  check(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, element, &t),
        "MPI_Type_create_subarray");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return Datatype(t);
}

/// Collective over `comm`: reads the cells of `a.box` (this rank's part of the array) from the
/// raw file `path` holding the whole grid `grid`. The file must hold exactly the grid's bytes.
inline void read_array(MPI_Comm comm, rt::HostArray& a, const rt::Box& grid,
                       const std::string& path) {
  MPI_File file = MPI_FILE_NULL;
  if (MPI_File_open(comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file) != MPI_SUCCESS)
    throw rt::RunError("cannot open '" + path + "' to load array " + a.name);
  MPI_Offset size = 0;
  const auto want =
      static_cast<MPI_Offset>(grid.volume()) * static_cast<MPI_Offset>(a.element_bytes);
  int rc = MPI_File_get_size(file, &size);
  if (rc == MPI_SUCCESS && size != want) {
    MPI_File_close(&file);
    throw rt::RunError("'" + path + "' holds " + std::to_string(size) + " bytes but array " +
                       a.name + " needs " + std::to_string(want));
  }
  Datatype in_file = box_type(grid, a.box, a.element_bytes);
  Datatype in_memory = box_type(a.box, a.box, a.element_bytes);
  if (rc == MPI_SUCCESS)
    rc = MPI_File_set_view(file, 0, MPI_BYTE, in_file.get(), "native", MPI_INFO_NULL);
  MPI_Status status;
  if (rc == MPI_SUCCESS) rc = MPI_File_read_all(file, a.bytes.data(), 1, in_memory.get(), &status);
  MPI_File_close(&file);
  check(rc, "reading '" + path + "' (MPI-IO) for array " + a.name);
}

/// Collective over `comm`: every rank gives its error message ("" when none); every rank
/// gets the message of the lowest rank that has one ("" when no rank has).
inline std::string first_error(MPI_Comm comm, const std::string& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int candidate = mine.empty() ? size : rank, first = size;
  check(MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce(errors)");
  if (first == size) return {};
  std::string text = mine;
  int length = static_cast<int>(text.size());
  check(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast(error)");
  text.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(text.data(), length, MPI_CHAR, first, comm), "MPI_Bcast(error)");
  return text;
}

/// Collective: rank 0 alone runs `check` (rt::check_files and the other checks of the files,
/// which the ranks share: MPI-IO reads and writes one file); every rank throws rank 0's error:
/// UsageError for a bad command line, else UniformError.
template <class Check>
void rank0_check(MPI_Comm comm, Check&& check) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string mine;
  if (rank == 0) try {
      check();
    } catch (const rt::UsageError& e) {
      mine = std::string("U") + e.what();
    } catch (const std::exception& e) {
      mine = std::string("R") + e.what();
    }
  const std::string error = first_error(comm, mine);
  if (error.empty()) return;
  if (error[0] == 'U') throw rt::UsageError(error.substr(1));
  throw UniformError(error.substr(1));
}

/// Collective over `comm`: writes the cells `owned` of `a` (a rank's part, held over `a.box`)
/// into the raw file `path` for the whole grid `grid`, atomically: rank 0 creates a temporary
/// file beside `path`, every rank writes its part into it (MPI-IO), the file is flushed to
/// storage (MPI_File_sync) and closed, and rank 0 renames it over `path`. On any failure the
/// temporary file is removed, `path` is as it was, and every rank throws the same UniformError.
inline void write_array(MPI_Comm comm, const rt::HostArray& a, const rt::Box& owned,
                        const rt::Box& grid, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string what = "array " + a.name;
  std::string target, temp, error;
  bool exists = false;
  if (rank == 0) {
    try {
      target = rt::file::save_target("cannot write " + what, path, exists);
      const int fd = rt::file::create_temporary("cannot write " + what, target, exists, temp);
      ::close(fd);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  error = first_error(comm, error);
  if (!error.empty()) throw UniformError(error);
  int length = static_cast<int>(temp.size());
  check(MPI_Bcast(&length, 1, MPI_INT, 0, comm), "MPI_Bcast(file name)");
  temp.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(temp.data(), length, MPI_CHAR, 0, comm), "MPI_Bcast(file name)");

  auto mpi_text = [](int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, text, &n) != MPI_SUCCESS) n = 0;
    return n ? std::string(text, static_cast<std::size_t>(n)) : "MPI error " + std::to_string(rc);
  };
  MPI_File file = MPI_FILE_NULL;
  int rc = MPI_File_open(comm, temp.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  if (rc == MPI_SUCCESS) {
    const auto bytes =
        static_cast<MPI_Offset>(grid.volume()) * static_cast<MPI_Offset>(a.element_bytes);
    Datatype in_file = box_type(grid, owned, a.element_bytes);
    Datatype in_memory = box_type(a.box, owned, a.element_bytes);
    rc = MPI_File_set_size(file, bytes);
    if (rc == MPI_SUCCESS)
      rc = MPI_File_set_view(file, 0, MPI_BYTE, in_file.get(), "native", MPI_INFO_NULL);
    MPI_Status status;
    if (rc == MPI_SUCCESS)
      rc = MPI_File_write_all(file, const_cast<unsigned char*>(a.bytes.data()), 1, in_memory.get(),
                              &status);
    if (rc == MPI_SUCCESS) rc = MPI_File_sync(file);  // collective: the data reach storage
    const int closed = MPI_File_close(&file);
    if (rc == MPI_SUCCESS) rc = closed;
  }
  std::string mine;
  if (rc != MPI_SUCCESS) mine = "cannot write '" + path + "' for " + what + ": " + mpi_text(rc);
  if (rank == 0 && mine.empty() && std::rename(temp.c_str(), target.c_str()) != 0)
    mine = "cannot write '" + path + "' for " + what + ": " + rt::file::errno_text(errno);
  error = first_error(comm, mine);
  if (rank == 0) {
    if (error.empty())
      rt::file::sync_folder(rt::file::folder_of(target));
    else
      ::unlink(temp.c_str());
  }
  if (!error.empty())
    throw UniformError(error + (exists ? " (the previous file is unchanged)" : ""));
}

/// Collective: the run's times as the slowest rank saw them, its volumes summed over ranks.
inline rt::RunStats combine(MPI_Comm comm, const rt::RunStats& mine) {
  rt::RunStats all = mine;
  double times[7] = {mine.total_s,       mine.kernel_s,        mine.exchange_s,
                     mine.host_device_s, mine.setup_buffers_s, mine.setup_init_s,
                     mine.setup_frames_s};
  double slowest[7] = {0, 0, 0, 0, 0, 0, 0};
  check(MPI_Allreduce(times, slowest, 7, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce(times)");
  all.setup_buffers_s = slowest[4];
  all.setup_init_s = slowest[5];
  all.setup_frames_s = slowest[6];
  unsigned long long volumes[2] = {mine.exchange_bytes, mine.host_device_bytes};
  unsigned long long sums[2] = {0, 0};
  check(MPI_Allreduce(volumes, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm),
        "MPI_Allreduce(bytes)");
  all.total_s = slowest[0];
  all.kernel_s = slowest[1];
  all.exchange_s = slowest[2];
  all.host_device_s = slowest[3];
  all.exchange_bytes = static_cast<std::size_t>(sums[0]);
  all.host_device_bytes = static_cast<std::size_t>(sums[1]);
  // The links measured at start-up, summed over the ranks as one process sums its devices'
  // (0 on every rank: not measured); the host arrays as rank 0 holds them.
  double links[2] = {mine.link_h2d, mine.link_d2h}, summed[2] = {0, 0};
  check(MPI_Allreduce(links, summed, 2, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce(links)");
  all.link_h2d = summed[0];
  all.link_d2h = summed[1];
  // MPI out of core: the waits for the pass boundaries' messages, the longest and the least.
  // Which ranks: MPI_MAXLOC's pairs (the lowest rank of equal values).
  int me = 0;
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  struct {
    double value;
    int rank;
  } wait[2] = {{mine.message_wait_s, me}, {-mine.message_wait_s, me}}, waits[2] = {};
  check(MPI_Allreduce(wait, waits, 2, MPI_DOUBLE_INT, MPI_MAXLOC, comm), "MPI_Allreduce(waits)");
  all.message_wait_s = waits[0].value;
  all.message_wait_rank = waits[0].rank;
  all.message_wait_least_s = -waits[1].value;
  all.message_wait_least_rank = waits[1].rank;
  return all;
}

/// Collective: the smallest of the ranks' values (every rank gets it).
inline rt::Index min_over_ranks(MPI_Comm comm, rt::Index mine) {
  long long value = mine, least = 0;
  check(MPI_Allreduce(&value, &least, 1, MPI_LONG_LONG, MPI_MIN, comm), "MPI_Allreduce(min)");
  return static_cast<rt::Index>(least);
}

/// Collective: every rank's block of `blob` to every rank (MPI_Allgatherv in place). Rank r's
/// block is `counts[r]` bytes at the sum of the counts before it; `blob` holds them all.
/// Used for the boundary frames' sources (rt::FrameSources).
inline void allgather_blocks(MPI_Comm comm, std::vector<unsigned char>& blob,
                             const std::vector<std::size_t>& counts) {
  std::vector<int> sizes, offsets;
  std::size_t at = 0;
  for (std::size_t c : counts) {
    if (c > static_cast<std::size_t>(INT_MAX) || at > static_cast<std::size_t>(INT_MAX))
      throw rt::RunError("boundary frames: " + std::to_string(at + c) +
                         " bytes of frame sources exceed one MPI_Allgatherv's int counts");
    sizes.push_back(static_cast<int>(c));
    offsets.push_back(static_cast<int>(at));
    at += c;
  }
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, blob.data(), sizes.data(),
                       offsets.data(), MPI_BYTE, comm),
        "MPI_Allgatherv(boundary frames)");
}

/// Collective: this rank's Link::message and Link::message_latency, the figures of the
/// messages an out-of-core run sends at every pass boundary (ranks.hpp; the model charges
/// them at its barriers, ooc::message_seconds): every rank sends a message to the next rank and
/// receives one from the one before (a ring), copying it out of and into a larger host buffer as
/// the exchange packs and unpacks its boxes; 4 KiB and `large` bytes, each the median of 5 runs
/// after one more. The bytes per second count both ways, as the model does; the latency is the
/// small message's time less its bytes, per message (two a rank). One rank: {0, 0}.
inline std::pair<double, double> measure_messages(MPI_Comm comm,
                                                  std::size_t large = std::size_t{16} << 20) {
  int size = 1, rank = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (size < 2) return {0, 0};
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  constexpr std::size_t kSmall = 4096;
  large = std::max(large, 2 * kSmall);
  std::vector<char> from(large, 1), to(large, 0), out(large, 0), in(large, 0);
  auto once = [&](std::size_t bytes) {
    const double t0 = MPI_Wtime();
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Irecv(in.data(), static_cast<int>(bytes), MPI_BYTE, prev, 0, comm, &r),
          "MPI_Irecv(message figures)");
    std::memcpy(out.data(), from.data(), bytes);  // packed
    check(MPI_Send(out.data(), static_cast<int>(bytes), MPI_BYTE, next, 0, comm),
          "MPI_Send(message figures)");
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait(message figures)");
    std::memcpy(to.data(), in.data(), bytes);  // unpacked
    return MPI_Wtime() - t0;
  };
  auto median = [&](std::size_t bytes) {
    check(MPI_Barrier(comm), "MPI_Barrier(message figures)");
    once(bytes);  // warm-up
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) t.push_back(once(bytes));
    std::sort(t.begin(), t.end());
    return t[2];
  };
  const double small_s = median(kSmall), large_s = median(large);
  const double extra = 2.0 * static_cast<double>(large - kSmall);  // bytes, both ways
  const double speed = extra / std::max(large_s - small_s, 1e-9);
  const double latency = std::max(0.0, (small_s - 2.0 * kSmall / speed) / 2);
  return {speed, latency};
}

/// Collective: the link of the slowest rank, per figure (least bandwidths, most seconds per
/// cell-step, per command and per issue), the same on every rank, so that the out-of-core
/// model makes the same choice on every rank. (Until 2026-11-28 the latency, the issue
/// figures and the device-copy speed stayed each rank's own, and the ranks could choose
/// different schedules.)
inline rt::ooc::Link slowest_link(MPI_Comm comm, const rt::ooc::Link& mine) {
  // Speeds: the least over the ranks (0, not measured, is the least). Times: the most.
  double low[9] = {
      mine.h2d,     mine.d2h,     mine.bidir,     mine.d2d,
      mine.h2d_all, mine.d2h_all, mine.bidir_all, static_cast<double>(mine.devices_all),
      mine.message};
  double lowest[9] = {};
  check(MPI_Allreduce(low, lowest, 9, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce(link)");
  double high[7] = {mine.cell_step,     mine.latency,         mine.issue_op,
                    mine.issue_command, mine.message_latency, mine.measured ? 1.0 : 0.0,
                    mine.boundary};
  double highest[7] = {};
  check(MPI_Allreduce(high, highest, 7, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce(link)");
  rt::ooc::Link all = mine;
  all.h2d = lowest[0];
  all.d2h = lowest[1];
  all.bidir = lowest[2];
  all.d2d = lowest[3];
  all.h2d_all = lowest[4];
  all.d2h_all = lowest[5];
  all.bidir_all = lowest[6];
  all.devices_all = static_cast<int>(lowest[7]);
  all.cell_step = highest[0];
  all.latency = highest[1];
  all.issue_op = highest[2];
  all.issue_command = highest[3];
  all.message = lowest[8];
  all.message_latency = highest[4];
  all.measured = highest[5] > 0;
  all.boundary = highest[6];
  // Every figure the model reads is now the same on every rank; rank 0's copy of the whole
  // struct makes sure of it for any figure added later (the ranks must choose alike).
  static_assert(std::is_trivially_copyable_v<rt::ooc::Link>);
  check(MPI_Bcast(&all, static_cast<int>(sizeof all), MPI_BYTE, 0, comm), "MPI_Bcast(link)");
  return all;
}

/// Collective: whether `mine` holds the same values on every rank; `lo` and `hi` (when given)
/// get each value's least and most over the ranks.
inline bool same_on_every_rank(MPI_Comm comm, const std::vector<long long>& mine,
                               std::vector<long long>* lo = nullptr,
                               std::vector<long long>* hi = nullptr) {
  const int n = static_cast<int>(mine.size());
  std::vector<long long> least(mine.size()), most(mine.size());
  check(MPI_Allreduce(mine.data(), least.data(), n, MPI_LONG_LONG, MPI_MIN, comm),
        "MPI_Allreduce(same on every rank)");
  check(MPI_Allreduce(mine.data(), most.data(), n, MPI_LONG_LONG, MPI_MAX, comm),
        "MPI_Allreduce(same on every rank)");
  if (lo) *lo = least;
  if (hi) *hi = most;
  return least == most;
}

/// Collective: throws UniformError on every rank when the ranks' out-of-core schedules differ
/// (chunks, steps per pass, sharing, trapezoid, bands, buffer slots, launches, barriers): their
/// passes would not end together and the cells sent at pass boundaries would not match.
inline void check_same_schedule(MPI_Comm comm, const rt::ooc::Schedule& sc) {
  static const char* const names[] = {"chunks",    "steps per pass", "region sharing",
                                      "trapezoid", "band sharing",   "buffer slots",
                                      "launches",  "pass barriers",  "parts"};
  std::vector<long long> lo, hi;
  if (same_on_every_rank(
          comm,
          {sc.chunks, sc.steps_per_pass, sc.region_sharing, sc.trapezoid, sc.band_sharing,
           sc.buffers, sc.launches, sc.pass_barriers, static_cast<long long>(sc.parts.size())},
          &lo, &hi))
    return;
  std::string differ;
  for (std::size_t i = 0; i < lo.size(); ++i)
    if (lo[i] != hi[i])
      differ += std::string(differ.empty() ? "" : ", ") + names[i] + " " + std::to_string(lo[i]) +
                " to " + std::to_string(hi[i]);
  throw UniformError("out of core: the ranks chose different schedules (" + differ +
                     "); give --ooc-chunks and --steps-per-pass, and report this as a bug");
}

/// Collective: throws UniformError on every rank when the ranks' splits differ. Each rank
/// probes the kernels on its own device and widens the ghost zones where their rims are wider
/// than the halos (rt::Probed::widen_ghosts): kernels that behave differently on the ranks'
/// devices would give each rank another split, and the halo messages would not match.
inline void check_same_partition(MPI_Comm comm, const rt::Partition& partition) {
  std::vector<long long> mine;
  for (std::size_t d = 0; d < 3; ++d) {
    mine.push_back(partition.ghost_lo[d]);
    mine.push_back(partition.ghost_hi[d]);
  }
  mine.push_back(static_cast<long long>(partition.parts.size()));
  std::vector<long long> lo, hi;
  if (same_on_every_rank(comm, mine, &lo, &hi)) return;  // the same request: the same split
  std::string widths;
  for (std::size_t i = 0; i + 1 < mine.size(); ++i)
    if (lo[i] != hi[i])
      widths += std::string(widths.empty() ? "" : ", ") + (i % 2 ? "above" : "below") +
                " along dimension " + std::to_string(i / 2) + ": " + std::to_string(lo[i]) +
                " to " + std::to_string(hi[i]);
  if (widths.empty())
    throw UniformError("the ranks split the grid into " + std::to_string(lo.back()) + " to " +
                       std::to_string(hi.back()) + " parts (report this as a bug)");
  throw UniformError(
      "the kernel probe found different rims on the ranks' devices, so the ranks would split "
      "the grid differently (ghost widths " +
      widths +
      "); a kernel must write the same cells on every device: check what it leaves unwritten "
      "on each kind of device, or give the widths in the spec and run with --probe off");
}

/// Collective: an out-of-core run's statistics over all ranks: bytes summed, the time of the
/// slowest rank; the schedule's figures are every rank's.
inline rt::ooc::Stats combine(MPI_Comm comm, const rt::ooc::Stats& mine) {
  rt::ooc::Stats all = mine;
  unsigned long long volumes[3] = {mine.h2d_bytes, mine.d2h_bytes, mine.d2d_bytes};
  unsigned long long sums[3] = {0, 0, 0};
  check(MPI_Allreduce(volumes, sums, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm),
        "MPI_Allreduce(out-of-core bytes)");
  check(MPI_Allreduce(&mine.measured_s, &all.measured_s, 1, MPI_DOUBLE, MPI_MAX, comm),
        "MPI_Allreduce(out-of-core time)");
  all.h2d_bytes = static_cast<std::size_t>(sums[0]);
  all.d2h_bytes = static_cast<std::size_t>(sums[1]);
  all.d2d_bytes = static_cast<std::size_t>(sums[2]);
  return all;
}

/// Collective: every rank's `text`, on rank 0 (empty elsewhere), in rank order.
inline std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& text) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm),
        "MPI_Gather(lengths)");
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  check(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                    MPI_CHAR, 0, comm),
        "MPI_Gatherv(text)");
  std::vector<std::string> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                               static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

/// Collective: gathers each rank's owned box of an array (held over `mine.box`) into `whole`
/// (over the grid) on rank 0; `owned[r]` is rank r's owned box. `whole` is unused elsewhere.
inline void gather_owned(MPI_Comm comm, const rt::HostArray& mine,
                         const std::vector<rt::Box>& owned, rt::HostArray& whole) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const rt::Box& own = owned[static_cast<std::size_t>(rank)];
  if (rank != 0) {
    Datatype t = box_type(mine.box, own, mine.element_bytes);
    check(MPI_Send(mine.bytes.data(), 1, t.get(), 0, 0, comm),
          "MPI_Send(" + mine.name + " to rank 0)");
    return;
  }
  for (int r = 0; r < size; ++r) {
    const rt::Box& box = owned[static_cast<std::size_t>(r)];
    Datatype to = box_type(whole.box, box, whole.element_bytes);
    if (r == 0) {
      Datatype from = box_type(mine.box, box, mine.element_bytes);
      check(MPI_Sendrecv(mine.bytes.data(), 1, from.get(), 0, 1, whole.bytes.data(), 1, to.get(), 0,
                         1, comm, MPI_STATUS_IGNORE),
            "MPI_Sendrecv(" + mine.name + ")");
    } else {
      check(MPI_Recv(whole.bytes.data(), 1, to.get(), r, 0, comm, MPI_STATUS_IGNORE),
            "MPI_Recv(" + mine.name + " from rank " + std::to_string(r) + ")");
    }
  }
}

/// Collective: each reduction of `reductions` merged over every rank (rt::Monitor::combine).
/// Every rank's parts (the exact sum's words, the extreme and its flags) are gathered and merged
/// in rank order: exact, so every rank gets the same bits as one process over all the cells.
inline void allreduce_reductions(MPI_Comm comm, std::vector<rt::Reduction>& reductions) {
  if (reductions.empty()) return;
  using Parts = rt::Reduction::Parts;
  static_assert(std::is_trivially_copyable<Parts>::value, "sent as bytes");
  int ranks = 1;
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  std::vector<Parts> mine;
  for (const rt::Reduction& r : reductions) mine.push_back(r.parts());
  const int bytes = static_cast<int>(mine.size() * sizeof(Parts));
  std::vector<Parts> all(mine.size() * static_cast<std::size_t>(ranks));
  check(MPI_Allgather(mine.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm),
        "MPI_Allgather(reductions)");
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    rt::Reduction merged(reductions[i].op());
    for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r)
      merged.merge(rt::Reduction::from_parts(reductions[i].op(), all[r * mine.size() + i]));
    reductions[i] = merged;
  }
}

/// Collective: rank 0's value, on every rank.
inline int broadcast(MPI_Comm comm, int value) {
  check(MPI_Bcast(&value, 1, MPI_INT, 0, comm), "MPI_Bcast");
  return value;
}

}  // namespace stepgen::mpi

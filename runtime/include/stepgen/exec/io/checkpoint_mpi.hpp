#pragma once
/// \file
/// A checkpoint written by the ranks of an MPI run into one file, the same file
/// write_checkpoint writes in one process (checkpoint.hpp): each rank passes the pieces it
/// owns; for each 4 MiB block of each array, rank 0 gathers the ranks' parts of it
/// (MPI_Gatherv), checksums it and writes it into the temporary file, then writes the header,
/// flushes and renames. Memory beyond the arrays: one block per rank, on rank 0 one more.
/// Every rank returns or throws alike (rank 0's failure is broadcast), so no rank is left
/// waiting. Reading needs no MPI: each rank opens the file with CheckpointReader and reads its
/// own boxes, of any partition.

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "stepgen/exec/io/checkpoint.hpp"

namespace stepgen::rt::io {

namespace detail {

/// The elements [e0, e1) of the grid (row-major) that `pieces` hold: their values appended to
/// `data` in order, and for each run of them a pair (first element - e0, count) in `runs`.
inline void own_runs(const Box& grid, const std::vector<Piece>& pieces, std::size_t eb,
                     std::uint64_t e0, std::uint64_t e1, std::vector<unsigned char>& data,
                     std::vector<std::uint64_t>& runs) {
  const auto nx = static_cast<std::uint64_t>(grid.extent(0));
  const auto ny = static_cast<std::uint64_t>(grid.extent(1));
  for (std::uint64_t e = e0; e < e1;) {
    const std::uint64_t row = e / nx, x0 = e % nx;
    const std::uint64_t x1 = std::min<std::uint64_t>(nx, x0 + (e1 - e));
    const auto y = static_cast<Index>(row % ny);
    const auto z = static_cast<Index>(row / ny);
    for (const Piece& p : pieces) {
      const Box& b = p.box;
      if (b.empty() || y < b.lo[1] || y >= b.hi[1] || z < b.lo[2] || z >= b.hi[2]) continue;
      const auto bx0 = static_cast<std::uint64_t>(b.lo[0]);
      const std::uint64_t lo = std::max(x0, bx0);
      const std::uint64_t hi = std::min(x1, static_cast<std::uint64_t>(b.hi[0]));
      if (lo >= hi) continue;
      const auto ex = static_cast<std::uint64_t>(b.extent(0));
      const auto ey = static_cast<std::uint64_t>(b.extent(1));
      const std::uint64_t src =
          (static_cast<std::uint64_t>(z - b.lo[2]) * ey + static_cast<std::uint64_t>(y - b.lo[1])) *
              ex +
          (lo - bx0);
      const auto* from = static_cast<const unsigned char*>(p.data) + src * eb;
      data.insert(data.end(), from, from + (hi - lo) * eb);
      runs.push_back(row * nx + lo - e0);
      runs.push_back(hi - lo);
    }
    e += x1 - x0;
  }
}

/// Rank 0's message broadcast to every rank ("" when none).
inline std::string broadcast_message(MPI_Comm comm, std::string message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  unsigned long n = message.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG, 0, comm);
  message.resize(n);
  if (n > 0) MPI_Bcast(message.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  return message;
}

}  // namespace detail

/// Writes a checkpoint of `arrays` at `step` to `path` from the ranks of `comm`, atomically, as
/// write_checkpoint does. Collective: every rank passes the same path, spec hash, step, grid
/// and arrays (names and types), each with its own pieces; together they must tile the grid
/// (std::invalid_argument on every rank otherwise). A failure to write is a RunError on every
/// rank, with rank 0's message.
inline void write_checkpoint(MPI_Comm comm, const std::string& path, const std::string& spec_hash,
                             std::int64_t step, const Box& grid,
                             const std::vector<CheckpointSource>& arrays,
                             const CheckpointReductions& reductions = {}) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The arguments, checked alike on every rank: its own pieces, then the cells of all.
  std::string wrong;
  CheckpointInfo info;
  try {
    info = detail::checkpoint_layout(spec_hash, step, grid, arrays, false, reductions);
  } catch (const std::invalid_argument& e) {
    wrong = e.what();
  }
  int bad = wrong.empty() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (any_bad)
    throw std::invalid_argument(bad ? wrong : "checkpoint: another rank's arrays are invalid");
  for (const CheckpointSource& s : arrays) {
    long long mine = 0, all = 0;
    for (const Piece& p : s.pieces) mine += p.box.volume();
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (all != grid.volume())
      throw std::invalid_argument("checkpoint array " + s.name + ": the ranks' pieces cover " +
                                  std::to_string(all) + " of the grid's " +
                                  std::to_string(grid.volume()) + " cells");
  }

  std::unique_ptr<detail::CheckpointOutput> out;
  if (rank == 0) out = std::make_unique<detail::CheckpointOutput>(path);
  const std::string opened = detail::broadcast_message(comm, out ? out->error() : "");
  if (!opened.empty()) throw RunError(opened);

  std::vector<unsigned char> data, all_data, blocks[2];
  std::vector<std::uint64_t> runs, all_runs;
  // Rank 0: a thread checksums and writes each block while the next one is gathered (it calls
  // no MPI); joined before its buffer is reused, and before anything leaves this function.
  struct Pending {
    std::thread thread;
    void join() {
      if (thread.joinable()) thread.join();
    }
    ~Pending() { join(); }
  } pending;
  int current = 0;
  std::vector<int> data_counts(static_cast<std::size_t>(size)), data_at(data_counts.size());
  std::vector<int> run_counts(data_counts.size()), run_at(data_counts.size());
  for (std::size_t i = 0; i < info.arrays.size(); ++i) {
    CheckpointArray& a = info.arrays[i];
    const std::uint64_t elements = a.bytes / a.element_bytes;
    const std::uint64_t per_block = info.block_bytes / a.element_bytes;
    for (std::size_t b = 0; b < a.crc.size(); ++b) {
      const std::uint64_t e0 = b * per_block, e1 = std::min(elements, e0 + per_block);
      data.clear();
      runs.clear();
      detail::own_runs(grid, arrays[i].pieces, a.element_bytes, e0, e1, data, runs);
      const int counts[2] = {static_cast<int>(data.size()), static_cast<int>(runs.size())};
      std::vector<int> gathered(2 * data_counts.size());
      MPI_Gather(counts, 2, MPI_INT, gathered.data(), 2, MPI_INT, 0, comm);
      int data_total = 0, run_total = 0;
      for (std::size_t r = 0; rank == 0 && r < data_counts.size(); ++r) {
        data_counts[r] = gathered[2 * r];
        run_counts[r] = gathered[2 * r + 1];
        data_at[r] = data_total;
        run_at[r] = run_total;
        data_total += data_counts[r];
        run_total += run_counts[r];
      }
      all_data.resize(static_cast<std::size_t>(data_total));
      all_runs.resize(static_cast<std::size_t>(run_total));
      MPI_Gatherv(data.data(), counts[0], MPI_BYTE, all_data.data(), data_counts.data(),
                  data_at.data(), MPI_BYTE, 0, comm);
      MPI_Gatherv(runs.data(), counts[1], MPI_UINT64_T, all_runs.data(), run_counts.data(),
                  run_at.data(), MPI_UINT64_T, 0, comm);
      if (rank != 0) continue;
      // Rank 0: the block assembled from every rank's runs, checksummed, written.
      const std::size_t n = (e1 - e0) * a.element_bytes;
      std::vector<unsigned char>& block = blocks[current];  // (its thread joined a block ago)
      block.assign(n, 0);
      const unsigned char* from = all_data.data();
      for (std::size_t k = 0; k + 1 < all_runs.size(); k += 2) {
        const std::size_t bytes = all_runs[k + 1] * a.element_bytes;
        std::memcpy(block.data() + all_runs[k] * a.element_bytes, from, bytes);
        from += bytes;
      }
      auto write = [&out, &block, n, crc = &a.crc[b], at = a.offset + e0 * a.element_bytes,
                    during = "array " + a.name] {
        *crc = crc64(block.data(), n);
        out->write(block.data(), n, at, during);
      };
      pending.join();
      try {
        pending.thread = std::thread(write);
      } catch (const std::system_error&) {  // no thread: here
        write();
      }
      current ^= 1;
    }
  }
  pending.join();
  const std::string error = detail::broadcast_message(comm, out ? out->finish(info) : "");
  if (!error.empty()) throw RunError(error);
}

}  // namespace stepgen::rt::io

#pragma once
/// \file
/// Receivers under MPI (traces.hpp): each rank samples the points its part owns; at the end
/// rank 0 gathers every rank's samples and writes the trace files; a write error is every
/// rank's error.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/traces.hpp"

namespace stepgen::mpi {

/// Collective: rank 0's table of `r` gets every rank's samples of the points it owns
/// (`owned[q]`: rank q's owned box). A rank's other entries are not taken: out of core, the
/// start-up calibration runs the time step on a probe chunk and samples what lies there.
inline void gather_record(MPI_Comm comm, rt::Record& r, const std::vector<rt::Box>& owned) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<std::int64_t> index;
  std::vector<double> value;
  for (std::size_t i = 0; i < r.have().size(); ++i)
    if (r.have()[i]) {
      index.push_back(static_cast<std::int64_t>(i));
      value.push_back(r.values()[i]);
    }
  int n = static_cast<int>(index.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm), "MPI_Gather(record)");
  int total = 0;
  for (int q = 0; q < size; ++q) {
    displs[static_cast<std::size_t>(q)] = total;
    total += counts[static_cast<std::size_t>(q)];
  }
  std::vector<std::int64_t> all_index(rank == 0 ? static_cast<std::size_t>(total) : 0);
  std::vector<double> all_value(all_index.size());
  check(MPI_Gatherv(index.data(), n, MPI_INT64_T, all_index.data(), counts.data(), displs.data(),
                    MPI_INT64_T, 0, comm),
        "MPI_Gatherv(record)");
  check(MPI_Gatherv(value.data(), n, MPI_DOUBLE, all_value.data(), counts.data(), displs.data(),
                    MPI_DOUBLE, 0, comm),
        "MPI_Gatherv(record)");
  if (rank != 0) return;
  std::fill(r.have().begin(), r.have().end(), 0);
  for (int q = 0; q < size; ++q)
    for (int j = displs[static_cast<std::size_t>(q)];
         j < displs[static_cast<std::size_t>(q)] + counts[static_cast<std::size_t>(q)]; ++j) {
      const auto i = static_cast<std::size_t>(all_index[static_cast<std::size_t>(j)]);
      if (i >= r.have().size()) continue;
      if (!owned[static_cast<std::size_t>(q)].contains_point(r.points[i % r.points.size()]))
        continue;
      r.values()[i] = all_value[static_cast<std::size_t>(j)];
      r.have()[i] = 1;
    }
}

/// Collective: rank 0 checks that it can write every trace file (rt::check_trace_files, of a
/// run restarted at `first`); every rank throws its error (rank0_check).
inline void check_trace_files(MPI_Comm comm, const rt::Records& records, std::int64_t first) {
  rank0_check(comm, [&] { rt::check_trace_files(records, first); });
}

/// Collective: gathers every record on rank 0, which writes the trace files; every rank throws
/// the first error (UniformError).
inline void write_records(MPI_Comm comm, const rt::Records& records,
                          const std::vector<rt::Box>& owned) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  for (rt::Record& r : records) {
    gather_record(comm, r, owned);
    if (rank == 0 && error.empty()) try {
        r.write();
      } catch (const std::exception& e) {
        error = e.what();
      }
  }
  error = first_error(comm, error);
  if (!error.empty()) throw UniformError(error);
}

}  // namespace stepgen::mpi

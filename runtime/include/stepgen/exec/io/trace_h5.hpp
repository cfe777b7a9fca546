#pragma once
/// \file
/// A receiver's trace as HDF5 (<record file="NAME.h5">; traces.hpp includes this header in a
/// program built with STEPGEN_HDF5). The file holds:
///   traces  double [rows x points]  the sampled values, one row per sampled step (double: exact
///                                   for float, double and integers up to 2^53, the values the
///                                   CSV trace prints)
///   steps   int64  [rows]           each row's step index t (0-based, as the CSV's first column)
///   points  int64  [points x dims]  each point's coordinates (x, y, z order)
/// and the root attributes `array` (the array's name, a string), `every` (int64) and `dims`
/// (int64). A restarted run's file holds the rows from its first step on (as its CSV). The file
/// is made in memory (HDF5's core driver, no backing store) and written atomically as one block
/// (rt::write_atomically: a temporary file, fsync, rename): a kill leaves the previous file.
/// Under MPI, rank 0 writes it after gathering every rank's samples (traces_mpi.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/exec/io/hdf5.hpp"
#include "stepgen/exec/program.hpp"

namespace stepgen::rt {
class Record;
}

namespace stepgen::rt::io {

namespace detail {

/// Writes the 1D or 2D dataset `name` of native type `type`; false on failure.
inline bool write_trace_dataset(hid_t file, const char* name, hid_t type,
                                const std::vector<hsize_t>& dims, const void* data) {
  h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  if (space < 0) return false;
  h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl, false);  // no modification times: the same bytes in every run
  h5::Handle set(H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
  if (set < 0) return false;
  // An empty dataset (no rows) has nothing to write.
  for (hsize_t d : dims)
    if (d == 0) return true;
  return H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
}

}  // namespace detail

/// The HDF5 image (the file's bytes) of a trace: `values` [rows x points] row-major, `steps`
/// [rows], `points` [points x dims]. Throws RunError naming the failing call.
inline std::vector<unsigned char> trace_h5_image(const std::string& what, const std::string& array,
                                                 std::int64_t every, int dims,
                                                 const std::vector<double>& values,
                                                 const std::vector<std::int64_t>& steps,
                                                 const std::vector<std::int64_t>& points) {
  h5::quiet();
  auto fail = [&](const std::string& call) {
    throw RunError("cannot write " + what + ": " + call + " failed: " + h5::last_error());
  };
  h5::Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (fapl < 0 || H5Pset_fapl_core(fapl, 64 * 1024, 0) < 0) fail("H5Pset_fapl_core");
  // The name is not created on disk (no backing store); it only names the in-memory file.
  h5::Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  H5Pset_obj_track_times(fcpl, false);
  h5::Handle file(H5Fcreate("stepgen-trace.h5", H5F_ACC_TRUNC, fcpl, fapl), H5Fclose);
  if (file < 0) fail("H5Fcreate");
  const hsize_t rows = steps.size();
  const hsize_t n = dims > 0 ? points.size() / static_cast<std::size_t>(dims) : 0;
  if (!detail::write_trace_dataset(file, "traces", H5T_NATIVE_DOUBLE, {rows, n}, values.data()))
    fail("H5Dwrite traces");
  if (!detail::write_trace_dataset(file, "steps", H5T_NATIVE_INT64, {rows}, steps.data()))
    fail("H5Dwrite steps");
  if (!detail::write_trace_dataset(file, "points", H5T_NATIVE_INT64,
                                   {n, static_cast<hsize_t>(dims)}, points.data()))
    fail("H5Dwrite points");
  if (!h5::write_attribute(file, "array", array) || !h5::write_attribute(file, "every", every) ||
      !h5::write_attribute(file, "dims", static_cast<std::int64_t>(dims)))
    fail("H5Awrite");
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) fail("H5Fflush");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) fail("H5Fget_file_image");
  std::vector<unsigned char> image(static_cast<std::size_t>(size));
  if (H5Fget_file_image(file, image.data(), image.size()) != size) fail("H5Fget_file_image");
  return image;
}

/// Writes record `r`'s trace file as HDF5 (see the file's comment), atomically.
template <class R = Record>
void write_trace_h5(const R& r) {
  const std::vector<std::int64_t> rows = r.written_rows();
  std::vector<double> values;
  std::vector<std::int64_t> steps, points;
  values.reserve(rows.size() * r.points.size());
  for (std::int64_t row : rows) {
    steps.push_back((row + 1) * r.every - 1);
    for (std::size_t k = 0; k < r.points.size(); ++k) values.push_back(r.sampled(row, k));
  }
  for (const auto& p : r.points)
    for (int d = 0; d < r.dims; ++d) points.push_back(p[static_cast<std::size_t>(d)]);
  const std::string what = "the trace of record " + std::string(r.name);
  const std::vector<unsigned char> image =
      trace_h5_image(what + " (" + r.path() + ")", r.name, r.every, r.dims, values, steps, points);
  write_atomically(r.path(), image.data(), image.size(), what);
}

}  // namespace stepgen::rt::io

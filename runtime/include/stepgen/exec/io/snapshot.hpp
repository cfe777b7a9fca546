#pragma once
/// \file
/// Snapshot series: arrays over the whole grid at chosen steps, in one HDF5 file (a dataset
/// per array and step, /step_000050/p, with its step, grid and element type as attributes),
/// and an XDMF file beside it (wave.h5 -> wave.xdmf) listing the steps as a temporal
/// collection, rewritten atomically after each step, so that ParaView or VisIt can open the
/// series while the run goes on. Each process writes the pieces it holds (the owned boxes of
/// its parts) into the whole-grid dataset through hyperslab selections; with parallel HDF5
/// (H5_HAVE_PARALLEL), the ranks of a communicator write one file, each dataset written
/// collectively. The layout is described in docs/io.md.

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "stepgen/exec/io/hdf5.hpp"  // hdf5.h (and mpi.h with parallel HDF5)
#include "stepgen/exec/io/paths.hpp"
#include "stepgen/exec/io/types.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt::io {

/// An array to write at a step: the pieces of it this process holds (under MPI, each rank its
/// own; together they must not overlap).
struct SnapshotArray {
  std::string name;
  std::string type;  ///< the spec's type name
  std::vector<Piece> pieces;
};

/// Where the grid lies, for viewers: the coordinates of its first point and the spacing, x
/// first, and the time of a step (step * time_per_step) for the XDMF's time values.
struct SnapshotGeometry {
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  double time_per_step = 1;
};

/// The group of a step: "step_000050" (at least 6 digits; negative steps are refused).
inline std::string snapshot_group(std::int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step_%06" PRId64, step);
  return name;
}

/// The shortest text that reads back as `v` (0.05, not 0.050000000000000003); integers as is.
inline std::string number_text(double v) {
  char text[32];
  const auto r = std::to_chars(text, text + sizeof text, v);
  return std::string(text, r.ptr);
}
inline std::string number_text(Index v) {
  return std::to_string(v);
}

/// The XDMF 3 text for a series of `steps` (each with its arrays' names and types) stored in
/// the HDF5 file `h5_name` (relative to the XDMF's folder): a temporal collection of uniform
/// grids on a 2DCoRectMesh or 3DCoRectMesh, each array a nodal scalar attribute whose DataItem
/// points at its dataset. Deterministic (no time stamps).
inline std::string xdmf_text(
    const std::string& h5_name, const Box& grid, const SnapshotGeometry& g,
    const std::vector<std::pair<std::int64_t, std::vector<SnapshotArray>>>& steps) {
  auto reversed = [&](auto&& value) {  // XDMF lists dimensions slowest first (z y x)
    std::ostringstream s;
    for (int d = grid.dims - 1; d >= 0; --d)
      s << number_text(value(static_cast<std::size_t>(d))) << (d ? " " : "");
    return s.str();
  };
  const std::string dims =
      reversed([&](std::size_t d) { return grid.extent(static_cast<int>(d)); });
  const std::string mesh = grid.dims == 3 ? "3DCoRectMesh" : "2DCoRectMesh";
  const std::string geometry = grid.dims == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& [step, arrays] : steps) {
    x << "      <Grid Name=\"" << snapshot_group(step) << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << number_text(static_cast<double>(step) * g.time_per_step)
      << "\"/>\n"
      << "        <Topology TopologyType=\"" << mesh << "\" Dimensions=\"" << dims << "\"/>\n"
      << "        <Geometry GeometryType=\"" << geometry << "\">\n"
      << "          <DataItem Format=\"XML\" Dimensions=\"" << grid.dims
      << "\" NumberType=\"Float\" Precision=\"8\">"
      << reversed([&](std::size_t d) { return g.origin[d]; }) << "</DataItem>\n"
      << "          <DataItem Format=\"XML\" Dimensions=\"" << grid.dims
      << "\" NumberType=\"Float\" Precision=\"8\">"
      << reversed([&](std::size_t d) { return g.spacing[d]; }) << "</DataItem>\n"
      << "        </Geometry>\n";
    for (const SnapshotArray& a : arrays) {
      const ElementType& t = element_type(a.type);
      const char* number = t.kind == ElementType::Kind::kFloat ? "Float"
                           : t.bytes == 1
                               ? (t.kind == ElementType::Kind::kSignedInt ? "Char" : "UChar")
                           : t.kind == ElementType::Kind::kSignedInt ? "Int"
                                                                     : "UInt";
      x << "        <Attribute Name=\"" << a.name
        << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        << "          <DataItem Format=\"HDF\" Dimensions=\"" << dims << "\" NumberType=\""
        << number << "\" Precision=\"" << t.bytes << "\">" << h5_name << ":/"
        << snapshot_group(step) << "/" << a.name << "</DataItem>\n"
        << "        </Attribute>\n";
    }
    x << "      </Grid>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

/// A snapshot series being written. The HDF5 file is created (a previous file of that name
/// replaced) by the constructor and closed between steps: after each write() it is complete
/// on storage and the XDMF lists every step written so far. Errors are RunError naming the file,
/// the step, the array and the HDF5 call with HDF5's reason.
class SnapshotSeries {
 public:
  /// One process writes the file.
  SnapshotSeries(std::string path, const Box& grid, SnapshotGeometry geometry = {})
      : path_(std::move(path)), grid_(grid), geometry_(geometry) {
    create(H5P_DEFAULT);
  }
#ifdef H5_HAVE_PARALLEL
  /// The ranks of `comm` write one file; every rank calls the constructor and write() with
  /// the same steps and arrays (its own pieces), as MPI collectives.
  SnapshotSeries(std::string path, const Box& grid, MPI_Comm comm, SnapshotGeometry geometry = {})
      : path_(std::move(path)), grid_(grid), geometry_(geometry), comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    create(comm);
  }
#endif
  SnapshotSeries(const SnapshotSeries&) = delete;
  SnapshotSeries& operator=(const SnapshotSeries&) = delete;

  const std::string& path() const {
    return path_;
  }
  /// The XDMF file beside it ("" for a 1D grid: XDMF has no 1D structured mesh).
  const std::string& xdmf_path() const {
    return xdmf_;
  }
  const Box& grid() const {
    return grid_;
  }

  /// Checks the pieces of `arrays` (std::invalid_argument, naming the array: a caller's bug):
  /// known types, inside the grid, no overlap, and, written by one process, covering the grid
  /// (under MPI, write() checks that the ranks' pieces cover it together).
  void check(const std::vector<SnapshotArray>& arrays) const {
    for (const SnapshotArray& a : arrays) {
      if (find_element_type(a.type) == nullptr)
        throw std::invalid_argument("snapshot of array " + a.name + ": unknown type " + a.type);
      const std::string wrong = check_pieces(grid_, a.pieces, !parallel());
      if (!wrong.empty()) throw std::invalid_argument("snapshot of array " + a.name + ": " + wrong);
    }
  }

  /// Writes `arrays` at `step` (each dataset the whole grid, this process's pieces into it),
  /// closes the file and rewrites the XDMF. A step may be written once.
  void write(std::int64_t step, const std::vector<SnapshotArray>& arrays) {
    h5::quiet();
    if (step < 0) throw std::invalid_argument("snapshot of a negative step");
    check(arrays);
#ifdef H5_HAVE_PARALLEL
    if (comm_ != MPI_COMM_NULL)
      for (const SnapshotArray& a : arrays) {  // together, the ranks' pieces cover the grid
        long long mine = 0, all = 0;
        for (const Piece& p : a.pieces) mine += p.box.volume();
        MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm_);
        if (all != grid_.volume())
          throw std::invalid_argument("snapshot of array " + a.name + ": the ranks' pieces cover " +
                                      std::to_string(all) + " of the grid's " +
                                      std::to_string(grid_.volume()) + " cells");
      }
#endif
    for (const auto& s : steps_)
      if (s.first == step) fail(step, "", "the step was written already", "");
    const std::string group = snapshot_group(step);
    // The file reopened is the one created (a link or another file put there since is not
    // written through).
    const std::string moved = agree(rank_ == 0 ? replaced() : std::string());
    if (!moved.empty()) fail(step, "", moved, "");
    h5::Handle file(H5Fopen(path_.c_str(), H5F_ACC_RDWR, fapl_), H5Fclose);
    if (file < 0) fail(step, "", "H5Fopen", h5::last_error());
    h5::Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_obj_track_times(gcpl, false);  // the same bytes in every run (see H5Fcreate)
    h5::Handle g(H5Gcreate2(file, group.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose);
    if (g < 0 || !h5::write_attribute(g, "step", step) ||
        !h5::write_attribute(
            g, "time", std::vector<double>{static_cast<double>(step) * geometry_.time_per_step}))
      fail(step, "", "H5Gcreate2 " + group, h5::last_error());
    for (const SnapshotArray& a : arrays) write_array(g, step, a);
    g.reset();
    if (file.reset() < 0) fail(step, "", "H5Fclose", h5::last_error());
    steps_.emplace_back(step, arrays);
    for (SnapshotArray& a : steps_.back().second) a.pieces.clear();  // names and types only
    if (!xdmf_.empty() && rank_ == 0) {
      const std::string slash = path_.substr(path_.find_last_of('/') + 1);
      const std::string text = xdmf_text(slash, grid_, geometry_, steps_);
      write_atomically(xdmf_, reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                       "the XDMF of snapshot series " + path_);
    }
  }

 private:
  bool parallel() const {
#ifdef H5_HAVE_PARALLEL
    return comm_ != MPI_COMM_NULL;
#else
    return false;
#endif
  }

  /// Makes room for the new file at path_ (rank 0): nothing there, or a regular file, removed.
  /// Returns why not ("" when done).
  std::string clear_path() const {
    const std::string what = "cannot create snapshot file '" + path_ + "'";
    struct stat st {};
    if (::lstat(path_.c_str(), &st) != 0)
      return errno == ENOENT ? std::string() : what + ": " + file::errno_text(errno);
    if (S_ISLNK(st.st_mode)) return file::link_refusal(what, path_);
    if (!S_ISREG(st.st_mode)) return what + ": it is " + file::kind_of(st.st_mode);
    if (::unlink(path_.c_str()) != 0)
      return what + ": cannot remove the previous file: " + file::errno_text(errno);
    return {};
  }
  /// "" when path_ is still the file create() made (or is gone), else what it is now (rank 0).
  std::string replaced() const {
    struct stat st {};
    if (::lstat(path_.c_str(), &st) != 0) return {};  // gone: H5Fopen says so
    if (S_ISLNK(st.st_mode)) return "it was replaced by a symbolic link (not written through)";
    if (st.st_dev != created_.st_dev || st.st_ino != created_.st_ino)
      return "it was replaced by another file since the run created it";
    return {};
  }
  /// Rank 0's `text` on every rank of the series' communicator (one process: `text`).
  std::string agree(std::string text) const {
#ifdef H5_HAVE_PARALLEL
    if (comm_ != MPI_COMM_NULL) {
      unsigned long n = text.size();
      MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG, 0, comm_);
      text.resize(n);
      MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm_);
    }
#endif
    return text;
  }

  [[noreturn]] void fail(std::int64_t step, const std::string& array, const std::string& call,
                         const std::string& why) const {
    std::string where = "step " + std::to_string(step) + (array.empty() ? "" : ", array " + array);
    throw RunError("cannot write snapshot file '" + path_ + "' (" + where + "): " + call +
                   (why.empty() ? "" : " failed: " + why));
  }

  template <typename Comm>
  void create(Comm comm) {
    h5::quiet();
    if (grid_.dims >= 2) xdmf_ = xdmf_path_for(path_);
    fapl_ = h5::Handle(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
#ifdef H5_HAVE_PARALLEL
    if constexpr (std::is_same_v<Comm, MPI_Comm>) H5Pset_fapl_mpio(fapl_, comm, MPI_INFO_NULL);
#else
    (void)comm;
#endif
#if H5_VERSION_GE(1, 10, 7)
    // A viewer holding the file open between steps must not make the run fail.
    H5Pset_file_locking(fapl_, false, true);
#endif
    // No modification times in the file's objects: a run writes the same bytes again, in any
    // mode and on any number of devices, as docs/io.md says (guarded by the byte comparison in
    // tests/io/program_test.sh).
    h5::Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    H5Pset_obj_track_times(fcpl, false);
    // HDF5 writes the file in place: a previous file of that name is removed first and a new
    // one created exclusively (O_EXCL follows no link), so that neither a symbolic link nor a
    // hard link at the path is written through (the file behind it may be the user's).
    std::string cleared = rank_ == 0 ? clear_path() : std::string();
    cleared = agree(cleared);
    if (!cleared.empty()) throw RunError(cleared);
    h5::Handle file(H5Fcreate(path_.c_str(), H5F_ACC_EXCL, fcpl, fapl_), H5Fclose);
    if (file < 0)
      throw RunError("cannot create snapshot file '" + path_ +
                     "': H5Fcreate failed: " + h5::last_error());
    if (rank_ == 0 && ::lstat(path_.c_str(), &created_) != 0) created_ = {};
    std::vector<std::int64_t> extents;
    std::vector<double> origin, spacing;
    for (int d = 0; d < grid_.dims; ++d) {
      extents.push_back(grid_.extent(d));
      origin.push_back(geometry_.origin[static_cast<std::size_t>(d)]);
      spacing.push_back(geometry_.spacing[static_cast<std::size_t>(d)]);
    }
    const bool ok =
        h5::write_attribute(file, "format", std::string("stepgen snapshots 1")) &&
        h5::write_attribute(file, "grid", extents) && h5::write_attribute(file, "origin", origin) &&
        h5::write_attribute(file, "spacing", spacing) &&
        h5::write_attribute(file, "time_per_step", std::vector<double>{geometry_.time_per_step});
    if (!ok || file.reset() < 0)
      throw RunError("cannot create snapshot file '" + path_ +
                     "': H5Acreate2 failed: " + h5::last_error());
  }

  void write_array(hid_t group, std::int64_t step, const SnapshotArray& a) {
    const ElementType& t = element_type(a.type);
    const hid_t type = h5::native_type(t);
    const std::vector<hsize_t> dims = h5::dims_of(grid_);
    const int rank = static_cast<int>(dims.size());
    h5::Handle space(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose);
    h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);  // every cell is written
    H5Pset_obj_track_times(dcpl, false);          // the same bytes in every run
    h5::Handle set(H5Dcreate2(group, a.name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                   H5Dclose);
    if (set < 0)
      fail(step, a.name, "H5Dcreate2 " + snapshot_group(step) + "/" + a.name, h5::last_error());
    std::vector<std::int64_t> extents;
    for (int d = 0; d < grid_.dims; ++d) extents.push_back(grid_.extent(d));
    if (!h5::write_attribute(set, "step", step) || !h5::write_attribute(set, "grid", extents) ||
        !h5::write_attribute(set, "element_type", std::string(t.name)))
      fail(step, a.name, "H5Acreate2", h5::last_error());
    h5::Handle xfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    std::size_t writes = a.pieces.size();
#ifdef H5_HAVE_PARALLEL
    if (comm_ != MPI_COMM_NULL) {
      // Collective: every rank takes part in as many writes as the rank with most pieces.
      H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
      unsigned long mine = writes, most = 0;
      MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm_);
      writes = most;
    }
#endif
    for (std::size_t i = 0; i < writes; ++i) {
      const bool have = i < a.pieces.size() && !a.pieces[i].box.empty();
      const Box box = have ? a.pieces[i].box : grid_;
      std::vector<hsize_t> start, count = h5::dims_of(box);
      for (int d = grid_.dims - 1; d >= 0; --d)
        start.push_back(static_cast<hsize_t>(box.lo[static_cast<std::size_t>(d)] -
                                             grid_.lo[static_cast<std::size_t>(d)]));
      h5::Handle file_space(H5Dget_space(set), H5Sclose);
      h5::Handle memory(H5Screate_simple(rank, count.data(), nullptr), H5Sclose);
      herr_t status = have ? H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr,
                                                 count.data(), nullptr)
                           : H5Sselect_none(file_space);
      if (!have && status >= 0) status = H5Sselect_none(memory);
      if (status < 0) fail(step, a.name, "H5Sselect_hyperslab", h5::last_error());
      static const unsigned char nothing = 0;
      const void* data = have ? a.pieces[i].data : &nothing;
      if (H5Dwrite(set, type, memory, file_space, xfer, data) < 0)
        fail(step, a.name, "H5Dwrite of " + box.str(), h5::last_error());
    }
    if (set.reset() < 0) fail(step, a.name, "H5Dclose", h5::last_error());
  }

  std::string path_, xdmf_;
  Box grid_;
  SnapshotGeometry geometry_;
  h5::Handle fapl_;
  struct stat created_ {};  ///< the file create() made (rank 0), checked before each reopen
  int rank_ = 0;
#ifdef H5_HAVE_PARALLEL
  MPI_Comm comm_ = MPI_COMM_NULL;
#endif
  std::vector<std::pair<std::int64_t, std::vector<SnapshotArray>>> steps_;
};

}  // namespace stepgen::rt::io

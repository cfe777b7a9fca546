#pragma once
/// \file
/// The few HDF5 C API pieces the snapshot writer needs: handles closed on scope exit, the
/// element types, attributes, and errors that name the failing call and HDF5's own reason
/// (its automatic printing to stderr turned off). Needs HDF5 (serial or parallel: the parallel
/// build defines H5_HAVE_PARALLEL).

// Parallel HDF5's hdf5.h includes mpi.h: without MPI's C++ bindings (as stepgen/exec/mpi.hpp).
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/io/types.hpp"

namespace stepgen::rt::io::h5 {

/// An HDF5 identifier closed by `close` on destruction (nothing when negative).
class Handle {
 public:
  using Close = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Close close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
      close_ = o.close_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: passed to the C API as is
  /// Closes now; returns the close's status (0 when there was nothing to close).
  herr_t reset() {
    herr_t status = 0;
    if (id_ >= 0 && close_ != nullptr) status = close_(id_);
    id_ = -1;
    return status;
  }

 private:
  hid_t id_ = -1;
  Close close_ = nullptr;
};

/// Turns off HDF5's printing of errors to stderr for the calling thread (per thread in a
/// thread-safe build): the caller reports them. Called before any other HDF5 call, it also
/// keeps HDF5's exit handler from being installed: a file whose write and close failed (a full
/// disk) stays open inside HDF5, and that handler closing it again at exit crashed the program
/// (SIGSEGV in H5F__close_cb) after its error was printed. Every handle is closed by its owner
/// (Handle); what a failed write leaves open, the process's exit closes.
inline void quiet() {
  static const bool no_exit_handler = [] {
    H5dont_atexit();
    return true;
  }();
  (void)no_exit_handler;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

/// HDF5's reason for the last failure of the calling thread ("the innermost description
/// (function)"), and clears its error stack.
inline std::string last_error() {
  std::string text;
  auto walk = [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
    auto* out = static_cast<std::string*>(data);
    if (n < 2 && e->desc != nullptr && e->desc[0] != '\0')
      *out +=
          std::string(n ? "; " : "") + e->desc + " (" + (e->func_name ? e->func_name : "") + ")";
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &text);
  H5Eclear2(H5E_DEFAULT);
  text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());  // one line (the sec2
                                                                        // driver's has breaks)
  return text.empty() ? "no reason given" : text;
}

/// The HDF5 native type of an element type.
inline hid_t native_type(const ElementType& t) {
  switch (t.kind) {
    case ElementType::Kind::kFloat:
      return t.bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    case ElementType::Kind::kSignedInt:
      return t.bytes == 1   ? H5T_NATIVE_INT8
             : t.bytes == 2 ? H5T_NATIVE_INT16
             : t.bytes == 4 ? H5T_NATIVE_INT32
                            : H5T_NATIVE_INT64;
    case ElementType::Kind::kUnsignedInt:
      return t.bytes == 1   ? H5T_NATIVE_UINT8
             : t.bytes == 2 ? H5T_NATIVE_UINT16
             : t.bytes == 4 ? H5T_NATIVE_UINT32
                            : H5T_NATIVE_UINT64;
  }
  return H5T_NATIVE_DOUBLE;
}

/// The dataspace dimensions of `box` in HDF5's order (slowest first: z, y, x).
inline std::vector<hsize_t> dims_of(const Box& box) {
  std::vector<hsize_t> d;
  for (int i = box.dims - 1; i >= 0; --i) d.push_back(static_cast<hsize_t>(box.extent(i)));
  return d;
}

/// Writes attribute `name` of `obj`: the values `v` of native type `type`, 1D (`n` of them), or a
/// scalar when `n` is 0. Returns false on failure (the caller names the call).
inline bool write_attribute(hid_t obj, const char* name, hid_t type, const void* v, hsize_t n) {
  Handle space(n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  if (space < 0) return false;
  Handle attr(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr >= 0 && H5Awrite(attr, type, v) >= 0;
}

inline bool write_attribute(hid_t obj, const char* name, const std::vector<std::int64_t>& v) {
  return write_attribute(obj, name, H5T_NATIVE_INT64, v.data(), v.size());
}
inline bool write_attribute(hid_t obj, const char* name, std::int64_t v) {
  return write_attribute(obj, name, H5T_NATIVE_INT64, &v, 0);
}
inline bool write_attribute(hid_t obj, const char* name, const std::vector<double>& v) {
  return write_attribute(obj, name, H5T_NATIVE_DOUBLE, v.data(), v.size());
}
/// A fixed-length ASCII string attribute (what h5py reads as bytes, numpy as 'S' type).
inline bool write_attribute(hid_t obj, const char* name, const std::string& s) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (type < 0 || H5Tset_size(type, s.empty() ? 1 : s.size()) < 0) return false;
  return write_attribute(obj, name, type, s.data(), 0);
}

}  // namespace stepgen::rt::io::h5

#pragma once
/// \file
/// The names of the files a run derives from the spec's: an HDF5 series' XDMF file, a raw
/// output's file per array and step, and a restarted run's files of its own (NAME-from-STEP).
/// Standard library only: the collision check (io/run_files.hpp) and the writers use the same
/// names.

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace stepgen::rt {

namespace io {
/// The XDMF file beside an HDF5 file: its name with ".h5"/".hdf5" replaced by ".xdmf" (or
/// ".xdmf" appended).
inline std::string xdmf_path_for(const std::string& h5) {
  for (const char* ext : {".h5", ".hdf5", ".he5"}) {
    const std::string e = ext;
    if (h5.size() > e.size() && h5.compare(h5.size() - e.size(), e.size(), e) == 0)
      return h5.substr(0, h5.size() - e.size()) + ".xdmf";
  }
  return h5 + ".xdmf";
}
}  // namespace io

/// The name of the raw file of array `array` at `step` for an output `file` ("snap.raw"):
/// "snap_p_000050.raw" (the step with at least six digits).
inline std::string raw_output_path(const std::string& file, const std::string& array,
                                   std::int64_t step) {
  const std::string stem = file.size() > 4 ? file.substr(0, file.size() - 4) : file;
  char digits[32];
  std::snprintf(digits, sizeof digits, "%06" PRId64, step);
  return stem + "_" + array + "_" + digits + ".raw";
}

/// The file of its own that a run restarted at `step` writes in place of `file` (an HDF5
/// series, a receiver's trace): "wave.h5" becomes "wave-from-000040.h5", so the files of the
/// interrupted run are kept.
inline std::string restarted_output_path(const std::string& file, std::int64_t step) {
  const std::size_t dot = file.find_last_of('.');
  const std::size_t slash = file.find_last_of('/');
  const std::size_t at =
      dot == std::string::npos || (slash != std::string::npos && dot < slash) ? file.size() : dot;
  char digits[32];
  std::snprintf(digits, sizeof digits, "-from-%06" PRId64, step);
  return file.substr(0, at) + digits + file.substr(at);
}

}  // namespace stepgen::rt

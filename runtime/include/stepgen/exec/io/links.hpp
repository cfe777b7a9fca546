#pragma once
/// \file
/// Symbolic links at the paths a run writes: never written through, nor replaced. The file a
/// link points to may be a spec, a kernel or the input data; regeneration likewise follows no
/// link in its folder. Used by the atomic writers (file::save_target), the HDF5 series and the
/// collision check before the run (io/run_files.hpp).

#include <unistd.h>

#include <climits>
#include <string>

namespace stepgen::rt::file {

/// The target of a symbolic link, as the link holds it ("" when it cannot be read).
inline std::string link_text(const std::string& path) {
  std::string to(PATH_MAX, '\0');
  const ssize_t n = ::readlink(path.c_str(), to.data(), to.size());
  return n < 0 ? std::string() : to.substr(0, static_cast<std::size_t>(n));
}

/// The refusal of a symbolic link at a path the program writes: a run never writes through
/// one (the file it points to, maybe a spec, a kernel or the input data, would be replaced),
/// as regeneration follows no link in its folder.
inline std::string link_refusal(const std::string& what, const std::string& path) {
  const std::string to = link_text(path);
  return what + ": '" + path + "' is a symbolic link" + (to.empty() ? "" : " (to " + to + ")") +
         "; a run writes no file through a link: remove the link, or give the path of the file "
         "itself";
}

}  // namespace stepgen::rt::file

#pragma once
/// \file
/// Every file a run writes, checked together before it starts (docs/generated.md, "Files"):
/// - none is a symbolic link: a run never writes through one, nor replaces it (the file it
///   points to may be a spec, a kernel or the input data; regeneration follows no link either);
/// - no two write one file, compared by real path (the folders' links resolved);
/// - none is a file the run reads (its file() initial values and tables, --load), nor a file
///   of the run it resumes (an earlier segment's series and traces), nor this program's
///   binary, nor an existing file that looks like one the user wrote (a spec, a kernel, a
///   source or script by extension: .xml .yaml .cl .cu .cpp ...) or an executable.
/// Each failure is a UsageError naming the flags or attributes involved (exit status 2).
/// Standard library only; the main programs gather the files (main.hpp: run_files).

#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "stepgen/exec/io/paths.hpp"
#include "stepgen/exec/program.hpp"

namespace stepgen::rt {

/// A file named on the command line or in the spec: what names it (for the errors), its path.
struct RunFile {
  std::string what, path;
};

/// A raw output's files: STEM_ARRAY_STEP.raw for each of `arrays` (raw_output_path).
struct RawFiles {
  std::string what, file;
  std::vector<std::string> arrays;
};

struct RunFiles {
  std::vector<RunFile> writes;  ///< every file the run writes (but a raw output's)
  std::vector<RawFiles> raw;    ///< the raw outputs
  std::vector<RunFile> kept;    ///< files the run must not replace: its inputs, earlier segments'
};

namespace file {

/// The real path of `path`: its folder's (links resolved; a folder not there yet made
/// absolute) and its final component, itself resolved when it is a symbolic link (`link`
/// then tells so).
inline std::string real_path(const std::string& path, bool* link = nullptr) {
  namespace fs = std::filesystem;
  std::error_code ec;
  struct stat st {};
  const bool is_link = ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
  if (link) *link = is_link;
  if (is_link) {
    const fs::path to = fs::weakly_canonical(fs::absolute(path, ec), ec);
    if (!ec) return to.string();
  }
  const fs::path f(path);
  const fs::path folder = f.parent_path().empty() ? "." : f.parent_path();
  fs::path dir = fs::weakly_canonical(folder, ec);
  if (ec) dir = fs::absolute(folder, ec).lexically_normal();
  return (dir / f.filename()).lexically_normal().string();
}

/// The files beside `file` (same folder) whose names start with `prefix` (a name, no folder).
inline std::vector<std::string> siblings(const std::string& file, const std::string& prefix) {
  std::vector<std::string> out;
  const std::string folder = folder_of(file);
  DIR* d = ::opendir(folder.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) == 0)
      out.push_back(file.find('/') == std::string::npos ? name
                    : folder == "/"                     ? "/" + name
                                                        : folder + "/" + name);
  }
  ::closedir(d);
  return out;
}

}  // namespace file

/// The files of the runs that a run restarted at step `first` resumes, beside `file` (an HDF5
/// series, its XDMF file, a trace): `file` itself and the earlier segments' NAME-from-STEP
/// files (restarted_output_path) of a step before `first`.
inline void add_earlier_segments(std::vector<RunFile>& kept, const std::string& what,
                                 const std::string& file, std::int64_t first) {
  if (first <= 0) return;
  kept.push_back({what + " of the run this one resumes", file});
  const std::string from = restarted_output_path(file, 0);  // STEM-from-000000.EXT
  const std::size_t at = from.rfind("-from-") + 6;
  const std::string stem = from.substr(0, at), ext = from.substr(at + 6);
  const std::size_t slash = stem.find_last_of('/');
  for (const std::string& f :
       file::siblings(file, slash == std::string::npos ? stem : stem.substr(slash + 1))) {
    if (f.size() <= stem.size() + ext.size() || f.compare(0, stem.size(), stem) != 0 ||
        f.compare(f.size() - ext.size(), ext.size(), ext) != 0)
      continue;
    const std::string digits = f.substr(stem.size(), f.size() - stem.size() - ext.size());
    if (digits.find_first_not_of("0123456789") == std::string::npos &&
        std::strtoll(digits.c_str(), nullptr, 10) < first)
      kept.push_back({what + " of an earlier run this one resumes", f});
  }
}

/// Checks `files` (see the file comment). Throws UsageError.
inline void check_run_files(const RunFiles& files) {
  struct Real {
    const RunFile* file;
    std::string real;
  };
  std::vector<Real> writes;
  for (const RunFile& w : files.writes) {
    if (w.path.empty()) continue;
    bool link = false;
    const std::string real = file::real_path(w.path, &link);
    if (link) throw UsageError(file::link_refusal(w.what, w.path));
    writes.push_back({&w, real});
  }
  // A raw output's existing files (its folder listed once): links refused; the run's other
  // files may not be among them (a step number of any width).
  for (const RawFiles& r : files.raw)
    for (const std::string& array : r.arrays) {
      const std::string prefix = raw_output_path(r.file, array, 0);  // STEM_ARRAY_000000.raw
      const std::string stem = prefix.substr(0, prefix.size() - 10);
      const std::size_t slash = stem.find_last_of('/');
      for (const std::string& f :
           file::siblings(stem, slash == std::string::npos ? stem : stem.substr(slash + 1))) {
        const std::size_t digits = f.size() - stem.size() - 4;  // STEM_ARRAY_DIGITS.raw
        struct stat st {};
        if (f.size() > stem.size() + 4 && f.compare(f.size() - 4, 4, ".raw") == 0 &&
            f.find_first_not_of("0123456789", stem.size()) == stem.size() + digits &&
            ::lstat(f.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
          throw UsageError(file::link_refusal(r.what + " (array " + array + ")", f));
      }
      const std::string real_stem = file::real_path(stem);
      for (const Real& w : writes) {
        const std::string& t = w.real;
        if (t.compare(0, real_stem.size(), real_stem) != 0 || t.size() < real_stem.size() + 5 ||
            t.compare(t.size() - 4, 4, ".raw") != 0)
          continue;
        const std::string step = t.substr(real_stem.size(), t.size() - real_stem.size() - 4);
        if (!step.empty() && step.find_first_not_of("0123456789") == std::string::npos)
          throw UsageError(w.file->what + " is a file of " + r.what + " (array " + array +
                           ", step " + step + "): give it another path");
      }
    }
  for (std::size_t j = 1; j < writes.size(); ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (writes[i].real == writes[j].real)
        throw UsageError(writes[j].file->what + " and " + writes[i].file->what +
                         " would write the same file: give one of them another path");
  for (const RunFile& k : files.kept) {
    if (k.path.empty()) continue;
    std::error_code ec;
    // An input may be a link: its target is what must stay (and so is the link, refused above).
    std::string real = std::filesystem::canonical(k.path, ec).string();
    if (ec) real = file::real_path(k.path);
    for (const Real& w : writes)
      if (w.real == real)
        throw UsageError(w.file->what + " would replace " + k.what + " '" + k.path +
                         "': give it another path");
  }
  std::error_code ec;
  const std::string self = std::filesystem::canonical("/proc/self/exe", ec).string();
  static const char* const kSources[] = {".xml", ".yaml",  ".yml", ".cl", ".cu",   ".cuh", ".c",
                                         ".cc",  ".cpp",   ".cxx", ".h",  ".hpp",  ".hh",  ".py",
                                         ".sh",  ".cmake", ".txt", ".md", ".json", ".f90", ".f"};
  for (const Real& w : writes) {
    const RunFile& t = *w.file;
    if (!self.empty() && w.real == self)
      throw UsageError(t.what + " is this program's own binary: give another path");
    struct stat st {};
    if (::lstat(t.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const std::string ext = std::filesystem::path(t.path).extension().string();
    for (const char* s : kSources)
      if (ext == s)
        throw UsageError(t.what + ": '" + t.path + "' exists and looks like a file you wrote (" +
                         ext + "); a run replaces only files it writes: give another path");
    if ((st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0)
      throw UsageError(t.what + ": '" + t.path +
                       "' exists and is executable; a run replaces only files it writes: give "
                       "another path");
  }
}

}  // namespace stepgen::rt

#pragma once
/// \file
/// Templates and runtime headers compiled into the generator (see cmake/embed_files.cmake).

#include <string>
#include <vector>

namespace stepgen {

struct EmbeddedFile {
  const char* path;  ///< relative to the repository root, '/' separated
  const char* text;
};

/// Every embedded file, sorted by path.
const std::vector<EmbeddedFile>& embedded_files();

/// The text of the embedded file at `path`; throws std::out_of_range when there is none.
const std::string& embedded_file(const std::string& path);

}  // namespace stepgen

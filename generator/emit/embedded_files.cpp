#include "emit/embedded_files.hpp"

#include <map>
#include <stdexcept>

namespace stepgen {

const std::string& embedded_file(const std::string& path) {
  static const std::map<std::string, std::string> by_path = [] {
    std::map<std::string, std::string> m;
    for (const EmbeddedFile& f : embedded_files()) m.emplace(f.path, f.text);
    return m;
  }();
  return by_path.at(path);
}

}  // namespace stepgen

#include "emit/output.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace stepgen::emit {

namespace fs = std::filesystem;

void OutputSet::add(const std::string& path, std::string content) {
  if (!files_.emplace(path, std::move(content)).second)
    throw EmitError("internal error: '" + path + "' generated twice");
}

namespace {
bool same_bytes(const fs::path& path, const std::string& content) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) != content.size()) return false;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str() == content;
}
}  // namespace

std::optional<std::string> read_file_if_exists(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw EmitError("cannot read '" + path + "'");
  return text.str();
}

bool write_file_if_changed(const std::string& target, const std::string& content) {
  fs::path path = target;
  if (same_bytes(path, content)) return false;
  std::error_code ec;
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw EmitError("cannot create folder '" + path.parent_path().string() + "': " + ec.message());
  // Write beside the target, then rename: a failure never leaves a half-written file.
  fs::path tmp = path;
  tmp += ".stepgen-tmp";
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    file.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!file) throw EmitError("cannot write '" + tmp.string() + "'");
  }
  fs::rename(tmp, path, ec);
  if (ec) throw EmitError("cannot write '" + path.string() + "': " + ec.message());
  return true;
}

WriteResult write_output(const OutputSet& out, const std::string& dir) {
  WriteResult result;
  for (const auto& [relative, content] : out.files()) {
    if (write_file_if_changed((fs::path(dir) / relative).string(), content))
      result.written.push_back(relative);
    else
      result.unchanged.push_back(relative);
  }
  return result;
}

}  // namespace stepgen::emit

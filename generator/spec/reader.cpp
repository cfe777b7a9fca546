#include "spec/reader.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

namespace stepgen::spec {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) return false;
  }
  return true;
}

// True when the first character that is not blank (or a UTF-8 byte order mark) is '<'.
bool looks_like_xml(const std::string& text) {
  std::size_t i = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i < text.size() && text[i] == '<';
}

}  // namespace

bool load_spec_text(const std::string& path, std::string& text, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) {
    error = "cannot read '" + path + "'";
    return false;
  }
  if (static_cast<unsigned long long>(size) > kMaxSpecBytes) {
    error = "'" + path + "' is too large (" + std::to_string(size) +
            " bytes; specs may have at most " + std::to_string(kMaxSpecBytes) + ")";
    return false;
  }
  in.seekg(0, std::ios::beg);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in.good() && !in.eof()) {
    error = "cannot read '" + path + "'";
    return false;
  }
  text = buffer.str();
  if (text.size() > kMaxSpecBytes) {  // the file grew while we read it
    error = "'" + path + "' is too large";
    return false;
  }
  return true;
}

bool check_spec_text(const std::string& text, Diagnostics& diags) {
  if (text.size() > kMaxSpecBytes) {
    diags.error({}, "spec is too large (" + std::to_string(text.size()) +
                        " bytes; specs may have at most " + std::to_string(kMaxSpecBytes) + ")");
    return false;
  }
  std::size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    diags.error(offset_to_loc(text, nul), "spec holds a NUL byte (is it a text file?)");
    return false;
  }
  return true;
}

std::optional<SpecTree> read_spec(const std::string& path, const std::string& text,
                                  Diagnostics& diags) {
  if (ends_with(path, ".xml")) return read_xml(path, text, diags);
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return read_yaml(path, text, diags);
  return looks_like_xml(text) ? read_xml(path, text, diags) : read_yaml(path, text, diags);
}

}  // namespace stepgen::spec

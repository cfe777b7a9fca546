#include "emit/render.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "diag/source_text.hpp"
#include "emit/embedded_files.hpp"
#include "emit/output.hpp"

namespace stepgen::emit {

namespace {

namespace fs = std::filesystem;
namespace mu = kainjow::mustache;

const std::string kPrefix = "templates/";

const std::map<std::string, std::string>& builtin_templates() {
  static const std::map<std::string, std::string> files = [] {
    std::map<std::string, std::string> m;
    for (const EmbeddedFile& f : embedded_files())
      if (std::string(f.path).rfind(kPrefix, 0) == 0) m.emplace(f.path, f.text);
    return m;
  }();
  return files;
}

// One-based line of character `offset` in `text`.
int line_of(const std::string& text, std::size_t offset) {
  return offset_to_loc(text, offset).line;
}

// kainjow reports syntax errors as "... at OFFSET": turn that into "file:line: ...".
// (Plain string scanning, not <regex>: GCC 12's <regex> warns maybe-uninitialized under
// -fsanitize=address,undefined and the sanitizer build treats warnings as errors.)
std::string syntax_error(const std::string& file, const std::string& text,
                         const std::string& message) {
  const std::string at = " at ";
  const std::size_t pos = message.rfind(at);
  if (pos != std::string::npos && pos + at.size() < message.size()) {
    const std::string digits = message.substr(pos + at.size());
    if (digits.size() <= 18 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return file + ":" + std::to_string(line_of(text, std::stoul(digits))) + ": " +
             message.substr(0, pos);
  }
  return file + ": " + message;
}

// The line of the first tag naming `key` ({{key}}, {{#key}}, {{^key}}, {{&key}}, {{{key}}}),
// spaces allowed around the name and after the sigil; 0 when there is none.
int first_use(const std::string& text, const std::string& key) {
  auto skip_spaces = [&](std::size_t i) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    return i;
  };
  for (std::size_t open = text.find("{{"); open != std::string::npos;
       open = text.find("{{", open + 1)) {
    std::size_t i = open + 2;
    if (i < text.size() && text[i] == '{') ++i;
    i = skip_spaces(i);
    if (i < text.size() && (text[i] == '#' || text[i] == '^' || text[i] == '&')) ++i;
    i = skip_spaces(i);
    if (text.compare(i, key.size(), key) != 0) continue;
    i = skip_spaces(i + key.size());
    if (text.compare(i, 2, "}}") == 0) return line_of(text, open);
  }
  return 0;
}

/// A context whose lookups fail loudly: a typo in a template or a key the view model forgot
/// would otherwise render as nothing and produce a program that compiles but is wrong.
/// A partial `{{> cuda/problem}}` is the template templates/cuda/problem.mustache of the same set,
/// so that two programs of a backend share their common sections instead of near-copies.
class StrictContext : public mu::context<std::string> {
 public:
  StrictContext(const mu::data* root, std::string file, const std::string& text,
                const TemplateSet& set)
      : mu::context<std::string>(root), file_(std::move(file)), text_(text), set_(set) {}

  const mu::data* get(const std::string& name) const override {
    const mu::data* value = mu::context<std::string>::get(name);
    if (!value) throw EmitError(where(name) + ": the view model has no key '" + name + "'");
    return value;
  }

  const mu::data* get_partial(const std::string& name) const override {
    if (const mu::data* value = mu::context<std::string>::get_partial(name)) return value;
    auto it = partials_.find(name);
    if (it == partials_.end()) {
      const std::string path = kPrefix + name + ".mustache";
      if (!set_.files().count(path))
        throw EmitError(where(name) + ": no partial named '" + name + "' (no template " +
                        set_.display_name(path) + ")");
      // The tag's own line ends the partial: its file's last newline would add an empty line.
      std::string text = set_.text(path);
      if (!text.empty() && text.back() == '\n') text.pop_back();
      it = partials_.emplace(name, View(text)).first;
    }
    return &it->second;
  }

 private:
  // The renderer does not say which tag it is at: name the first one that uses the key.
  std::string where(const std::string& name) const {
    int line = first_use(text_, name);
    return line ? file_ + ":" + std::to_string(line) : file_;
  }
  std::string file_;
  const std::string& text_;
  const TemplateSet& set_;
  mutable std::map<std::string, View> partials_;  ///< by name, read once per render
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw EmitError("cannot read '" + p.string() + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TemplateSet TemplateSet::from_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw EmitError("template folder '" + dir + "' does not exist");
  TemplateSet set;
  set.dir_ = dir;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".mustache") continue;
    set.files_.emplace(kPrefix + fs::relative(entry.path(), dir).generic_string(),
                       read_file(entry.path()));
  }
  if (ec) throw EmitError("cannot list template folder '" + dir + "': " + ec.message());
  return set;
}

const std::map<std::string, std::string>& TemplateSet::files() const {
  return custom() ? files_ : builtin_templates();
}

const std::string& TemplateSet::text(const std::string& path) const {
  auto it = files().find(path);
  if (it == files().end()) {
    if (custom())
      throw EmitError(display_name(path) +
                      ": no such template (stepgen templates export writes every one)");
    throw EmitError("no template '" + path + "'");
  }
  return it->second;
}

std::string TemplateSet::display_name(const std::string& path) const {
  if (!custom() || path.rfind(kPrefix, 0) != 0) return path;
  return (fs::path(dir_) / path.substr(kPrefix.size())).generic_string();
}

std::string render(const TemplateSet& set, const std::string& path, const View& view) {
  const std::string& text = set.text(path);
  const std::string file = set.display_name(path);
  mu::mustache tmpl(text);
  if (!tmpl.is_valid()) throw EmitError(syntax_error(file, text, tmpl.error_message()));
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  StrictContext ctx(&view, file, text, set);
  std::string out = tmpl.render(ctx);
  if (!tmpl.is_valid()) throw EmitError(syntax_error(file, text, tmpl.error_message()));
  return out;
}

std::vector<std::string> export_templates(const std::string& dir) {
  std::vector<std::string> written;
  for (const auto& [path, text] : builtin_templates()) {
    const std::string relative = path.substr(kPrefix.size());
    const fs::path target = fs::path(dir) / relative;
    std::error_code ec;
    // symlink_status: a dangling link counts too (writing through it would write elsewhere).
    if (fs::symlink_status(target, ec).type() != fs::file_type::not_found)
      throw EmitError("'" + target.string() +
                      "' exists: not overwritten (export into an empty folder)");
  }
  for (const auto& [path, text] : builtin_templates()) {
    const std::string relative = path.substr(kPrefix.size());
    write_new_file((fs::path(dir) / relative).string(), text);
    written.push_back(relative);
  }
  return written;
}

}  // namespace stepgen::emit

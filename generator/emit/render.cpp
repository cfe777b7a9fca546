#include "emit/render.hpp"

#include "emit/embedded_files.hpp"
#include "emit/output.hpp"

namespace stepgen::emit {

namespace {

namespace mu = kainjow::mustache;

/// A context whose lookups fail loudly: a typo in a template or a key the view model forgot
/// would otherwise render as nothing and produce a program that compiles but is wrong.
class StrictContext : public mu::context<std::string> {
 public:
  StrictContext(const mu::data* root, std::string template_path)
      : mu::context<std::string>(root), path_(std::move(template_path)) {}

  const mu::data* get(const std::string& name) const override {
    const mu::data* value = mu::context<std::string>::get(name);
    if (!value) throw EmitError(path_ + ": the view model has no key '" + name + "'");
    return value;
  }

  const mu::data* get_partial(const std::string& name) const override {
    const mu::data* value = mu::context<std::string>::get_partial(name);
    if (!value) throw EmitError(path_ + ": no partial named '" + name + "'");
    return value;
  }

 private:
  std::string path_;
};

}  // namespace

std::string render(const std::string& path, const View& view) {
  const std::string* text = nullptr;
  try {
    text = &embedded_file(path);
  } catch (const std::out_of_range&) {
    throw EmitError("no template '" + path + "'");
  }
  mu::mustache tmpl(*text);
  if (!tmpl.is_valid()) throw EmitError(path + ": " + tmpl.error_message());
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  StrictContext ctx(&view, path);
  std::string out = tmpl.render(ctx);
  if (!tmpl.is_valid()) throw EmitError(path + ": " + tmpl.error_message());
  return out;
}

}  // namespace stepgen::emit

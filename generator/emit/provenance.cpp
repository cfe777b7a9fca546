#include "emit/provenance.hpp"

#include <filesystem>

#include "emit/merge.hpp"
#include "spec/reader.hpp"

namespace stepgen::emit {

namespace fs = std::filesystem;

namespace {

std::string read_spec(const model::Model& m) {
  std::string text, problem;
  if (!spec::load_spec_text(m.spec_path, text, problem))
    throw EmitError("the spec '" + m.spec_path + "' " + problem);
  return text;
}

// One hash over the spec's bytes and every template (path and text, in sorted order), each
// prefixed by its length so that no two different inputs concatenate to the same text.
std::string inputs_hash(const std::string& spec, const TemplateSet& templates) {
  std::string all = "stepgen inputs\nspec " + std::to_string(spec.size()) + "\n" + spec;
  for (const auto& [path, text] : templates.files())
    all += "\ntemplate " + path + " " + std::to_string(text.size()) + "\n" + text;
  return content_hash(all).substr(0, 16);
}

// The path with its symbolic links resolved (as far as it exists), so that the same spec and
// folder give the same header lines whichever link they are reached through; lexically where
// the system cannot tell.
fs::path resolved(const std::string& path) {
  std::error_code error;
  fs::path p = fs::weakly_canonical(fs::absolute(path), error);
  return error ? fs::absolute(path).lexically_normal() : p.lexically_normal();
}
}  // namespace

std::string spec_path_from(const std::string& spec_path, const std::string& output_dir) {
  // The folders' links resolved, the file named as given (a spec that is itself a link keeps
  // the name the user gave it).
  const fs::path given = fs::absolute(spec_path).lexically_normal();
  const fs::path spec = resolved(given.parent_path().string()) / given.filename();
  const std::string name = given.filename().generic_string();
  if (output_dir.empty()) return name;
  const fs::path out = resolved(output_dir);
  // Below the root, the first folder must be shared: ../../home/... would name the machine.
  auto s = spec.begin(), o = out.begin();
  if (s == spec.end() || o == out.end() || *s != *o || ++s == spec.end() || ++o == out.end() ||
      *s != *o)
    return name;
  fs::path relative = spec.lexically_relative(out);
  return relative.empty() ? name : relative.generic_string();
}

OutputSet generate_files(const model::Model& model, const Emitter& emitter,
                         const GenerateOptions& options) {
  // The spec's path goes into the generated files' first lines (comments): a line break there
  // would put the rest of the name into the code (CMake's, C++'s).
  const std::string spec = spec_path_from(model.spec_path, options.output_dir);
  for (const char c : spec)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw EmitError("the spec's path from the output folder, " + spec +
                      ", holds a control character (a line break?), which would break the "
                      "generated files' header comments: rename the file or its folders");
  const Provenance provenance{spec, inputs_hash(read_spec(model), options.templates),
                              emitter.name()};
  model::ProgramOptions plan_options;
  plan_options.backend = emitter.caps();
  plan_options.mpi = options.mpi;
  const model::ProgramPlan plan = model::build_program_plan(model, plan_options);
  OutputSet out;
  emitter.emit(EmitInput{plan, provenance, options.templates}, out);
  return out;
}

std::vector<std::string> generation_inputs(const model::Model& model,
                                           const GenerateOptions& options) {
  std::vector<std::string> inputs{model.spec_path};
  for (const model::Kernel& k : model.kernels)
    for (const std::string& source : {k.source, k.cuda_source})
      if (!source.empty()) inputs.push_back((fs::path(model.spec_dir) / source).generic_string());
  if (options.templates.custom())
    for (const auto& entry : options.templates.files())
      inputs.push_back(options.templates.display_name(entry.first));
  return inputs;
}

}  // namespace stepgen::emit

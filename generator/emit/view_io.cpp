#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "emit/cpp_text.hpp"
#include "emit/spec_hash.hpp"
#include "emit/view_parts.hpp"

namespace stepgen::emit::view_parts {

using cpp::fill;
using model::Model;

// The generated rt::IoSpec's fields (outputs, checkpoint, spec hash, spec folder, array
// types, inputs) and whether the program needs HDF5 (an .h5 output). The spec's folder is baked in
// (absolute) only where a file the spec names needs it (a file() initial value, an inject's
// values), so that other trees do not depend on where they were generated.
void io(const Model& m, View& v) {
  std::vector<std::string> outputs, types;
  bool hdf5 = false, file_init = false;
  for (const model::Output& o : m.outputs) {
    std::vector<std::string> ids;
    for (int a : o.arrays) ids.push_back(cpp::array_id(m, a));
    std::vector<std::string> when{o.hdf5 ? "rt::kHdf5" : "rt::kRawFiles"};
    if (o.first) when.push_back("rt::kFirst");
    if (o.last) when.push_back("rt::kLast");
    outputs.push_back(
        fill("{{\"{file}\", {every}, {when}, {arrays}}}", {{"file", cpp::escape(o.file)},
                                                           {"every", std::to_string(o.every)},
                                                           {"when", cpp::join(when, " | ")},
                                                           {"arrays", cpp::braced(ids)}}));
    hdf5 = hdf5 || o.hdf5;
  }
  // The files the program reads, and those read at generation (inject values), for the run's
  // check that it writes none of them (rt::IoSpec::inputs).
  std::vector<std::string> inputs;
  for (const model::Array& a : m.arrays) {
    types.push_back(cpp::literal(model::type_info(a.type).name));
    if (a.init.kind == model::Init::Kind::kFile) inputs.push_back(a.init.path);
  }
  for (const model::Table& t : m.tables)
    if (t.init.kind == model::Init::Kind::kFile) inputs.push_back(t.init.path);
  for (const model::Step& s : m.body)
    if (s.kind == model::Step::Kind::kInject && !s.value_file.empty())
      inputs.push_back(s.value_file);
  file_init = !inputs.empty();
  for (std::string& in : inputs) in = cpp::literal(in);
  // A record to an .h5 file is written with HDF5 (traces.hpp, io/trace_h5.hpp). (A table
  // read from a file() names the spec's folder in its own statement, table_init_cpp.)
  for (const model::Step& s : m.body)
    if (s.kind == model::Step::Kind::kRecord) {
      std::string ext = std::filesystem::path(s.file).extension().string();
      for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      hdf5 = hdf5 || ext == ".h5" || ext == ".hdf5";
    }
  const std::string dir = file_init ? cpp::spec_dir_abs(m) : std::string();
  v.set("has_outputs", flag(!outputs.empty()));
  v.set("outputs", cpp::braced(outputs));
  v.set("has_checkpoint", flag(m.checkpoint.enabled));
  v.set("checkpoint_file", cpp::escape(m.checkpoint.file));
  v.set("checkpoint_every", std::to_string(m.checkpoint.every));
  v.set("spec_hash", spec_hash(m));  // the spec's identity for checkpoints (emit/spec_hash.hpp)
  v.set("array_types", cpp::braced(types));
  v.set("io_spec_dir", flag(!dir.empty()));
  v.set("spec_dir", cpp::escape(dir));
  v.set("inputs", cpp::braced(inputs));
  v.set("hdf5", flag(hdf5));
}

}  // namespace stepgen::emit::view_parts

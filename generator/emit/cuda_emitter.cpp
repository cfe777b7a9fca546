// The CUDA backend: a self-contained folder with the host program (NAME.cu, which #includes the
// user's .cu kernels, unmodified, from kernels/), its CMakeLists.txt and the runtime headers.
// Each kernel's CUDA file is its source when that is CUDA, else its cuda-source.

#include <filesystem>
#include <string>

#include "emit/embedded_files.hpp"
#include "emit/emitter.hpp"
#include "emit/view.hpp"

namespace stepgen::emit {

namespace {

namespace fs = std::filesystem;

std::string cuda_scalar_type(model::ScalarType t) {
  switch (t) {
    case model::ScalarType::kFloat:
      return "float";
    case model::ScalarType::kDouble:
      return "double";
    case model::ScalarType::kInt:
      return "int";
    case model::ScalarType::kUint:
      return "unsigned int";
    case model::ScalarType::kLong:
      return "long long";
    case model::ScalarType::kUlong:
      return "unsigned long long";
    case model::ScalarType::kShort:
      return "short";
    case model::ScalarType::kUshort:
      return "unsigned short";
    case model::ScalarType::kChar:
      return "signed char";
    case model::ScalarType::kUchar:
      return "unsigned char";
  }
  return "int";
}

// The device pointer of the launch's view of the part's buffer, typed as the array's elements.
std::string cuda_buffer_arg(const std::string& name) {
  return "at.ptr<element::" + name + ">(array::" + name + ")";
}

// The CUDA file of a kernel: its source when that is CUDA, else its cuda-source.
std::string cuda_file(const model::Kernel& k) {
  if (k.language == model::Language::kCuda) return k.source;
  if (!k.cuda_source.empty()) return k.cuda_source;
  throw LocatedEmitError(
      "kernel '" + k.name + "' has no CUDA source: add cuda-source=\"" +
          fs::path(k.source).stem().string() +
          ".cu\" (YAML: cuda_source) to it (the cuda target cannot run OpenCL C)",
      k.loc);
}

// Copies each kernel's CUDA file into kernels/ and returns their paths there (each once).
std::vector<std::string> add_cuda_sources(const model::Model& m, OutputSet& out) {
  return add_kernel_files(m, cuda_file, "CUDA kernel source", out);
}

// Marks the last argument of each kernel (the launch separates arguments with commas).
void mark_last_args(View& v) {
  const View* kernels = v.get("kernels");
  if (!kernels || !kernels->is_list()) return;
  View marked{View::type::list};
  for (const View& k : kernels->list_value()) {
    View kv = k;
    const View* args = k.get("args");
    View new_args{View::type::list};
    if (args && args->is_list()) {
      const auto& list = args->list_value();
      for (std::size_t i = 0; i < list.size(); ++i) {
        View a = list[i];
        a.set("last", flag(i + 1 == list.size()));
        new_args.push_back(a);
      }
    }
    kv.set("args", new_args);
    marked.push_back(kv);
  }
  v.set("kernels", marked);
}

// The launch's GPU's copy of table `name`, typed as its elements.
std::string cuda_table_arg(const std::string& name, const std::string& cpp_type) {
  return "cuda::table_ptr<" + cpp_type + ">(at.d, table::" + name + ")";
}

class CudaEmitter : public Emitter {
 public:
  const char* name() const override { return "cuda"; }

  model::BackendCaps caps() const override { return {}; }  // a kernel runs on views of buffers

  void emit(const EmitInput& in, OutputSet& out) const override {
    const model::Model& m = *in.plan.model;
    for (const model::Kernel& k : m.kernels) cuda_file(k);  // every kernel has one, or stop here
    View v = common_view(in.plan, in.provenance,
                         BackendNames{cuda_scalar_type, cuda_buffer_arg, cuda_table_arg});
    mark_last_args(v);
    std::vector<std::string> kernels = add_cuda_sources(m, out);
    std::string names;
    View includes{View::type::list};
    for (const std::string& k : kernels) {
      names += (names.empty() ? "" : ", ") + k.substr(std::string("kernels/").size());
      View item;
      item.set("path", k);
      includes.push_back(item);
    }
    v.set("kernel_files", names);
    v.set("kernel_includes", includes);
    std::string paths;
    for (const std::string& k : kernels) paths += (paths.empty() ? "\"" : " \"") + k + "\"";
    v.set("kernel_paths", paths);
    v.set("mpi", flag(in.plan.mpi));
    v.set("backend", "cuda");
    v.set("opencl", flag(false));  // the backend partials of common/problem
    v.set("cuda", flag(true));
    v.set("granule_what", "block size: no device gets part of a block");
    v.set("has_build_kernels", flag(!m.tables.empty()));  // the tables' copies, on each GPU
    // The MPI program is the same file run by the same main program over another distribution
    // (rt::Ranks: one rank per GPU or --devices N) and the initial values of one rank's box.
    v.set("mpi_rank", "cuda::MpiRank");
    out.add(m.name + ".cu", render(in.templates, "templates/cuda/host.cu.mustache", v));
    out.add("CMakeLists.txt", render(in.templates, "templates/cuda/CMakeLists.txt.mustache", v));
    out.add(".clang-format", embedded_file("templates/common/clang-format.mustache"));
    add_included_runtime_headers(out);
  }
};

}  // namespace

std::unique_ptr<Emitter> make_cuda_emitter() {
  return std::make_unique<CudaEmitter>();
}

}  // namespace stepgen::emit

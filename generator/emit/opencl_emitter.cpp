// The OpenCL backend: a self-contained folder with the host program, its CMakeLists.txt, the
// runtime headers it includes and the user's kernel sources, unmodified.

#include <string>

#include "emit/embedded_files.hpp"
#include "emit/emitter.hpp"
#include "emit/view.hpp"

namespace stepgen::emit {

namespace {

std::string cl_scalar_type(model::ScalarType t) {
  return std::string("cl_") + model::type_info(t).name;
}

std::string cl_buffer_arg(const std::string& name) {
  return "at.buf[array::" + name + "]";
}

// The buffer of table `name` on the launch's device (the device's Kernels hold it).
std::string cl_table_arg(const std::string& name, const std::string& cpp_type) {
  (void)cpp_type;
  return "k.tables[table::" + name + "]";
}

class OpenClEmitter : public Emitter {
 public:
  const char* name() const override { return "opencl"; }

  /// A kernel runs on a slab as a range of its work-items (global_work_offset).
  model::BackendCaps caps() const override { return {true}; }

  void emit(const EmitInput& in, OutputSet& out) const override {
    const model::Model& m = *in.plan.model;
    View v = common_view(in.plan, in.provenance,
                         BackendNames{cl_scalar_type, cl_buffer_arg, cl_table_arg});
    std::vector<std::string> kernels = add_kernel_sources(m, out);
    std::string paths;
    for (const std::string& k : kernels) paths += (paths.empty() ? "\"" : " \"") + k + "\"";
    v.set("kernel_paths", paths);
    v.set("build_options", "");
    v.set("mpi", flag(in.plan.mpi));
    v.set("backend", "opencl");
    v.set("opencl", flag(true));  // the backend partials of common/problem
    v.set("cuda", flag(false));
    v.set("granule_what", "work-group size: no device gets part of a group");
    v.set("has_build_kernels", flag(true));  // the program and its kernels, on each device
    // The MPI program is the same file run by the same main program over another distribution
    // (rt::Ranks: one rank per device or --devices N) and the initial values of one rank's box.
    v.set("mpi_rank", "cl::MpiRank");
    out.add(m.name + ".cpp", render(in.templates, "templates/opencl/host.cpp.mustache", v));
    out.add("CMakeLists.txt", render(in.templates, "templates/opencl/CMakeLists.txt.mustache", v));
    out.add(".clang-format", embedded_file("templates/common/clang-format.mustache"));
    out.add("cmake/embed_kernels.cmake",
            render(in.templates, "templates/common/embed_kernels.cmake.mustache", v));
    add_runtime_headers(
        {"exec/kernels/frames.cl", "exec/kernels/init.cl", "exec/kernels/reduce.cl"}, out);
    add_included_runtime_headers(out);
  }
};

}  // namespace

std::unique_ptr<Emitter> make_opencl_emitter() {
  return std::make_unique<OpenClEmitter>();
}

}  // namespace stepgen::emit

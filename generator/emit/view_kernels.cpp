#include <set>
#include <string>
#include <vector>

#include "emit/cpp_text.hpp"
#include "emit/view_parts.hpp"

namespace stepgen::emit::view_parts {

using cpp::fill;
using model::Expr;
using model::Model;

// Kernels and their argument bindings.
void kernels(const model::ProgramPlan& plan, const BackendNames& names, View& v) {
  const Model& m = *plan.model;
  View kernels{View::type::list};
  std::vector<std::string> tuned_kernels;  // <local size="auto"/>: {kernel id, its shapes}
  std::vector<std::string> kernel_enum;
  std::set<std::string> files;  // as placed under kernels/
  for (const KernelFile& f : kernel_files(m, [](const model::Kernel& k) { return k.source; }))
    files.insert(f.target.substr(std::string("kernels/").size()));
  for (std::size_t ki = 0; ki < m.kernels.size(); ++ki) {
    const model::Kernel& k = m.kernels[ki];
    const model::KernelPlan& kp = plan.kernels[ki];
    View kv;
    kv.set("name", k.name);
    View args{View::type::list};
    for (std::size_t i = 0; i < k.args.size(); ++i) {
      const model::KernelArg& a = k.args[i];
      View av;
      av.set("kernel", k.name);
      av.set("index", std::to_string(i));
      if (a.kind == model::KernelArg::Kind::kArray) {
        const std::string& name = m.arrays[static_cast<std::size_t>(a.array)].name;
        av.set("value", names.buffer_arg(name));
        av.set("what", name);
      } else if (a.kind == model::KernelArg::Kind::kTable) {
        const model::Table& t = m.tables[static_cast<std::size_t>(a.table)];
        if (!names.table_arg) throw EmitError("internal error: this target has no tables");
        av.set("value", names.table_arg(t.name, model::type_info(t.type).cpp_name));
        av.set("what", "table " + t.name);
      } else {
        av.set("value",
               fill("static_cast<{type}>({value})", {{"type", names.scalar_type(a.scalar_type)},
                                                     {"value", cpp::expr(m, a.value)}}));
        av.set("what", "argument " + std::to_string(i));
      }
      args.push_back(av);
    }
    kv.set("args", args);
    std::vector<std::string> global, local;
    for (const Expr& g : k.global) {
      // A tuned shape (<local size="auto"/>): each global size rounded up to a whole number
      // of work-groups of the shape chosen at start-up (the kernel guards its index).
      global.push_back(k.local_auto
                           ? fill("static_cast<size_t>(stepgen::rt::round_up({size}, "
                                  "static_cast<stepgen::rt::Index>(local[{d}])))",
                                  {{"size", cpp::expr(m, g)}, {"d", std::to_string(global.size())}})
                           : fill("static_cast<size_t>({size})", {{"size", cpp::expr(m, g)}}));
    }
    for (std::int64_t l : k.local) local.push_back(std::to_string(l));
    kv.set("local_auto", flag(k.local_auto));
    if (k.local_auto) {
      std::vector<std::string> shapes;
      for (const std::vector<std::int64_t>& c : k.local_candidates) {
        std::vector<std::string> sizes;
        for (std::size_t d = 0; d < 3; ++d)
          sizes.push_back(d < c.size() ? std::to_string(c[d]) : "1");
        shapes.push_back(cpp::braced(sizes));
      }
      kv.set("tune_init", fill("{{{dims}, {shapes}, 0}}", {{"dims", std::to_string(m.dims)},
                                                           {"shapes", cpp::braced(shapes)}}));
      tuned_kernels.push_back(fill("{{kernel::{name}, &local_shapes_{name}}}", {{"name", k.name}}));
    }
    kv.set("work_dims", std::to_string(k.global.size()));
    kv.set("global", cpp::braced(global));
    // One size per line (a trailing comma keeps clang-format from joining or re-wrapping them).
    View global_items{View::type::list};
    for (const std::string& g : global) {
      View item;
      item.set("value", g);
      global_items.push_back(item);
    }
    kv.set("global_items", global_items);
    kv.set("has_local", flag(!local.empty()));
    kv.set("local", cpp::braced(local));
    // What the start-up probe needs (runtime/stepgen/exec/probe.hpp): the array arguments with
    // their declared halos, the dimensions where the launch follows its buffer's extent.
    std::vector<std::string> probe_args, follows;
    std::size_t arg = 0;
    for (const model::KernelArg& a : k.args) {
      if (a.kind != model::KernelArg::Kind::kArray) continue;
      const char* access = a.access == model::Access::kRead    ? "rt::ArgAccess::kRead"
                           : a.access == model::Access::kWrite ? "rt::ArgAccess::kWrite"
                                                               : "rt::ArgAccess::kReadWrite";
      probe_args.push_back(
          fill("{{{array}, {access}, {halo}}}", {{"array", cpp::array_id(m, a.array)},
                                                 {"access", access},
                                                 {"halo", cpp::halo(kp.arg_halos[arg++])}}));
    }
    for (std::size_t d = 0; d < 3; ++d)
      if (kp.follows[d]) follows.push_back(std::string("rt::kFollows") + "XYZ"[d]);
    kv.set("probe_args", cpp::braced(probe_args));
    kv.set("follows", follows.empty() ? "rt::kFollowsNone" : cpp::join(follows, " | "));
    kv.set("views", kp.no_views.empty() ? "rt::SlabUse::kOnSlabs" : "rt::SlabUse::kWholeBuffer");
    // The probe's translation step per dimension (cells per work-item), given only where one
    // is not 1 (rt::ProbeKernel::shift defaults to 1); a kernel taking `step` is probed at
    // steps spread over the run (rt::ProbeKernel::uses_step).
    kv.set("probe_shift", kp.uses_step ? ", " + cpp::vec3(kp.cells) + ", rt::StepUse::kUsesStep"
                          : kp.cells == rt::Vec3{1, 1, 1} ? ""
                                                          : ", " + cpp::vec3(kp.cells));
    kv.set("template_args", k.cuda_template);  // CUDA: "<float>" for a template kernel
    kernels.push_back(kv);
    kernel_enum.push_back(k.name);
  }
  kernel_enum.push_back("kCount");
  v.set("kernels", kernels);
  v.set("tuned", flag(!tuned_kernels.empty()));
  v.set("tuned_kernels", cpp::braced(tuned_kernels));
  v.set("kernel_enum", cpp::join(kernel_enum, ", "));
  v.set("kernel_files", cpp::join(std::vector<std::string>(files.begin(), files.end()), ", "));
}

}  // namespace stepgen::emit::view_parts

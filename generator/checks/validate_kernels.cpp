// Kernels: sources and languages, arguments and their halos, the shadow, global and local sizes.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "model/overlap.hpp"
#include "spec/reader.hpp"

namespace stepgen::model::detail {

namespace {

std::string dim_label(int d) {  // "0 (x)"
  return std::to_string(d) + " (" + "xyz"[d] + ")";
}

std::string count_of(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

const char* language_name(Language l) {
  return l == Language::kCuda ? "CUDA" : "OpenCL";
}

// The language a file's extension names, if any.
std::optional<Language> language_of_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".cl") return Language::kOpenCL;
  if (ext == ".cu") return Language::kCuda;
  return std::nullopt;
}

Halo halo_of_points(const std::vector<std::array<int, 3>>& points) {
  Halo h;
  for (const auto& p : points) {
    for (std::size_t d = 0; d < 3; ++d) {
      h.lo[d] = std::max(h.lo[d], -p[d]);
      h.hi[d] = std::max(h.hi[d], p[d]);
    }
    if (std::find(h.points.begin(), h.points.end(), p) == h.points.end()) h.points.push_back(p);
  }
  std::sort(h.points.begin(), h.points.end());
  return h;
}

}  // namespace

void Builder::check_scalar_value(const Expr& e, ScalarType type, const spec::Text& text,
                                 const std::string& which) {
  std::string error;
  spec::Loc where = text.loc;
  std::optional<Value> v = eval(e, m_.constant_values, nullptr, &error, &where);
  const TypeInfo& t = type_info(type);
  if (!v) {
    diags_.error(where, error + " in the value of scalar " + which + " (" + t.name + ")");
    return;
  }
  if (t.is_float) {
    double limit = type == ScalarType::kFloat ? std::numeric_limits<float>::max()
                                              : std::numeric_limits<double>::max();
    if (!std::isfinite(v->f))
      diags_.error(text.loc, "the value of scalar " + which + " is not a finite number (" +
                                 (std::isnan(v->f) ? "NaN" : "infinite") + ")");
    else if (std::fabs(v->f) > limit)
      diags_.error(text.loc, "the value " + value_string(*v) + " of scalar " + which +
                                 " is out of range for " + t.name + " (at most " +
                                 value_string(Value{true, 0, limit}) + " in magnitude)");
    return;
  }
  long double lo = 0, hi = 0;
  integer_range(type, lo, hi);
  long double x = static_cast<long double>(v->i);
  if (x < lo || x > hi)
    diags_.error(text.loc, "the value " + value_string(*v) + " of scalar " + which +
                               " is out of range for " + t.name + " (" + range_string(lo) + " to " +
                               range_string(hi) + ")");
}

namespace {
// Why a kernel file's name cannot be written into the generated files ("": it can).
std::string unsafe_file_name(const std::string& path) {
  if (carried_by_build_files(path)) return {};
  return "holds a character the generated CMakeLists.txt and #include lines cannot carry (a "
         "quote, backslash, $ or ;, or a control character): rename the file";
}
}  // namespace

void Builder::source_size(const spec::Text& text, const std::string& full, const char* what) {
  std::error_code ec;
  std::uintmax_t bytes = std::filesystem::file_size(full, ec);
  if (!ec && bytes > spec::kMaxSourceBytes)
    diags_.error(text.loc, std::string(what) + " " + quote(text.value) + " is too large (" +
                               std::to_string(bytes) + " bytes; at most " +
                               std::to_string(spec::kMaxSourceBytes) + ")");
}

bool Builder::check_reach(std::int64_t width, int dim, int array, spec::Loc loc) {
  std::int64_t size = 0;
  std::string what;
  if (array >= 0) {
    if (!array_state_[static_cast<std::size_t>(array)].size_ok) return true;
    size = m_.arrays[static_cast<std::size_t>(array)].size[static_cast<std::size_t>(dim)];
    what = "halo of array " + quote(m_.arrays[static_cast<std::size_t>(array)].name);
  } else {
    if (!grid_ok_) return true;
    size = m_.domain[static_cast<std::size_t>(dim)];
    what = "shadow";
  }
  if (width <= size) return true;
  diags_.error(loc, what + " is " + std::to_string(width) + " wide in dimension " + dim_label(dim) +
                        ", wider than the " + (array >= 0 ? "array" : "grid") + " (" +
                        std::to_string(size) + ")");
  return false;
}

std::optional<std::array<int, 3>> Builder::halo_point(const spec::HaloPoint& p, int dims,
                                                      const std::string& owner) {
  if (p.offsets.size() != static_cast<std::size_t>(dims)) {
    diags_.error(p.loc, (owner.empty() ? std::string("shadow point") : "halo point") + " has " +
                            count_of(p.offsets.size(), "offset", "offsets") + " but " +
                            (owner.empty() ? std::string("the grid") : owner) + " has " +
                            count_of(static_cast<std::size_t>(dims), "dimension", "dimensions"));
    return std::nullopt;
  }
  std::array<int, 3> point{0, 0, 0};
  bool ok = true;
  for (std::size_t d = 0; d < p.offsets.size(); ++d) {
    std::optional<std::int64_t> v =
        constant_int(p.offsets[d], "halo offset", std::numeric_limits<std::int64_t>::min());
    if (!v) {
      ok = false;
    } else if (*v > (1 << 24) || *v < -(1 << 24)) {
      diags_.error(p.offsets[d].loc, "halo offset " + std::to_string(*v) + " is too large");
      ok = false;
    } else {
      point[d] = static_cast<int>(*v);
    }
  }
  if (!ok) return std::nullopt;
  return point;
}

void Builder::build_shadow() {
  if (tree_.shadow.empty() || !grid_ok_) return;
  std::vector<std::array<int, 3>> points;
  bool ok = true;
  for (const spec::HaloPoint& p : tree_.shadow) {
    std::optional<std::array<int, 3>> point = halo_point(p, m_.dims, "");
    if (!point) {
      ok = false;
      continue;
    }
    for (int d = 0; d < m_.dims; ++d) {
      int v = (*point)[static_cast<std::size_t>(d)];
      ok = check_reach(v < 0 ? -v : v, d, -1, p.offsets[static_cast<std::size_t>(d)].loc) && ok;
    }
    points.push_back(*point);
  }
  if (ok) shadow_ = halo_of_points(points);
}

void Builder::build_kernels() {
  for (const spec::Kernel& k : tree_.kernels) build_kernel(k);
  if (tree_.kernels.empty())
    form_error(tree_.loc, "the spec declares no kernel: expected at least one");

  // One program is generated for one language.
  const Kernel* first = nullptr;
  for (std::size_t i = 0; i < m_.kernels.size(); ++i) {
    if (!kernel_state_[i].language_ok) continue;
    const Kernel& k = m_.kernels[i];
    if (!first) {
      first = &k;
    } else if (k.language != first->language) {
      diags_.error(k.loc, "kernel " + quote(k.name) + " is written in " +
                              language_name(k.language) + " but kernel " + quote(first->name) +
                              " in " + language_name(first->language) +
                              "; all kernels of a spec must use one language");
    }
  }
}

void Builder::build_kernel(const spec::Kernel& k) {
  if (!declare(k.name, "kernel")) return;
  Kernel kernel;
  kernel.name = k.name.value;
  kernel.loc = k.name.loc;
  KernelState state;
  state.spec = &k;
  if (require(k.source, "missing source for kernel " + quote(kernel.name) +
                            ": expected the kernel's file, such as " + kernel.name + ".cl")) {
    kernel.source = k.source.value;
    std::string full = resolve(kernel.source);
    std::error_code ec;
    std::string problem = spec::file_problem(full);
    if (const std::string unsafe = unsafe_file_name(kernel.source); !unsafe.empty()) {
      diags_.error(k.source.loc, "kernel source " + quote(kernel.source) + " " + unsafe);
    } else if (!problem.empty() && problem != "does not exist") {
      diags_.error(k.source.loc, "kernel source " + quote(kernel.source) + " " + problem +
                                     " (looked for " + full + ")");
    } else if (problem.empty()) {
      source_size(k.source, full, "kernel source");
    } else {
      // Suggest a file of the same folder, written as the spec would write it.
      std::vector<std::string> siblings;
      std::filesystem::path folder = std::filesystem::path(kernel.source).parent_path();
      for (const auto& entry :
           std::filesystem::directory_iterator(std::filesystem::path(full).parent_path(), ec))
        if (entry.is_regular_file(ec))
          siblings.push_back((folder / entry.path().filename()).generic_string());
      std::sort(siblings.begin(), siblings.end());
      diags_.error(k.source.loc, "kernel source " + quote(kernel.source) +
                                     " does not exist (looked for " + full + ")" +
                                     did_you_mean(kernel.source, siblings));
    }
    if (std::optional<Language> l = kernel_language(k)) {
      kernel.language = *l;
      state.language_ok = true;
      // (A name the expressions reserve, min or step, has its error from declare already.)
      if (*l == Language::kOpenCL && is_opencl_builtin(kernel.name) &&
          !is_reserved_by_expressions(kernel.name))
        diags_.error(k.name.loc, "kernel name " + quote(kernel.name) +
                                     " is a built-in function of OpenCL C: an OpenCL kernel of "
                                     "that name collides with it (the compiler renames or "
                                     "refuses it); rename the kernel in " +
                                     quote(kernel.source) + " and in the spec");
    }
  }
  if (k.cuda_source.present) {
    kernel.cuda_source = k.cuda_source.value;
    std::string full = resolve(kernel.cuda_source);
    std::string problem = spec::file_problem(full);
    if (const std::string unsafe = unsafe_file_name(kernel.cuda_source); !unsafe.empty())
      diags_.error(k.cuda_source.loc, "CUDA source " + quote(kernel.cuda_source) + " of kernel " +
                                          quote(kernel.name) + " " + unsafe);
    else if (std::filesystem::path(kernel.cuda_source).extension() != ".cu")
      diags_.error(k.cuda_source.loc, "CUDA source " + quote(kernel.cuda_source) + " of kernel " +
                                          quote(kernel.name) + " must be a .cu file");
    else if (!problem.empty())
      diags_.error(k.cuda_source.loc, "CUDA source " + quote(kernel.cuda_source) + " of kernel " +
                                          quote(kernel.name) + " " + problem + " (looked for " +
                                          full + ")");
    else
      source_size(k.cuda_source, full, "CUDA source");
  }
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    kernel.args.push_back(build_arg(k.args[i], i + 1, kernel));
    const KernelArg& a = kernel.args.back();
    if (a.kind != KernelArg::Kind::kArray) continue;
    const spec::Text& access = k.args[i].access;
    if (access.value != "read" && access.value != "write" && access.value != "readwrite")
      state.accesses_known = false;
    else if (a.access != Access::kRead)
      state.writes = true;
  }
  // One array bound to two arguments, one of them writing it: the program gives each
  // argument its own view of the buffer (the exchange, the probe, the views), and a kernel
  // reading neighbours where it writes races even on one device; accepted, it would reach
  // the probe, whose offsets would not name the cause (guarded by
  // tests/errors/kernel_array_twice.xml).
  for (std::size_t j = 0; j < kernel.args.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const KernelArg& a = kernel.args[i];
      const KernelArg& b = kernel.args[j];
      if (a.kind != KernelArg::Kind::kArray || b.kind != KernelArg::Kind::kArray || a.array < 0 ||
          a.array != b.array || (a.access == Access::kRead && b.access == Access::kRead))
        continue;
      diags_.error(k.args[j].loc, "array " +
                                      quote(m_.arrays[static_cast<std::size_t>(a.array)].name) +
                                      " is argument " + std::to_string(i + 1) + " and argument " +
                                      std::to_string(j + 1) + " of kernel " + quote(kernel.name) +
                                      ", and one of them writes it: a kernel that updates an array "
                                      "in place takes it once, with access=\"readwrite\"");
      break;
    }
  build_launch_sizes(k, kernel);
  check_grid_size_arguments(k, kernel);
  note_offset_blind_queries(kernel);
  check_local_includes(k, kernel);
  note_cuda_template(k, kernel);
  m_.kernels.push_back(std::move(kernel));
  kernel_state_.push_back(state);
}

// A kernel given the grid's size as a constant (value="NX") along a dimension where its launch
// follows its buffer's extent, and given no extent(X, d) there: it indexes its buffer with the
// grid's size, which only one device in core has (on 2 devices it reads past its buffer, out
// of core it computes wrong cells), so it is refused (guarded by
// tests/errors/kernel_grid_size_constants.xml). The whole grid's extent is global_extent(X, d),
// which says so.
void Builder::check_grid_size_arguments(const spec::Kernel& k, const Kernel& kernel) {
  if (!grid_ok_ || kernel.global.size() != static_cast<std::size_t>(m_.dims)) return;
  for (std::size_t i = 0; i < kernel.args.size() && i < k.args.size(); ++i) {
    const KernelArg& a = kernel.args[i];
    if (a.kind != KernelArg::Kind::kScalar || type_info(a.scalar_type).is_float ||
        a.value.is_runtime())
      continue;
    const std::optional<Value> v = eval(a.value, m_.constant_values, nullptr);
    if (!v || v->is_float) continue;
    for (int d = 0; d < m_.dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      if (m_.domain[u] <= 1 || v->i != m_.domain[u] || !uses_extent(kernel.global[u], d)) continue;
      const bool given =
          std::any_of(kernel.args.begin(), kernel.args.end(), [&](const KernelArg& b) {
            return b.kind == KernelArg::Kind::kScalar && uses_extent(b.value, d);
          });
      if (given) continue;
      // The array whose extent the launch follows there, for the message.
      std::string array = "X";
      std::function<void(const Expr&)> find = [&](const Expr& e) {
        if (e.kind == Expr::Kind::kArrayDim && e.text == "extent" && e.dim == d && e.array >= 0)
          array = m_.arrays[static_cast<std::size_t>(e.array)].name;
        for (const Expr& x : e.args) find(x);
      };
      find(kernel.global[u]);
      const std::string dim = std::to_string(d);
      diags_.error(k.args[i].value.loc,
                   "argument " + std::to_string(i + 1) + " of kernel " + quote(kernel.name) +
                       " is " + std::to_string(v->i) + ", the grid's size along " + dim_label(d) +
                       ", but the launch follows its buffer's extent there (its "
                       "global size uses extent(" +
                       array + ", " + dim +
                       ")) and no argument "
                       "gives that extent: on several devices, or out of core, a buffer is "
                       "smaller than the grid, and a kernel indexing it with the grid's size "
                       "reads and writes past it. Give extent(" +
                       array + ", " + dim + ") (the buffer's extent), or global_extent(" + array +
                       ", " + dim + ") where the kernel means the whole grid's");
      break;
    }
  }
}

std::optional<Language> Builder::kernel_language(const spec::Kernel& k) {
  std::optional<Language> from_path = language_of_path(k.source.value);
  if (!k.language.present) {
    if (!from_path)
      diags_.error(k.source.loc, "cannot tell the language of kernel source " +
                                     quote(k.source.value) +
                                     ": expected a .cl (OpenCL) or .cu (CUDA) file, or a language "
                                     "(opencl or cuda)");
    return from_path;
  }
  std::optional<Language> given;
  if (k.language.value == "opencl") given = Language::kOpenCL;
  if (k.language.value == "cuda") given = Language::kCuda;
  if (!given) {
    std::string hint = did_you_mean(k.language.value, {"opencl", "cuda"});
    diags_.error(k.language.loc, "unknown language " + quote(k.language.value) +
                                     (hint.empty() ? "; expected opencl or cuda" : hint));
    return std::nullopt;
  }
  if (from_path && *from_path != *given) {
    diags_.error(k.language.loc,
                 "language " + quote(k.language.value) + " does not match the source " +
                     quote(k.source.value) +
                     (*from_path == Language::kCuda ? ", a CUDA file" : ", an OpenCL file"));
    return std::nullopt;
  }
  return given;
}

KernelArg Builder::build_arg(const spec::KernelArg& a, std::size_t position, Kernel& kernel) {
  KernelArg arg;
  bool scalar = a.kind == spec::KernelArg::Kind::kScalar;
  arg.kind = scalar ? KernelArg::Kind::kScalar : KernelArg::Kind::kArray;
  arg.loc = a.loc;
  std::string which = "argument " + std::to_string(position) + " of kernel " + quote(kernel.name);
  if (a.kind == spec::KernelArg::Kind::kTable) return build_table_arg(a, which, kernel);
  if (scalar) {
    bool type_ok = false;
    if (require(a.scalar_type, "missing type for scalar " + which + ": expected " +
                                   "a type such as int or float")) {
      if (std::optional<ScalarType> t = parse_type(a.scalar_type.value)) {
        arg.scalar_type = *t;
        type_ok = true;
      } else {
        std::string hint = did_you_mean(a.scalar_type.value, type_names());
        diags_.error(a.scalar_type.loc,
                     "unknown scalar type " + quote(a.scalar_type.value) +
                         (hint.empty() ? "; expected a type such as int or float" : hint));
      }
    }
    if (require(a.value, "missing value for scalar " + which)) {
      if (std::optional<Expr> e = parse(a.value, true, "a scalar argument")) {
        if (type_ok && !type_info(arg.scalar_type).is_float && e->is_float)
          diags_.error(a.value.loc, "scalar " + which + " is " + type_info(arg.scalar_type).name +
                                        " but its value is a floating expression");
        else if (type_ok && !e->is_runtime())
          check_scalar_value(*e, arg.scalar_type, a.value, which);
        else if (type_ok && grid_ok_ && !type_info(arg.scalar_type).is_float) {
          // A run-time size (extent(A,0)) over the whole grid, where one device holds it: an
          // int cannot carry 3e9 cells (the program would pass it truncated).
          EvalEnv whole = whole_grid_env();
          const std::optional<Value> v = eval(*e, m_.constant_values, &whole);
          long double lo = 0, hi = 0;
          integer_range(arg.scalar_type, lo, hi);
          if (v && !v->is_float &&
              (static_cast<long double>(v->i) < lo || static_cast<long double>(v->i) > hi))
            diags_.error(a.value.loc, "the value of scalar " + which + " is " + value_string(*v) +
                                          " on one device holding the whole "
                                          "grid, out of range for " +
                                          type_info(arg.scalar_type).name + " (" +
                                          range_string(lo) + " to " + range_string(hi) +
                                          "): give it a wider type (long)");
        }
        arg.value = std::move(*e);
      }
    }
    return arg;
  }

  if (require(a.array, which + " names no array")) {
    arg.array = m_.find_array(a.array.value);
    std::string table = table_hint(a.array.value, "an array argument");
    if (arg.array < 0)
      diags_.error(a.array.loc, !table.empty()
                                    ? table
                                    : "array " + quote(a.array.value) + " is not declared" +
                                          did_you_mean(a.array.value, array_names_));
  }
  bool access_ok = false;
  std::string name = a.array.present ? quote(a.array.value) : which;
  if (require(a.access, "missing access for array " + name + " in kernel " + quote(kernel.name) +
                            ": expected read, write or readwrite")) {
    const std::string& v = a.access.value;
    access_ok = true;
    if (v == "read")
      arg.access = Access::kRead;
    else if (v == "write")
      arg.access = Access::kWrite;
    else if (v == "readwrite")
      arg.access = Access::kReadWrite;
    else {
      access_ok = false;
      std::string hint = did_you_mean(v, {"read", "write", "readwrite"});
      diags_.error(a.access.loc, "unknown access " + quote(v) +
                                     (hint.empty() ? "; expected read, write or readwrite" : hint));
    }
  }
  if (arg.array >= 0 && grid_ok_ && array_state_[static_cast<std::size_t>(arg.array)].size_ok) {
    const Array& arr = m_.arrays[static_cast<std::size_t>(arg.array)];
    if (arr.dims != m_.dims || arr.size != m_.domain)
      diags_.error(a.array.loc, "array " + quote(arr.name) + " has size " + size_string(arg.array) +
                                    " but the grid is " + size_string(0) +
                                    "; every array a kernel takes must have the grid's size");
  }
  bool given = false;
  const int errors = diags_.error_count();
  Halo halo = build_halo(a, arg.array, given);
  const bool halo_ok = diags_.error_count() == errors;
  if (!access_ok) return arg;
  if (arg.access == Access::kWrite) {
    if (given)
      diags_.warning(a.loc, "the halo of write-only array " + name + " in kernel " +
                                quote(kernel.name) +
                                " is ignored: only arguments that are read have halos");
  } else if (given) {
    arg.halo = halo;
  } else if (shadow_) {
    arg.halo = *shadow_;
  }
  if (halo_ok) in_place(a, kernel, arg, name);  // (a wrong halo has its own error)
  return arg;
}

// An array read and written in place (readwrite) with a halo beyond the centre: the work-items
// of one launch run in no set order, so one reading a neighbour that another is writing gets
// the old or the new value by chance (and differently on every device and split). Refused
// unless in-place="wavefront" says the launch writes only cells none of its work-items read
// around (a wavefront, one launch per hyperplane).
void Builder::in_place(const spec::KernelArg& a, const Kernel& kernel, KernelArg& arg,
                       const std::string& name) {
  if (a.in_place.present) {
    if (a.in_place.value != "wavefront") {
      diags_.error(a.in_place.loc, "unknown in-place " + quote(a.in_place.value) +
                                       ": expected wavefront (or no in-place)");
      return;
    }
    if (arg.access != Access::kReadWrite) {
      diags_.error(a.in_place.loc,
                   "in-place=\"wavefront\" applies to an array read and "
                   "written in place (access=\"readwrite\"), not to array " +
                       name);
      return;
    }
    arg.wavefront = true;
    return;
  }
  if (arg.access != Access::kReadWrite || arg.halo.empty()) return;
  const spec::Loc at = !a.halo.empty()      ? a.halo.front().loc
                       : !a.halo_lo.empty() ? a.halo_lo.front().loc
                       : !a.halo_hi.empty() ? a.halo_hi.front().loc
                                            : a.loc;
  diags_.error(at, "array " + name + " of kernel " + quote(kernel.name) +
                       " is updated in place (access=\"readwrite\") with a halo beyond the "
                       "centre" +
                       (a.halo.empty() && a.halo_lo.empty() && a.halo_hi.empty()
                            ? std::string(" (the shadow's)")
                            : std::string()) +
                       ": the work-items of a launch race, each reading neighbours that others "
                       "are writing, so the result depends on their order; write the new values "
                       "to a second array and swap the two (access=\"read\" with the halo, "
                       "access=\"write\", <swap>), or, for a wavefront whose every launch writes "
                       "only cells none of its work-items reads around, say in-place=\"wavefront\" "
                       "(YAML: in_place: wavefront)");
}

Halo Builder::build_halo(const spec::KernelArg& a, int array, bool& given) {
  bool widths = !a.halo_lo.empty() || !a.halo_hi.empty();
  given = widths || !a.halo.empty();
  if (!given) return {};
  if (widths && !a.halo.empty()) {
    diags_.error(a.halo.front().loc,
                 "give the halo of array " + quote(a.array.value) +
                     " either as points or as halo_lo/halo_hi widths, not both");
    return {};
  }
  // Without the array, the dimension count is unknown: offsets are still checked as values.
  int dims = array >= 0 ? array_dims_[static_cast<std::size_t>(array)] : -1;
  std::string owner = "array " + quote(a.array.value);
  if (!widths) {
    std::vector<std::array<int, 3>> points;
    for (const spec::HaloPoint& p : a.halo) {
      std::optional<std::array<int, 3>> point =
          halo_point(p, dims < 0 ? static_cast<int>(p.offsets.size()) : dims, owner);
      if (!point) continue;
      for (std::size_t d = 0; array >= 0 && d < p.offsets.size(); ++d) {
        int v = (*point)[d];
        check_reach(v < 0 ? -v : v, static_cast<int>(d), array, p.offsets[d].loc);
      }
      points.push_back(*point);
    }
    return halo_of_points(points);
  }
  Halo h;
  auto side = [&](const std::vector<spec::Text>& texts, std::array<int, 3>& out, const char* key) {
    if (texts.empty()) return;
    if (dims >= 0 && texts.size() != static_cast<std::size_t>(dims)) {
      diags_.error(texts.front().loc,
                   std::string(key) + " has " + count_of(texts.size(), "width", "widths") +
                       " but " + owner + " has " +
                       count_of(static_cast<std::size_t>(dims), "dimension", "dimensions"));
      return;
    }
    for (std::size_t d = 0; d < texts.size() && d < 3; ++d) {
      std::optional<std::int64_t> v = constant_int(texts[d], "halo width", 0);
      if (!v) continue;
      if (array >= 0 && !check_reach(*v, static_cast<int>(d), array, texts[d].loc)) continue;
      if (*v > (1 << 24)) {
        diags_.error(texts[d].loc, "halo width " + std::to_string(*v) + " is too large");
        continue;
      }
      out[d] = static_cast<int>(*v);
    }
  };
  side(a.halo_lo, h.lo, "halo_lo");
  side(a.halo_hi, h.hi, "halo_hi");
  return h;
}

EvalEnv Builder::whole_grid_env() const {
  EvalEnv whole;
  whole.extent = [this](int array, int dim) {
    return m_.arrays[static_cast<std::size_t>(array)].size[static_cast<std::size_t>(dim)];
  };
  whole.global_extent = whole.extent;
  whole.offset = [](int, int) { return std::int64_t{0}; };
  return whole;
}

void Builder::build_launch_sizes(const spec::Kernel& k, Kernel& kernel) {
  auto count_error = [&](const std::vector<spec::Text>& texts, const char* what) {
    diags_.error(texts.front().loc,
                 std::string(what) + " has " + count_of(texts.size(), "size", "sizes") +
                     " but the grid has " +
                     count_of(static_cast<std::size_t>(m_.dims), "dimension", "dimensions"));
  };
  bool global_ok = grid_ok_;
  if (!k.global.empty()) {
    if (grid_ok_ && k.global.size() != static_cast<std::size_t>(m_.dims)) {
      count_error(k.global, "global");
      global_ok = false;
    }
    for (const spec::Text& g : k.global) {
      std::optional<Expr> e = parse(g, true, "a global size");
      if (!e) {
        global_ok = false;
        continue;
      }
      if (!e->is_runtime()) {
        std::string error;
        spec::Loc where = g.loc;
        std::optional<Value> v = eval(*e, m_.constant_values, nullptr, &error, &where);
        if (!v) {
          diags_.error(where, error);
          global_ok = false;
        } else if (v->is_float || v->i < 1) {
          diags_.error(g.loc, "global size must be a positive integer, got " + value_string(*v));
          global_ok = false;
        } else if (v->i > kMaxCells) {
          diags_.error(g.loc, "global size " + value_string(*v) +
                                  " is more work-items than stepgen's limit of 2^48 (" +
                                  std::to_string(kMaxCells) + ")");
          global_ok = false;
        }
      }
      kernel.global.push_back(std::move(*e));
    }
  } else {
    // The default: one work-item per element of the first written array's local buffer.
    for (const KernelArg& a : kernel.args) {
      if (a.kind != KernelArg::Kind::kArray || a.array < 0 || a.access == Access::kRead) continue;
      for (int d = 0; grid_ok_ && d < m_.dims; ++d) {
        Expr e;
        e.kind = Expr::Kind::kArrayDim;
        e.text = "extent";
        e.array = a.array;
        e.dim = d;
        e.loc = kernel.loc;
        kernel.global.push_back(e);
      }
      break;
    }
    global_ok = global_ok && !kernel.global.empty();
  }

  // All the work-items of a launch over the whole grid, with run-time sizes at their values there.
  if (global_ok && !k.global.empty()) {
    EvalEnv whole = whole_grid_env();
    std::int64_t items = 1;
    bool overflow = false;
    for (const Expr& g : kernel.global) {
      std::optional<Value> v = eval(g, m_.constant_values, &whole);
      if (v && !v->is_float && v->i > 0)
        overflow = __builtin_mul_overflow(items, v->i, &items) || overflow;
    }
    if (overflow || items > kMaxCells) {
      diags_.error(k.global.front().loc,
                   "global size of kernel " + quote(kernel.name) + " is " +
                       (overflow ? std::string("more than 2^63") : std::to_string(items)) +
                       " work-items over the whole grid; stepgen's limit is 2^48 (" +
                       std::to_string(kMaxCells) + ")");
      global_ok = false;
    }
  }

  if (k.local.empty()) return;
  if (k.local.size() == 1 && k.local.front().value == "auto") {
    build_local_auto(k, kernel);
    return;
  }
  if (k.local_candidates.present)
    diags_.error(k.local_candidates.loc, "'candidates' goes with <local size=\"auto\"/>");
  if (grid_ok_ && k.local.size() != static_cast<std::size_t>(m_.dims)) {
    count_error(k.local, "local");
    return;
  }
  bool local_ok = true;
  for (const spec::Text& l : k.local) {
    std::optional<std::int64_t> v = constant_int(l, "local size", 1);
    if (v)
      kernel.local.push_back(*v);
    else
      local_ok = false;
  }
  if (!local_ok || !global_ok) return;

  // Per-device sizes are judged on the whole grid: extents are the arrays' sizes there.
  EvalEnv whole = whole_grid_env();
  for (std::size_t d = 0; d < kernel.local.size(); ++d) {
    const Expr& g = kernel.global[d];
    std::optional<Value> v = eval(g, m_.constant_values, &whole);
    if (!v || v->is_float || v->i <= 0) continue;
    std::int64_t local = kernel.local[d];
    if (v->i % local == 0) continue;
    std::string dim = dim_label(static_cast<int>(d));
    if (!g.is_runtime()) {
      diags_.error(k.local[d].loc, "local size " + std::to_string(local) +
                                       " does not divide the global size " + std::to_string(v->i) +
                                       " in dimension " + dim);
    } else {
      diags_.warning(k.local[d].loc, "local size " + std::to_string(local) + " does not divide " +
                                         std::to_string(v->i) +
                                         ", the global size over the whole grid in dimension " +
                                         dim + "; the kernel must guard its index");
    }
  }
}

}  // namespace stepgen::model::detail

// Kernel signatures against the spec's <arg>s: the comparison, and the checker that reads each
// kernel source once and reports into the spec's diagnostics.

#include "checks/signature.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace stepgen::model {

namespace {

std::string quote(const std::string& s) {
  return "'" + s + "'";
}

// The spec's name of a type, and CUDA's where it differs: "uint (CUDA: unsigned int)".
std::string spec_type(ScalarType t, Language language) {
  std::string name = type_info(t).name;
  if (language == Language::kCuda && name != cuda_type_name(t))
    name += std::string(" (CUDA: ") + cuda_type_name(t) + ")";
  return name;
}

std::string param_name(const KernelParam& p, std::size_t position) {
  return "parameter " + std::to_string(position) + (p.name.empty() ? "" : " " + quote(p.name));
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void note_param(const KernelParam& p, std::size_t position, Diagnostics& diags) {
  if (p.file.empty() || p.loc.line <= 0) return;
  diags.add_in(Severity::kNote, p.file, p.loc,
               param_name(p, position) + " is declared here as " + quote(p.type), p.line);
}

const char* space_name(KernelParam::Space s) {
  switch (s) {
    case KernelParam::Space::kGlobal:
      return "__global";
    case KernelParam::Space::kConstant:
      return "__constant";
    case KernelParam::Space::kLocal:
      return "__local";
    case KernelParam::Space::kPrivate:
      return "private";
  }
  return "private";
}

}  // namespace

const KernelSignature* SourceSignatures::find(const std::string& name) const {
  for (const KernelSignature& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

const char* cuda_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat:
      return "float";
    case ScalarType::kDouble:
      return "double";
    case ScalarType::kInt:
      return "int";
    case ScalarType::kUint:
      return "unsigned int";
    case ScalarType::kLong:
      return "long long";
    case ScalarType::kUlong:
      return "unsigned long long";
    case ScalarType::kShort:
      return "short";
    case ScalarType::kUshort:
      return "unsigned short";
    case ScalarType::kChar:
      return "signed char";
    case ScalarType::kUchar:
      return "unsigned char";
  }
  return "int";
}

namespace {

// A table argument (<arg table="T"/>) against its parameter: a pointer to global or constant
// memory, to const (tables are read-only: a kernel that could write one is refused), to the
// table's type.
void compare_table_param(const Model& m, const KernelArg& a, const KernelParam& p,
                         const std::string& arg, const std::string& param, Language language,
                         Diagnostics& diags) {
  const Table* table = a.table >= 0 ? &m.tables[static_cast<std::size_t>(a.table)] : nullptr;
  std::string what = table ? "table " + quote(table->name) + " (" + arg + ")" : arg;
  if (p.kind != KernelParam::Kind::kPointer) {
    diags.error(a.loc, arg + " is " + (table ? "table " + quote(table->name) : "a table") +
                           ", but " + param + " is not a pointer: " + quote(p.type));
    return;
  }
  if (p.space == KernelParam::Space::kLocal || p.space == KernelParam::Space::kPrivate)
    diags.error(a.loc, what + " is a buffer in global memory, but " + param + " is a " +
                           space_name(p.space) + " pointer: " + quote(p.type));
  if (!p.pointee_const)
    diags.error(a.loc, what + " is read-only, but " + param + " is " + quote(p.type) +
                           ", through which the kernel could write it: declare it " +
                           (language == Language::kCuda ? "const T*"
                                                        : "__global const T* or __constant T*") +
                           " (tables are never written)");
  if (table && !p.element)
    diags.warning(a.loc, "cannot check the element type of " + what + ": " + param + " points to " +
                             quote(p.element_type) + ", which is not a type of the spec");
  else if (table && *p.element != table->type)
    diags.error(a.loc, what + " holds " + spec_type(table->type, language) + ", but " + param +
                           " points to " + p.element_type);
}

// Two array arguments whose parameters are named after each other's arrays (array 'k' passed
// as parameter 'u' and array 'u' as parameter 'k'): <arg>s bind by position, so this is most
// likely a swap, which no type check sees (both float*) and which runs to a wrong answer. A
// warning, at the first of the two: a kernel may mean it (one kernel launched both ways).
void warn_swapped_arrays(const Model& m, const Kernel& k, const KernelSignature& sig,
                         const std::string& in, Diagnostics& diags) {
  const std::size_t n = std::min(k.args.size(), sig.params.size());
  auto array_of = [&](std::size_t i) -> const Array* {
    const KernelArg& a = k.args[i];
    if (a.kind != KernelArg::Kind::kArray || a.array < 0) return nullptr;
    return &m.arrays[static_cast<std::size_t>(a.array)];
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Array* ai = array_of(i);
    const std::string& pi = sig.params[i].name;
    if (!ai || pi.empty() || pi == ai->name) continue;
    for (std::size_t j = i + 1; j < n; ++j) {
      const Array* aj = array_of(j);
      if (!aj || aj == ai || sig.params[j].name != ai->name || pi != aj->name) continue;
      diags.warning(k.args[i].loc,
                    "array " + quote(ai->name) + " is passed as " +
                        param_name(sig.params[i], i + 1) + " and array " + quote(aj->name) +
                        " as " + param_name(sig.params[j], j + 1) + in +
                        ": are these <arg>s swapped? (<arg>s bind to the parameters by position)");
    }
  }
}

}  // namespace

void compare_signature(const Model& m, const Kernel& k, const KernelSignature& sig,
                       const std::string& source, Language language, Diagnostics& diags) {
  const std::string in = " of " + quote(k.name) + " in " + source;
  const std::size_t given = k.args.size();
  const std::size_t taken = sig.params.size();

  // Parameters without an <arg>: the kernel would run with an unset argument.
  if (taken > given) {
    std::string missing;
    for (std::size_t i = given; i < taken; ++i) {
      const KernelParam& p = sig.params[i];
      missing += (missing.empty() ? "" : ", ") + param_name(p, i + 1) + " (" + p.type + ")";
    }
    diags.error(k.loc, "kernel " + quote(k.name) + " in " + source + " takes " +
                           plural(taken, "parameter", "parameters") + " but the spec gives " +
                           plural(given, "argument", "arguments") + ": no <arg> for " + missing);
    note_param(sig.params[given], given + 1, diags);
  }

  for (std::size_t i = 0; i < given; ++i) {
    const KernelArg& a = k.args[i];
    const std::string arg = "argument " + std::to_string(i + 1) + " of kernel " + quote(k.name);
    if (i >= taken) {
      diags.error(a.loc, arg + " has no parameter: " + quote(k.name) + " in " + source + " takes " +
                             plural(taken, "parameter", "parameters"));
      continue;
    }
    const KernelParam& p = sig.params[i];
    const std::string param = param_name(p, i + 1) + in;
    std::size_t errors = static_cast<std::size_t>(diags.error_count());

    if (a.kind == KernelArg::Kind::kArray) {
      const Array* array = a.array >= 0 ? &m.arrays[static_cast<std::size_t>(a.array)] : nullptr;
      std::string what = array ? "array " + quote(array->name) + " (" + arg + ")" : arg;
      if (p.kind != KernelParam::Kind::kPointer) {
        diags.error(a.loc, arg + " is " + (array ? "array " + quote(array->name) : "an array") +
                               ", but " + param + " is not a pointer: " + quote(p.type));
      } else {
        if (p.space == KernelParam::Space::kLocal || p.space == KernelParam::Space::kPrivate)
          diags.error(a.loc, what + " is a buffer in global memory, but " + param + " is a " +
                                 space_name(p.space) + " pointer: " + quote(p.type));
        if (a.access != Access::kRead && p.pointee_const)
          diags.error(a.loc,
                      what + " is written (access " +
                          (a.access == Access::kWrite ? "write" : "readwrite") + "), but " + param +
                          " is " + quote(p.type) +
                          (p.space == KernelParam::Space::kConstant ? ", in __constant memory"
                                                                    : ", a pointer to const") +
                          ": the kernel cannot write it");
        // A template's type parameter (libclang: 'T (type-parameter-0-0)'): the launch
        // instantiates the template with the first array's type (Kernel::cuda_template).
        const bool type_parameter = p.element_type.find("type-parameter-") != std::string::npos;
        if (array && !p.element && !type_parameter)
          diags.warning(a.loc, "cannot check the element type of " + what + ": " + param +
                                   " points to " + quote(p.element_type) +
                                   ", which is not a type of the spec");
        else if (array && p.element && *p.element != array->type)
          diags.error(a.loc, what + " holds " + spec_type(array->type, language) + ", but " +
                                 param + " points to " + p.element_type);
      }
    } else if (a.kind == KernelArg::Kind::kTable) {
      compare_table_param(m, a, p, arg, param, language, diags);
    } else {
      std::string type = spec_type(a.scalar_type, language);
      if (p.kind != KernelParam::Kind::kScalar)
        diags.error(a.loc, arg + " is a scalar (" + type + "), but " + param +
                               " is a pointer: " + quote(p.type));
      else if (!p.element)
        diags.warning(a.loc, "cannot check scalar " + arg + " (" + type + ") against " + param +
                                 ": " + quote(p.type) + " is not a type of the spec");
      else if (*p.element != a.scalar_type)
        diags.error(a.loc, "scalar " + arg + " is " + type + ", but " + param + " is " +
                               p.element_type + " (write scalar=\"" + type_info(*p.element).name +
                               "\", or change the kernel)");
    }
    if (static_cast<std::size_t>(diags.error_count()) > errors) note_param(p, i + 1, diags);
  }
  warn_swapped_arrays(m, k, sig, in, diags);
}

const SourceSignatures& SignatureChecker::signatures(const std::string& path, Language language) {
  auto key = std::make_pair(path, static_cast<int>(language));
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  SourceSignatures s =
      language == Language::kCuda ? read_cuda_signatures(path) : read_opencl_signatures(path);
  if (language == Language::kOpenCL && s.read) annotate_opencl_signatures(path, s);
  return cache_.emplace(key, std::move(s)).first->second;
}

void SignatureChecker::check(const Model& m, Diagnostics& diags) {
  // Each source's warning or build errors are said once per spec, at its first kernel.
  std::set<std::pair<std::string, int>> said;
  for (const Kernel& k : m.kernels) {
    std::vector<std::pair<std::string, Language>> sources = {{k.source, k.language}};
    if (!k.cuda_source.empty() && k.language != Language::kCuda)
      sources.emplace_back(k.cuda_source, Language::kCuda);
    for (const auto& [source, language] : sources) {
      std::filesystem::path p(source);
      std::string path = p.is_absolute() || m.spec_dir.empty()
                             ? p.generic_string()
                             : (std::filesystem::path(m.spec_dir) / p).generic_string();
      const SourceSignatures& s = signatures(path, language);
      bool first = said.insert({path, static_cast<int>(language)}).second;
      if (!s.read) {
        if (!first) continue;
        if (!s.unavailable.empty()) {
          diags.warning(k.loc, "signatures not checked against " + source + ": " + s.unavailable);
          continue;
        }
        bool located = false;
        for (const SourceMessage& msg : s.messages) {
          if (msg.loc.line <= 0) continue;
          diags.add_in(msg.severity, path, msg.loc, msg.message, msg.line);
          located = located || msg.severity == Severity::kError;
        }
        diags.error(k.loc, "kernel source " + quote(source) + " of kernel " + quote(k.name) +
                               " does not build with " + s.compiler +
                               (located ? std::string(" (errors above)") : ":\n" + s.log));
        continue;
      }
      if (const KernelSignature* sig = s.find(k.name)) {
        compare_signature(m, k, *sig, source, language, diags);
        continue;
      }
      std::vector<std::string> names;
      std::string list;
      for (const KernelSignature& ks : s.kernels) {
        names.push_back(ks.name);
        list += (list.empty() ? "" : ", ") + quote(ks.name);
      }
      diags.error(k.loc, "no kernel " + quote(k.name) + " in " + source + ", which defines " +
                             (list.empty() ? std::string("no kernel") : list) +
                             did_you_mean(k.name, names));
    }
  }
}

}  // namespace stepgen::model

// OpenCL kernel signatures from the compiler: the source is built with -cl-kernel-arg-info on
// one OpenCL device (PoCL's, where present) and read back with clGetKernelArgInfo.

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

#include "checks/signature.hpp"

#ifdef STEPGEN_HAVE_OPENCL
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "checks/opencl_device.hpp"
#endif

namespace stepgen::model {

#ifndef STEPGEN_HAVE_OPENCL

SourceSignatures read_opencl_signatures(const std::string&) {
  SourceSignatures s;
  s.unavailable = "stepgen was built without OpenCL";
  return s;
}

#else

namespace {

std::string read_text(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string nth_line(const std::string& text, int line) {
  std::istringstream in(text);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i)
    if (i == line) {
      if (!s.empty() && s.back() == '\r') s.pop_back();
      return s;
    }
  return {};
}

// The spec's type for an OpenCL C type name as clGetKernelArgInfo spells it.
std::optional<ScalarType> opencl_scalar(const std::string& name) {
  static const std::pair<const char*, ScalarType> kNames[] = {
      {"float", ScalarType::kFloat},
      {"double", ScalarType::kDouble},
      {"int", ScalarType::kInt},
      {"uint", ScalarType::kUint},
      {"unsigned int", ScalarType::kUint},
      {"long", ScalarType::kLong},
      {"ulong", ScalarType::kUlong},
      {"unsigned long", ScalarType::kUlong},
      {"short", ScalarType::kShort},
      {"ushort", ScalarType::kUshort},
      {"unsigned short", ScalarType::kUshort},
      {"char", ScalarType::kChar},
      {"signed char", ScalarType::kChar},
      {"uchar", ScalarType::kUchar},
      {"unsigned char", ScalarType::kUchar}};
  for (const auto& [n, t] : kNames)
    if (name == n) return t;
  return std::nullopt;
}

// True when `s` starts with `word` followed by ": " (both are then removed from `s`).
bool take_kind(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word || s.substr(word.size(), 2) != ": ") return false;
  s.remove_prefix(word.size() + 2);
  return true;
}

// "FILE:L:C: " at the start of `s`: FILE without spaces or colons, L and C digits. Consumed.
bool take_position(std::string_view& s, int& line, int& col) {
  const std::size_t file_end = s.find(':');
  if (file_end == std::string_view::npos ||
      s.substr(0, file_end).find_first_of(" \t") != std::string_view::npos)
    return false;
  std::size_t i = file_end + 1;
  auto number = [&](int& out) {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start || i - start > 9) return false;
    out = std::stoi(std::string(s.substr(start, i - start)));
    return true;
  };
  if (!number(line) || i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!number(col) || s.substr(i, 2) != ": ") return false;
  s.remove_prefix(i + 2);
  return true;
}

// Compiler messages with a position: PoCL writes "error: FILE:L:C: MESSAGE", others
// "FILE:L:C: error: MESSAGE". (Plain string scanning, not <regex>: GCC 12's <regex> warns
// maybe-uninitialized under the sanitizer build, an error there.)
std::vector<SourceMessage> parse_log(const std::string& log, const std::string& source) {
  std::vector<SourceMessage> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::string_view rest(line);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    std::string kind;
    for (const char* k : {"error", "warning", "note"})
      if (take_kind(rest, k)) {
        kind = k;
        break;
      }
    SourceMessage msg;
    if (!take_position(rest, msg.loc.line, msg.loc.col)) continue;
    if (kind.empty())
      for (const char* k : {"fatal error", "error", "warning", "note"})
        if (take_kind(rest, k)) {
          kind = k;
          break;
        }
    if (kind == "error" || kind == "fatal error")
      msg.severity = Severity::kError;
    else if (kind == "warning")
      msg.severity = Severity::kWarning;
    else if (kind == "note")
      msg.severity = Severity::kNote;
    else
      continue;
    while (!rest.empty() && (rest.back() == '\r' || rest.back() == ' ')) rest.remove_suffix(1);
    msg.message = std::string(rest);
    msg.line = nth_line(source, msg.loc.line);
    out.push_back(std::move(msg));
  }
  return out;
}

std::string kernel_info_string(cl_kernel k, cl_uint i, cl_kernel_arg_info what) {
  std::size_t n = 0;
  if (clGetKernelArgInfo(k, i, what, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::string s(n, '\0');
  clGetKernelArgInfo(k, i, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

KernelParam read_param(cl_kernel k, cl_uint i) {
  KernelParam p;
  cl_kernel_arg_address_qualifier space = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_type_qualifier qualifier = 0;
  clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space, nullptr);
  clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifier, &qualifier, nullptr);
  p.name = kernel_info_string(k, i, CL_KERNEL_ARG_NAME);
  std::string type = trim(kernel_info_string(k, i, CL_KERNEL_ARG_TYPE_NAME));
  switch (space) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
      p.space = KernelParam::Space::kGlobal;
      break;
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      p.space = KernelParam::Space::kConstant;
      break;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      p.space = KernelParam::Space::kLocal;
      break;
    default:
      p.space = KernelParam::Space::kPrivate;
  }
  bool pointer = !type.empty() && type.back() == '*';
  p.element_type = pointer ? trim(type.substr(0, type.size() - 1)) : type;
  p.element = opencl_scalar(p.element_type);
  if (pointer) {
    p.kind = KernelParam::Kind::kPointer;
    p.pointee_const =
        (qualifier & CL_KERNEL_ARG_TYPE_CONST) != 0 || p.space == KernelParam::Space::kConstant;
    std::string space_word = p.space == KernelParam::Space::kGlobal     ? "__global "
                             : p.space == KernelParam::Space::kConstant ? "__constant "
                             : p.space == KernelParam::Space::kLocal    ? "__local "
                                                                        : "";
    p.type = space_word +
             (p.pointee_const && p.space != KernelParam::Space::kConstant ? "const " : "") +
             p.element_type + "*";
  } else {
    p.type = p.element_type;
  }
  return p;
}

}  // namespace

SourceSignatures read_opencl_signatures(const std::string& path) {
  SourceSignatures s;
  bool ok = false;
  std::string text = read_text(path, ok);
  if (!ok) {
    s.unavailable = "cannot read " + path;
    return s;
  }
  const OpenclDevice& c = opencl_device();
  if (!c.device) {
    s.unavailable = c.why;
    return s;
  }
  s.compiler = c.name;
  cl_int err = CL_SUCCESS;
  const char* source = text.c_str();
  std::size_t length = text.size();
  cl_program program = clCreateProgramWithSource(c.context, 1, &source, &length, &err);
  if (err != CL_SUCCESS) {
    s.unavailable = "clCreateProgramWithSource failed (" + std::to_string(err) + ")";
    return s;
  }
  {
    // PoCL's compiler also prints "1 error generated." on stderr; the build log says it all.
    std::fflush(stderr);
    int saved = dup(2);
    int null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, 2);
    err = clBuildProgram(program, 1, &c.device, "-cl-kernel-arg-info", nullptr, nullptr);
    std::fflush(stderr);
    if (saved >= 0 && null >= 0) dup2(saved, 2);
    if (null >= 0) close(null);
    if (saved >= 0) close(saved);
  }
  if (err != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(program, c.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(program, c.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    clReleaseProgram(program);
    if (err != CL_BUILD_PROGRAM_FAILURE) {
      s.unavailable = "clBuildProgram failed (" + std::to_string(err) + ")";
      return s;
    }
    s.log = log;
    s.messages = parse_log(log, text);
    return s;
  }
  cl_uint count = 0;
  clCreateKernelsInProgram(program, 0, nullptr, &count);
  std::vector<cl_kernel> kernels(count);
  if (count) clCreateKernelsInProgram(program, count, kernels.data(), nullptr);
  bool info = true;
  for (cl_kernel k : kernels) {
    KernelSignature sig;
    std::size_t n = 0;
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n);
    sig.name.assign(n, '\0');
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, n, sig.name.data(), nullptr);
    while (!sig.name.empty() && sig.name.back() == '\0') sig.name.pop_back();
    sig.file = path;
    cl_uint args = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr);
    for (cl_uint i = 0; i < args; ++i) {
      // An implementation may keep no argument info (CL_KERNEL_ARG_INFO_NOT_AVAILABLE).
      cl_kernel_arg_address_qualifier space = 0;
      info = info && clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space,
                                        nullptr) == CL_SUCCESS;
      if (info) sig.params.push_back(read_param(k, i));
    }
    s.kernels.push_back(std::move(sig));
    clReleaseKernel(k);
  }
  clReleaseProgram(program);
  if (!info) {
    s.kernels.clear();
    s.unavailable = c.name + " gives no kernel argument info (clGetKernelArgInfo)";
    return s;
  }
  std::sort(s.kernels.begin(), s.kernels.end(),
            [](const KernelSignature& a, const KernelSignature& b) { return a.name < b.name; });
  s.read = true;
  return s;
}

#endif

}  // namespace stepgen::model

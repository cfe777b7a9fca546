#include "checks/validate_util.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>

#include "diag/diagnostics.hpp"

namespace stepgen::model::detail {

spec::Loc loc_in(const spec::Text& text, std::size_t offset) {
  if (text.loc.line <= 0) return text.loc;
  return LineIndex(text.value).loc_from(text.loc, offset);
}

void integer_range(ScalarType t, long double& lo, long double& hi) {
  int bits = type_info(t).bytes * 8;
  bool is_signed = t == ScalarType::kInt || t == ScalarType::kLong || t == ScalarType::kShort ||
                   t == ScalarType::kChar;
  if (is_signed) {
    lo = -std::ldexp(1.0L, bits - 1);
    hi = std::ldexp(1.0L, bits - 1) - 1;
  } else {
    lo = 0;
    hi = std::ldexp(1.0L, bits) - 1;
  }
}

std::string range_string(long double v) {
  // Integer bounds up to 2^64 - 1: print through unsigned/signed 64-bit integers.
  if (v < 0) return std::to_string(static_cast<long long>(v));
  return std::to_string(static_cast<unsigned long long>(v));
}

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  if (std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

namespace {

// The keywords of C11, C++20 and OpenCL C, OpenCL C's built-in scalar and object types, and the
// CUDA qualifiers; blank-separated.
const char* const kKeywords =
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert "
    "_Thread_local __constant __global __kernel __local __private __read_only __read_write "
    "__write_only alignas alignof and and_eq asm auto bitand bitor bool break case catch char "
    "char16_t char32_t char8_t class co_await co_return co_yield compl complex concept const "
    "const_cast consteval constexpr constinit constant continue decltype default delete do "
    "double dynamic_cast else enum event_t explicit export extern false float for friend "
    "global goto half if image1d_array_t image1d_buffer_t image1d_t image2d_array_t image2d_t "
    "image3d_t imaginary inline int intptr_t kernel local long mutable namespace new noexcept "
    "not not_eq nullptr operator or or_eq private protected ptrdiff_t public read_only "
    "read_write register reinterpret_cast requires restrict return sampler_t short signed "
    "size_t sizeof static static_assert static_cast struct switch template this thread_local "
    "throw true try typedef typeid typename uchar uint uintptr_t ulong union unsigned ushort "
    "using virtual void volatile wchar_t while write_only xor xor_eq __global__ __device__ "
    "__host__ __shared__ __constant__ __restrict__ __attribute__ __inline __asm";

const std::set<std::string>& keywords() {
  static const std::set<std::string> set = [] {
    std::set<std::string> words;
    std::istringstream in(kKeywords);
    for (std::string w; in >> w;) words.insert(w);
    return words;
  }();
  return set;
}

bool is_vector_type(const std::string& name) {
  static constexpr std::array<std::string_view, 11> kBases = {"char", "uchar", "short", "ushort",
                                                              "int",  "uint",  "long",  "ulong",
                                                              "half", "float", "double"};
  for (std::string_view base : kBases) {
    if (name.size() <= base.size() || name.compare(0, base.size(), base) != 0) continue;
    std::string_view width = std::string_view(name).substr(base.size());
    if (width == "2" || width == "3" || width == "4" || width == "8" || width == "16") return true;
  }
  return false;
}

}  // namespace

bool is_keyword(const std::string& name) {
  return keywords().count(name) > 0 || is_vector_type(name);
}

// The built-in functions of OpenCL C (1.2 to 3.0, "Built-in Functions" of the OpenCL C
// specification): a kernel of one of their names collides with the built-in (PoCL renames it
// `_cl_NAME`, other compilers refuse it), so the program could not find it by its name.
bool is_opencl_builtin(const std::string& name) {
  static const std::set<std::string> kNames = {
      // Work-item functions.
      "get_work_dim", "get_global_size", "get_global_id", "get_local_size",
      "get_enqueued_local_size", "get_local_id", "get_num_groups", "get_group_id",
      "get_global_offset", "get_global_linear_id", "get_local_linear_id", "get_sub_group_size",
      "get_max_sub_group_size", "get_num_sub_groups", "get_enqueued_num_sub_groups",
      "get_sub_group_id", "get_sub_group_local_id",
      // Math functions.
      "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi",
      "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2",
      "exp10", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp",
      "hypot", "ilogb", "ldexp", "lgamma", "lgamma_r", "log", "log2", "log10", "log1p", "logb",
      "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow", "pown", "powr", "remainder",
      "remquo", "rint", "rootn", "round", "rsqrt", "sin", "sincos", "sinh", "sinpi", "sqrt", "tan",
      "tanh", "tanpi", "tgamma", "trunc",
      // Integer functions.
      "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clamp", "clz", "ctz", "mad_hi", "mad_sat",
      "max", "min", "mul_hi", "rotate", "sub_sat", "upsample", "popcount", "mad24", "mul24",
      // Common functions.
      "degrees", "mix", "radians", "step", "smoothstep", "sign",
      // Geometric functions.
      "cross", "dot", "distance", "length", "normalize", "fast_distance", "fast_length",
      "fast_normalize",
      // Relational functions.
      "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal",
      "islessgreater", "isfinite", "isinf", "isnan", "isnormal", "isordered", "isunordered",
      "signbit", "any", "all", "bitselect", "select",
      // Synchronization, fences, async copies, miscellaneous vector and printf.
      "barrier", "work_group_barrier", "sub_group_barrier", "mem_fence", "read_mem_fence",
      "write_mem_fence", "atomic_work_item_fence", "async_work_group_copy",
      "async_work_group_strided_copy", "wait_group_events", "prefetch", "vec_step", "shuffle",
      "shuffle2", "printf", "to_global", "to_local", "to_private", "get_fence", "enqueue_kernel",
      "enqueue_marker", "retain_event", "release_event", "create_user_event", "is_valid_event",
      "set_user_event_status", "capture_event_profiling_info", "get_default_queue", "ndrange_1D",
      "ndrange_2D", "ndrange_3D", "read_pipe", "write_pipe", "reserve_read_pipe",
      "reserve_write_pipe", "commit_read_pipe", "commit_write_pipe", "is_valid_reserve_id",
      "get_pipe_num_packets", "get_pipe_max_packets"};
  if (kNames.count(name)) return true;
  // Families by prefix: vload/vstore (vload4, vload_half, vstorea_half8, ...), atomics,
  // conversions and reinterpretations, native_ and half_ math, images, work-group and
  // sub-group collectives.
  for (const char* prefix :
       {"vload", "vstore", "atomic_", "atom_", "convert_", "as_", "native_", "half_", "read_image",
        "write_image", "get_image_", "work_group_", "sub_group_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

bool is_reserved_by_expressions(const std::string& name) {
  static const char* const kWords[] = {
      "step", "min", "max", "round_up", "extent", "global_extent", "offset", "pi",    "pow",
      "exp",  "log", "sin", "cos",      "tan",    "sqrt",          "abs",    "floor", "ceil"};
  for (const char* w : kWords)
    if (name == w) return true;
  return false;
}

bool is_system_macro(const std::string& name) {
  // The object-like macros of <cstdio>, <cstdlib>, <cmath>, <climits>, <cfloat>, <cstdint>,
  // <cerrno> (g++ -dM -E) a spec might well spell: the rest have prefixes checked below.
  static const std::set<std::string> kMacros = {
      "NULL",       "EOF",          "errno",        "stdin",
      "stdout",     "stderr",       "BUFSIZ",       "FILENAME_MAX",
      "RAND_MAX",   "EXIT_SUCCESS", "EXIT_FAILURE", "NAN",
      "INFINITY",   "HUGE_VAL",     "HUGE_VALF",    "MB_CUR_MAX",
      "CHAR_BIT",   "EDOM",         "ERANGE",       "EINVAL",
      "EILSEQ",     "SEEK_SET",     "SEEK_CUR",     "SEEK_END",
      "L_tmpnam",   "TMP_MAX",      "FOPEN_MAX",    "math_errhandling",
      "MATH_ERRNO", "FP_NAN",       "FP_INFINITE",  "FP_ZERO",
      "FP_NORMAL",  "FP_SUBNORMAL", "DECIMAL_DIG",  "CLOCKS_PER_SEC"};
  if (kMacros.count(name)) return true;
  // M_PI, M_E, ...; INT_MAX, INT32_MAX, SIZE_MAX, DBL_EPSILON, ...; the APIs' own prefixes.
  static const std::regex kPatterns(
      "M_[A-Za-z0-9_]+|U?INT([0-9]+|MAX|PTR|_FAST[0-9]+|_LEAST[0-9]+)?_(MAX|MIN|WIDTH|C)|"
      "(CHAR|SCHAR|UCHAR|SHRT|USHRT|LONG|ULONG|LLONG|ULLONG|SIZE|PTRDIFF|WCHAR|WINT|"
      "SIG_ATOMIC)_(MAX|MIN|WIDTH|BIT)|(FLT|DBL|LDBL)_[A-Z0-9_]+|"
      "(CL_|MPI_|OMPI_|H5|CUDART_|__)[A-Za-z0-9_]*");
  return std::regex_match(name, kPatterns);
}

bool is_reserved_by_cmake(const std::string& name) {
  static const std::set<std::string> kTargets = {"all",
                                                 "clean",
                                                 "help",
                                                 "install",
                                                 "test",
                                                 "package",
                                                 "package_source",
                                                 "edit_cache",
                                                 "rebuild_cache",
                                                 "depend",
                                                 "list_install_components",
                                                 "ALL_BUILD",
                                                 "ZERO_CHECK",
                                                 "RUN_TESTS",
                                                 "INSTALL",
                                                 "PACKAGE",
                                                 "preinstall"};
  return kTargets.count(name) > 0;
}

// True for [+-]digits[.digits][e[+-]digits] (or a fraction alone, ".5"): a C decimal literal
// without suffix; strtod alone would also take "inf", "nan" and hexadecimal.
bool is_decimal_number(const std::string& s) {
  std::size_t i = 0, n = s.size();
  auto digits = [&] {
    std::size_t from = i;
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i - from;
  };
  if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t whole = digits(), fraction = 0;
  if (i < n && s[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (whole + fraction == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == n;
}

std::string quote(const std::string& value) {
  return "'" + value + "'";
}

}  // namespace stepgen::model::detail

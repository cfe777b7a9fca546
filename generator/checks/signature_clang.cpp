// CUDA kernel signatures from libclang: the file is parsed as CUDA for the host side, without the
// CUDA headers (a small prelude defines __global__ and the other qualifiers as the attributes
// clang knows), function bodies skipped. Each __global__ function's parameters are read from
// the AST with their canonical types, so typedefs (int64_t, a user's `real`) are resolved.

#include "checks/signature.hpp"

#ifdef STEPGEN_HAVE_LIBCLANG
#include <clang-c/Index.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>
#endif

namespace stepgen::model {

#ifndef STEPGEN_HAVE_LIBCLANG

SourceSignatures read_cuda_signatures(const std::string&) {
  SourceSignatures s;
  s.unavailable = "stepgen was built without libclang (Debian's libclang-dev)";
  return s;
}

void annotate_opencl_signatures(const std::string&, SourceSignatures&) {}

#else

namespace {

// Without the CUDA headers, the qualifiers nvcc defines as macros are defined here, as
// CUDA's host_defines.h does, and the vector types of vector_types.h (float4, int2, ...), and
// __half and __nv_bfloat16, as types of the same size (a kernel taking `const float4*` was
// refused: the unknown name made libclang read the parameter as an invalid 'const int *').
const char kPreludeName[] = "/stepgen/cuda_prelude.h";
const char kPrelude[] = R"(#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define STEPGEN_VEC_(t, n, a) struct __attribute__((aligned(a))) n##1 { t x; }; \
  struct __attribute__((aligned(a * 2))) n##2 { t x, y; }; struct n##3 { t x, y, z; }; \
  struct __attribute__((aligned(a * 4))) n##4 { t x, y, z, w; };
STEPGEN_VEC_(signed char, char, 1)
STEPGEN_VEC_(unsigned char, uchar, 1)
STEPGEN_VEC_(short, short, 2)
STEPGEN_VEC_(unsigned short, ushort, 2)
STEPGEN_VEC_(int, int, 4)
STEPGEN_VEC_(unsigned int, uint, 4)
STEPGEN_VEC_(long, long, 8)
STEPGEN_VEC_(unsigned long, ulong, 8)
STEPGEN_VEC_(long long, longlong, 8)
STEPGEN_VEC_(unsigned long long, ulonglong, 8)
STEPGEN_VEC_(float, float, 4)
STEPGEN_VEC_(double, double, 8)
#undef STEPGEN_VEC_
struct dim3 { unsigned int x, y, z; };
struct __half { unsigned short x; };
struct __nv_bfloat16 { unsigned short x; };
typedef __half half;
)";

// libclang is opened at run time, not linked: PoCL loads its own LLVM (often another version),
// and two LLVMs in the process's global symbol scope crash in PoCL's compiler. dlopen's
// RTLD_LOCAL keeps libclang's LLVM to libclang.
#define STEPGEN_LIBCLANG_FUNCTIONS(X) \
  X(clang_Location_isFromMainFile)    \
  X(clang_createIndex)                \
  X(clang_disposeIndex)               \
  X(clang_disposeString)              \
  X(clang_disposeTranslationUnit)     \
  X(clang_getCString)                 \
  X(clang_getCanonicalType)           \
  X(clang_getCursorKind)              \
  X(clang_getCursorLocation)          \
  X(clang_getCursorSpelling)          \
  X(clang_getCursorType)              \
  X(clang_getPointeeType)             \
  X(clang_getSpellingLocation)        \
  X(clang_getTranslationUnitCursor)   \
  X(clang_getTypeSpelling)            \
  X(clang_isConstQualifiedType)       \
  X(clang_isInvalidDeclaration)       \
  X(clang_parseTranslationUnit2)      \
  X(clang_visitChildren)

struct Libclang {
#define STEPGEN_MEMBER(f) decltype(&::f) f = nullptr;
  STEPGEN_LIBCLANG_FUNCTIONS(STEPGEN_MEMBER)
#undef STEPGEN_MEMBER
  std::string error;  ///< why it could not be opened ("" = it was)
};

const Libclang& lib() {
  static const Libclang l = [] {
    Libclang out;
    void* handle = nullptr;
    std::string tried;
    for (const char* name : {STEPGEN_LIBCLANG_PATH, "libclang.so", "libclang.so.1"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle) break;
      tried += std::string(tried.empty() ? "" : ", ") + name;
    }
    if (!handle) {
      out.error = "libclang cannot be opened (tried " + tried + "; Debian: libclang-dev)";
      return out;
    }
#define STEPGEN_LOAD(f)                                        \
  out.f = reinterpret_cast<decltype(&::f)>(dlsym(handle, #f)); \
  if (!out.f && out.error.empty()) out.error = "libclang has no " #f;
    STEPGEN_LIBCLANG_FUNCTIONS(STEPGEN_LOAD)
#undef STEPGEN_LOAD
    return out;
  }();
  return l;
}

std::string str(CXString s) {
  const char* c = lib().clang_getCString(s);
  std::string out = c ? c : "";
  lib().clang_disposeString(s);
  return out;
}

// A type as written without its qualifiers, and what it stands for where that differs:
// "real (float)", "int64_t (long)".
std::string spelling(CXType t) {
  auto bare = [](std::string s) {
    for (bool again = true; again;) {
      again = false;
      for (const char* q : {"const ", "volatile ", "__global ", "__constant ", "__local ",
                            "__private ", "__generic "})
        if (s.rfind(q, 0) == 0) {
          s.erase(0, std::strlen(q));
          again = true;
        }
    }
    return s;
  };
  std::string written = bare(str(lib().clang_getTypeSpelling(t)));
  std::string canonical = bare(str(lib().clang_getTypeSpelling(lib().clang_getCanonicalType(t))));
  return written == canonical ? written : written + " (" + canonical + ")";
}

std::optional<ScalarType> cuda_scalar(CXTypeKind kind) {
  switch (kind) {
    case CXType_Float:
      return ScalarType::kFloat;
    case CXType_Double:
      return ScalarType::kDouble;
    case CXType_Int:
      return ScalarType::kInt;
    case CXType_UInt:
      return ScalarType::kUint;
    // long is 64 bits on the LP64 hosts nvcc compiles for, as it is on the device.
    case CXType_Long:
    case CXType_LongLong:
      return ScalarType::kLong;
    case CXType_ULong:
    case CXType_ULongLong:
      return ScalarType::kUlong;
    case CXType_Short:
      return ScalarType::kShort;
    case CXType_UShort:
      return ScalarType::kUshort;
    case CXType_Char_S:
    case CXType_SChar:
      return ScalarType::kChar;
    case CXType_Char_U:
    case CXType_UChar:
      return ScalarType::kUchar;
    default:
      return std::nullopt;
  }
}

struct Reader {
  bool opencl = false;  ///< every function (PoCL says which are kernels), not only __global__
  std::string path;
  std::vector<std::string> lines;
  SourceSignatures* out = nullptr;
};

spec::Loc location(CXCursor c, const Reader& r, std::string* line) {
  unsigned l = 0, col = 0;
  lib().clang_getSpellingLocation(lib().clang_getCursorLocation(c), nullptr, &l, &col, nullptr);
  if (line && l >= 1 && l <= r.lines.size()) *line = r.lines[l - 1];
  return {static_cast<int>(l), static_cast<int>(col)};
}

KernelParam read_param(CXCursor c, const Reader& r) {
  KernelParam p;
  p.name = str(lib().clang_getCursorSpelling(c));
  CXType type = lib().clang_getCursorType(c);
  p.type = str(lib().clang_getTypeSpelling(type));
  p.file = r.path;
  p.loc = location(c, r, &p.line);
  CXType canonical = lib().clang_getCanonicalType(type);
  if (lib().clang_isInvalidDeclaration(c)) {
    // An unknown type name (a header's type that the prelude does not declare): the type is
    // not known, but a pointer is still a pointer (to something unchecked).
    p.element_type = p.type;
    if (canonical.kind == CXType_Pointer) {
      p.kind = KernelParam::Kind::kPointer;
      p.space = KernelParam::Space::kGlobal;
    }
    return p;
  }
  if (canonical.kind == CXType_Pointer) {
    CXType pointee = lib().clang_getPointeeType(canonical);
    p.kind = KernelParam::Kind::kPointer;
    p.space = KernelParam::Space::kGlobal;
    p.pointee_const = lib().clang_isConstQualifiedType(pointee) != 0;
    p.element = cuda_scalar(pointee.kind);
    // The pointee as written (`real`), unless the pointer itself is a typedef.
    CXType written = lib().clang_getPointeeType(type);
    p.element_type = spelling(written.kind == CXType_Invalid ? pointee : written);
  } else {
    p.element = cuda_scalar(canonical.kind);
    p.element_type = spelling(type);
  }
  return p;
}

// A function's attributes and parameters, from its children (a template's too).
struct Children {
  bool global = false;
  std::vector<CXCursor> params;
};

CXChildVisitResult visit(CXCursor c, CXCursor, CXClientData data) {
  Reader& r = *static_cast<Reader*>(data);
  CXCursorKind kind = lib().clang_getCursorKind(c);
  // extern "C" is an unexposed declaration in libclang 14 (a LinkageSpec in later ones).
  if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl)
    return CXChildVisit_Recurse;
  // A template kernel is launched by name too (`k<<<g, b>>>(a, n)` deduces T): its parameters
  // of dependent types are not checked (no scalar type), the others are.
  if (kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate)
    return CXChildVisit_Continue;
  if (!lib().clang_Location_isFromMainFile(lib().clang_getCursorLocation(c)))
    return CXChildVisit_Continue;
  Children children;
  lib().clang_visitChildren(
      c,
      [](CXCursor a, CXCursor, CXClientData d) {
        Children& ch = *static_cast<Children*>(d);
        CXCursorKind k = lib().clang_getCursorKind(a);
        if (k == CXCursor_CUDAGlobalAttr) ch.global = true;
        if (k == CXCursor_ParmDecl) ch.params.push_back(a);
        return CXChildVisit_Continue;
      },
      &children);
  if (!children.global && !r.opencl) return CXChildVisit_Continue;
  KernelSignature sig;
  sig.name = str(lib().clang_getCursorSpelling(c));
  sig.file = r.path;
  sig.loc = location(c, r, &sig.line);
  for (CXCursor p : children.params) sig.params.push_back(read_param(p, r));
  // A declaration and its definition name one kernel: keep the first seen.
  if (!r.out->find(sig.name)) r.out->kernels.push_back(std::move(sig));
  return CXChildVisit_Continue;
}

}  // namespace

namespace {

// Parses `path` with `args` and reads its functions into `s` (s.read says whether it could).
void parse(const std::string& path, const std::vector<const char*>& args, bool opencl,
           SourceSignatures& s) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    s.unavailable = "cannot read " + path;
    return;
  }
  if (!lib().error.empty()) {
    s.unavailable = lib().error;
    return;
  }
  Reader r;
  r.opencl = opencl;
  r.path = path;
  r.out = &s;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    r.lines.push_back(line);
  }
  s.compiler = "libclang";
  CXIndex index = lib().clang_createIndex(0, 0);
  CXUnsavedFile prelude{kPreludeName, kPrelude, sizeof kPrelude - 1};
  CXTranslationUnit tu = nullptr;
  CXErrorCode err = lib().clang_parseTranslationUnit2(
      index, path.c_str(), args.data(), static_cast<int>(args.size()), &prelude, 1,
      CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing, &tu);
  if (err != CXError_Success || !tu) {
    s.unavailable = "libclang could not parse it (error " + std::to_string(err) + ")";
    lib().clang_disposeIndex(index);
    return;
  }
  lib().clang_visitChildren(lib().clang_getTranslationUnitCursor(tu), visit, &r);
  lib().clang_disposeTranslationUnit(tu);
  lib().clang_disposeIndex(index);
  std::sort(s.kernels.begin(), s.kernels.end(),
            [](const KernelSignature& a, const KernelSignature& b) { return a.name < b.name; });
  s.read = true;
}

}  // namespace

SourceSignatures read_cuda_signatures(const std::string& path) {
  SourceSignatures s;
  parse(path,
        {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17", "-include",
         kPreludeName, "-Wno-unknown-cuda-version"},
        false, s);
  return s;
}

void annotate_opencl_signatures(const std::string& path, SourceSignatures& s) {
  SourceSignatures c;
  // OpenCL C 1.2 with its built-in types (uint, float4) declared, as an OpenCL compiler has them.
  parse(path,
        {"-x", "cl", "-cl-std=CL1.2", "-Xclang", "-fdeclare-opencl-builtins", "-Xclang",
         "-finclude-default-header"},
        true, c);
  if (!c.read) return;
  for (KernelSignature& k : s.kernels) {
    const KernelSignature* found = c.find(k.name);
    if (!found || found->params.size() != k.params.size()) continue;
    k.loc = found->loc;
    k.line = found->line;
    for (std::size_t i = 0; i < k.params.size(); ++i) {
      KernelParam& p = k.params[i];
      const KernelParam& q = found->params[i];
      p.file = q.file;
      p.loc = q.loc;
      p.line = q.line;
      // A typedef (`real`) is all the OpenCL runtime says; the parse says what it stands for.
      if (!p.element && q.element && p.kind == q.kind) {
        p.element = q.element;
        p.element_type = q.element_type;
      }
    }
  }
}

#endif

}  // namespace stepgen::model

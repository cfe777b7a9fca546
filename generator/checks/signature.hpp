#pragma once
/// \file
/// Kernel signatures checked against the spec: each kernel's parameters, as its compiler sees
/// them (OpenCL: PoCL's clGetKernelArgInfo; CUDA: libclang), compared with the spec's <arg>s.
/// The comparison (compare_signature) knows no compiler; the readers (signature_opencl.cpp,
/// signature_clang.cpp) know no spec.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "model/model.hpp"

namespace stepgen::model {

/// One kernel parameter as the compiler sees it.
struct KernelParam {
  enum class Kind { kScalar, kPointer };
  /// OpenCL's address spaces; a CUDA pointer is kGlobal, a CUDA scalar kPrivate.
  enum class Space { kGlobal, kConstant, kLocal, kPrivate };
  std::string name;  ///< "" when the compiler does not say
  std::string type;  ///< as the compiler spells it, for messages: "const float *", "uint"
  Kind kind = Kind::kScalar;
  Space space = Space::kPrivate;
  bool pointee_const = false;  ///< a pointer to const (or to __constant): nothing may be written
  /// The scalar type, or the pointee's, when it is one a spec can name; nullopt for any other
  /// (a vector, a struct, a typedef the compiler did not resolve, half, bool...).
  std::optional<ScalarType> element;
  std::string element_type;  ///< the scalar or pointee type as spelt, for messages: "float4"
  std::string file;          ///< where it is declared, when known ("" otherwise)
  spec::Loc loc;             ///< line 0 = unknown
  std::string line;          ///< the text of that line, for the caret
};

/// One kernel (OpenCL __kernel, CUDA __global__) of a source file.
struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
  std::string file;
  spec::Loc loc;
  std::string line;
};

/// A compiler message about a kernel source (a build error), located in that source if known.
struct SourceMessage {
  Severity severity = Severity::kError;
  spec::Loc loc;  ///< line 0 = not located
  std::string message;
  std::string line;
};

/// What a reader found in one kernel source file.
struct SourceSignatures {
  /// False when the file could not be read for signatures at all: no compiler (then
  /// `unavailable` says why and no kernel is checked) or a build that failed (`messages`).
  bool read = false;
  std::string unavailable;
  std::string compiler;  ///< "PoCL on <device>", "libclang 14.0.6", for messages
  std::vector<KernelSignature> kernels;
  std::vector<SourceMessage> messages;  ///< build errors when !read
  std::string log;                      ///< the whole build log when !read
  const KernelSignature* find(const std::string& name) const;
};

/// Reads the kernels of an OpenCL C file (`path` as stepgen opens it) by building it with
/// `-cl-kernel-arg-info` on an OpenCL device (PoCL's first, where present).
SourceSignatures read_opencl_signatures(const std::string& path);
/// Reads the __global__ functions of a CUDA file with libclang (host-side parse, no CUDA headers).
SourceSignatures read_cuda_signatures(const std::string& path);
/// Adds to signatures read from an OpenCL runtime what libclang's parse of the same file knows:
/// where each kernel and parameter is declared, and the types behind typedef names (the runtime
/// gives `real*` for `typedef float real`). Without libclang, nothing changes.
void annotate_opencl_signatures(const std::string& path, SourceSignatures& s);

/// The spec's name of a scalar type as the kernel languages spell it, for docs and messages:
/// OpenCL "uint", CUDA "unsigned int" ...
const char* cuda_type_name(ScalarType t);

/// Compares kernel `k` of `m` with `sig`, found in `source` (as written in the spec) of
/// `language`, and reports every mismatch into `diags`: at the <arg> at fault, or at the
/// kernel's name where an <arg> is missing, with a note at the parameter where it is known.
void compare_signature(const Model& m, const Kernel& k, const KernelSignature& sig,
                       const std::string& source, Language language, Diagnostics& diags);

/// Checks every kernel of `m` against its sources (the `source` and the `cuda-source`), reading
/// each file once per checker. Unreadable sources give one warning each ("signatures not
/// checked: ..."), never an error; build errors of a source and mismatches are errors.
class SignatureChecker {
 public:
  void check(const Model& m, Diagnostics& diags);

 private:
  const SourceSignatures& signatures(const std::string& path, Language language);
  std::map<std::pair<std::string, int>, SourceSignatures> cache_;
};

}  // namespace stepgen::model

// Kernel signatures: the comparison with the spec's arguments on signatures built by hand, and the
// two readers (PoCL's clGetKernelArgInfo, libclang) on small sources. tests/errors/sig_* covers
// the whole check through `stepgen check`.
#include "checks/signature.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cli/driver.hpp"

using stepgen::Diagnostics;
using stepgen::Severity;
using namespace stepgen::model;

namespace {

Model two_arrays() {
  Model m;
  Array a;
  a.name = "A";
  a.type = ScalarType::kFloat;
  Array d;
  d.name = "D";
  d.type = ScalarType::kDouble;
  m.arrays = {a, d};
  return m;
}

KernelArg array_arg(int array, Access access, int line) {
  KernelArg a;
  a.kind = KernelArg::Kind::kArray;
  a.array = array;
  a.access = access;
  a.loc = {line, 5};
  return a;
}

KernelArg scalar_arg(ScalarType t, int line) {
  KernelArg a;
  a.kind = KernelArg::Kind::kScalar;
  a.scalar_type = t;
  a.loc = {line, 5};
  return a;
}

KernelParam pointer(const std::string& name, ScalarType t, bool is_const) {
  KernelParam p;
  p.name = name;
  p.kind = KernelParam::Kind::kPointer;
  p.space = KernelParam::Space::kGlobal;
  p.pointee_const = is_const;
  p.element = t;
  p.element_type = type_info(t).name;
  p.type = std::string("__global ") + (is_const ? "const " : "") + p.element_type + "*";
  return p;
}

KernelParam scalar(const std::string& name, ScalarType t) {
  KernelParam p;
  p.name = name;
  p.element = t;
  p.element_type = p.type = type_info(t).name;
  return p;
}

struct Result {
  std::vector<stepgen::Diagnostic> all;
  int errors = 0;
};

Result compare(const Model& m, const Kernel& k, const KernelSignature& sig) {
  Diagnostics diags("t.xml", "");
  compare_signature(m, k, sig, "k.cl", Language::kOpenCL, diags);
  return {diags.all(), diags.error_count()};
}

Kernel scale_kernel() {
  Kernel k;
  k.name = "scale";
  k.loc = {3, 17};
  k.args = {array_arg(0, Access::kRead, 4), array_arg(0, Access::kWrite, 5),
            scalar_arg(ScalarType::kInt, 6), scalar_arg(ScalarType::kFloat, 7)};
  return k;
}

KernelSignature scale_signature() {
  KernelSignature s;
  s.name = "scale";
  s.params = {pointer("in", ScalarType::kFloat, true), pointer("out", ScalarType::kFloat, false),
              scalar("n", ScalarType::kInt), scalar("f", ScalarType::kFloat)};
  return s;
}

std::string write(const std::string& name, const std::string& text) {
  // One folder per process: ctest runs the test cases as parallel processes.
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("stepgen_signature_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return (dir / name).generic_string();
}

}  // namespace

TEST_CASE("signature: a kernel that matches its arguments gives no diagnostic") {
  Result r = compare(two_arrays(), scale_kernel(), scale_signature());
  CHECK(r.all.empty());
}

TEST_CASE("signature: a missing scalar argument is an error at the kernel naming the parameter") {
  Kernel k = scale_kernel();
  k.args.pop_back();
  Result r = compare(two_arrays(), k, scale_signature());
  REQUIRE(r.errors == 1);
  CHECK(r.all[0].loc.line == 3);
  CHECK(r.all[0].message ==
        "kernel 'scale' in k.cl takes 4 parameters but the spec gives 3 arguments: no <arg> for "
        "parameter 4 'f' (float)");
}

TEST_CASE("signature: a float scalar for an int parameter is an error at the argument") {
  Kernel k = scale_kernel();
  k.args[2].scalar_type = ScalarType::kFloat;
  Result r = compare(two_arrays(), k, scale_signature());
  REQUIRE(r.errors == 1);
  CHECK(r.all[0].loc.line == 6);
  CHECK(r.all[0].message ==
        "scalar argument 3 of kernel 'scale' is float, but parameter 3 'n' of 'scale' in k.cl is "
        "int (write scalar=\"int\", or change the kernel)");
}

TEST_CASE("signature: a written array bound to a pointer to const is an error") {
  Kernel k = scale_kernel();
  k.args[0].access = Access::kReadWrite;
  Result r = compare(two_arrays(), k, scale_signature());
  REQUIRE(r.errors == 1);
  CHECK(r.all[0].loc.line == 4);
  CHECK(r.all[0].message ==
        "array 'A' (argument 1 of kernel 'scale') is written (access readwrite), but parameter 1 "
        "'in' of 'scale' in k.cl is '__global const float*', a pointer to const: the kernel "
        "cannot write it");
}

TEST_CASE("signature: element types, pointer against scalar, extra arguments") {
  Kernel k = scale_kernel();
  k.args[1].array = 1;                                // double array for float*
  k.args[2] = array_arg(0, Access::kRead, 6);         // array for int n
  k.args[3] = scalar_arg(ScalarType::kFloat, 7);      // matches
  k.args.push_back(scalar_arg(ScalarType::kInt, 8));  // one too many
  KernelSignature s = scale_signature();
  s.params[0] = scalar("x", ScalarType::kFloat);
  k.args[0] = scalar_arg(ScalarType::kFloat, 4);  // matches the scalar x
  s.params[3] = pointer("f", ScalarType::kFloat, true);
  k.args[3] = scalar_arg(ScalarType::kFloat, 7);  // scalar for a pointer
  Result r = compare(two_arrays(), k, s);
  REQUIRE(r.errors == 4);
  CHECK(r.all[0].message ==
        "array 'D' (argument 2 of kernel 'scale') holds double, but parameter 2 'out' of 'scale' "
        "in k.cl points to float");
  CHECK(r.all[1].message ==
        "argument 3 of kernel 'scale' is array 'A', but parameter 3 'n' of 'scale' in k.cl is not "
        "a pointer: 'int'");
  CHECK(r.all[2].message ==
        "argument 4 of kernel 'scale' is a scalar (float), but parameter 4 'f' of 'scale' in k.cl "
        "is a pointer: '__global const float*'");
  CHECK(r.all[3].message ==
        "argument 5 of kernel 'scale' has no parameter: 'scale' in k.cl takes 4 parameters");
  CHECK(r.all[3].loc.line == 8);
}

// Coefficient 'k' and field 'u' given in each other's place (both float*) run to a wrong answer
// without a word. Parameters named after each other's arrays: a warning.
TEST_CASE("signature: array arguments whose parameters are named after each other's arrays") {
  Model m = two_arrays();
  m.arrays[1].type = ScalarType::kFloat;
  Kernel k;
  k.name = "diffuse";
  k.loc = {3, 17};
  k.args = {array_arg(1, Access::kRead, 4), array_arg(0, Access::kRead, 5),
            array_arg(1, Access::kWrite, 6)};
  KernelSignature s;
  s.name = "diffuse";
  s.params = {pointer("A", ScalarType::kFloat, true), pointer("D", ScalarType::kFloat, true),
              pointer("out", ScalarType::kFloat, false)};
  Result r = compare(m, k, s);
  REQUIRE(r.all.size() == 1);
  CHECK(r.errors == 0);
  CHECK(r.all[0].severity == Severity::kWarning);
  CHECK(r.all[0].loc.line == 4);
  CHECK(r.all[0].message ==
        "array 'D' is passed as parameter 1 'A' and array 'A' as parameter 2 'D' of 'diffuse' in "
        "k.cl: are these <arg>s swapped? (<arg>s bind to the parameters by position)");
  // In their places: nothing. Named after one array only, or not after arrays: nothing.
  std::swap(k.args[0], k.args[1]);
  CHECK(compare(m, k, s).all.empty());
  s.params[0].name = "in";
  std::swap(k.args[0], k.args[1]);
  CHECK(compare(m, k, s).all.empty());
  CHECK(compare(two_arrays(), scale_kernel(), scale_signature()).all.empty());
}

TEST_CASE("signature: a type the spec cannot name is a warning, a __local pointer an error") {
  Kernel k = scale_kernel();
  KernelSignature s = scale_signature();
  s.params[0].element.reset();
  s.params[0].element_type = "float4";
  s.params[1].space = KernelParam::Space::kLocal;
  Result r = compare(two_arrays(), k, s);
  REQUIRE(r.all.size() == 2);
  CHECK(r.all[1].severity == Severity::kError);
  CHECK(r.all[1].message.find("is a __local pointer") != std::string::npos);
  CHECK(r.all[0].severity == Severity::kWarning);
  CHECK(r.all[0].message ==
        "cannot check the element type of array 'A' (argument 1 of kernel 'scale'): parameter 1 "
        "'in' of 'scale' in k.cl points to 'float4', which is not a type of the spec");
}

TEST_CASE("signature: CUDA messages name the spec's types as CUDA spells them") {
  Kernel k = scale_kernel();
  k.args[2].scalar_type = ScalarType::kUint;
  Diagnostics diags("t.xml", "");
  compare_signature(two_arrays(), k, scale_signature(), "k.cu", Language::kCuda, diags);
  REQUIRE(diags.error_count() == 1);
  CHECK(diags.all()[0].message.find(
            "scalar argument 3 of kernel 'scale' is uint (CUDA: unsigned int), but") == 0);
}

TEST_CASE("signature: OpenCL kernels as PoCL sees them") {
  std::string path = write("k.cl",
                           "typedef float real;\n"
                           "__kernel void k(__global const float* a, __global double* b,\n"
                           "                const uint n, long q, __constant int* c,\n"
                           "                __local float* l, __global real* r) {}\n"
                           "__kernel void k2(uchar x) {}\n");
  SourceSignatures s = read_opencl_signatures(path);
  if (!s.read && !s.unavailable.empty()) {
    MESSAGE("not checked: " << s.unavailable);
    return;
  }
  REQUIRE(s.read);
  REQUIRE(s.kernels.size() == 2);
  const KernelSignature* k = s.find("k");
  REQUIRE(k);
  REQUIRE(k->params.size() == 7);
  const std::vector<KernelParam>& p = k->params;
  CHECK(p[0].name == "a");
  CHECK(p[0].kind == KernelParam::Kind::kPointer);
  CHECK(p[0].pointee_const);
  CHECK(p[0].element == ScalarType::kFloat);
  CHECK(p[0].type == "__global const float*");
  CHECK(p[1].element == ScalarType::kDouble);
  CHECK_FALSE(p[1].pointee_const);
  CHECK(p[2].kind == KernelParam::Kind::kScalar);
  CHECK(p[2].element == ScalarType::kUint);
  CHECK(p[3].element == ScalarType::kLong);
  CHECK(p[4].space == KernelParam::Space::kConstant);
  CHECK(p[4].pointee_const);
  CHECK(p[5].space == KernelParam::Space::kLocal);
  CHECK(p[6].kind == KernelParam::Kind::kPointer);
  CHECK_FALSE(p[6].element);  // the runtime says `real*`
  CHECK(s.find("k2")->params[0].element == ScalarType::kUchar);

  // libclang's parse of the same file: where each parameter is, and what `real` stands for.
  annotate_opencl_signatures(path, s);
  const std::vector<KernelParam>& q = s.find("k")->params;
  if (q[6].loc.line == 0) {
    MESSAGE("not annotated: no libclang");
  } else {
    CHECK(q[6].element == ScalarType::kFloat);
    CHECK(q[6].element_type == "real (float)");
    CHECK(q[2].loc.line == 3);
    CHECK(q[2].loc.col == 28);
    CHECK(q[2].line == "                const uint n, long q, __constant int* c,");
  }

  std::string broken =
      write("broken.cl", "__kernel void k(__global float* a) {\n  a[0] = nope;\n}\n");
  SourceSignatures b = read_opencl_signatures(broken);
  CHECK_FALSE(b.read);
  CHECK(b.unavailable.empty());
  REQUIRE_FALSE(b.messages.empty());
  CHECK(b.messages[0].severity == Severity::kError);
  CHECK(b.messages[0].loc.line == 2);
  CHECK(b.messages[0].line == "  a[0] = nope;");
}

TEST_CASE("signature: CUDA kernels as libclang sees them") {
  std::string path = write("k.cu",
                           "#include <stdint.h>\n"
                           "typedef double real;\n"
                           "__device__ float helper(const float* p) { return p[0]; }\n"
                           "__global__ void k(const float* __restrict__ a, real* b,\n"
                           "                  const unsigned int n, int64_t q, long long ll,\n"
                           "                  unsigned char c, float4* v) {\n"
                           "  b[threadIdx.x] = a[0] + sqrtf(1.0f);\n"
                           "}\n"
                           "template <typename T> __global__ void t(T* a, int n) {}\n"
                           "extern \"C\" __global__ void e(float* a) {}\n"
                           "namespace { __global__ void in_namespace(int n) {} }\n");
  SourceSignatures s = read_cuda_signatures(path);
  if (!s.read && !s.unavailable.empty()) {
    MESSAGE("not checked: " << s.unavailable);
    return;
  }
  REQUIRE(s.read);
  REQUIRE(s.kernels.size() == 4);  // helper is no kernel
  CHECK(s.find("e"));
  CHECK(s.find("in_namespace"));
  const KernelSignature& k = *s.find("k");
  CHECK(k.name == "k");
  REQUIRE(k.params.size() == 7);
  const std::vector<KernelParam>& p = k.params;
  CHECK(p[0].pointee_const);
  CHECK(p[0].element == ScalarType::kFloat);
  CHECK(p[0].loc.line == 4);
  CHECK(p[0].loc.col == 45);
  CHECK(p[1].element == ScalarType::kDouble);  // through the typedef
  CHECK_FALSE(p[1].pointee_const);
  CHECK(p[2].kind == KernelParam::Kind::kScalar);
  CHECK(p[2].element == ScalarType::kUint);
  CHECK(p[3].element == ScalarType::kLong);
  CHECK(p[4].element == ScalarType::kLong);
  CHECK(p[5].element == ScalarType::kUchar);
  // float4: declared by the prelude as vector_types.h does; a pointer of no scalar element,
  // not an invalid 'int *' refused as "not a pointer".
  CHECK(p[6].kind == KernelParam::Kind::kPointer);
  CHECK_FALSE(p[6].element);
  CHECK(p[6].element_type == "float4");
  // A type no prelude declares (a header's, __half2): still a pointer, of an unknown element.
  const SourceSignatures u =
      read_cuda_signatures(write("u.cu", "__global__ void u(const __half2* h, int n) {}\n"));
  REQUIRE(u.read);
  REQUIRE(u.find("u"));
  REQUIRE(u.find("u")->params.size() == 2);
  CHECK(u.find("u")->params[0].kind == KernelParam::Kind::kPointer);
  CHECK_FALSE(u.find("u")->params[0].element);
  CHECK(u.find("u")->params[1].element == ScalarType::kInt);
  // A template kernel: T* is a pointer of no known element type; int n is checked.
  const KernelSignature* t = s.find("t");
  REQUIRE(t);
  REQUIRE(t->params.size() == 2);
  CHECK(t->params[0].kind == KernelParam::Kind::kPointer);
  CHECK_FALSE(t->params[0].element);
  CHECK(t->params[1].element == ScalarType::kInt);
}

TEST_CASE("signature: libclang and PoCL in one process, in either order, do not collide") {
  // Both bring an LLVM, often of two versions; linked into one symbol scope they crashed in
  // PoCL's compiler. libclang is opened with RTLD_LOCAL for this.
  std::string cu = write("order.cu", "__global__ void k(float* a, int n) {}\n");
  std::string cl = write("order.cl", "__kernel void k(__global float* a, int n) {}\n");
  SourceSignatures c = read_cuda_signatures(cu);
  SourceSignatures o = read_opencl_signatures(cl);
  SourceSignatures c2 = read_cuda_signatures(cu);
  for (const SourceSignatures* s : {&c, &o, &c2}) {
    if (!s->read) {
      MESSAGE("not checked: " << s->unavailable);
      continue;
    }
    REQUIRE(s->kernels.size() == 1);
    CHECK(s->kernels[0].params.size() == 2);
  }
}

TEST_CASE("signature: generate checks signatures first and writes nothing; the escape skips it") {
  namespace fs = std::filesystem;
  const std::string spec = STEPGEN_SOURCE_DIR "/tests/errors/sig_missing_scalar.xml";
  const fs::path out_dir = fs::temp_directory_path() / "stepgen_signature_generate";
  fs::remove_all(out_dir);
  auto run = [](std::vector<const char*> args) {
    args.insert(args.begin(), "stepgen");
    std::ostringstream out, err;
    int status = stepgen::cli::run(static_cast<int>(args.size()), args.data(), out, err);
    return std::make_pair(status, err.str());
  };
  const std::string dir = out_dir.string();
  auto [status, err] = run({"generate", spec.c_str(), "-o", dir.c_str()});
  bool probed = err.find("signatures not checked") == std::string::npos;
  if (probed) {
    CHECK(status == 1);
    CHECK(err.find("sig_missing_scalar.xml:6:17: error: kernel 'scale' in sig_scale.cl takes 4 "
                   "parameters but the spec gives 3 arguments: no <arg> for parameter 4 'f'") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(out_dir));
  } else {
    MESSAGE("not checked: " << err);
  }
  CHECK(run({"check", "--no-signature-check", spec.c_str()}).first == 0);
  CHECK(run({"generate", "--no-signature-check", spec.c_str(), "-o", dir.c_str()}).first == 0);
  CHECK(fs::exists(out_dir));
  fs::remove_all(out_dir);
}

TEST_CASE("signature: without an OpenCL platform, check warns that it did not check, and passes") {
  namespace fs = std::filesystem;
  fs::path err = fs::temp_directory_path() / "stepgen_signature_no_platform.txt";
  // The ICD loader finds no platform in an empty vendor folder.
  std::string command = "cd '" STEPGEN_SOURCE_DIR
                        "' && OCL_ICD_VENDORS=/nonexistent '" STEPGEN_BINARY
                        "' check tests/errors/sig_missing_scalar.xml 2>'" +
                        err.string() + "'";
  int status = std::system(command.c_str());
  std::ifstream in(err);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(err);
  CHECK(status == 0);
  CHECK(text.find("tests/errors/sig_missing_scalar.xml:6:17: warning: signatures not checked "
                  "against sig_scale.cl: ") == 0);
  CHECK(text.find(": error:") == std::string::npos);
}

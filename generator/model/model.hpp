#pragma once
/// \file
/// The validated model: the single truth that plan and emit stages read. Built once by
/// `build_model` from a SpecTree; immutable afterwards. Names are resolved to indices, constant
/// expressions are folded, and every fact a backend needs is stated here, not re-derived.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "model/expr.hpp"
#include "spec/spec_tree.hpp"

namespace stepgen::model {

enum class ScalarType {
  kFloat,
  kDouble,
  kInt,
  kUint,
  kLong,
  kUlong,
  kShort,
  kUshort,
  kChar,
  kUchar
};

/// Most cells an array may have, and most work-items a kernel's global size may name: 2^48
/// (281,474,976,710,656; a petabyte of floats). Larger sizes are mistakes that would run for
/// ever or overflow the index arithmetic of the generated program.
inline constexpr std::int64_t kMaxCells = std::int64_t{1} << 48;

/// Most characters in the stencil's name (it names the program, its files and build target).
inline constexpr std::size_t kMaxNameLength = 64;

struct TypeInfo {
  ScalarType type;
  const char* name;      ///< spec and OpenCL C name: "float", "uint", ...
  const char* cpp_name;  ///< host C++ type: "float", "std::uint32_t", ...
  int bytes;
  bool is_float;
};
const TypeInfo& type_info(ScalarType t);
std::optional<ScalarType> parse_type(const std::string& name);
std::vector<std::string> type_names();

struct Init {
  enum class Kind { kZero, kRandom, kValue, kCopy, kFile, kNone };
  Kind kind = Kind::kZero;
  std::uint64_t seed = 0;  ///< kRandom
  std::string value;       ///< kValue: the literal as written (valid for the array's type)
  int source = -1;         ///< kCopy: array index
  std::string path;        ///< kFile: as written, relative to the spec's folder
};

enum class Access { kRead, kWrite, kReadWrite };

/// Points an argument reads around each element. `lo`/`hi` are the widths below/above per
/// dimension (non-negative), from the points or given directly. `points` is empty when the halo
/// was given as widths: then the whole box lo..hi is read (corners included).
struct Halo {
  std::vector<std::array<int, 3>> points;
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> hi{0, 0, 0};
  bool empty() const {
    return lo == std::array<int, 3>{0, 0, 0} && hi == std::array<int, 3>{0, 0, 0};
  }
};

struct Array {
  std::string name;
  ScalarType type = ScalarType::kFloat;
  int dims = 1;
  std::array<std::int64_t, 3> size{1, 1, 1};  ///< unused dimensions are 1
  Init init;
  bool written = false;  ///< some launch writes it
  bool read = false;     ///< some launch reads it
  Halo read_halo;        ///< union of the halos of every argument reading it
  bool save = true;      ///< saved / compared at the end (all written arrays by default)
  spec::Loc loc;
};

/// A table (<table>): a read-only 1-3D array of any size, not grid-shaped and not partitioned,
/// copied whole to every device once at start-up (out of core it stays resident: it does not
/// stream). Kernels take it as a plain pointer; extent(T, d) and global_extent(T, d) are its
/// size, offset(T, d) is 0 (constants).
struct Table {
  std::string name;
  ScalarType type = ScalarType::kFloat;
  int dims = 1;
  std::array<std::int64_t, 3> size{1, 1, 1};  ///< unused dimensions are 1
  Init init;  ///< kCopy: `source` is a table index; kNone is refused
  spec::Loc loc;
  std::int64_t elements() const { return size[0] * size[1] * size[2]; }
};

struct KernelArg {
  enum class Kind { kArray, kScalar, kTable };
  Kind kind = Kind::kArray;
  int array = -1;  ///< kArray
  int table = -1;  ///< kTable: index into Model::tables (access is kRead)
  Access access = Access::kRead;
  Halo halo;
  /// kReadWrite with a halo beyond the centre: in-place="wavefront", the user's word that no
  /// work-item of a launch reads a cell another work-item of that launch writes.
  bool wavefront = false;
  ScalarType scalar_type = ScalarType::kInt;  ///< kScalar
  Expr value;                                 ///< kScalar
  spec::Loc loc;
};

enum class Language { kOpenCL, kCuda };

/// Whether a kernel file's path can be written into the generated CMakeLists.txt and #include
/// lines: no quote, backslash, $ or ; (CMake would read them) and no control character.
inline bool carried_by_build_files(const std::string& path) {
  for (const char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '$' ||
        c == ';')
      return false;
  return true;
}

struct Kernel {
  std::string name;
  std::string source;  ///< as written, relative to the spec's folder
  Language language = Language::kOpenCL;
  std::string cuda_source;  ///< optional CUDA version (.cu), relative to the spec's folder
  std::vector<KernelArg> args;
  std::vector<Expr>
      global;  ///< one per grid dimension (default filled in: extents of the first written array)
  std::vector<std::int64_t> local;  ///< empty = let the runtime choose (or tuned: local_auto)
  /// <local size="auto"/>: the program times these shapes at start-up and keeps the fastest
  /// (runtime/stepgen/exec/tune.hpp); each has one size per grid dimension.
  bool local_auto = false;
  std::vector<std::vector<std::int64_t>> local_candidates;
  /// OpenCL: where its file asks for a work-item query that a launch over part of its
  /// work-items (a slab, through a global offset) changes, "k.cl:5 uses 'get_group_id'"
  /// (get_group_id, get_num_groups, get_global_size, get_global_offset); empty when it asks
  /// for none.
  std::string offset_blind;
  /// CUDA: the template arguments its launch names ("<float>") when its file declares it as a
  /// template of one type parameter (the element type of its first array); empty otherwise.
  std::string cuda_template;
  spec::Loc loc;
};

struct Step {
  enum class Kind { kLaunch, kSwap, kRotate, kInject, kRecord };
  Kind kind = Kind::kLaunch;
  int kernel = -1;  ///< kLaunch
  /// kSwap (2) / kRotate (>= 2): array indices, in order; kInject / kRecord: the one array
  std::vector<int> arrays;
  // --- kInject / kRecord (sources and receivers, validate_traces.cpp) ---
  /// The cells, fastest dimension first (unused dimensions 0); kInject: one.
  std::vector<std::array<std::int64_t, 3>> points;
  Expr value;  ///< kInject: per step on the host in double (unless `values` is used)
  /// kInject with value="file(PATH)": one value per step (float64), read at generation time
  std::vector<double> values;
  std::string value_file;  ///< that PATH as written ("" = `value` is an expression)
  std::int64_t every = 1;  ///< kRecord: samples after steps t with (t + 1) % every == 0
  std::string file;        ///< kRecord: the trace file, relative to the working directory
  spec::Loc loc;
};

struct Devices {
  enum class Type { kAll, kGpu, kCpu };
  Type type = Type::kAll;
  int count = 0;                ///< 0 = all
  std::vector<double> weights;  ///< empty = equal / measured
};

struct OutOfCore {
  bool enabled = false;    ///< an <out_of_core> element was given
  int chunks = 0;          ///< 0 = auto
  int steps_per_pass = 0;  ///< 0 = auto
  bool region_sharing = true;
  std::int64_t device_memory = 0;  ///< bytes; 0 = auto
  spec::Loc loc;                   ///< of the <out_of_core> element (YAML: its mapping)
};

/// A <reduce> of the time-loop body: `op` over the owned cells of `array` (minus `minus`).
struct Reduction {
  std::string name;
  std::string op;  ///< sum | min | max | l2 | linf
  int array = -1;
  int minus = -1;  ///< -1: none
  std::int64_t every = 1;
  std::size_t position = 0;  ///< the body's steps before it (Model::body)
  spec::Loc loc;
};

/// <iterate until="...">: a condition over reductions, constants and `step`.
struct Until {
  bool present = false;
  std::string text;       ///< as written
  std::string cpp;        ///< as C++ over `m.value(i)` (rt::Monitor m) and `step`
  std::vector<int> uses;  ///< the reductions it names, ascending
  spec::Loc loc;
};

/// <monitor every="..." file="...">.
struct Monitor {
  bool present = false;
  std::int64_t every = 1;
  std::string file;  ///< "" for none; relative to the working directory
  spec::Loc loc;
};

/// One <boundary>: the frame of ghost cells beyond the grid's edge of some arrays, in some
/// dimensions, and how it is filled (docs/spec.md, "Boundaries").
struct Boundary {
  enum class Kind { kPeriodic, kValue, kMirror, kCopy };
  Kind kind = Kind::kPeriodic;
  std::string value;        ///< kValue: the literal as written
  std::vector<int> arrays;  ///< every member of the named arrays' groups, ascending
  std::array<bool, 3> dims{false, false, false};
  spec::Loc loc;
};

// --- io: <output> and <checkpoint> (validate_io.cpp, docs/io.md) -----------------------------
/// A snapshot series: the arrays' owned values of the whole grid after every `every` steps.
struct Output {
  std::vector<int> arrays;  ///< array indices, as listed
  std::int64_t every = 1;
  std::string file;    ///< as written, relative to the run's working directory
  bool hdf5 = false;   ///< .h5/.hdf5: HDF5 + XDMF; else .raw: one raw file per array and step
  bool first = false;  ///< also the initial state (step 0)
  bool last = false;   ///< also the state after the last step
  spec::Loc loc;
};

/// <checkpoint>: the program's defaults for --checkpoint and --checkpoint-every.
struct Checkpoint {
  bool enabled = false;
  std::int64_t every = 0;
  std::string file;
  spec::Loc loc;
};
// --- end io ---------------------------------------------------------------------------------

struct Constant {
  std::string name;
  Value value;
  std::string text;  ///< the value as a C++ literal
};

struct Model {
  std::string name;
  std::string spec_path;            ///< as given
  std::string spec_dir;             ///< folder of the spec ("" = current)
  std::vector<Constant> constants;  ///< in spec order
  std::map<std::string, Value> constant_values;
  std::vector<Array> arrays;
  std::vector<Table> tables;  ///< in spec order
  std::vector<Kernel> kernels;
  std::int64_t steps = 1;
  std::vector<Step> body;
  Devices devices;
  int exchange_every = 1;
  OutOfCore out_of_core;
  bool mpi = false;
  std::vector<Reduction> reductions;  ///< in body order
  Until until;
  Monitor monitor;
  std::vector<Boundary> boundaries;  ///< in spec order (validate_boundary.cpp)
  std::vector<Output> outputs;       ///< io
  Checkpoint checkpoint;             ///< io

  /// The grid: the shape every partitioned array shares (the first array's size).
  int dims = 1;
  std::array<std::int64_t, 3> domain{1, 1, 1};

  int find_array(const std::string& name) const;
  int find_table(const std::string& name) const;
  /// Bytes of every table: what each device holds besides its part's arrays.
  std::int64_t table_bytes() const;
  int find_kernel(const std::string& name) const;
};

/// Validates the tree and builds the model. Reports every error and warning into `diags`;
/// returns nullopt when there was any error. Kernel and data files are looked up relative to the
/// spec file's folder.
std::optional<Model> build_model(const spec::SpecTree& tree, Diagnostics& diags);

}  // namespace stepgen::model

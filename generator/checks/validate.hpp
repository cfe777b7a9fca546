#pragma once
/// \file
/// Private to model/: the state of one build_model run. Each validate_*.cpp file checks one part
/// of the spec (arrays, kernels, the time loop, the run settings) and fills the matching part of
/// the Model; every check reports and goes on, so one run reports every error of a file.

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "model/model.hpp"
#include "spec/spec_tree.hpp"

namespace stepgen::model::detail {

class Builder {
 public:
  Builder(const spec::SpecTree& tree, Diagnostics& diags);
  std::optional<Model> run();

 private:
  // --- names and values (model.cpp) ---
  /// Checks `name` and enters it into the one namespace of constants, arrays, tables and
  /// kernels.
  /// Returns false for a duplicate of the same kind (the caller then drops the definition).
  bool declare(const spec::Text& name, const std::string& kind);
  std::optional<Expr> parse(const spec::Text& text, bool allow_runtime, const std::string& what);
  /// Parses and folds a constant expression; errors are reported.
  std::optional<Value> fold(const spec::Text& text, const std::string& what);
  /// A constant expression that must be an integer >= `min` (1, 0, or the lowest int64 for
  /// any integer); `what` starts the messages ("size must be a positive integer, got -4").
  std::optional<std::int64_t> constant_int(const spec::Text& text, const std::string& what,
                                           std::int64_t min);
  /// A plain decimal integer >= `min`, or one of `keywords` (returned as 0).
  std::optional<std::int64_t> plain_int(const spec::Text& text, const std::string& what,
                                        std::int64_t min, const std::vector<std::string>& keywords);
  std::optional<bool> boolean(const spec::Text& text, const std::string& what);
  /// Returns true when `text` is present and not blank; otherwise reports `message` (through
  /// form_error when the text is absent).
  bool require(const spec::Text& text, const std::string& message);
  /// Reports an error of form (a missing value, a wrong count of items) unless the reader
  /// reported errors: readers check form and stop short where they did, so the model would only
  /// say it again. For a tree the reader found no fault in (or one built by hand) the model
  /// still reports it, so that no malformed tree passes.
  void form_error(spec::Loc loc, const std::string& message);
  /// The path of a file named in the spec, as stepgen opens it (relative to the spec's folder).
  std::string resolve(const std::string& path) const;
  std::string size_string(int array) const;
  void build_constants();

  // --- validate_arrays.cpp ---
  void build_arrays();
  void build_inits();
  Init parse_init(int index);
  void init_value(int index, const spec::Text& arg, Init& init);
  void init_copy(int index, const spec::Text& arg, Init& init);
  void init_file(int index, const spec::Text& arg, Init& init);

  // --- validate_tables.cpp ---
  void build_tables();
  struct TableState {  ///< what build_tables' later checks may rely on
    bool type_ok = false;
    bool size_ok = false;
  };
  TableState declare_table(const spec::Table& t);
  void table_init(const spec::Table& t, Table& table, const TableState& state, std::size_t at);
  /// A table argument <arg table="T"/> of `kernel`.
  KernelArg build_table_arg(const spec::KernelArg& a, const std::string& which,
                            const Kernel& kernel);
  /// When `name` is a table: the message for a table used where a grid array must be ("'T' is
  /// a table, not an array: a table cannot be CANNOT (kernels read it whole, ...)"); "" when
  /// it is not a table. For every place that names grid arrays (arguments, swap/rotate,
  /// boundaries, reductions).
  std::string table_hint(const std::string& name, const std::string& cannot) const;
  std::vector<std::string> table_names_;  ///< index = Model::tables index
  /// Table sizes for expressions (extent(T, d) & co. are constants).
  std::map<std::string, std::vector<std::int64_t>> table_sizes_;

  // --- validate_kernels.cpp ---
  void build_shadow();
  void build_kernels();
  void build_kernel(const spec::Kernel& k);
  std::optional<Language> kernel_language(const spec::Kernel& k);
  /// Folds a constant scalar argument's value and reports it when it does not fit `type`: out
  /// of range, not finite, or an overflow or division by zero on the way (at the operator).
  void check_scalar_value(const Expr& e, ScalarType type, const spec::Text& text,
                          const std::string& which);
  /// Reports a kernel source at `full` (a regular file) larger than spec::kMaxSourceBytes.
  void source_size(const spec::Text& text, const std::string& full, const char* what);
  KernelArg build_arg(const spec::KernelArg& a, std::size_t position, Kernel& kernel);
  Halo build_halo(const spec::KernelArg& a, int array, bool& given);
  /// Checks an in-place update (readwrite with a halo) and its in-place="wavefront".
  void in_place(const spec::KernelArg& a, const Kernel& kernel, KernelArg& arg,
                const std::string& name);
  /// One halo point's offsets; `owner` names what it belongs to in messages.
  std::optional<std::array<int, 3>> halo_point(const spec::HaloPoint& p, int dims,
                                               const std::string& owner);
  /// Reports a halo reach `width` wider than `array` (or, for -1, the grid) in `dim`.
  bool check_reach(std::int64_t width, int dim, int array, spec::Loc loc);
  void build_launch_sizes(const spec::Kernel& k, Kernel& kernel);
  void check_grid_size_arguments(const spec::Kernel& k, const Kernel& kernel);
  void note_offset_blind_queries(Kernel& kernel);
  void check_local_includes(const spec::Kernel& k, const Kernel& kernel);
  void note_cuda_template(const spec::Kernel& k, Kernel& kernel);
  /// <local size="auto"/> (validate_local.cpp): the candidate shapes, and a refusal when the
  /// kernel's source uses what makes results depend on the shape.
  void build_local_auto(const spec::Kernel& k, Kernel& kernel);
  /// Run-time terms at their values over the whole grid (one device): extents are array sizes.
  EvalEnv whole_grid_env() const;

  // --- validate_traces.cpp: <inject> and <record> ---
  /// Validates one inject or record step of the body into `step` (its kind and loc set).
  void build_trace_step(const spec::Step& s, Step& step);
  /// The points of `at`: its list, or the lines of its file(PATH) (relative to the spec).
  std::vector<std::array<std::int64_t, 3>> trace_points(const spec::Step& s, int array);
  /// After the body: injected arrays are written by a launch, record files differ.
  void check_trace_steps();

  // --- validate_loop.cpp ---
  void build_loop();
  void build_usage();
  void build_settings();
  // --- validate_reduce.cpp ---
  void build_reductions();
  void build_until();
  void build_monitor();
  /// device_memory: 'auto' (0) or a byte count with an optional unit (8GiB, 512MiB, 1000).
  std::optional<std::int64_t> memory_size(const spec::Text& text);

  // --- validate_boundary.cpp ---
  void build_boundaries();
  /// A <boundary>'s dimensions, each with the text that named it.
  using BoundaryDims = std::vector<std::pair<int, const spec::Text*>>;
  bool boundary_kind(const spec::Boundary& sb, Boundary& b);
  bool boundary_dims(const spec::Boundary& sb, Boundary& b, BoundaryDims& dims);
  /// `given`: which <boundary> first gave each (array, dimension).
  bool boundary_arrays(const spec::Boundary& sb, std::size_t index, const BoundaryDims& dims,
                       std::map<std::pair<int, int>, std::size_t>& given, Boundary& b);
  /// Every launch follows its buffer's extent along a boundary dimension.
  void check_boundary_launches();
  /// Every array read with a halo along a boundary dimension has a boundary there.
  void check_boundary_cover();
  // --- validate_io.cpp ---
  void build_io();
  void build_checkpoint();
  void check_written_files();

  const spec::SpecTree& tree_;
  Diagnostics& diags_;
  int reader_errors_ = 0;  ///< errors reported before build_model began
  Model m_;

  struct Name {
    std::string kind;
    int line = 0;
  };
  std::map<std::string, Name> names_;
  std::vector<std::string> array_names_;  ///< index = Model::arrays index
  std::vector<int> array_dims_;
  struct ArrayState {
    const spec::Array* spec = nullptr;
    bool type_ok = false;
    bool size_ok = false;
    bool copy_source = false;  ///< some array's init copies it
  };
  std::vector<ArrayState> array_state_;
  bool grid_ok_ = false;
  std::optional<Halo> shadow_;  ///< the top-level shadow, when given and valid
  struct KernelState {
    const spec::Kernel* spec = nullptr;
    bool writes = false;
    bool accesses_known = true;  ///< every array argument has a valid access
    bool launched = false;
    bool language_ok = false;
  };
  std::vector<KernelState> kernel_state_;
};

/// A value as a C++ literal (and for messages): integers as they are, floats in their shortest
/// exact form, always with a '.' or an exponent.
std::string value_string(const Value& v);

/// Adds `h` to `into`: widths are the maxima; points are the union, unless either side was
/// given as widths (a box), which makes the union a box too.
void merge_halo(Halo& into, const Halo& h);

}  // namespace stepgen::model::detail

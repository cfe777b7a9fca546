#pragma once
/// \file
/// The spec's expression language: integers and floats, + - * / %, unary minus, parentheses,
/// constants, `step`, and the functions min, max, round_up(x, m), extent(X, d),
/// global_extent(X, d), offset(X, d). Expressions are parsed once into an Expr tree; constant
/// ones are folded by the model, per-device ones are rendered into the generated host code.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "spec/spec_tree.hpp"

namespace stepgen::model {

/// A value: integer unless a float took part (C's usual arithmetic conversion).
struct Value {
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0.0;
  double as_double() const { return is_float ? f : static_cast<double>(i); }
};

struct Expr {
  enum class Kind {
    kInt,       ///< literal, in `int_value`
    kFloat,     ///< literal, in `float_value`; `text` keeps it as written
    kConstant,  ///< `text` is the constant's name
    kStep,      ///< the current time step
    kNeg,       ///< -args[0]
    kBinary,    ///< args[0] op args[1], op in + - * / %
    kCall,      ///< min, max, round_up: `text` is the name
    kArrayDim,  ///< extent / global_extent / offset (in `text`) of `array` in dimension `dim`
  };
  Kind kind = Kind::kInt;
  std::int64_t int_value = 0;
  double float_value = 0.0;
  std::string text;
  char op = 0;
  std::vector<Expr> args;
  int array = -1;         ///< kArrayDim: index into Model::arrays
  int dim = 0;            ///< kArrayDim
  spec::Loc loc;          ///< the term's first character; for kBinary, the operator
  bool is_float = false;  ///< the static type: true when a float takes part

  /// True when a term of kind `a` or `b` appears anywhere in the expression.
  bool contains(Kind a, Kind b) const;
  /// True when the value depends on the device or the step (extent, offset, step, ...).
  bool is_runtime() const { return contains(Kind::kStep, Kind::kArrayDim); }
  /// True when the value depends on the step (a term `step`).
  bool uses_step() const { return contains(Kind::kStep, Kind::kStep); }
};

/// What names an expression may use.
struct ExprScope {
  const std::map<std::string, Value>* constants = nullptr;
  const std::vector<std::string>* arrays = nullptr;  ///< for extent(X, d) & co.
  bool allow_runtime = false;                        ///< extent/offset/global_extent/step allowed
  /// Dimension count of each array in `arrays` (same order), to check extent(X, d)'s d; null
  /// or shorter than `arrays` = not checked.
  const std::vector<int>* array_dims = nullptr;
  /// Tables by name with their sizes, fastest first: extent(T, d) and global_extent(T, d) of a
  /// table are its size and offset(T, d) is 0, constants (folded into integer literals).
  const std::map<std::string, std::vector<std::int64_t>>* tables = nullptr;
  /// What the expression is, for the message when a run-time term is not allowed:
  /// "'step' is not constant; <what> must be a constant expression".
  std::string what = "this value";
};

/// Parses `text` (whose first character sits at text.loc). Reports syntax errors, unknown
/// names and functions into `diags` with the exact column; returns nullopt after an error.
std::optional<Expr> parse_expr(const spec::Text& text, const ExprScope& scope, Diagnostics& diags);

/// Values of the run-time terms for one device.
struct EvalEnv {
  std::function<std::int64_t(int array, int dim)> extent;
  std::function<std::int64_t(int array, int dim)> global_extent;
  std::function<std::int64_t(int array, int dim)> offset;
  std::int64_t step = 0;
};

/// Evaluates; nullopt on division by zero, integer overflow or a run-time term with no env
/// (message in `error`, position of the offending operator or term in `error_loc`).
std::optional<Value> eval(const Expr& e, const std::map<std::string, Value>& constants,
                          const EvalEnv* env, std::string* error = nullptr,
                          spec::Loc* error_loc = nullptr);

/// Renders an expression as a C++ expression for the generated host code. `leaf` renders the
/// terms that are not plain arithmetic (constants, step, extent, ...) as the program names them.
/// min, max and round_up become stepgen::rt::min_of, max_of and round_up (runtime/program.hpp).
std::string to_cpp(const Expr& e, const std::function<std::string(const Expr&)>& leaf);

}  // namespace stepgen::model

#include "model/expr.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "checks/validate_util.hpp"

namespace stepgen::model {

bool Expr::contains(Kind a, Kind b) const {
  if (kind == a || kind == b) return true;
  for (const Expr& e : args)
    if (e.contains(a, b)) return true;
  return false;
}

namespace {

using detail::loc_in;
using detail::quote;

Value int_value(std::int64_t i) {
  Value v;
  v.i = i;
  return v;
}
Value float_value(double f) {
  Value v;
  v.is_float = true;
  v.f = f;
  return v;
}

struct Evaluator {
  const std::map<std::string, Value>& constants;
  const EvalEnv* env;
  std::string* error;
  spec::Loc* error_loc;

  std::optional<Value> fail(const Expr& e, std::string message) {
    if (error) *error = std::move(message);
    if (error_loc) *error_loc = e.loc;
    return std::nullopt;
  }

  std::optional<Value> run(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kInt:
        return int_value(e.int_value);
      case Expr::Kind::kFloat:
        return float_value(e.float_value);
      case Expr::Kind::kConstant: {
        auto it = constants.find(e.text);
        if (it == constants.end()) return fail(e, "constant " + quote(e.text) + " has no value");
        return it->second;
      }
      case Expr::Kind::kStep:
        if (!env) return fail(e, "'step' has no value outside the time loop");
        return int_value(env->step);
      case Expr::Kind::kArrayDim: {
        const std::function<std::int64_t(int, int)>* f = nullptr;
        if (env)
          f = e.text == "extent"   ? &env->extent
              : e.text == "offset" ? &env->offset
                                   : &env->global_extent;
        if (!f || !*f) return fail(e, quote(e.text) + " has no value without a device");
        return int_value((*f)(e.array, e.dim));
      }
      case Expr::Kind::kNeg: {
        std::optional<Value> a = run(e.args[0]);
        if (!a) return a;
        if (a->is_float) return float_value(-a->f);
        if (a->i == std::numeric_limits<std::int64_t>::min()) return fail(e, "integer overflow");
        return int_value(-a->i);
      }
      case Expr::Kind::kBinary:
        return binary(e);
      case Expr::Kind::kCall:
        return call(e);
    }
    return fail(e, "unknown expression");
  }

  std::optional<Value> binary(const Expr& e) {
    std::optional<Value> a = run(e.args[0]);
    if (!a) return a;
    std::optional<Value> b = run(e.args[1]);
    if (!b) return b;
    if (e.op == '^') return power(e, *a, *b);
    if (a->is_float || b->is_float) {
      double x = a->as_double(), y = b->as_double();
      switch (e.op) {
        case '+':
          return float_value(x + y);
        case '-':
          return float_value(x - y);
        case '*':
          return float_value(x * y);
        case '/':
          if (y == 0.0) return fail(e, "division by zero");
          return float_value(x / y);
        default:
          return fail(e, "'%' needs integer operands, got a floating value");
      }
    }
    std::int64_t x = a->i, y = b->i, r = 0;
    bool overflow = false;
    switch (e.op) {
      case '+':
        overflow = __builtin_add_overflow(x, y, &r);
        break;
      case '-':
        overflow = __builtin_sub_overflow(x, y, &r);
        break;
      case '*':
        overflow = __builtin_mul_overflow(x, y, &r);
        break;
      case '/':
      case '%':
        if (y == 0) return fail(e, "division by zero");
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1)
          overflow = true;
        else
          r = e.op == '/' ? x / y : x % y;
        break;
      default:
        return fail(e, "unknown operator");
    }
    if (overflow) return fail(e, "integer overflow");
    return int_value(r);
  }

  /// x^y: an integer when both are (exact, by squaring; a negative exponent is an error), else
  /// std::pow in double, as the generated code computes it (stepgen::rt::ipow, std::pow).
  std::optional<Value> power(const Expr& e, const Value& a, const Value& b) {
    if (a.is_float || b.is_float) return checked(e, std::pow(a.as_double(), b.as_double()));
    if (b.i < 0)
      return fail(e, "an integer to a negative power (" + std::to_string(a.i) + "^" +
                         std::to_string(b.i) + "): write a float, e.g. " + std::to_string(a.i) +
                         ".0^" + std::to_string(b.i));
    std::int64_t r = 1, base = a.i;
    for (std::int64_t n = b.i; n > 0; n >>= 1) {
      if ((n & 1) != 0 && __builtin_mul_overflow(r, base, &r)) return fail(e, "integer overflow");
      if (n > 1 && __builtin_mul_overflow(base, base, &base)) return fail(e, "integer overflow");
    }
    return int_value(r);
  }

  /// A floating result that is a number (NaN or an infinity from finite operands is an error:
  /// the log of a negative value, an overflow).
  std::optional<Value> checked(const Expr& e, double r) {
    if (std::isnan(r))
      return fail(e, quote(e.kind == Expr::Kind::kCall ? e.text : "^") +
                         " has no value here (not a number)");
    if (std::isinf(r))
      return fail(e,
                  quote(e.kind == Expr::Kind::kCall ? e.text : "^") + " overflows here (infinite)");
    return float_value(r);
  }

  std::optional<Value> math(const Expr& e, const Value& a) {
    const double x = a.as_double();
    const std::string& f = e.text;
    if (f == "abs")
      return a.is_float ? float_value(std::fabs(a.f)) : [&]() -> std::optional<Value> {
        if (a.i == std::numeric_limits<std::int64_t>::min()) return fail(e, "integer overflow");
        return int_value(a.i < 0 ? -a.i : a.i);
      }();
    if ((f == "log" && x <= 0) || (f == "sqrt" && x < 0))
      return fail(e, quote(f) + " of " + (x == 0 ? "zero" : "a negative value") + " (" +
                         std::to_string(x) + ")");
    const double r = f == "exp"     ? std::exp(x)
                     : f == "log"   ? std::log(x)
                     : f == "sin"   ? std::sin(x)
                     : f == "cos"   ? std::cos(x)
                     : f == "tan"   ? std::tan(x)
                     : f == "sqrt"  ? std::sqrt(x)
                     : f == "floor" ? std::floor(x)
                                    : std::ceil(x);
    return checked(e, r);
  }

  std::optional<Value> call(const Expr& e) {
    std::optional<Value> a = run(e.args[0]);
    if (!a) return a;
    if (e.args.size() == 1) return math(e, *a);
    std::optional<Value> b = run(e.args[1]);
    if (!b) return b;
    if (e.text == "pow") return checked(e, std::pow(a->as_double(), b->as_double()));
    if (e.text == "round_up") {
      if (a->is_float || b->is_float) return fail(e, "'round_up' needs integer arguments");
      if (b->i <= 0)
        return fail(e, "round_up needs a positive multiple, got " + std::to_string(b->i));
      // As stepgen::rt::round_up computes it, so that folded and run-time values agree.
      std::int64_t r = 0;
      if (__builtin_add_overflow(a->i, b->i - 1, &r)) return fail(e, "integer overflow");
      return int_value(r / b->i * b->i);
    }
    bool is_min = e.text == "min";
    if (a->is_float || b->is_float) {
      double x = a->as_double(), y = b->as_double();
      return float_value(is_min ? std::min(x, y) : std::max(x, y));
    }
    return int_value(is_min ? std::min(a->i, b->i) : std::max(a->i, b->i));
  }
};

// True when C++ computes `e` in 32-bit int: an integer literal that fits int, its negation, or
// min/max of such. Constants and run-time terms are 64-bit in the generated code, and
// round_up returns rt::Index (64-bit).
bool cpp_int32(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInt:
      return e.int_value <= std::numeric_limits<std::int32_t>::max();
    case Expr::Kind::kNeg:
      return cpp_int32(e.args[0]);
    case Expr::Kind::kCall:
      return (e.text == "min" || e.text == "max") && cpp_int32(e.args[0]) && cpp_int32(e.args[1]);
    default:
      return false;
  }
}

// Binding strength, for parentheses: sums 1, products 2, everything else binds tighter.
int precedence(const Expr& e) {
  if (e.kind != Expr::Kind::kBinary || e.op == '^') return 3;  // '^' becomes a call
  return (e.op == '+' || e.op == '-') ? 1 : 2;
}

}  // namespace

std::optional<Value> eval(const Expr& e, const std::map<std::string, Value>& constants,
                          const EvalEnv* env, std::string* error, spec::Loc* error_loc) {
  return Evaluator{constants, env, error, error_loc}.run(e);
}

std::string to_cpp(const Expr& e, const std::function<std::string(const Expr&)>& leaf) {
  auto wrapped = [&](const Expr& a, bool parens) {
    std::string s = to_cpp(a, leaf);
    return parens ? "(" + s + ")" : s;
  };
  switch (e.kind) {
    case Expr::Kind::kInt:
      return std::to_string(e.int_value);
    case Expr::Kind::kFloat:
      return e.text;
    case Expr::Kind::kConstant:
    case Expr::Kind::kStep:
    case Expr::Kind::kArrayDim:
      return leaf(e);
    case Expr::Kind::kNeg:
      // "- -x" would read as a decrement: parenthesise anything but a plain term.
      return "-" +
             wrapped(e.args[0], e.args[0].kind == Expr::Kind::kNeg || precedence(e.args[0]) < 3);
    case Expr::Kind::kBinary: {
      if (e.op == '^')
        return std::string(e.is_float ? "std::pow(" : "stepgen::rt::ipow(") +
               to_cpp(e.args[0], leaf) + ", " + to_cpp(e.args[1], leaf) + ")";
      int p = precedence(e);
      // The spec computes integers in 64 bits (and checks them there); C++ would compute two
      // int literals in int ("65536 * 65536" overflows): the left one is made 64-bit.
      if (!e.is_float && cpp_int32(e.args[0]) && cpp_int32(e.args[1]))
        return "std::int64_t{" + to_cpp(e.args[0], leaf) + "} " + e.op + " " +
               wrapped(e.args[1], precedence(e.args[1]) <= p);
      return wrapped(e.args[0], precedence(e.args[0]) < p) + " " + e.op + " " +
             wrapped(e.args[1], precedence(e.args[1]) <= p);
    }
    case Expr::Kind::kCall: {
      if (e.args.size() == 1) {
        // std::abs of an integer: the 64-bit overload (int literals are widened like '*').
        if (e.text == "abs" && !e.is_float)
          return "std::abs(std::int64_t{" + to_cpp(e.args[0], leaf) + "})";
        // <cmath> in double: an integer argument is converted, as eval does.
        return "std::" + e.text + "(static_cast<double>(" + to_cpp(e.args[0], leaf) + "))";
      }
      if (e.text == "pow")
        return "std::pow(static_cast<double>(" + to_cpp(e.args[0], leaf) +
               "), static_cast<double>(" + to_cpp(e.args[1], leaf) + "))";
      std::string fn = e.text == "min" ? "min_of" : e.text == "max" ? "max_of" : "round_up";
      return "stepgen::rt::" + fn + "(" + to_cpp(e.args[0], leaf) + ", " + to_cpp(e.args[1], leaf) +
             ")";
    }
  }
  return {};
}

}  // namespace stepgen::model

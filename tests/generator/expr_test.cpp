// The expression language: parsing with exact error columns, folding, run-time terms, and the
// C++ the generated host code gets.
#include "model/expr.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"

using stepgen::Diagnostics;
using namespace stepgen::model;

namespace {

// A value as the readers give it: starting at line 3, column 10.
stepgen::spec::Text text(const std::string& value) {
  return {value, {3, 10}, true};
}

struct Fixture {
  std::map<std::string, Value> constants;
  std::vector<std::string> arrays{"A", "B"};
  std::vector<int> dims{2, 2};
  Diagnostics diags{"t.xml", ""};

  Fixture() {
    constants["N"] = Value{false, 64, 0.0};
    constants["H"] = Value{true, 0, 0.5};
  }
  ExprScope scope(bool runtime) {
    ExprScope s;
    s.constants = &constants;
    s.arrays = &arrays;
    s.array_dims = &dims;
    s.allow_runtime = runtime;
    s.what = "size";
    return s;
  }
  std::optional<Expr> parse(const std::string& v, bool runtime = false) {
    return parse_expr(text(v), scope(runtime), diags);
  }
  Value value(const std::string& v, const EvalEnv* env = nullptr) {
    std::optional<Expr> e = parse(v, env != nullptr);
    REQUIRE(e);
    std::string error;
    std::optional<Value> r = eval(*e, constants, env, &error);
    REQUIRE_MESSAGE(r, error);
    return *r;
  }
  // The only diagnostic, as "COL: MESSAGE" (the line is always 3 here).
  std::string error(const std::string& v, bool runtime = false) {
    std::optional<Expr> e = parse(v, runtime);
    CHECK(!e);
    REQUIRE(diags.all().size() == 1);
    const stepgen::Diagnostic& d = diags.all()[0];
    CHECK(d.loc.line == 3);
    return std::to_string(d.loc.col) + ": " + d.message;
  }
};

std::string cpp(const std::string& v) {
  Fixture f;
  std::optional<Expr> e = f.parse(v, true);
  REQUIRE(e);
  return to_cpp(*e, [](const Expr& leaf) {
    if (leaf.kind == Expr::Kind::kArrayDim)
      return leaf.text + "[" + std::to_string(leaf.array) + "][" + std::to_string(leaf.dim) + "]";
    return leaf.text;
  });
}

}  // namespace

TEST_CASE("expressions follow C's precedence and integer arithmetic") {
  Fixture f;
  CHECK(f.value("1 + 2 * 3").i == 7);
  CHECK(f.value("(1 + 2) * 3").i == 9);
  CHECK(f.value("7 / 2").i == 3);
  CHECK(f.value("-7 / 2").i == -3);
  CHECK(f.value("-7 % 3").i == -1);
  CHECK(f.value("10 - 4 - 3").i == 3);
  CHECK(f.value("- -5").i == 5);
  CHECK(f.value("N / 4 + 1").i == 17);
  CHECK(f.value("round_up(10, 4)").i == 12);
  CHECK(f.value("round_up(N, 16)").i == 64);
  CHECK(f.value("min(3, 9)").i == 3);
  CHECK(f.value("max(N, 100)").i == 100);
}

TEST_CASE("a float anywhere makes the value a float") {
  Fixture f;
  Value v = f.value("7.0 / 2");
  CHECK(v.is_float);
  CHECK(v.f == 3.5);
  CHECK(f.value("H * 4").f == 2.0);
  CHECK(f.value("min(3, 2.5)").f == 2.5);
  CHECK(f.value("1e3").f == 1000.0);
  CHECK(f.value(".5").f == 0.5);
  std::optional<Expr> e = f.parse("N + H");
  REQUIRE(e);
  CHECK(e->is_float);
}

TEST_CASE("run-time terms take their values from the device") {
  Fixture f;
  EvalEnv env;
  env.extent = [](int array, int dim) { return std::int64_t{100 * array + 10 + dim}; };
  env.global_extent = [](int, int dim) { return std::int64_t{1000 + dim}; };
  env.offset = [](int, int dim) { return std::int64_t{7 * dim}; };
  env.step = 3;
  CHECK(f.value("extent(B, 1)", &env).i == 111);
  CHECK(f.value("global_extent(A, 0) + offset(A, 1) + step", &env).i == 1010);
  CHECK(f.value("round_up(extent(A, 0), 4)", &env).i == 12);
  std::optional<Expr> e = f.parse("extent(A, 1) * 2", true);
  REQUIRE(e);
  CHECK(e->is_runtime());
  CHECK(e->args[0].kind == Expr::Kind::kArrayDim);
  CHECK(e->args[0].array == 0);
  CHECK(e->args[0].dim == 1);
  CHECK_FALSE(f.parse("N * 2")->is_runtime());
}

TEST_CASE("evaluation reports division by zero and overflow at the operator") {
  Fixture f;
  for (const char* v : {"4 / (N - 64)", "4 % 0", "9223372036854775807 + 1", "1.0 / 0"}) {
    std::optional<Expr> e = f.parse(v);
    REQUIRE(e);
    std::string error;
    stepgen::spec::Loc where;
    CHECK_FALSE(eval(*e, f.constants, nullptr, &error, &where));
    CHECK(where.line == 3);
    CHECK(where.col > 10);
    CHECK((error == "division by zero" || error == "integer overflow"));
  }
  std::string error;
  CHECK_FALSE(eval(*f.parse("step", true), f.constants, nullptr, &error));
  CHECK(error == "'step' has no value outside the time loop");
}

TEST_CASE("syntax errors point at the offending character") {
  CHECK(Fixture().error("1 +") == "13: expected an expression after '+', got end of text");
  CHECK(Fixture().error("min(1, 2") == "18: expected ')' after arguments, got end of text");
  CHECK(Fixture().error("min(1 2)") == "16: expected ')' after arguments, got '2'");
  CHECK(Fixture().error("(1 + 2") == "16: expected ')' after expression, got end of text");
  CHECK(Fixture().error("4 4") == "12: expected an operator or the end of the expression, got '4'");
  CHECK(Fixture().error("1 $ 2") == "12: unexpected character '$' in expression");
  CHECK(Fixture().error("*2") == "10: expected an expression, got '*'");
  CHECK(Fixture().error("") == "10: expected an expression, got an empty value");
  CHECK(Fixture().error("2x") ==
        "10: invalid number '2x': expected digits with an optional fraction and exponent");
  CHECK(Fixture().error("1.0f") ==
        "10: invalid number '1.0f': expected digits with an optional fraction and exponent");
  CHECK(Fixture().error("99999999999999999999") ==
        "10: integer '99999999999999999999' is too large (at most 9223372036854775807)");
}

TEST_CASE("no expression can exhaust the stack") {
  CHECK(Fixture().error(std::string(300, '(') + "1" + std::string(300, ')')) ==
        "210: expression nested too deeply (more than 200 levels)");
  CHECK(Fixture().error(std::string(300, '-') + "1") ==
        "210: expression nested too deeply (more than 200 levels)");
  std::string chain = "1";
  for (int i = 0; i < 3000; ++i) chain += "+1";
  CHECK(Fixture().error(chain) == "4010: expression too long (more than 4000 terms and operators)");
  chain = "1";
  for (int i = 0; i < 1900; ++i) chain += "+1";
  Fixture f;
  CHECK(f.value(chain).i == 1901);
}

TEST_CASE("names, functions and arity are checked") {
  CHECK(Fixture().error("mn(1, 2)") == "10: unknown function 'mn' (did you mean 'min'?)");
  CHECK(Fixture().error("min(1)") == "10: 'min' takes 2 arguments, got 1");
  CHECK(Fixture().error("round_up(1, 2, 3)") == "10: 'round_up' takes 2 arguments, got 3");
  CHECK(Fixture().error("2 * NN") == "14: constant 'NN' is not declared (did you mean 'N'?)");
  // A name that differs in case only, or one edit from several: the one equal but for case.
  CHECK(stepgen::did_you_mean("G", {"u", "unew", "g"}) == " (did you mean 'g'?)");
  CHECK(stepgen::did_you_mean("GRID", {"grid", "steps"}) == " (did you mean 'grid'?)");
  CHECK(stepgen::did_you_mean("unw", {"u", "unew"}) == " (did you mean 'unew'?)");
  CHECK(stepgen::did_you_mean("zzzz", {"u", "unew"}).empty());
  // A name the word abbreviates, or that abbreviates it (too far apart for the edit distance).
  CHECK(stepgen::did_you_mean("arguments", {"name", "source", "args"}) ==
        " (did you mean 'args'?)");
  CHECK(stepgen::did_you_mean("rand", {"zero", "random"}) == " (did you mean 'random'?)");
  CHECK(stepgen::did_you_mean("foo", {"floor", "min"}).empty());       // too short
  CHECK(stepgen::did_you_mean("rguments", {"name", "args"}).empty());  // first letter
  CHECK(Fixture().error("A + 1") ==
        "10: array 'A' has no value here; use extent(A, d) or global_extent(A, d) for its size");
  CHECK(Fixture().error("N % H") == "12: '%' needs integer operands, got a floating value");
  CHECK(Fixture().error("round_up(N, H)") ==
        "22: 'round_up' needs integer arguments, got a floating value");
  CHECK(Fixture().error("extent(C, 0)", true) ==
        "17: array 'C' is not declared (did you mean 'A'?)");
  CHECK(Fixture().error("extent(N + 1, 0)", true) ==
        "17: expected an array name as the first argument of 'extent'");
  CHECK(Fixture().error("extent(A, 2)", true) ==
        "20: dimension 2 is out of range: array 'A' has 2 dimensions (0 to 1)");
  CHECK(Fixture().error("offset(A, step)", true) ==
        "20: the dimension of 'offset' must be a constant integer: 0 (x), 1 (y) or 2 (z)");
  CHECK(Fixture().error("min") == "10: function 'min' needs arguments: min(...)");
}

TEST_CASE("run-time terms are refused where a constant is needed") {
  CHECK(Fixture().error("extent(A, 0)") ==
        "10: 'extent' is not constant; size must be a constant expression");
  CHECK(Fixture().error("N + step") ==
        "14: 'step' is not constant; size must be a constant expression");
}

TEST_CASE("every unknown name of a value is reported at once") {
  Fixture f;
  CHECK_FALSE(f.parse("X + Y * foo(2)"));
  REQUIRE(f.diags.all().size() == 3);
  CHECK(f.diags.all()[0].loc.col == 10);
  CHECK(f.diags.all()[1].loc.col == 14);
  CHECK(f.diags.all()[2].message == "unknown function 'foo'");
}

TEST_CASE("values over several lines are located line by line") {
  Fixture f;
  CHECK_FALSE(parse_expr({"1 +\n  $", {3, 10}, true}, f.scope(false), f.diags));
  REQUIRE(f.diags.all().size() == 1);
  CHECK(f.diags.all()[0].loc.line == 4);
  CHECK(f.diags.all()[0].loc.col == 3);
}

TEST_CASE("to_cpp keeps the meaning with the fewest parentheses") {
  CHECK(cpp("1 + 2 * 3") == "1 + std::int64_t{2} * 3");
  CHECK(cpp("(1 + 2) * 3") == "(std::int64_t{1} + 2) * 3");
  CHECK(cpp("N - (N - 1)") == "N - (N - 1)");
  CHECK(cpp("(N - 1) - 2") == "N - 1 - 2");
  CHECK(cpp("N / (2 * 4)") == "N / (std::int64_t{2} * 4)");
  CHECK(cpp("-(-N)") == "-(-N)");
  CHECK(cpp("-(N + 1)") == "-(N + 1)");
  CHECK(cpp("2.50 * H") == "2.50 * H");
  CHECK(cpp("min(extent(B, 1), step)") == "stepgen::rt::min_of(extent[1][1], step)");
  CHECK(cpp("round_up(N, 16) / max(1, 2)") ==
        "stepgen::rt::round_up(N, 16) / stepgen::rt::max_of(1, 2)");
  // Integers are 64-bit in the spec: two int literals would be multiplied in C++'s int
  // ("65536 * 65536" is 0 there, and -Werror=overflow stops the build).
  CHECK(cpp("65536 * 65536 / 65536") == "std::int64_t{65536} * 65536 / 65536");
  CHECK(cpp("-65536 * max(65536, 2)") == "std::int64_t{-65536} * stepgen::rt::max_of(65536, 2)");
  CHECK(cpp("4294967296 * 2") == "4294967296 * 2");  // a long literal already
  CHECK(cpp("1.5 * 2") == "1.5 * 2");
}

TEST_CASE("math functions, pi and '^' compute in double as <cmath> does") {
  Fixture f;
  CHECK(f.value("pi").f == 3.141592653589793);
  CHECK(f.value("exp(1)").f == std::exp(1.0));
  CHECK(f.value("log(N)").f == std::log(64.0));
  CHECK(f.value("sin(pi / 6)").f == std::sin(3.141592653589793 / 6));
  CHECK(f.value("cos(0)").f == 1.0);
  CHECK(f.value("tan(H)").f == std::tan(0.5));
  CHECK(f.value("sqrt(2)").f == std::sqrt(2.0));
  CHECK(f.value("floor(-2.5)").f == -3.0);
  CHECK(f.value("ceil(2.1)").f == 3.0);
  CHECK(f.value("floor(7)").is_float);  // <cmath>: a double
  CHECK(f.value("abs(-7)").i == 7);     // abs keeps the type
  CHECK(!f.value("abs(-7)").is_float);
  CHECK(f.value("abs(-7.5)").f == 7.5);
  CHECK(f.value("pow(2, 0.5)").f == std::pow(2.0, 0.5));
  // '^': right-associative, above unary minus; integers stay integers
  CHECK(f.value("2^10").i == 1024);
  CHECK(!f.value("2^10").is_float);
  CHECK(f.value("2^3^2").i == 512);
  CHECK(f.value("-2^2").i == -4);
  CHECK(f.value("(-2)^2").i == 4);
  CHECK(f.value("2.0^-1").f == 0.5);
  CHECK(f.value("3 * 2^2 + 1").i == 13);
  const double t = 0.04;  // the Ricker wavelet at step 40
  EvalEnv env;
  env.step = 40;
  const double a = 3.141592653589793 * 15 * (t - 0.1);
  CHECK(
      f.value("1e3 * (1 - 2*(pi*15*(step*1e-3 - 0.1))^2) * exp(-(pi*15*(step*1e-3 - 0.1))^2)", &env)
          .f == 1e3 * (1 - 2 * std::pow(a, 2.0)) * std::exp(-std::pow(a, 2.0)));
}

TEST_CASE("math functions report bad arguments at the call") {
  Fixture f;
  auto fails = [&](const std::string& v) {
    std::optional<Expr> e = f.parse(v);
    REQUIRE(e);
    std::string error;
    CHECK(!eval(*e, f.constants, nullptr, &error));
    return error;
  };
  CHECK(fails("log(0)") == "'log' of zero (0.000000)");
  CHECK(fails("sqrt(-1)") == "'sqrt' of a negative value (-1.000000)");
  CHECK(fails("2^-1") == "an integer to a negative power (2^-1): write a float, e.g. 2.0^-1");
  CHECK(fails("2^63") == "integer overflow");
  CHECK(fails("exp(1000)") == "'exp' overflows here (infinite)");
  CHECK(Fixture().error("sqrt(1, 2)") == "10: 'sqrt' takes 1 argument, got 2");
  CHECK(Fixture().error("pow(2)") == "10: 'pow' takes 2 arguments, got 1");
  CHECK(Fixture().error("2^") == "12: expected an expression after '^', got end of text");
  CHECK(Fixture().error("exp") == "10: function 'exp' needs arguments: exp(...)");
}

TEST_CASE("to_cpp renders math as <cmath> and integer powers exactly") {
  CHECK(cpp("exp(step)") == "std::exp(static_cast<double>(step))");
  CHECK(cpp("2^step") == "stepgen::rt::ipow(2, step)");
  CHECK(cpp("2.0^step * 3") == "std::pow(2.0, step) * 3");
  CHECK(cpp("-N^2") == "-stepgen::rt::ipow(N, 2)");
  CHECK(cpp("abs(step - 3)") == "std::abs(std::int64_t{step - 3})");
  CHECK(cpp("pi * H") == "3.141592653589793 * H");
}

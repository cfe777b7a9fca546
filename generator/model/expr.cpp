#include "model/expr.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "model/validate_util.hpp"

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

struct Token {
  enum class Kind { kEnd, kInt, kFloat, kName, kPunct };
  Kind kind = Kind::kEnd;
  std::string text;
  std::size_t pos = 0;
  std::int64_t int_value = 0;
  double float_value = 0.0;
};

struct Function {
  const char* name;
  bool array_dim;  ///< extent(X, d) & co.: an array name and a constant dimension
  int arity;
};
constexpr Function kFunctions[] = {
    {"min", false, 2},          {"max", false, 2},   {"round_up", false, 2}, {"extent", true, 2},
    {"global_extent", true, 2}, {"offset", true, 2}, {"pow", false, 2},      {"exp", false, 1},
    {"log", false, 1},          {"sin", false, 1},   {"cos", false, 1},      {"tan", false, 1},
    {"sqrt", false, 1},         {"abs", false, 1},   {"floor", false, 1},    {"ceil", false, 1}};

/// The one-argument functions of <cmath> that always give a floating value.
bool is_math_function(const std::string& name) {
  return name == "exp" || name == "log" || name == "sin" || name == "cos" || name == "tan" ||
         name == "sqrt" || name == "floor" || name == "ceil";
}

/// pi, as the nearest double.
constexpr double kPi = 3.141592653589793;

const Function* find_function(const std::string& name) {
  for (const Function& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

std::string describe(const Token& t) {
  return t.kind == Token::Kind::kEnd ? std::string("end of text") : quote(t.text);
}

/// Splits an expression into tokens; reports the first bad character or number and stops.
class Lexer {
 public:
  Lexer(const spec::Text& text, Diagnostics& diags) : text_(text), diags_(diags) {}

  bool run(std::vector<Token>& out) {
    const std::string& s = text_.value;
    std::size_t i = 0;
    while (true) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      Token t;
      t.pos = i;
      if (i == s.size()) {
        out.push_back(t);
        return true;
      }
      char c = s[i];
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
        if (!number(i, t)) return false;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
        t.kind = Token::Kind::kName;
        t.text = s.substr(i, j - i);
        i = j;
      } else if (std::string("+-*/%(),^").find(c) != std::string::npos) {
        t.kind = Token::Kind::kPunct;
        t.text = std::string(1, c);
        ++i;
      } else {
        diags_.error(loc_in(text_, i),
                     "unexpected character " + quote(std::string(1, c)) + " in expression");
        return false;
      }
      out.push_back(t);
    }
  }

 private:
  // A C-like decimal literal: digits, optional fraction, optional exponent; no suffix.
  bool number(std::size_t& i, Token& t) {
    const std::string& s = text_.value;
    std::size_t j = i;
    bool is_float = false;
    auto digits = [&] {
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    };
    digits();
    if (j < s.size() && s[j] == '.') {
      is_float = true;
      ++j;
      digits();
    }
    if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
      std::size_t k = j + 1;
      if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
      if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
        is_float = true;
        j = k;
        digits();
      }
    }
    std::size_t end = j;
    while (j < s.size() &&
           (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.'))
      ++j;
    t.text = s.substr(i, j - i);
    if (j != end) {
      diags_.error(loc_in(text_, i),
                   "invalid number " + quote(t.text) +
                       ": expected digits with an optional fraction and exponent");
      return false;
    }
    errno = 0;
    if (is_float) {
      t.kind = Token::Kind::kFloat;
      t.float_value = std::strtod(t.text.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(t.float_value)) {
        diags_.error(loc_in(text_, i), "number " + quote(t.text) + " is too large");
        return false;
      }
    } else {
      t.kind = Token::Kind::kInt;
      char* stop = nullptr;
      long long v = std::strtoll(t.text.c_str(), &stop, 10);
      if (errno == ERANGE) {
        diags_.error(loc_in(text_, i),
                     "integer " + quote(t.text) + " is too large (at most " +
                         std::to_string(std::numeric_limits<std::int64_t>::max()) + ")");
        return false;
      }
      t.int_value = v;
    }
    i = j;
    return true;
  }

  const spec::Text& text_;
  Diagnostics& diags_;
};

/// Recursive descent over the tokens, C precedence:
///   sum := product (('+' | '-') product)*
///   product := unary (('*' | '/' | '%') unary)*
///   unary := '-' unary | power
///   power := primary ('^' unary)?          (right-associative, above unary minus: -x^2 = -(x^2))
///   primary := number | name | name '(' args ')' | '(' sum ')'
/// A syntax error ends the parse (what follows could not be trusted); a name error is reported
/// and parsing goes on, so that every unknown name of the value is reported at once.
class Parser {
 public:
  Parser(const spec::Text& text, const ExprScope& scope, Diagnostics& diags)
      : text_(text), scope_(scope), diags_(diags) {}

  std::optional<Expr> run() {
    if (!Lexer(text_, diags_).run(tokens_)) return std::nullopt;
    // A chain of n operators is a tree n deep, which eval and to_cpp walk recursively.
    if (tokens_.size() > kMaxTokens) {
      diags_.error(
          loc(tokens_[kMaxTokens]),
          "expression too long (more than " + std::to_string(kMaxTokens) + " terms and operators)");
      return std::nullopt;
    }
    if (tokens_.front().kind == Token::Kind::kEnd) {
      diags_.error(text_.loc, "expected an expression, got an empty value");
      return std::nullopt;
    }
    std::optional<Expr> e = sum();
    if (!e) return std::nullopt;
    if (peek().kind != Token::Kind::kEnd) {
      syntax_error(peek(),
                   "expected an operator or the end of the expression, got " + describe(peek()));
      return std::nullopt;
    }
    if (bad_) return std::nullopt;
    return e;
  }

 private:
  const Token& peek() const { return tokens_[next_]; }
  const Token& take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }
  bool at(const char* punct) const {
    return peek().kind == Token::Kind::kPunct && peek().text == punct;
  }
  // As loc_in, from one line index: every node gets a position, and walking a long value for
  // each would be quadratic.
  spec::Loc loc(const Token& t) const {
    if (!lines_) lines_.emplace(text_.value);
    return lines_->loc_from(text_.loc, t.pos);
  }

  void syntax_error(const Token& t, const std::string& message) { diags_.error(loc(t), message); }
  void name_error(const Token& t, const std::string& message) {
    diags_.error(loc(t), message);
    bad_ = true;
  }

  std::optional<Expr> sum() {
    std::optional<Expr> left = product();
    while (left && (at("+") || at("-"))) left = binary(std::move(*left), &Parser::product);
    return left;
  }

  std::optional<Expr> product() {
    std::optional<Expr> left = unary();
    while (left && (at("*") || at("/") || at("%"))) left = binary(std::move(*left), &Parser::unary);
    return left;
  }

  std::optional<Expr> binary(Expr left, std::optional<Expr> (Parser::*operand)()) {
    const Token& op = take();
    if (peek().kind == Token::Kind::kEnd) {
      syntax_error(peek(), "expected an expression after " + quote(op.text) + ", got end of text");
      return std::nullopt;
    }
    std::optional<Expr> right = (this->*operand)();
    if (!right) return std::nullopt;
    Expr e;
    e.kind = Expr::Kind::kBinary;
    e.op = op.text[0];
    e.loc = loc(op);
    e.is_float = left.is_float || right->is_float;
    if (e.op == '%' && e.is_float)
      name_error(op, "'%' needs integer operands, got a floating value");
    e.args.push_back(std::move(left));
    e.args.push_back(std::move(*right));
    return e;
  }

  std::optional<Expr> unary() {
    // Every level of nesting passes here: bound it, so that no input can exhaust the stack.
    if (++depth_ > kMaxDepth) {
      syntax_error(peek(), "expression nested too deeply (more than " + std::to_string(kMaxDepth) +
                               " levels)");
      return std::nullopt;
    }
    std::optional<Expr> e = unary_unbounded();
    --depth_;
    return e;
  }

  std::optional<Expr> unary_unbounded() {
    if (at("-")) {
      const Token& minus = take();
      std::optional<Expr> arg = unary();
      if (!arg) return std::nullopt;
      Expr e;
      e.kind = Expr::Kind::kNeg;
      e.loc = loc(minus);
      e.is_float = arg->is_float;
      e.args.push_back(std::move(*arg));
      return e;
    }
    return power();
  }

  std::optional<Expr> power() {
    std::optional<Expr> base = primary();
    if (!base || !at("^")) return base;
    const Token& op = take();
    if (peek().kind == Token::Kind::kEnd) {
      syntax_error(peek(), "expected an expression after '^', got end of text");
      return std::nullopt;
    }
    std::optional<Expr> exponent = unary();
    if (!exponent) return std::nullopt;
    Expr e;
    e.kind = Expr::Kind::kBinary;
    e.op = '^';
    e.loc = loc(op);
    e.is_float = base->is_float || exponent->is_float;
    e.args.push_back(std::move(*base));
    e.args.push_back(std::move(*exponent));
    return e;
  }

  std::optional<Expr> primary() {
    const Token& t = take();
    Expr e;
    e.loc = loc(t);
    switch (t.kind) {
      case Token::Kind::kInt:
        e.kind = Expr::Kind::kInt;
        e.int_value = t.int_value;
        e.text = t.text;
        return e;
      case Token::Kind::kFloat:
        e.kind = Expr::Kind::kFloat;
        e.float_value = t.float_value;
        e.text = t.text;
        e.is_float = true;
        return e;
      case Token::Kind::kName:
        if (at("(")) return call(t);
        return name(t);
      case Token::Kind::kPunct:
        if (t.text == "(") {
          std::optional<Expr> inner = sum();
          if (!inner) return std::nullopt;
          if (!at(")")) {
            syntax_error(peek(), "expected ')' after expression, got " + describe(peek()));
            return std::nullopt;
          }
          take();
          return inner;
        }
        break;
      case Token::Kind::kEnd:
        break;
    }
    syntax_error(t, "expected an expression, got " + describe(t));
    return std::nullopt;
  }

  struct Arg {
    Expr expr;
    const Token* first;  ///< the argument's first token, for messages
    bool bare_name;      ///< a lone name (the array of extent(X, d)); `expr` is unused
  };

  std::vector<std::string> arrays() const {
    return scope_.arrays ? *scope_.arrays : std::vector<std::string>{};
  }

  Expr name(const Token& t) {
    Expr e;
    e.loc = loc(t);
    e.text = t.text;
    if (t.text == "step") {
      e.kind = Expr::Kind::kStep;
      if (!scope_.allow_runtime) not_constant(t);
      return e;
    }
    if (t.text == "pi") {
      e.kind = Expr::Kind::kFloat;
      e.float_value = kPi;
      e.text = "3.141592653589793";
      e.is_float = true;
      return e;
    }
    if (scope_.constants) {
      auto it = scope_.constants->find(t.text);
      if (it != scope_.constants->end()) {
        e.kind = Expr::Kind::kConstant;
        e.is_float = it->second.is_float;
        return e;
      }
    }
    std::vector<std::string> arr = arrays();
    if (std::find(arr.begin(), arr.end(), t.text) != arr.end()) {
      name_error(t, "array " + quote(t.text) + " has no value here; use extent(" + t.text +
                        ", d) or global_extent(" + t.text + ", d) for its size");
      return e;
    }
    if (find_function(t.text)) {
      name_error(t, "function " + quote(t.text) + " needs arguments: " + t.text + "(...)");
      return e;
    }
    std::vector<std::string> candidates;
    if (scope_.constants)
      for (const auto& [n, v] : *scope_.constants) candidates.push_back(n);
    if (scope_.allow_runtime) candidates.push_back("step");
    name_error(t,
               "constant " + quote(t.text) + " is not declared" + did_you_mean(t.text, candidates));
    return e;
  }

  void not_constant(const Token& t) {
    name_error(
        t, quote(t.text) + " is not constant; " + scope_.what + " must be a constant expression");
  }

  std::optional<Expr> call(const Token& fn) {
    take();  // '('
    const Function* f = find_function(fn.text);
    if (!f) {
      std::vector<std::string> names;
      for (const Function& g : kFunctions) names.push_back(g.name);
      name_error(fn, "unknown function " + quote(fn.text) + did_you_mean(fn.text, names));
    }
    std::vector<Arg> args;
    bool array_arg = f && f->array_dim;
    if (!at(")")) {
      while (true) {
        const Token& first = peek();
        const Token& after = tokens_[std::min(next_ + 1, tokens_.size() - 1)];
        if (array_arg && args.empty() && first.kind == Token::Kind::kName &&
            (after.text == "," || after.text == ")")) {
          // The array of extent(X, d) is a name, not a value.
          take();
          args.push_back({Expr{}, &first, true});
        } else {
          std::optional<Expr> arg = sum();
          if (!arg) return std::nullopt;
          args.push_back({std::move(*arg), &first, false});
        }
        if (at(",")) {
          take();
          continue;
        }
        if (at(")")) break;
        syntax_error(peek(), "expected ')' after arguments, got " + describe(peek()));
        return std::nullopt;
      }
    }
    take();  // ')'
    Expr e;
    e.loc = loc(fn);
    e.text = fn.text;
    if (!f) return e;
    if (args.size() != static_cast<std::size_t>(f->arity)) {
      name_error(fn, quote(fn.text) + " takes " + std::to_string(f->arity) +
                         (f->arity == 1 ? " argument" : " arguments") + ", got " +
                         std::to_string(args.size()));
      return e;
    }
    if (f->array_dim) return array_dim(fn, e, args);
    e.kind = Expr::Kind::kCall;
    for (Arg& a : args) {
      if (fn.text == "round_up" && a.expr.is_float)
        name_error(*a.first, "'round_up' needs integer arguments, got a floating value");
      e.is_float = e.is_float || a.expr.is_float;
      e.args.push_back(std::move(a.expr));
    }
    // <cmath>'s functions give doubles; abs keeps its argument's type (std::abs).
    if (is_math_function(fn.text) || fn.text == "pow") e.is_float = true;
    return e;
  }

  Expr array_dim(const Token& fn, Expr e, const std::vector<Arg>& args) {
    if (args[0].bare_name && scope_.tables) {
      auto table = scope_.tables->find(args[0].first->text);
      if (table != scope_.tables->end()) return table_dim(fn, e, args, table->second);
    }
    e.kind = Expr::Kind::kArrayDim;
    if (!scope_.allow_runtime) {
      not_constant(fn);
      return e;  // its arguments would only add noise
    }
    const Token& array = *args[0].first;
    std::vector<std::string> arr = arrays();
    if (!args[0].bare_name) {
      name_error(array, "expected an array name as the first argument of " + quote(fn.text));
    } else {
      auto it = std::find(arr.begin(), arr.end(), array.text);
      if (it == arr.end()) {
        name_error(array, "array " + quote(array.text) + " is not declared" +
                              did_you_mean(array.text, arr));
      } else {
        e.array = static_cast<int>(it - arr.begin());
      }
    }
    const Expr& dim = args[1].expr;
    const Token& dim_tok = *args[1].first;
    std::string error;
    std::optional<Value> v;
    if (!dim.is_runtime())
      v = eval(dim, scope_.constants ? *scope_.constants : std::map<std::string, Value>{}, nullptr,
               &error);
    if (!v || v->is_float) {
      name_error(dim_tok, "the dimension of " + quote(fn.text) +
                              " must be a constant integer: 0 (x), 1 (y) or 2 (z)");
      return e;
    }
    int dims = 3;
    if (e.array >= 0 && scope_.array_dims &&
        static_cast<std::size_t>(e.array) < scope_.array_dims->size())
      dims = (*scope_.array_dims)[static_cast<std::size_t>(e.array)];
    if (v->i < 0 || v->i >= dims) {
      name_error(dim_tok, "dimension " + std::to_string(v->i) + " is out of range: " +
                              (e.array >= 0 ? "array " + quote(array.text) + " has "
                                            : std::string("arrays have at most ")) +
                              std::to_string(dims) + (dims == 1 ? " dimension" : " dimensions") +
                              " (0 to " + std::to_string(dims - 1) + ")");
      return e;
    }
    e.dim = static_cast<int>(v->i);
    return e;
  }

  // extent / global_extent / offset of a table: its size in `dim`, or 0, as a constant.
  Expr table_dim(const Token& fn, Expr e, const std::vector<Arg>& args,
                 const std::vector<std::int64_t>& size) {
    e.kind = Expr::Kind::kInt;
    const Token& dim_tok = *args[1].first;
    std::string error;
    std::optional<Value> v;
    if (!args[1].expr.is_runtime())
      v = eval(args[1].expr, scope_.constants ? *scope_.constants : std::map<std::string, Value>{},
               nullptr, &error);
    const int dims = static_cast<int>(size.size());
    if (!v || v->is_float || v->i < 0 || v->i >= dims) {
      name_error(dim_tok, "the dimension of " + quote(fn.text) + " must be a constant integer " +
                              "from 0 to " + std::to_string(dims - 1) + ": table " +
                              quote(args[0].first->text) + " has " + std::to_string(dims) +
                              (dims == 1 ? " dimension" : " dimensions"));
      return e;
    }
    e.int_value = fn.text == "offset" ? 0 : size[static_cast<std::size_t>(v->i)];
    e.text = std::to_string(e.int_value);
    return e;
  }

  const spec::Text& text_;
  const ExprScope& scope_;
  Diagnostics& diags_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  mutable std::optional<LineIndex> lines_;
  static constexpr int kMaxDepth = 200;
  static constexpr std::size_t kMaxTokens = 4000;
  int depth_ = 0;
  bool bad_ = false;
};

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

std::optional<Expr> parse_expr(const spec::Text& text, const ExprScope& scope, Diagnostics& diags) {
  return Parser(text, scope, diags).run();
}

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

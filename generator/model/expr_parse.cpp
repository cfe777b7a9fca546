// The expression language's lexer and recursive-descent parser (parse_expr); evaluation and
// C++ output: expr.cpp.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "checks/validate_util.hpp"
#include "model/expr.hpp"
namespace stepgen::model {

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

}  // namespace

std::optional<Expr> parse_expr(const spec::Text& text, const ExprScope& scope, Diagnostics& diags) {
  return Parser(text, scope, diags).run();
}

}  // namespace stepgen::model

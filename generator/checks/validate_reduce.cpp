// Reductions (<reduce> in the time-loop body), <iterate until="..."> and <monitor>.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"

namespace stepgen::model::detail {

namespace {

const std::vector<std::string> kOps = {"sum", "min", "max", "l2", "linf"};

// The `until` condition: or := and ('||' and)*; and := cmp ('&&' cmp)*;
// cmp := '(' or ')' | operand ('<' | '<=' | '>' | '>=') operand;
// operand := number | step | a reduction's name | a constant's name.
// Nesting is bounded (kMaxDepth, as the expression parser's, model/expr.cpp) and so is the
// condition's length: no condition can exhaust the stack or the C++ compiler.
// `v` as a C++ double literal that reads back as `v` (shortest round trip, ".0" or an
// exponent always present).
std::string double_literal(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

class UntilParser {
 public:
  UntilParser(const spec::Text& text, const std::vector<spec::Loc>& locs, const Model& m,
              Diagnostics& diags, Until& out)
      : text_(text), locs_(locs), s_(text.value), m_(m), diags_(diags), out_(out) {}

  static constexpr int kMaxDepth = 200;
  static constexpr std::size_t kMaxLength = 4000;

  bool parse() {
    if (s_.size() > kMaxLength)
      return fail(kMaxLength,
                  "until too long (more than " + std::to_string(kMaxLength) + " characters)");
    std::string cpp;
    if (!disjunction(cpp)) return false;
    skip();
    if (i_ < s_.size())
      return fail(
          i_, "unexpected " + quote(s_.substr(i_, 1)) + " in until: expected && or || or the end");
    out_.cpp = cpp;
    return true;
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool fail(std::size_t at, const std::string& message) {
    diags_.error(locs_.size() == s_.size() && at < locs_.size() ? locs_[at] : loc_in(text_, at),
                 message);
    return false;
  }
  bool take(const char* op) {
    skip();
    const std::string o(op);
    if (s_.compare(i_, o.size(), o) != 0) return false;
    i_ += o.size();
    return true;
  }
  bool disjunction(std::string& cpp) {
    if (!conjunction(cpp)) return false;
    while (take("||")) {
      std::string rhs;
      if (!conjunction(rhs)) return false;
      cpp = "(" + cpp + " || " + rhs + ")";
    }
    return true;
  }
  bool conjunction(std::string& cpp) {
    if (!comparison(cpp)) return false;
    while (take("&&")) {
      std::string rhs;
      if (!comparison(rhs)) return false;
      cpp = "(" + cpp + " && " + rhs + ")";
    }
    return true;
  }
  bool comparison(std::string& cpp) {
    skip();
    if (take("(")) {
      const std::size_t open = i_ - 1;
      if (++depth_ > kMaxDepth)
        return fail(open, "until nested too deeply (more than " + std::to_string(kMaxDepth) +
                              " levels of parentheses)");
      if (!disjunction(cpp)) return false;
      --depth_;
      if (!take(")")) return fail(i_ < s_.size() ? i_ : open, "unclosed '(' in until");
      return true;
    }
    std::string a, b;
    if (!operand(a)) return false;
    skip();
    std::string op;
    for (const char* o : {"<=", ">=", "<", ">"})
      if (take(o)) {
        op = o;
        break;
      }
    if (op.empty())
      return fail(i_, i_ < s_.size()
                          ? "expected <, <=, > or >= in until, got " + quote(s_.substr(i_, 1))
                          : "until ends after an operand: expected <, <=, > or >=");
    if (!operand(b)) return false;
    cpp = a + " " + op + " " + b;
    return true;
  }
  bool operand(std::string& cpp) {
    skip();
    const std::size_t b = i_;
    if (i_ >= s_.size())
      return fail(i_, "until ends early: expected a reduction, a number or step");
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+') {
      std::size_t e = i_ + 1;
      while (e < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '.' ||
              ((s_[e] == '-' || s_[e] == '+') && (s_[e - 1] == 'e' || s_[e - 1] == 'E'))))
        ++e;
      const std::string number = s_.substr(b, e - b);
      if (!is_decimal_number(number)) return fail(b, "bad number " + quote(number) + " in until");
      // Compared as a double: one out of a double's range (1e999, 1e-400) is a mistake; the
      // literal is written back as the double it reads as, so that no integer literal too
      // large for C++ (9223372036854775808) reaches the program.
      errno = 0;
      const double v = std::strtod(number.c_str(), nullptr);
      if (errno == ERANGE || !std::isfinite(v))
        return fail(b, "number " + quote(number) + " in until is out of a double's range (" +
                           (std::fabs(v) < 1 ? "too small" : "too large") + ")");
      i_ = e;
      cpp = "static_cast<double>(" + double_literal(v) + ")";
      return true;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      return fail(b, "unexpected " + quote(std::string(1, c)) +
                         " in until: expected a reduction, a number or step");
    std::size_t e = i_;
    while (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) ++e;
    const std::string name = s_.substr(b, e - b);
    i_ = e;
    if (name == "step") {
      cpp = "static_cast<double>(step)";
      return true;
    }
    for (std::size_t r = 0; r < m_.reductions.size(); ++r)
      if (m_.reductions[r].name == name) {
        out_.uses.push_back(static_cast<int>(r));
        cpp = "m.value(" + std::to_string(r) + ")";
        return true;
      }
    auto c_it = m_.constant_values.find(name);
    if (c_it != m_.constant_values.end()) {
      cpp = "static_cast<double>(" + value_string(c_it->second) + ")";
      return true;
    }
    std::vector<std::string> names;
    for (const Reduction& r : m_.reductions) names.push_back(r.name);
    return fail(
        b, "until names " + quote(name) + ", which is no reduction of the time loop" +
               (names.empty() ? std::string(" (it has no <reduce>)") : did_you_mean(name, names)));
  }

  const spec::Text& text_;
  const std::vector<spec::Loc>& locs_;
  const std::string& s_;
  const Model& m_;
  Diagnostics& diags_;
  Until& out_;
  std::size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

void Builder::build_reductions() {
  std::set<std::string> seen;
  for (const spec::Reduce& r : tree_.iterate.reductions) {
    Reduction red;
    red.loc = r.loc;
    red.position = r.position;
    bool ok = true;
    if (require(r.name, "reduce names nothing: expected name=\"...\"")) {
      red.name = r.name.value;
      if (!is_identifier(red.name) || red.name == "step") {
        diags_.error(r.name.loc, "reduction name " + quote(red.name) +
                                     " must be a name (letters, digits, '_'), not 'step'");
        ok = false;
      } else if (!seen.insert(red.name).second) {
        diags_.error(r.name.loc, "reduction " + quote(red.name) + " is defined twice");
        ok = false;
      } else if (m_.constant_values.count(red.name)) {
        diags_.error(r.name.loc, "reduction " + quote(red.name) + " has the name of a constant");
        ok = false;
      }
    } else {
      ok = false;
    }
    if (require(r.op, "missing op: expected sum, min, max, l2 or linf")) {
      red.op = r.op.value;
      if (std::find(kOps.begin(), kOps.end(), red.op) == kOps.end()) {
        const std::string hint = did_you_mean(red.op, kOps);
        diags_.error(r.op.loc, "unknown reduction op " + quote(red.op) +
                                   (hint.empty() ? "; expected sum, min, max, l2 or linf" : hint));
        ok = false;
      }
    } else {
      ok = false;
    }
    if (require(r.array, "missing array: expected the array to reduce")) {
      red.array = m_.find_array(r.array.value);
      if (red.array < 0) {
        diags_.error(r.array.loc, "array " + quote(r.array.value) + " is not declared" +
                                      did_you_mean(r.array.value, array_names_));
        ok = false;
      }
    } else {
      ok = false;
    }
    if (r.minus.present) {
      red.minus = m_.find_array(r.minus.value);
      if (red.minus < 0) {
        diags_.error(r.minus.loc, "array " + quote(r.minus.value) + " is not declared" +
                                      did_you_mean(r.minus.value, array_names_));
        ok = false;
      } else if (red.array >= 0) {
        const Array& x = m_.arrays[static_cast<std::size_t>(red.array)];
        const Array& y = m_.arrays[static_cast<std::size_t>(red.minus)];
        if (red.minus == red.array) {
          diags_.error(r.minus.loc, "reduce of " + quote(x.name) + " minus itself is zero");
          ok = false;
        } else if (x.type != y.type) {
          diags_.error(r.minus.loc, "minus " + quote(y.name) + " (" + type_info(y.type).name +
                                        ") is not of the type of " + quote(x.name) + " (" +
                                        type_info(x.type).name + ")");
          ok = false;
        } else if (x.dims != y.dims || x.size != y.size) {
          diags_.error(r.minus.loc, "minus " + quote(y.name) + " (" + size_string(red.minus) +
                                        ") is not of the shape of " + quote(x.name) + " (" +
                                        size_string(red.array) + ")");
          ok = false;
        }
      }
    }
    if (red.array >= 0) {
      const Array& x = m_.arrays[static_cast<std::size_t>(red.array)];
      // The device reductions (runtime/stepgen/exec/reduce_device.hpp) are exact for these types.
      const ScalarType t = x.type;
      if (t != ScalarType::kFloat && t != ScalarType::kDouble && t != ScalarType::kInt &&
          t != ScalarType::kUint && t != ScalarType::kLong) {
        diags_.error(r.array.loc, "reduce of " + quote(x.name) + " (" + type_info(t).name +
                                      "): reductions take arrays of float, double, int, uint "
                                      "or long");
        ok = false;
      }
      if (x.dims != m_.dims || x.size != m_.domain) {
        diags_.error(r.array.loc, "reduce of " + quote(x.name) + " (" + size_string(red.array) +
                                      "): only arrays of the grid's shape can be reduced");
        ok = false;
      }
    }
    if (r.every.present) {
      if (std::optional<std::int64_t> v = plain_int(r.every, "reduce every", 1, {}))
        red.every = *v;
      else
        ok = false;
    }
    if (ok) m_.reductions.push_back(std::move(red));
  }
}

void Builder::build_until() {
  const spec::Text& until = tree_.iterate.until;
  if (!until.present) return;
  Until u;
  u.present = true;
  u.text = until.value;
  u.loc = until.loc;
  if (!require(until, "until is empty: expected a condition such as res < 1e-6")) return;
  // Names of reductions dropped for an error would be reported as unknown a second time.
  if (m_.reductions.size() != tree_.iterate.reductions.size()) return;
  UntilParser parser(until, tree_.iterate.until_locs, m_, diags_, u);
  if (!parser.parse()) return;
  std::sort(u.uses.begin(), u.uses.end());
  u.uses.erase(std::unique(u.uses.begin(), u.uses.end()), u.uses.end());
  if (u.uses.empty()) {
    diags_.error(until.loc,
                 "until names no reduction: it is tested where its reductions are "
                 "computed (use steps for a fixed count)");
    return;
  }
  m_.until = std::move(u);
}

void Builder::build_monitor() {
  const spec::Monitor& mon = tree_.monitor;
  if (!mon.present) return;
  m_.monitor.present = true;
  m_.monitor.loc = mon.loc;
  if (mon.every.present)
    if (std::optional<std::int64_t> v = plain_int(mon.every, "monitor every", 1, {}))
      m_.monitor.every = *v;
  if (mon.file.present) {
    if (require(mon.file, "monitor file is empty: expected a file name such as run.csv"))
      m_.monitor.file = mon.file.value;
  }
}

}  // namespace stepgen::model::detail

#include "emit/cpp_text.hpp"

#include <filesystem>

#include "emit/output.hpp"

namespace stepgen::emit::cpp {

using model::Expr;

std::string fill(std::string_view pattern, std::initializer_list<Sub> subs) {
  std::string out;
  std::vector<bool> used(subs.size(), false);
  const auto fail = [&](const std::string& what) {
    throw EmitError("internal error: C++ fragment '" + std::string(pattern) + "': " + what);
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') fail("a lone '}'");
    if (c != '{') {
      out += c;
      continue;
    }
    const std::size_t end = pattern.find('}', i);
    if (end == std::string_view::npos) fail("a '{' without its '}'");
    const std::string_view name = pattern.substr(i + 1, end - i - 1);
    std::size_t k = 0;
    for (const Sub& s : subs) {
      if (s.name == name) break;
      ++k;
    }
    if (k == subs.size()) fail("no value for {" + std::string(name) + "}");
    out += (subs.begin() + k)->value;
    used[k] = true;
    i = end;
  }
  std::size_t k = 0;
  for (const Sub& s : subs)
    if (!used[k++]) fail("{" + std::string(s.name) + "} given but not used");
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

std::string braced(const std::vector<std::string>& items) {
  return "{" + join(items, ", ") + "}";
}

std::string vec3(const rt::Vec3& v) {
  return braced({std::to_string(v[0]), std::to_string(v[1]), std::to_string(v[2])});
}

std::string halo(const rt::Halo& h) {
  if (h.points.empty() && !h.empty())
    return fill("rt::Halo::from_widths({dims}, {lo}, {hi})",
                {{"dims", std::to_string(h.dims)}, {"lo", vec3(h.lo)}, {"hi", vec3(h.hi)}});
  std::vector<std::string> points;
  for (const rt::Vec3& p : h.points) points.push_back(vec3(p));
  return fill("rt::Halo::from_points({dims}, {points})",
              {{"dims", std::to_string(h.dims)}, {"points", braced(points)}});
}

std::string expr(const model::Model& m, const Expr& e) {
  return model::to_cpp(e, [&m](const Expr& leaf) -> std::string {
    switch (leaf.kind) {
      case Expr::Kind::kConstant:
        return "constant::" + leaf.text;  // its own namespace: no local or macro-free clash
      case Expr::Kind::kStep:
        return "step";
      case Expr::Kind::kArrayDim:
        return fill("{fn}({array}, {dim})", {{"fn", leaf.text},
                                             {"array", array_id(m, leaf.array)},
                                             {"dim", std::to_string(leaf.dim)}});
      case Expr::Kind::kCall: {
        std::vector<std::string> args;
        for (const Expr& a : leaf.args) args.push_back(expr(m, a));
        const char* fn = leaf.text == "min"   ? "rt::min_of"
                         : leaf.text == "max" ? "rt::max_of"
                                              : "rt::round_up";
        return std::string(fn) + "(" + join(args, ", ") + ")";
      }
      default:
        throw EmitError("internal error: unexpected expression leaf '" + leaf.text + "'");
    }
  });
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string literal(const std::string& s) {
  return "\"" + escape(s) + "\"";
}

std::string array_id(const model::Model& m, int a) {
  return "array::" + m.arrays[static_cast<std::size_t>(a)].name;
}

std::string spec_dir_abs(const model::Model& m) {
  std::error_code ec;
  std::string dir = std::filesystem::absolute(m.spec_dir.empty() ? "." : m.spec_dir, ec)
                        .lexically_normal()
                        .generic_string();
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace stepgen::emit::cpp

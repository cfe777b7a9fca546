#include "model/overlap.hpp"

#include <algorithm>
#include <optional>

namespace stepgen::model {

bool uses_extent(const Expr& e, int dim) {
  if (e.kind == Expr::Kind::kArrayDim && e.text == "extent" && e.dim == dim) return true;
  for (const Expr& a : e.args)
    if (uses_extent(a, dim)) return true;
  return false;
}

namespace {

bool is_extent(const Expr& e, int dim) {
  return e.kind == Expr::Kind::kArrayDim && e.text == "extent" && e.dim == dim;
}

/// The value of a constant integer expression (literals, the spec's constants, + - * / and
/// parentheses); nullopt when it is not one.
std::optional<std::int64_t> constant_int(const Model& m, const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInt:
      return e.int_value;
    case Expr::Kind::kConstant:
      for (const Constant& c : m.constants)
        if (c.name == e.text && !c.value.is_float) return c.value.i;
      return std::nullopt;
    case Expr::Kind::kBinary: {
      const auto a = constant_int(m, e.args[0]), b = constant_int(m, e.args[1]);
      if (!a || !b) return std::nullopt;
      switch (e.op) {
        case '+':
          return *a + *b;
        case '-':
          return *a - *b;
        case '*':
          return *a * *b;
        case '/':
          return *b == 0 ? std::nullopt : std::optional<std::int64_t>(*a / *b);
        default:
          return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

/// The largest c > 1 such that `e` holds extent(X, dim) / c (a floor division: the kernel
/// covers whole groups of c cells only); 1 when none. A rounded-up division, (extent(X, dim) +
/// c - 1) / c, is not one: its kernel guards the last, partial group.
std::int64_t extent_divisor(const Model& m, const Expr& e, int dim) {
  std::int64_t c = 1;
  if (e.kind == Expr::Kind::kBinary && e.op == '/' && is_extent(e.args[0], dim)) {
    const auto v = constant_int(m, e.args[1]);
    if (v && *v > 1) c = *v;
  }
  for (const Expr& a : e.args) c = std::max(c, extent_divisor(m, a, dim));
  return c;
}

}  // namespace

std::int64_t cells_per_item(const Model& m, const Kernel& k, int d) {
  if (d >= m.dims || static_cast<int>(k.global.size()) <= d) return 1;
  return extent_divisor(m, k.global[static_cast<std::size_t>(d)], d);
}

std::string view_obstacle(const Model& m, const Kernel& k) {
  const int axis = m.dims - 1;
  const std::string e = "extent(X, " + std::to_string(axis) + ")";
  if (static_cast<int>(k.global.size()) != m.dims)
    return "kernel '" + k.name + "' has " + std::to_string(k.global.size()) +
           " global size(s) for a " + std::to_string(m.dims) + "D grid";
  if (!uses_extent(k.global[static_cast<std::size_t>(axis)], axis))
    return "kernel '" + k.name + "': its global size along the slowest dimension does not follow " +
           e;
  if (const std::int64_t c = cells_per_item(m, k, axis); c > 1)
    return "kernel '" + k.name + "': its global size along the slowest dimension divides " + e +
           " by " + std::to_string(c) + ", so a work-item computes " + std::to_string(c) +
           " cells there and a slab of another plane count would lose some";
  for (const KernelArg& a : k.args)
    if (a.kind == KernelArg::Kind::kScalar && uses_extent(a.value, axis)) return {};
  return "kernel '" + k.name + "' is given no " + e +
         " argument, so it cannot tell where a slab ends";
}

bool follows_extent(const Model& m, const Kernel& k, int d) {
  if (d >= m.dims || static_cast<int>(k.global.size()) != m.dims) return false;
  if (!uses_extent(k.global[static_cast<std::size_t>(d)], d)) return false;
  for (const KernelArg& a : k.args)
    if (a.kind == KernelArg::Kind::kScalar && uses_extent(a.value, d)) return true;
  return false;
}

bool one_item_per_cell(const Model& m, const Kernel& k) {
  const int axis = m.dims - 1;
  if (static_cast<int>(k.global.size()) != m.dims) return false;
  const Expr& g = k.global[static_cast<std::size_t>(axis)];
  return is_extent(g, axis) || (g.kind == Expr::Kind::kCall && g.text == "round_up" &&
                                !g.args.empty() && is_extent(g.args[0], axis));
}

bool scalars_use_step(const Kernel& k) {
  for (const KernelArg& a : k.args)
    if (a.kind == KernelArg::Kind::kScalar && a.value.uses_step()) return true;
  return false;
}

}  // namespace stepgen::model

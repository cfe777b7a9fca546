#include "model/overlap.hpp"

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

}  // namespace

std::string view_obstacle(const Model& m, const Kernel& k) {
  const int axis = m.dims - 1;
  const std::string e = "extent(X, " + std::to_string(axis) + ")";
  if (static_cast<int>(k.global.size()) != m.dims)
    return "kernel '" + k.name + "' has " + std::to_string(k.global.size()) +
           " global size(s) for a " + std::to_string(m.dims) + "D grid";
  if (!uses_extent(k.global[static_cast<std::size_t>(axis)], axis))
    return "kernel '" + k.name + "': its global size along the slowest dimension does not follow " +
           e;
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

}  // namespace stepgen::model

#pragma once
/// \file
/// Small text helpers the plan's rules and printers share: dimension names, boxes and byte
/// counts for people, and a plain-text table.

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::model::text {

using rt::Index;

inline const char* dim_name(int d) {
  return d == 0 ? "x" : d == 1 ? "y" : "z";
}

inline std::string vec_str(const std::array<Index, 3>& v, int dims) {
  std::string s = "[";
  for (int d = 0; d < dims; ++d)
    s += (d ? "," : "") + std::to_string(v[static_cast<std::size_t>(d)]);
  return s + "]";
}

inline std::string extent_str(const rt::Box& b) {
  std::string s;
  for (int d = 0; d < b.dims; ++d) s += (d ? "x" : "") + std::to_string(b.extent(d));
  return s;
}

inline std::string ints_str(const std::vector<int>& v) {
  if (v.empty()) return "-";
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

/// "12.5 MiB" style, for people; tables keep exact byte counts.
inline std::string human(Index bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

/// A plain-text table: columns padded to their widest cell, numbers right-aligned.
class Table {
 public:
  Table(std::vector<std::string> header, std::string align)
      : rows_{std::move(header)}, align_(std::move(align)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str(const std::string& indent = "  ") const {
    std::vector<std::size_t> width(align_.size(), 0);
    for (const auto& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out;
    for (const auto& r : rows_) {
      std::string line = indent;
      for (std::size_t c = 0; c < r.size(); ++c) {
        const std::string pad(width[c] - r[c].size(), ' ');
        line += (c ? "  " : "") + (align_[c] == 'r' ? pad + r[c] : r[c] + pad);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
  std::string align_;
};

/// The strategy a partition was made by, as `stepgen plan --strategy` names it.
inline const char* strategy_name(const rt::Partition& p) {
  if (p.rationale.rfind("stepocl", 0) == 0) return "stepocl";
  return p.rationale.rfind("slabs: grid", 0) == 0 ? "slabs" : "min-exchange";
}

}  // namespace stepgen::model::text

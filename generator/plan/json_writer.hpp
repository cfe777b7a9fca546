#pragma once
/// \file
/// A small ordered JSON writer for `stepgen plan --json`: keys in the order they are set,
/// containers on one line when short enough, so that the output is deterministic and diffs
/// read well.

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/plan/box.hpp"

namespace stepgen::model {

/// A small ordered JSON value: enough for deterministic hand-written output.
class Json {
 public:
  static Json object() { return Json(Kind::kObject); }
  static Json array() { return Json(Kind::kArray); }
  static Json string(const std::string& s) {
    Json j(Kind::kScalar);
    j.text_ = quote(s);
    return j;
  }
  static Json number(rt::Index v) {
    Json j(Kind::kScalar);
    j.text_ = std::to_string(v);
    return j;
  }
  static Json real(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    Json j(Kind::kScalar);
    j.text_ = buf;
    return j;
  }
  static Json boolean(bool v) {
    Json j(Kind::kScalar);
    j.text_ = v ? "true" : "false";
    return j;
  }
  template <typename T>
  static Json numbers(const T& values, std::size_t count) {
    Json j = array();
    for (std::size_t i = 0; i < count; ++i) j.push(number(static_cast<rt::Index>(values[i])));
    return j;
  }
  Json& set(const std::string& key, Json v) {
    items_.emplace_back(key, std::move(v));
    return *this;
  }
  Json& push(Json v) {
    items_.emplace_back(std::string(), std::move(v));
    return *this;
  }
  /// Containers fit on one line when short enough; otherwise one item per line.
  std::string dump(int indent = 0) const {
    if (kind_ == Kind::kScalar) return text_;
    const std::string flat = inline_form();
    if (flat.size() + static_cast<std::size_t>(indent) <= 96) return flat;
    const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
    std::string s = kind_ == Kind::kObject ? "{\n" : "[\n";
    for (std::size_t i = 0; i < items_.size(); ++i) {
      s += pad;
      if (kind_ == Kind::kObject) s += quote(items_[i].first) + ": ";
      s += items_[i].second.dump(indent + 2);
      s += i + 1 < items_.size() ? ",\n" : "\n";
    }
    return s + std::string(static_cast<std::size_t>(indent), ' ') +
           (kind_ == Kind::kObject ? "}" : "]");
  }

 private:
  enum class Kind { kScalar, kArray, kObject };
  explicit Json(Kind k) : kind_(k) {}
  std::string inline_form() const {
    if (kind_ == Kind::kScalar) return text_;
    std::string s = kind_ == Kind::kObject ? "{" : "[";
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (i) s += ", ";
      if (kind_ == Kind::kObject) s += quote(items_[i].first) + ": ";
      s += items_[i].second.inline_form();
    }
    return s + (kind_ == Kind::kObject ? "}" : "]");
  }
  static std::string quote(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      switch (c) {
        case '"':
          q += "\\\"";
          break;
        case '\\':
          q += "\\\\";
          break;
        case '\n':
          q += "\\n";
          break;
        case '\t':
          q += "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            q += buf;
          } else {
            q += c;
          }
      }
    }
    return q + "\"";
  }
  Kind kind_;
  std::string text_;
  std::vector<std::pair<std::string, Json>> items_;
};

/// A box as {"lo":[...],"hi":[...]}, hi exclusive.
inline Json box_json(const rt::Box& b) {
  return Json::object()
      .set("lo", Json::numbers(b.lo, static_cast<std::size_t>(b.dims)))
      .set("hi", Json::numbers(b.hi, static_cast<std::size_t>(b.dims)));
}

}  // namespace stepgen::model

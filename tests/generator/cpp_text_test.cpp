// emit/cpp_text: the one writer of the view model's C++ fragments.
#include "emit/cpp_text.hpp"

#include <doctest/doctest.h>

#include <string>

#include "emit/output.hpp"

using namespace stepgen;
using emit::cpp::fill;

TEST_CASE("cpp::fill: each {name} replaced, {{ and }} literal braces, values never rescanned") {
  CHECK(fill("rt::init_random<{type}>({seed}u)", {{"type", "float"}, {"seed", "7"}}) ==
        "rt::init_random<float>(7u)");
  CHECK(fill("static_cast<{t}>({v}) + static_cast<{t}>(1)", {{"t", "int"}, {"v", "x"}}) ==
        "static_cast<int>(x) + static_cast<int>(1)");
  CHECK(fill("{{kernel::{name}, {lo}}}", {{"name", "k"}, {"lo", "{0, 1, 0}"}}) ==
        "{kernel::k, {0, 1, 0}}");
  // A value holding braces or a name pattern is copied as it is (a spec path "a{b}.raw").
  CHECK(fill("\"{path}\"", {{"path", "a{b}.raw"}}) == "\"a{b}.raw\"");
  CHECK(fill("", {}) == "");
}

TEST_CASE("cpp::fill: a name without a value, a value never used or a lone brace is an error") {
  CHECK_THROWS_WITH_AS(fill("f({x})", {}), doctest::Contains("no value for {x}"), emit::EmitError);
  CHECK_THROWS_WITH_AS(fill("f({x})", {{"x", "1"}, {"y", "2"}}),
                       doctest::Contains("{y} given but not used"), emit::EmitError);
  CHECK_THROWS_WITH_AS(fill("f(x})", {}), doctest::Contains("a lone '}'"), emit::EmitError);
  CHECK_THROWS_WITH_AS(fill("f({x", {{"x", "1"}}), doctest::Contains("without its '}'"),
                       emit::EmitError);
  CHECK_THROWS_WITH_AS(fill("f({x})", {}), doctest::Contains("C++ fragment 'f({x})'"),
                       emit::EmitError);
}

TEST_CASE("cpp: lists, points and halos as the generated tables write them") {
  CHECK(emit::cpp::braced({}) == "{}");
  CHECK(emit::cpp::braced({"a", "b"}) == "{a, b}");
  CHECK(emit::cpp::vec3({1, -2, 3}) == "{1, -2, 3}");
  CHECK(emit::cpp::halo(rt::Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}})) ==
        "rt::Halo::from_points(2, {{-1, 0, 0}, {1, 0, 0}})");
  CHECK(emit::cpp::halo(rt::Halo::from_widths(3, {1, 2, 0}, {0, 2, 1})) ==
        "rt::Halo::from_widths(3, {1, 2, 0}, {0, 2, 1})");
  CHECK(emit::cpp::escape("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}

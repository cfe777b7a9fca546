// Exact, split-independent reductions (runtime/stepgen/description/reduce.hpp): the sum is Python's
// math.fsum of the same values, bit for bit, whatever the order and the split.
#include "stepgen/description/reduce.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace rt = stepgen::rt;

namespace {

double exact_sum(const std::vector<double>& v) {
  rt::ExactSum s;
  for (double x : v) s.add(x);
  return s.value();
}

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// Data that defeats naive summation: wide exponents, cancellation, subnormals.
std::vector<double> hard_data(std::mt19937_64& rng, std::size_t n) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-1070, 1000);
  std::uniform_int_distribution<int> kind(0, 5);
  std::vector<double> v;
  while (v.size() < n) {
    const double x = unit(rng);
    switch (kind(rng)) {
      case 0:
        v.push_back(std::ldexp(x, exponent(rng)));
        break;
      case 1:  // a pair that cancels, leaving the small one
        v.push_back(std::ldexp(x, 900));
        v.push_back(std::ldexp(-x, 900));
        break;
      case 2:
        v.push_back(std::ldexp(x, -1074 + 40));  // subnormal
        break;
      default:
        v.push_back(x);
    }
  }
  v.resize(n);
  return v;
}

/// Python's math.fsum of `v` (written to a file as raw doubles), as bits.
std::uint64_t python_fsum(const std::vector<double>& v) {
  const std::string path = "reduce_test_values.bin";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 8));
  }
  const std::string cmd =
      "python3 -c \"import math,struct,sys; d=open('" + path +
      "','rb').read(); v=struct.unpack('<%dd'%(len(d)//8), d); "
      "print(struct.unpack('<Q', struct.pack('<d', math.fsum(v)))[0])\" > reduce_test_out.txt";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in("reduce_test_out.txt");
  std::uint64_t b = 0;
  in >> b;
  REQUIRE(in);
  std::remove(path.c_str());
  std::remove("reduce_test_out.txt");
  return b;
}

}  // namespace

TEST_CASE("reduce: the exact sum is rounded once, ties to even") {
  CHECK(exact_sum({1e100, 1.0, -1e100}) == 1.0);
  CHECK(exact_sum(std::vector<double>(10, 0.1)) == 1.0);  // naive summation: 0.9999999999999999
  const double u = std::ldexp(1.0, -53);                  // half an ulp of 1
  CHECK(exact_sum({1.0, u}) == 1.0);                      // tie: to even
  CHECK(exact_sum({1.0, u, std::ldexp(1.0, -200)}) == std::nextafter(1.0, 2.0));  // above the tie
  CHECK(exact_sum({std::nextafter(1.0, 2.0), u}) == std::nextafter(std::nextafter(1.0, 2.0), 2.0));
  CHECK(exact_sum({-1.0, -u, -std::ldexp(1.0, -200)}) == -std::nextafter(1.0, 2.0));
  const double tiny = std::numeric_limits<double>::denorm_min();
  CHECK(exact_sum({tiny, tiny, tiny}) == 3 * tiny);
  CHECK(exact_sum({std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 2.5}) ==
        2.5);
  CHECK(bits(exact_sum({-0.0})) == bits(0.0));  // as math.fsum
  CHECK(bits(exact_sum({})) == bits(0.0));
  CHECK(std::isinf(
      exact_sum({std::numeric_limits<double>::max(), std::numeric_limits<double>::max()})));
  CHECK(std::isnan(exact_sum({1.0, std::nan("")})));
  CHECK(std::isnan(exact_sum({HUGE_VAL, -HUGE_VAL})));
  CHECK(exact_sum({HUGE_VAL, 1.0}) == HUGE_VAL);
}

TEST_CASE("reduce: the sum equals Python's math.fsum bit for bit") {
  std::mt19937_64 rng(2026);
  for (std::size_t n : {1u, 2u, 17u, 1000u, 100000u}) {
    for (int trial = 0; trial < 3; ++trial) {
      const std::vector<double> v = hard_data(rng, n);
      CAPTURE(n);
      CHECK(bits(exact_sum(v)) == python_fsum(v));
    }
  }
  // float data summed as double, and l2's squares (exact in double for floats)
  std::uniform_real_distribution<float> f(-3.0f, 3.0f);
  std::vector<double> floats, squares;
  rt::Reduction l2(rt::ReduceOp::kL2);
  for (int i = 0; i < 50000; ++i) {
    const float x = f(rng);
    floats.push_back(x);
    squares.push_back(static_cast<double>(x) * static_cast<double>(x));
    l2.add(x);
  }
  CHECK(bits(exact_sum(floats)) == python_fsum(floats));
  CHECK(bits(l2.value()) ==
        bits(std::sqrt(static_cast<double>([&] { return exact_sum(squares); }()))));
  CHECK(bits(exact_sum(squares)) == python_fsum(squares));
}

TEST_CASE("reduce: any split and any order give the same bits") {
  std::mt19937_64 rng(7);
  const std::vector<double> v = hard_data(rng, 20000);
  const double whole = exact_sum(v);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> w = v;
    std::shuffle(w.begin(), w.end(), rng);
    // split into 1-8 parts, each summed alone, merged in a random order, some through words()
    std::uniform_int_distribution<int> parts_of(1, 8);
    const int parts = parts_of(rng);
    std::vector<rt::ExactSum> sums(static_cast<std::size_t>(parts));
    std::uniform_int_distribution<int> which(0, parts - 1);
    for (double x : w) sums[static_cast<std::size_t>(which(rng))].add(x);
    rt::ExactSum total;
    for (const rt::ExactSum& s : sums) {
      if (trial % 2 == 0)
        total.merge(rt::ExactSum::from_words(s.words()));
      else
        total.merge(s);
    }
    CHECK(bits(total.value()) == bits(whole));
  }
  // words summed element-wise (as MPI_SUM does) equal the merge
  rt::ExactSum a, b;
  for (std::size_t i = 0; i < v.size(); ++i) (i % 3 ? a : b).add(v[i]);
  rt::ExactSum::Words wa = a.words(), wb = b.words();
  for (std::size_t i = 0; i < wa.size(); ++i) wa[i] += wb[i];
  CHECK(bits(rt::ExactSum::from_words(wa).value()) == bits(whole));
}

TEST_CASE("reduce: min, max, linf are exact and independent of the order, signed zeros too") {
  auto run = [](rt::ReduceOp op, std::vector<double> v, int split) {
    rt::Reduction a(op), b(op);
    for (std::size_t i = 0; i < v.size(); ++i) (static_cast<int>(i) < split ? a : b).add(v[i]);
    a.merge(b);
    return a.value();
  };
  const std::vector<double> v = {0.0, 3.5, -0.0, -7.25, 2.0};
  for (int split = 0; split <= 5; ++split) {
    std::vector<double> r = v;
    std::reverse(r.begin(), r.end());
    CHECK(run(rt::ReduceOp::kMin, v, split) == -7.25);
    CHECK(run(rt::ReduceOp::kMax, r, split) == 3.5);
    CHECK(run(rt::ReduceOp::kLinf, v, split) == 7.25);
    CHECK(bits(run(rt::ReduceOp::kMax, {0.0, -0.0}, split % 3)) == bits(0.0));
    CHECK(bits(run(rt::ReduceOp::kMax, {-0.0, 0.0}, split % 3)) == bits(0.0));
    CHECK(bits(run(rt::ReduceOp::kMin, {0.0, -0.0}, split % 3)) == bits(-0.0));
    CHECK(bits(run(rt::ReduceOp::kMin, {-0.0, 0.0}, split % 3)) == bits(-0.0));
  }
  CHECK(std::isnan(rt::Reduction(rt::ReduceOp::kMin).value()));
  CHECK(std::isnan(run(rt::ReduceOp::kMax, {1.0, std::nan(""), 2.0}, 1)));
  CHECK_THROWS_AS(rt::parse_reduce_op("mean"), std::invalid_argument);
  CHECK(rt::parse_reduce_op("l2") == rt::ReduceOp::kL2);
}

// Tests of io/py_format.{h,cpp} against what /usr/bin/python3 itself prints: repr() of floats,
// round(), and ints vs floats.

#include "io/py_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include "support/test_files.h"

namespace cs::io {
namespace {

std::string hexfloat(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

// Doubles that exercise every branch of repr: fixed/scientific boundaries, subnormals, long
// digit strings, integers stored as floats, and random bit patterns.
std::vector<double> sample_doubles() {
  std::vector<double> v = {1e-05,
                           1e16,
                           0.1 + 0.2,
                           1695054582608213.0,
                           1695054582707330.2,
                           5e-324,
                           -0.0,
                           0.0,
                           1.0,
                           -1.0,
                           0.0001,
                           0.00009999999999999999,
                           9999999999999998.0,
                           9999999999999999.0,
                           1e15,
                           123456789012345678.0,
                           1.5e16,
                           1.7976931348623157e308,
                           2.2250738585072014e-308,
                           2.225073858507201e-308,
                           0.00015000000000000001,
                           121.73694384375,
                           0.009869906250000001,
                           3.14159,
                           100.0,
                           1e22,
                           1e23,
                           1e-7,
                           0.5,
                           2.675,
                           123.456,
                           4.35,
                           -2.5e-10,
                           1e100,
                           12345678.9};
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 3000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) v.push_back(d);
  }
  std::uniform_real_distribution<double> exp10(-12, 20);
  for (int i = 0; i < 3000; ++i) {
    double mag = std::pow(10.0, exp10(rng));
    v.push_back((rng() % 2 ? -1 : 1) * mag * std::uniform_real_distribution<double>(1, 10)(rng));
  }
  for (int i = 0; i < 500; ++i) {
    // Short decimals, as profilers print them: 0.0202, 5.77, 115.9.
    v.push_back(static_cast<double>(rng() % 1000000) / std::pow(10.0, rng() % 8));
  }
  return v;
}

TEST(PyFormat, ReprMatchesPython) {
  const std::vector<double> values = sample_doubles();
  std::string input = testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_repr_in.txt";
  {
    std::ofstream out(input);
    for (double d : values) out << hexfloat(d) << "\n";
  }
  std::string py = cs::test::run_stdout(
      "/usr/bin/python3 -c 'import sys\nfor l in open(sys.argv[1]): "
      "print(repr(float.fromhex(l.strip())))' " +
      input);
  std::remove(input.c_str());
  std::istringstream lines(py);
  std::string expected;
  size_t i = 0;
  size_t mismatches = 0;
  while (std::getline(lines, expected)) {
    ASSERT_LT(i, values.size());
    std::string ours = py_repr(values[i]);
    if (ours != expected && ++mismatches < 20) {
      ADD_FAILURE() << hexfloat(values[i]) << ": ours " << ours << ", python " << expected;
    }
    ++i;
  }
  EXPECT_EQ(i, values.size());
  EXPECT_EQ(mismatches, 0u);
}

// py_repr remembers its last results per thread (by the double's bits): values formatted again,
// in any order and with many sharing a slot, give the same text as the first time. The reference
// is made on a thread of its own from distinct values, where nothing can be remembered yet.
TEST(PyFormat, RepeatedValuesSameRepr) {
  std::vector<double> distinct = sample_doubles();
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i)
    distinct.push_back(
        std::ldexp(static_cast<double>(rng() >> 11), -60 + static_cast<int>(rng() % 120)));
  std::sort(distinct.begin(), distinct.end(), [](double a, double b) {
    uint64_t x, y;
    std::memcpy(&x, &a, 8);
    std::memcpy(&y, &b, 8);
    return x < y;
  });
  distinct.erase(std::unique(distinct.begin(), distinct.end(),
                             [](double a, double b) { return std::memcmp(&a, &b, 8) == 0; }),
                 distinct.end());
  std::vector<std::string> expected(distinct.size());
  std::thread([&] {
    for (size_t i = 0; i < distinct.size(); ++i) expected[i] = py_repr(distinct[i]);
  }).join();
  for (int round = 0; round < 3; ++round) {
    size_t mismatches = 0;
    for (int k = 0; k < 200000; ++k) {
      // Mostly a few hot values, sometimes any value: hits, misses and evictions mixed.
      const size_t i = (k % 3 == 0) ? rng() % distinct.size() : rng() % 64;
      std::string got;
      append_py_repr(got, distinct[i]);
      if (got != expected[i] && ++mismatches < 10)
        ADD_FAILURE() << hexfloat(distinct[i]) << ": " << got << " instead of " << expected[i];
    }
    EXPECT_EQ(mismatches, 0u);
  }
}

TEST(PyFormat, KnownReprs) {
  EXPECT_EQ(py_repr(1e-05), "1e-05");
  EXPECT_EQ(py_repr(1e16), "1e+16");
  EXPECT_EQ(py_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(py_repr(1695054582608213.0), "1695054582608213.0");
  EXPECT_EQ(py_repr(5e-324), "5e-324");
  EXPECT_EQ(py_repr(-0.0), "-0.0");
  EXPECT_EQ(py_repr(0.0001), "0.0001");
  EXPECT_EQ(py_repr(1.5e16), "1.5e+16");
  // json.dumps spellings of the non-finite values.
  EXPECT_EQ(py_repr(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(py_repr(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(py_repr(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(PyFormat, IntsAndFloats) {
  auto s = [](Num n) {
    std::string out;
    append_py_num(out, n);
    return out;
  };
  EXPECT_EQ(s(Num::integer(0)), "0");
  EXPECT_EQ(s(Num::real(0.0)), "0.0");
  EXPECT_EQ(s(Num::integer(-42)), "-42");
  EXPECT_EQ(s(Num::integer(1695054582608213)), "1695054582608213");
  EXPECT_EQ(s(Num::real(1695054582608213.0)), "1695054582608213.0");
  EXPECT_EQ(s(Num::integer(9007199254740993)), "9007199254740992");  // a double holds it
  EXPECT_EQ(s(Num::integer(1) + Num::integer(2)), "3");
  EXPECT_EQ(s(Num::integer(1) + Num::real(2)), "3.0");
}

TEST(PyFormat, RoundMatchesPython) {
  std::mt19937_64 rng(99);
  std::vector<std::pair<double, int>> cases = {
      {2.675, 2},
      {0.5, 0},
      {1.5, 0},
      {2.5, 0},
      {-0.4, 0},
      {-2.5, 0},
      {0.125, 2},
      {0.375, 2},
      {1e-05, 4},
      {1e-05, 5},
      {1e300, 2},
      {5e-324, 400},
      {123.456, 1},
      {0.9999, 3},
      {0.30000000000000004, 16},
      {1695054582608213.0, 4},
      {1234.5, -2},
      {1250.0, -2},
      {1350.0, -2},
      {49.0, -2},
      {50.0, -2},
      {51.0, -2},
      {150.0, -2},
      {-1234.5, -1},
      {0.0, 3},
      {-0.0, 2},
      {1e22, -21},
      {7.0, -1},
  };
  for (int i = 0; i < 2000; ++i) {
    double x = static_cast<double>(rng() % 100000000) / std::pow(10.0, rng() % 9);
    if (rng() % 2) x = -x;
    cases.push_back({x, static_cast<int>(rng() % 9)});
    // Exact halves at the rounding digit, where half-even matters.
    double half = (static_cast<double>(rng() % 2000) + 0.5) / std::pow(10.0, rng() % 4);
    cases.push_back({half, static_cast<int>(rng() % 4)});
    // Quotients like the bandwidths and ratios the documents round to 4 digits (every binary
    // digit set: py_round's fast path decides these without formatting).
    const double q =
        static_cast<double>(rng() % 1000000007) / static_cast<double>(1 + rng() % 99991);
    cases.push_back({rng() % 2 ? q : -q / 1e6, static_cast<int>(rng() % 12)});
  }
  for (int i = 0; i < 300; ++i) {
    double x = static_cast<double>(rng() % 10000000);
    cases.push_back({x, -static_cast<int>(1 + rng() % 6)});
  }
  std::string input = testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_round_in.txt";
  {
    std::ofstream out(input);
    for (auto& [x, n] : cases) out << hexfloat(x) << " " << n << "\n";
  }
  std::string py = cs::test::run_stdout(
      "/usr/bin/python3 -c 'import sys\nfor l in open(sys.argv[1]):\n x, n = l.split()\n "
      "print(repr(round(float.fromhex(x), int(n))))' " +
      input);
  std::remove(input.c_str());
  std::istringstream lines(py);
  std::string expected;
  size_t i = 0, bad = 0;
  while (std::getline(lines, expected)) {
    ASSERT_LT(i, cases.size());
    std::string ours = py_repr(py_round(cases[i].first, cases[i].second));
    if (ours != expected && ++bad < 20) {
      ADD_FAILURE() << "round(" << py_repr(cases[i].first) << ", " << cases[i].second << "): ours "
                    << ours << ", python " << expected;
    }
    ++i;
  }
  EXPECT_EQ(i, cases.size());
  EXPECT_EQ(bad, 0u);
}

TEST(PyFormat, Shortest) {
  EXPECT_EQ(shortest(3.0), "3");
  EXPECT_EQ(shortest(0.25), "0.25");
  EXPECT_EQ(shortest(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(shortest(std::nan("")), "nan");
  EXPECT_EQ(shortest(-std::numeric_limits<double>::infinity()), "-inf");
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1000; ++i) {
    double d = std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
    EXPECT_EQ(std::strtod(shortest(d).c_str(), nullptr), d);
  }
}

}  // namespace
}  // namespace cs::io

// QuantileSketch: relative-error guarantee against exact sorted quantiles, exact
// order-independent merge, pack/unpack round trip.

#include "stats/quantile_sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace cs::stats {
namespace {

// The sample DDSketch's quantile(q) targets: the lower quantile, index floor(q*(n-1)).
double exact_lower_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(std::floor(q * static_cast<double>(v.size() - 1)))];
}

std::vector<double> lognormal_sample(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(3.0, 1.5);  // microseconds, heavy tail
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(QuantileSketch, EmptyIsNaN) {
  QuantileSketch s;
  EXPECT_EQ(s.count(), 0);
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
}

TEST(QuantileSketch, SingleValueWithinAlpha) {
  QuantileSketch s(0.01);
  s.add(123.456);
  for (double q : {0.0, 0.5, 1.0}) EXPECT_NEAR(s.quantile(q), 123.456, 123.456 * 0.01);
}

TEST(QuantileSketch, RelativeErrorBoundOnHeavyTail) {
  for (double alpha : {0.005, 0.01, 0.05}) {
    auto v = lognormal_sample(20000, 42);
    QuantileSketch s(alpha);
    for (double x : v) s.add(x);
    ASSERT_EQ(s.count(), 20000);
    for (double q : {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
      const double exact = exact_lower_quantile(v, q);
      const double got = s.quantile(q);
      EXPECT_LE(std::abs(got - exact), alpha * exact * (1 + 1e-12))
          << "alpha=" << alpha << " q=" << q << " exact=" << exact << " got=" << got;
    }
  }
}

TEST(QuantileSketch, ZerosAndNegativesCountAsZero) {
  QuantileSketch s;
  s.add(0.0, 3);
  s.add(-5.0);
  s.add(10.0, 4);
  EXPECT_EQ(s.count(), 8);
  EXPECT_EQ(s.quantile(0.0), 0.0);
  EXPECT_EQ(s.quantile(3.0 / 7.0), 0.0);  // index 3: still a zero
  EXPECT_NEAR(s.quantile(4.0 / 7.0), 10.0, 0.1);
  EXPECT_NEAR(s.quantile(1.0), 10.0, 0.1);
  s.add(std::nan(""));  // ignored
  EXPECT_EQ(s.count(), 8);
}

TEST(QuantileSketch, MergeIsExactAndOrderIndependent) {
  auto v = lognormal_sample(5000, 7);
  QuantileSketch whole;
  for (double x : v) whole.add(x);

  std::mt19937 rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t parts = 2 + rng() % 30;
    std::vector<QuantileSketch> part(parts);
    for (double x : v) part[rng() % parts].add(x);
    std::shuffle(part.begin(), part.end(), rng);
    QuantileSketch merged;
    for (const auto& p : part) merged.merge(p);
    ASSERT_EQ(merged.count(), whole.count());
    for (double q = 0; q <= 1.0; q += 0.01) EXPECT_EQ(merged.quantile(q), whole.quantile(q));
  }
}

TEST(QuantileSketch, MergeDifferentAlphaKeepsCount) {
  QuantileSketch a(0.01), b(0.02);
  for (int i = 1; i <= 100; ++i) {
    a.add(i);
    b.add(i + 100);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), 200);
  EXPECT_NEAR(a.quantile(1.0), 200, 200 * 0.031);
}

TEST(QuantileSketch, PackUnpackRoundTrip) {
  QuantileSketch s(0.02);
  for (double x : lognormal_sample(1000, 3)) s.add(x);
  s.add(0, 5);
  io::ByteWriter w;
  s.pack(w);
  w.put<int32_t>(99);  // trailing data stays readable
  io::ByteReader r(w.data());
  auto u = QuantileSketch::unpack(r);
  EXPECT_EQ(r.get<int32_t>(), 99);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(u.count(), s.count());
  EXPECT_EQ(u.relative_accuracy(), 0.02);
  for (double q = 0; q <= 1.0; q += 0.05) EXPECT_EQ(u.quantile(q), s.quantile(q));
}

TEST(QuantileSketch, UnpackShortBufferThrows) {
  QuantileSketch s;
  s.add(1.0);
  io::ByteWriter w;
  s.pack(w);
  auto bytes = w.data();
  bytes.pop_back();
  io::ByteReader r(bytes);
  EXPECT_THROW(QuantileSketch::unpack(r), std::runtime_error);
}

}  // namespace
}  // namespace cs::stats

// Quantiles: exact linear interpolation (numpy / pandas default) up to the bound, the sketch's
// relative bound beyond it, merges that equal the whole, pack/unpack.
//
// Expected values were computed independently with Python's statistics module, whose
// "inclusive" method is the same linear interpolation numpy.quantile uses by default:
//   import statistics
//   v = [3.5, 1.0, 7.25, 2.0, 100.0, 4.0]
//   q = statistics.quantiles(v, n=100, method='inclusive')   # q[49] = p50, q[89] = p90, ...
//   # p50 3.75, p90 53.625, p99 95.3625, p25 2.375, p0 1.0, p100 100.0
// and for the real job ascend-real/text_level1 (hcom_allReduce_ rows of both ranks'
// kernel_details.csv, Duration(us)):
//   v = [2280.145, 2281.105, 2395.387, 2402.388, 22218.863, 22224.584, 73475.168, 79089.52]
//   statistics.quantiles(v, n=100, method='inclusive')[49]  -> 12310.6255  (p50)
//   ...[89] -> 75159.4736 (p90), ...[98] -> 78696.51536 (p99)
// Before this change the sketch's lower quantile gave p50 = 2416.8 for the latter.

#include "stats/quantiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace cs::stats {
namespace {

void expect_rel(double got, double want, double rel) {
  EXPECT_LE(std::abs(got - want), rel * std::abs(want)) << "got " << got << " want " << want;
}

TEST(Quantiles, LinearInterpolationAsNumpy) {
  Quantiles d;
  for (double x : {3.5, 1.0, 7.25, 2.0, 100.0, 4.0}) d.add(x);
  ASSERT_TRUE(d.exact());
  EXPECT_EQ(d.relative_error(), 0.0);
  expect_rel(d.quantile(0.50), 3.75, 1e-15);
  expect_rel(d.quantile(0.90), 53.625, 1e-15);
  expect_rel(d.quantile(0.99), 95.3625, 1e-15);
  expect_rel(d.quantile(0.25), 2.375, 1e-15);
  EXPECT_EQ(d.quantile(0.0), 1.0);
  EXPECT_EQ(d.quantile(1.0), 100.0);
  EXPECT_TRUE(std::isnan(Quantiles().quantile(0.5)));
}

TEST(Quantiles, RealAllReduceDurations) {
  const std::vector<double> v = {2280.145,  2281.105,  2395.387,  2402.388,
                                 22218.863, 22224.584, 73475.168, 79089.52};
  // Split as the two ranks are (rank 0 and rank 1 each hold four), merged in rank order.
  Quantiles r0, r1;
  for (size_t i = 0; i < v.size(); ++i) (i % 2 ? r1 : r0).add(v[i]);
  r0.merge(r1);
  ASSERT_TRUE(r0.exact());
  expect_rel(r0.quantile(0.50), 12310.6255, 1e-12);
  expect_rel(r0.quantile(0.90), 75159.4736, 1e-12);
  expect_rel(r0.quantile(0.99), 78696.51536, 1e-12);
}

TEST(Quantiles, MergeOfPartsEqualsTheWhole) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dist(3.0, 1.5);
  std::vector<double> v(10000);
  for (auto& x : v) x = dist(rng);
  Quantiles whole;
  for (double x : v) whole.add(x);
  for (int parts : {2, 3, 7}) {
    std::vector<Quantiles> p(static_cast<size_t>(parts));
    for (size_t i = 0; i < v.size(); ++i) p[rng() % p.size()].add(v[i]);
    Quantiles m;
    for (const auto& x : p) m.merge(x);
    for (double q : {0.0, 0.5, 0.9, 0.99, 1.0}) EXPECT_EQ(m.quantile(q), whole.quantile(q));
  }
}

// sort_samples() answers from the sorted samples without a copy: the same bits as the selection
// in a copy, for every q (ties and both ends included), on the textbook example too; a sample
// added afterwards unsorts them, and the answer follows it.
TEST(Quantiles, SortedSamplesGiveTheSameQuantiles) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> dist(3.0, 1.5);
  Quantiles held, sorted;
  for (int i = 0; i < 5000; ++i) {
    const double x = i % 7 == 0 ? 42.0 : dist(rng);  // ties
    held.add(x);
    sorted.add(x);
  }
  sorted.sort_samples();
  EXPECT_TRUE(std::is_sorted(sorted.samples().begin(), sorted.samples().end()));
  for (double q : {0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.9999, 1.0})
    EXPECT_EQ(sorted.quantile(q), held.quantile(q)) << q;
  sorted.add(1e9);  // the new largest: p100 must see it although the flag said sorted
  held.add(1e9);
  EXPECT_EQ(sorted.quantile(1.0), 1e9);
  EXPECT_EQ(sorted.quantile(0.5), held.quantile(0.5));

  Quantiles d;
  for (double x : {3.5, 1.0, 7.25, 2.0, 100.0, 4.0}) d.add(x);
  d.sort_samples();
  expect_rel(d.quantile(0.50), 3.75, 1e-15);
  expect_rel(d.quantile(0.90), 53.625, 1e-15);
  expect_rel(d.quantile(0.99), 95.3625, 1e-15);
  EXPECT_TRUE(std::isnan(sorted_quantile({}, 0.5)));
}

// Samples given back after merge_counting() are held once, at their exact count: no doubling.
TEST(Quantiles, GivenBackSamplesAreHeldAtTheirCount) {
  Quantiles part;
  for (int i = 0; i < 3000; ++i) part.add(static_cast<double>(i));
  Quantiles merged;
  ASSERT_TRUE(merged.merge_counting(part));
  for (size_t at = 0; at < part.samples().size(); at += 1000)
    merged.give_back(part.samples().data() + at, 1000);
  EXPECT_EQ(merged.samples().size(), 3000u);
  EXPECT_EQ(merged.samples().capacity(), 3000u);
  EXPECT_EQ(merged.quantile(0.5), 1499.5);
}

TEST(Quantiles, BeyondTheBoundTheSketchAnswersWithinOnePercent) {
  const int64_t n = Quantiles::kExactLimit + 1;
  Quantiles d;
  std::vector<double> v;
  v.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v.push_back(1.0 + static_cast<double>(i % 1000));
  for (size_t i = 0; i + 1 < v.size(); ++i) d.add(v[i]);
  ASSERT_TRUE(d.exact());
  d.add(v.back());
  ASSERT_FALSE(d.exact());
  EXPECT_EQ(d.exact_samples(), 0u);
  EXPECT_EQ(d.count(), n);
  EXPECT_DOUBLE_EQ(d.relative_error(), 0.01);
  for (double q : {0.5, 0.9, 0.99}) {
    const double lower = v.empty() ? 0 : [&] {
      std::vector<double> s = v;
      std::sort(s.begin(), s.end());
      return s[static_cast<size_t>(std::floor(q * static_cast<double>(n - 1)))];
    }();
    expect_rel(d.quantile(q), lower, 0.01 + 1e-12);
  }
  // Two exact halves whose sum passes the bound merge into the sketch too.
  Quantiles a, b;
  for (int64_t i = 0; i < n / 2 + 1; ++i) a.add(2.0), b.add(4.0);
  a.merge(b);
  EXPECT_FALSE(a.exact());
  EXPECT_EQ(a.count(), 2 * (n / 2 + 1));
}

TEST(Quantiles, ApproximateInputIsNotExact) {
  Quantiles d;
  d.add(10.0);
  d.add_approximate(20.0, 3);  // op_statistic.csv: a mean, not samples
  EXPECT_FALSE(d.exact());
  EXPECT_EQ(d.count(), 4);
  expect_rel(d.quantile(1.0), 20.0, 0.01);
}

TEST(Quantiles, PackUnpackBothModes) {
  Quantiles e;
  for (double x : {5.0, 1.0, 3.0}) e.add(x);
  io::ByteWriter w;
  e.pack(w);
  Quantiles s;
  s.add(1.0);
  s.add_approximate(7.0, 5);
  s.pack(w);
  io::ByteReader r(w.data());
  Quantiles e2 = Quantiles::unpack(r);
  Quantiles s2 = Quantiles::unpack(r);
  EXPECT_TRUE(e2.exact());
  EXPECT_EQ(e2.quantile(0.5), 3.0);
  EXPECT_FALSE(s2.exact());
  EXPECT_EQ(s2.count(), 6);
  EXPECT_EQ(s2.quantile(0.9), s.quantile(0.9));
}

}  // namespace
}  // namespace cs::stats

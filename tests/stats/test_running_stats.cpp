// RunningStats against two-pass formulas, including merges of many random splits.

#include "stats/running_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace cs::stats {
namespace {

struct TwoPass {
  double sum = 0, mean = 0, m2 = 0, min = 0, max = 0;
};

TwoPass two_pass(const std::vector<double>& v) {
  TwoPass t;
  for (double x : v) t.sum += x;
  t.mean = t.sum / static_cast<double>(v.size());
  for (double x : v) t.m2 += (x - t.mean) * (x - t.mean);
  t.min = *std::min_element(v.begin(), v.end());
  t.max = *std::max_element(v.begin(), v.end());
  return t;
}

std::vector<double> sample(size_t n, uint32_t seed, double offset) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(offset, 3.0);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// rel_m2: allowed relative error on M2. Welford's error grows with the condition number
// mean/std (3e8 for the 1e9 offset), where the naive sum-of-squares formula loses every digit.
void expect_matches(const RunningStats& s, const std::vector<double>& v, double rel_m2 = 1e-9) {
  const auto t = two_pass(v);
  ASSERT_EQ(s.count, static_cast<int64_t>(v.size()));
  EXPECT_NEAR(s.sum, t.sum, 1e-9 * std::abs(t.sum) + 1e-9);
  EXPECT_NEAR(s.mean, t.mean, 1e-12 * std::abs(t.mean) + 1e-12);
  EXPECT_NEAR(s.m2, t.m2, rel_m2 * t.m2);
  EXPECT_NEAR(s.variance(), t.m2 / static_cast<double>(v.size()), rel_m2 * t.m2);
  EXPECT_NEAR(s.sample_variance(), t.m2 / static_cast<double>(v.size() - 1), rel_m2 * t.m2);
  EXPECT_EQ(s.min, t.min);
  EXPECT_EQ(s.max, t.max);
}

TEST(RunningStats, EmptyAndSingle) {
  RunningStats s;
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.variance(), 0.0);
  EXPECT_EQ(s.sample_variance(), 0.0);
  s.add(5.0, 3);
  EXPECT_EQ(s.mean, 5.0);
  EXPECT_EQ(s.variance(), 0.0);
  EXPECT_EQ(s.sample_variance(), 0.0);
  EXPECT_EQ(s.min_rank, 3);
  EXPECT_EQ(s.max_rank, 3);
}

TEST(RunningStats, OnePassMatchesTwoPass) {
  // A large offset makes the naive sum-of-squares formula lose all precision; Welford must not.
  for (double offset : {0.0, 1e3, 1e9}) {
    auto v = sample(10000, 11, offset);
    RunningStats s;
    for (double x : v) s.add(x);
    expect_matches(s, v, offset > 1e6 ? 1e-6 : 1e-9);
  }
}

TEST(RunningStats, MergeOfManyRandomSplits) {
  auto v = sample(4000, 5, 1e6);
  std::mt19937 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    const size_t parts = 1 + rng() % 64;
    std::vector<RunningStats> part(parts);
    for (size_t i = 0; i < v.size(); ++i) part[rng() % parts].add(v[i], static_cast<int>(i));
    // Random tree reduction order (as MPI might do it).
    while (part.size() > 1) {
      const size_t a = rng() % part.size();
      size_t b = rng() % part.size();
      if (a == b) continue;
      part[a].merge(part[b]);
      part.erase(part.begin() + static_cast<std::ptrdiff_t>(b));
    }
    expect_matches(part.front(), v, 1e-7);
    // min/max ranks point at the index holding them.
    EXPECT_EQ(v[static_cast<size_t>(part.front().min_rank)], part.front().min);
    EXPECT_EQ(v[static_cast<size_t>(part.front().max_rank)], part.front().max);
  }
}

TEST(RunningStats, MergeWithEmptyIsIdentity) {
  auto v = sample(100, 1, 0);
  RunningStats s, e;
  for (double x : v) s.add(x);
  RunningStats a = s;
  a.merge(e);
  EXPECT_EQ(a.m2, s.m2);
  e.merge(s);
  EXPECT_EQ(e.m2, s.m2);
  EXPECT_EQ(e.count, s.count);
}

TEST(RunningStats, TiesGoToLowestRank) {
  RunningStats a, b;
  a.add(1.0, 5);
  a.add(9.0, 5);
  b.add(1.0, 2);
  b.add(9.0, 2);
  a.merge(b);
  EXPECT_EQ(a.min_rank, 2);
  EXPECT_EQ(a.max_rank, 2);
}

TEST(RunningStats, PackUnpackRoundTrip) {
  RunningStats s;
  for (double x : sample(50, 2, 10)) s.add(x, 4);
  io::ByteWriter w;
  s.pack(w);
  io::ByteReader r(w.data());
  auto u = RunningStats::unpack(r);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(u.count, s.count);
  EXPECT_EQ(u.sum, s.sum);
  EXPECT_EQ(u.mean, s.mean);
  EXPECT_EQ(u.m2, s.m2);
  EXPECT_EQ(u.min, s.min);
  EXPECT_EQ(u.max, s.max);
  EXPECT_EQ(u.min_rank, s.min_rank);
  EXPECT_EQ(u.max_rank, s.max_rank);
}

}  // namespace
}  // namespace cs::stats

// OperatorTable: per-key statistics, aggregates, rank-ordered merge, pack/unpack.

#include "stats/operator_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

namespace cs::stats {
namespace {

TEST(OperatorTable, AddKeepsPerKeyAndPerRankTotals) {
  OperatorTable t;
  t.add("MatMul", 10, 0);
  t.add("MatMul", 30, 0);
  t.add("MatMul", 20, 1);
  t.add("Add", 1, 1);
  t.add("Add", std::nan(""), 1);  // ignored
  ASSERT_EQ(t.keys().size(), 2u);
  const auto& mm = t.keys().at("MatMul");
  EXPECT_EQ(mm.durations.count, 3);
  EXPECT_DOUBLE_EQ(mm.durations.sum, 60);
  EXPECT_DOUBLE_EQ(mm.durations.mean, 20);
  EXPECT_EQ(mm.durations.max_rank, 0);
  EXPECT_EQ(mm.quantiles.count(), 3);
  EXPECT_NEAR(mm.quantiles.quantile(0.5), 20, 0.2);
  EXPECT_DOUBLE_EQ(mm.rank_totals.at(0), 40);
  EXPECT_DOUBLE_EQ(mm.rank_totals.at(1), 20);
  EXPECT_EQ(t.keys().at("Add").durations.count, 1);
}

TEST(OperatorTable, AddAggregate) {
  OperatorTable t;
  t.add_aggregate("Conv2D", 4, 100, 10, 40, 3);
  t.add_aggregate("Conv2D", 0, 100, 10, 40, 3);  // ignored: no kernels
  const auto& c = t.keys().at("Conv2D");
  EXPECT_EQ(c.durations.count, 4);
  EXPECT_DOUBLE_EQ(c.durations.sum, 100);
  EXPECT_DOUBLE_EQ(c.durations.mean, 25);
  EXPECT_DOUBLE_EQ(c.durations.min, 10);
  EXPECT_DOUBLE_EQ(c.durations.max, 40);
  EXPECT_EQ(c.durations.min_rank, 3);
  EXPECT_EQ(c.quantiles.count(), 4);
  EXPECT_NEAR(c.quantiles.quantile(0.9), 25, 0.25);
  EXPECT_DOUBLE_EQ(c.rank_totals.at(3), 100);
  // Mixed with individual kernels: means combine exactly.
  t.add("Conv2D", 50, 4);
  EXPECT_EQ(t.keys().at("Conv2D").durations.count, 5);
  EXPECT_DOUBLE_EQ(t.keys().at("Conv2D").durations.mean, 30);
  EXPECT_DOUBLE_EQ(t.keys().at("Conv2D").durations.max, 50);
  EXPECT_EQ(t.keys().at("Conv2D").durations.max_rank, 4);
}

TEST(OperatorTable, MergeEqualsSingleTable) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> d(2, 1);
  const char* keys[] = {"MatMul", "Add", "Softmax", "LayerNorm", "allreduce"};
  OperatorTable all;
  std::vector<OperatorTable> per_rank(8);
  for (int i = 0; i < 5000; ++i) {
    const int rank = static_cast<int>(rng() % 8);
    const char* key = keys[rng() % 5];
    const double x = d(rng);
    all.add(key, x, rank);
    per_rank[static_cast<size_t>(rank)].add(key, x, rank);
  }
  OperatorTable merged;
  for (const auto& t : per_rank) merged.merge(t);
  ASSERT_EQ(merged.keys().size(), all.keys().size());
  for (const auto& [key, s] : all.keys()) {
    const auto& m = merged.keys().at(key);
    EXPECT_EQ(m.durations.count, s.durations.count);
    EXPECT_NEAR(m.durations.sum, s.durations.sum, 1e-9 * s.durations.sum);
    EXPECT_NEAR(m.durations.m2, s.durations.m2, 1e-9 * s.durations.m2);
    EXPECT_EQ(m.durations.min, s.durations.min);
    EXPECT_EQ(m.durations.max, s.durations.max);
    EXPECT_EQ(m.durations.max_rank, s.durations.max_rank);
    for (double q : {0.5, 0.9, 0.99}) EXPECT_EQ(m.quantiles.quantile(q), s.quantiles.quantile(q));
    ASSERT_EQ(m.rank_totals.size(), s.rank_totals.size());
    for (const auto& [r, tot] : s.rank_totals) EXPECT_NEAR(m.rank_totals.at(r), tot, 1e-9 * tot);
  }
}

// The per-rank totals are a sorted flat vector: adding in any order gives what a std::map<int,
// double> with map[rank] += v gives, bit for bit (the merged table's bytes depend on it).
TEST(OperatorTable, RankTotalsAddAsAMapDoes) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> d(2, 1);
  RankTotals flat;
  std::map<int, double> map;
  for (int i = 0; i < 3000; ++i) {
    // Mostly increasing ranks (as the merge adds them), some out of order and repeated.
    const int rank = i % 7 == 0 ? static_cast<int>(rng() % 200) : i / 10;
    const double v = d(rng);
    flat.add(rank, v);
    map[rank] += v;
  }
  ASSERT_EQ(flat.size(), map.size());
  auto it = map.begin();
  for (const auto& [rank, total] : flat) {
    EXPECT_EQ(rank, it->first);
    EXPECT_EQ(total, it->second);
    EXPECT_EQ(flat.at(rank), total);
    ++it;
  }
  EXPECT_EQ(flat.find(-1), flat.end());
  EXPECT_THROW(flat.at(100000), std::out_of_range);
  flat.erase(0);
  EXPECT_EQ(flat.find(0), flat.end());
  EXPECT_EQ(flat.size(), map.size() - 1);
  const RankTotals listed = {{4, 1.5}, {2, 1}, {4, 2}};
  EXPECT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed.at(4), 3.5);
  EXPECT_EQ(listed.begin()->first, 2);
}

// rename_rank files one rank's totals under another (compare pairs two single-rank profiles).
TEST(OperatorTable, RenameRankMovesTheTotals) {
  OperatorTable t;
  t.add("MatMul", 10, 1);
  t.add("MatMul", 4, 3);
  t.add("Add", 2, 3);
  t.rename_rank(3, 0);
  EXPECT_EQ(t.keys().at("MatMul").rank_totals, (RankTotals{{0, 4}, {1, 10}}));
  EXPECT_EQ(t.keys().at("Add").rank_totals, (RankTotals{{0, 2}}));
  t.rename_rank(1, 0);
  EXPECT_EQ(t.keys().at("MatMul").rank_totals, (RankTotals{{0, 14}}));
}

TEST(OperatorTable, PackUnpackRoundTripIsByteIdentical) {
  OperatorTable t;
  t.add("MatMul", 10.5, 0);
  t.add("MatMul", 11.5, 2);
  t.add_aggregate("Add", 10, 5, 0.25, 1, 1);
  t.add("name with, comma", 3, 7);
  io::ByteWriter w;
  t.pack(w);
  io::ByteReader r(w.data());
  auto u = OperatorTable::unpack(r);
  EXPECT_TRUE(r.done());
  io::ByteWriter w2;
  u.pack(w2);
  EXPECT_EQ(w.data(), w2.data());
  EXPECT_EQ(u.keys().at("MatMul").rank_totals.at(2), 11.5);
  EXPECT_EQ(u.keys().at("Add").durations.count, 10);
}

TEST(OperatorTable, EmptyRoundTrip) {
  OperatorTable t;
  EXPECT_TRUE(t.empty());
  io::ByteWriter w;
  t.pack(w);
  io::ByteReader r(w.data());
  EXPECT_TRUE(OperatorTable::unpack(r).empty());
  EXPECT_TRUE(r.done());
}

}  // namespace
}  // namespace cs::stats

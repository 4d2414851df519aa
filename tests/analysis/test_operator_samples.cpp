// The merged operator table's exact samples and rank totals parked on disk by key
// (analysis/operator_samples.h, merge_operators_parked, operator_rows): the TopN rows must be
// those of the merge that holds every sample (merge_operators, stats::select_topn) bit for bit,
// whatever the park's block size,
// with the samples in the spill file, held (no file) or half and half (the file failing midway);
// a key past the exact limit (the sketch answers) and a rank with pre-aggregated groups included.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "analysis/operators_topn.h"
#include "runtime/spill_file.h"
#include "support/exact_bits.h"

namespace cs::analysis {
namespace {

// 20 ranks (ids 2, 5, 8, ...) with random kernels under five keys, two ranks with a
// pre-aggregated group (op_statistic.csv: that key is no longer exact), one rank with none, and
// "Big": 60,000 kernels a rank on 19 ranks, so its merged samples pass Quantiles::kExactLimit
// (2^20) at the 18th and the sketch answers for it.
std::vector<load::RankData> ranks_for_parking() {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dur(3, 1.1);
  const char* keys[] = {"MatMulV3", "SoftmaxV2", "Add", "LayerNorm", "hcom_allReduce_"};
  std::vector<load::RankData> ranks(20);
  for (size_t i = 0; i < ranks.size(); ++i) {
    load::RankData& d = ranks[i];
    const int rank = 2 + 3 * static_cast<int>(i);
    d.entry.rank = rank;
    if (i == 7) continue;  // no kernels
    stats::OperatorTable& t = d.operators.edit();
    const int n = 30 + static_cast<int>(rng() % 300);
    for (int k = 0; k < n; ++k) t.add(keys[rng() % 5], dur(rng), rank);
    for (int k = 0; k < 60'000; ++k) t.add("Big", dur(rng), rank);
    if (i == 4 || i == 13) t.add_aggregate("SoftmaxV2", 9, 80.5, 2.5, 20, rank);
  }
  return ranks;
}

using cs::test::bits;

void expect_same_rows(const std::vector<stats::TopNRow>& a, const std::vector<stats::TopNRow>& b,
                      const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(what + ", row " + std::to_string(i) + " " + a[i].key);
    EXPECT_EQ(a[i].key, b[i].key);
    EXPECT_EQ(a[i].count, b[i].count);
    for (auto [x, y] : {std::pair{a[i].total_us, b[i].total_us},
                        {a[i].mean_us, b[i].mean_us},
                        {a[i].std_us, b[i].std_us},
                        {a[i].min_us, b[i].min_us},
                        {a[i].max_us, b[i].max_us},
                        {a[i].p50_us, b[i].p50_us},
                        {a[i].p90_us, b[i].p90_us},
                        {a[i].p99_us, b[i].p99_us},
                        {a[i].cross_rank_cv, b[i].cross_rank_cv}})
      EXPECT_EQ(bits(x), bits(y));
    EXPECT_EQ(a[i].ranks, b[i].ranks);
    EXPECT_EQ(a[i].min_rank, b[i].min_rank);
    EXPECT_EQ(a[i].max_rank, b[i].max_rank);
  }
}

TEST(OperatorSamples, ParkedRowsAreTheRowsOfTheHeldMerge) {
  std::vector<load::RankData> ranks = ranks_for_parking();
  auto ranks_spill = runtime::SpillFile::create();
  for (size_t i = 0; i < ranks.size(); i += 2) ranks[i].operators.spill(ranks_spill);
  const stats::OperatorTable held = merge_operators(ranks);
  // What the reference holds: Big went to the sketch, the pre-aggregated key too, the rest exact.
  ASSERT_EQ(held.keys().size(), 6u);
  EXPECT_FALSE(held.keys().at("Big").quantiles.exact());
  EXPECT_FALSE(held.keys().at("SoftmaxV2").quantiles.exact());
  EXPECT_TRUE(held.keys().at("MatMulV3").quantiles.exact());
  const stats::RankStages stages = {{2, 0}, {5, 0}, {8, 1}, {11, 1}};
  const std::vector<stats::TopNRow> want = stats::select_topn(held, 0, stats::OrderBy::kTotal);
  const std::vector<stats::TopNRow> want_staged =
      stats::select_topn(held, 0, stats::OrderBy::kTotal, stages);
  for (size_t park : {size_t{1}, size_t{1000}, OperatorSamplePark::kParkSamples}) {
    for (bool with_file : {true, false}) {
      const std::string what =
          "park " + std::to_string(park) + (with_file ? ", spill file" : ", held");
      auto file = with_file ? runtime::SpillFile::create() : nullptr;
      const ParkedOperators merged = merge_operators_parked(ranks, file, park);
      EXPECT_TRUE(merged.samples->problem().empty()) << what;
      // The samples are on disk, not in the merged table (a file) or held apart (none).
      EXPECT_EQ(merged.samples->parked_bytes() > 0, with_file) << what;
      EXPECT_TRUE(merged.table.keys().at("MatMulV3").quantiles.samples().empty()) << what;
      EXPECT_GT(merged.table.keys().at("MatMulV3").quantiles.samples_elsewhere(), 0) << what;
      EXPECT_TRUE(merged.table.keys().at("MatMulV3").rank_totals.empty()) << what;
      expect_same_rows(stats::select_rows(operator_rows(merged, {}), 0, stats::OrderBy::kTotal),
                       want, what);
      expect_same_rows(stats::select_rows(operator_rows(merged, stages), 0, stats::OrderBy::kTotal),
                       want_staged, what + ", stages");
      // Reading a key back twice gives the same rows (the park is not consumed).
      expect_same_rows(stats::select_rows(operator_rows(merged, {}), 0, stats::OrderBy::kTotal),
                       want, what + ", again");
    }
  }
  // The table: the same choice of rows, by every order.
  const ParkedOperators merged = merge_operators_parked(ranks, runtime::SpillFile::create(), 64);
  for (auto order : {stats::OrderBy::kTotal, stats::OrderBy::kCv, stats::OrderBy::kMax}) {
    const io::Table a = operators_topn_table(held, 3, order, stages);
    const io::Table b = operators_topn_table(operator_rows(merged, stages), 3, order);
    ASSERT_EQ(a.rows(), 3u);
    ASSERT_EQ(b.rows(), a.rows());
    for (size_t c = 0; c < a.columns.size(); ++c) {
      EXPECT_EQ(a.columns[c].strings, b.columns[c].strings) << a.columns[c].name;
      EXPECT_EQ(a.columns[c].ints, b.columns[c].ints) << a.columns[c].name;
      ASSERT_EQ(a.columns[c].doubles.size(), b.columns[c].doubles.size());
      for (size_t r = 0; r < a.columns[c].doubles.size(); ++r)
        EXPECT_EQ(bits(a.columns[c].doubles[r]), bits(b.columns[c].doubles[r]))
            << a.columns[c].name << " row " << r;
    }
  }
}

// A spill file that cannot be written past a few blocks (a file size limit, as on a full disk):
// what is in the file stays read from there, the rest is held; problem() says why, once; the
// rows are the same.
TEST(OperatorSamples, FileThatFailsMidwayKeepsTheRestInMemory) {
  const std::vector<load::RankData> ranks = ranks_for_parking();
  const std::vector<stats::TopNRow> want =
      stats::select_topn(merge_operators(ranks), 0, stats::OrderBy::kTotal);
  auto file = runtime::SpillFile::create();
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit limit = before;
  limit.rlim_cur = 8 * 200'000;  // room for three ranks' blocks (about 60,000 samples each)
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  ParkedOperators merged;
  try {
    merged = merge_operators_parked(ranks, file, 20'000);
  } catch (...) {
    setrlimit(RLIMIT_FSIZE, &before);
    std::signal(SIGXFSZ, old_handler);
    throw;
  }
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(merged.samples->problem(), "");
  EXPECT_GT(merged.samples->parked_bytes(), 0u);
  EXPECT_LT(merged.samples->parked_bytes(), uint64_t{8} * 19 * 60'000);
  expect_same_rows(stats::select_rows(operator_rows(merged, {}), 0, stats::OrderBy::kTotal), want,
                   "after the failure");
}

// The quantiles' own contract: a state merged by counting, completed with its samples in any
// order and in pieces, answers as the state merged with the samples; not before.
TEST(OperatorSamples, CountingMergeCompletedIsTheSampleMerge) {
  stats::Quantiles a, b, c;
  for (int i = 0; i < 40; ++i) a.add(1.5 * i);
  for (int i = 0; i < 7; ++i) b.add(100.0 - i);
  c.add_approximate(12, 5);  // pre-aggregated: not exact
  stats::Quantiles held, counted;
  std::vector<double> kept;
  for (const stats::Quantiles* q : {&a, &b}) {
    held.merge(*q);
    ASSERT_TRUE(counted.merge_counting(*q));
    kept.insert(kept.end(), q->samples().begin(), q->samples().end());
  }
  EXPECT_EQ(counted.count(), 47);
  EXPECT_EQ(counted.exact_samples(), 47u);
  EXPECT_THROW((void)counted.quantile(0.5), std::logic_error);
  stats::Quantiles done = counted;
  done.give_back(kept.data() + 40, 7);  // b's first: the order does not matter
  done.give_back(kept.data(), 40);
  EXPECT_THROW(done.give_back(kept.data(), 1), std::logic_error);  // no more were left out
  for (double q : {0.0, 0.5, 0.9, 0.99, 1.0})
    EXPECT_EQ(bits(done.quantile(q)), bits(held.quantile(q))) << q;
  // An inexact rank: both go to the sketch; the samples kept so far are added to it.
  held.merge(c);
  EXPECT_FALSE(counted.merge_counting(c));
  EXPECT_FALSE(counted.exact());
  counted.give_back(kept.data(), kept.size());
  for (double q : {0.0, 0.5, 0.9, 0.99, 1.0})
    EXPECT_EQ(bits(counted.quantile(q)), bits(held.quantile(q))) << q;
}

}  // namespace
}  // namespace cs::analysis

// The root of `cluster` parks every rank's operator table (held, packed in memory, or in the spill
// file; packed in memory once the spill file cannot be written) and merge_operators reads them
// back one rank at a time: the merged table must have the bytes of the merge of the tables held
// in memory, whatever the mix of states.

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

// 24 ranks (ids 3, 5, 7, ...: not their positions) with kernels of random durations under six
// keys, some ranks with pre-aggregated groups (op_statistic.csv), one with no kernels at all.
std::vector<load::RankData> random_ranks() {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> dur(3, 1.2);
  const char* keys[] = {"MatMulV3", "SoftmaxV2", "Add", "LayerNorm", "hcom_allReduce_", "Cast"};
  std::vector<load::RankData> ranks(24);
  for (size_t i = 0; i < ranks.size(); ++i) {
    load::RankData& d = ranks[i];
    const int rank = 3 + 2 * static_cast<int>(i);
    d.entry.rank = rank;
    if (i == 9) continue;  // no kernels: an empty table
    stats::OperatorTable& t = d.operators.edit();
    const int n = 50 + static_cast<int>(rng() % 200);
    for (int k = 0; k < n; ++k) t.add(keys[rng() % (i % 4 == 0 ? 3 : 6)], dur(rng), rank);
    if (i % 5 == 1) t.add_aggregate("Conv2D", 7, 91.5, 3.25, 30, rank);
  }
  return ranks;
}

using cs::test::bits;

std::vector<char> bytes_of(const stats::OperatorTable& t) {
  io::ByteWriter w;
  t.pack(w);
  return std::move(w.data());
}

enum class State { kHeld, kPacked, kSpilled };

TEST(OperatorsParkedMerge, MergeFromParkedTablesHasTheBytesOfTheHeldMerge) {
  const std::vector<load::RankData> held = random_ranks();
  const stats::OperatorTable want = merge_operators(held);
  const std::vector<char> want_bytes = bytes_of(want);
  // The merged table is what the ranks hold between them (not an empty table equal to itself).
  ASSERT_EQ(want.keys().size(), 7u);
  EXPECT_EQ(want.keys().at("Conv2D").rank_totals.size(), 5u);
  EXPECT_EQ(want.keys().at("MatMulV3").rank_totals.size(), 23u);
  auto spill = runtime::SpillFile::create();
  const std::vector<std::vector<State>> mixes = {
      std::vector<State>(held.size(), State::kPacked),
      std::vector<State>(held.size(), State::kSpilled),
      {State::kSpilled, State::kHeld, State::kPacked},  // repeated over the ranks
      {State::kHeld, State::kHeld, State::kSpilled, State::kSpilled, State::kPacked},
  };
  for (size_t m = 0; m < mixes.size(); ++m) {
    std::vector<load::RankData> ranks = held;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const State s = mixes[m][i % mixes[m].size()];
      if (s == State::kPacked) ranks[i].operators.pack();
      if (s == State::kSpilled) ranks[i].operators.spill(spill);
    }
    EXPECT_EQ(bytes_of(merge_operators(ranks)), want_bytes) << "mix " << m;
    // Reading leaves every rank as it was, and a second merge gives the same bytes again.
    for (size_t i = 0; i < ranks.size(); ++i) {
      const State s = mixes[m][i % mixes[m].size()];
      EXPECT_EQ(ranks[i].operators.spilled(), s == State::kSpilled) << i;
      EXPECT_EQ(ranks[i].operators.packed(), s == State::kPacked) << i;
    }
    EXPECT_EQ(bytes_of(merge_operators(ranks)), want_bytes) << "mix " << m << ", again";
  }
  // The table built from the parked ranks is the same table too (the keys' order, the values).
  std::vector<load::RankData> spilled = held;
  for (auto& d : spilled) d.operators.spill(spill);
  const io::Table a = operators_topn_table(held, 0, stats::OrderBy::kTotal);
  const io::Table b = operators_topn_table(spilled, 0, stats::OrderBy::kTotal);
  ASSERT_EQ(a.rows(), 7u);
  ASSERT_EQ(b.rows(), a.rows());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    EXPECT_EQ(a.columns[c].strings, b.columns[c].strings) << a.columns[c].name;
    EXPECT_EQ(a.columns[c].ints, b.columns[c].ints) << a.columns[c].name;
    ASSERT_EQ(a.columns[c].doubles.size(), b.columns[c].doubles.size());
    for (size_t r = 0; r < a.columns[c].doubles.size(); ++r) {
      EXPECT_EQ(bits(a.columns[c].doubles[r]), bits(b.columns[c].doubles[r]))
          << a.columns[c].name << " row " << r;
    }
  }
}

// The loader's fallback (cluster/cluster_loader.cpp, SpillGuard): once the spill file cannot be
// written (here a file size limit, as on a full disk) the rank whose append failed and every rank
// after it are packed in memory; the ranks already in the file stay there. Same merged bytes.
TEST(OperatorsParkedMerge, SpillFailureFallbackMergesToTheSameBytes) {
  const std::vector<load::RankData> held = random_ranks();
  const std::vector<char> want_bytes = bytes_of(merge_operators(held));
  std::vector<load::RankData> ranks = held;
  auto spill = runtime::SpillFile::create();
  std::vector<char> one;
  ranks[0].operators.packed_copy(one);
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit limit = before;
  limit.rlim_cur = 6 * one.size();  // room for a few ranks' tables, not for all
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  bool on = true;
  size_t in_file = 0;
  for (auto& d : ranks) {
    if (on) {
      try {
        d.operators.spill(spill);
        ++in_file;
        continue;
      } catch (const std::runtime_error&) {
        on = false;
      }
    }
    d.operators.pack();
  }
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(on);
  EXPECT_GE(in_file, 2u);
  EXPECT_LT(in_file, ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    EXPECT_EQ(ranks[i].operators.spilled(), i < in_file) << i;
    EXPECT_EQ(ranks[i].operators.packed(), i >= in_file) << i;
  }
  EXPECT_EQ(bytes_of(merge_operators(ranks)), want_bytes);
}

}  // namespace
}  // namespace cs::analysis

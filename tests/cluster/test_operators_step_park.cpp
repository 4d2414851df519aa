// operators_step parks the kernels' exact durations in the loader's spill file
// (analysis::merge_operators_parked). Without a file they are held (the loader already said why:
// no second warning); a file that cannot be written keeps them in memory with one warning; the
// operators_topn table is the same in every case.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <bit>
#include <csignal>
#include <random>

#include "cluster/analysis_steps.h"
#include "runtime/spill_file.h"

namespace cs::cluster {
namespace {

// 8 ranks of 30,000 kernels under three keys: more samples than one park block holds.
std::vector<load::RankData> ranks_with_kernels() {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> dur(2, 0.8);
  const char* keys[] = {"MatMulV3", "Add", "hcom_allReduce_"};
  std::vector<load::RankData> ranks(8);
  for (int r = 0; r < 8; ++r) {
    load::RankData& d = ranks[static_cast<size_t>(r)];
    d.entry.rank = r;
    for (int k = 0; k < 30'000; ++k) d.operators.edit().add(keys[rng() % 3], dur(rng), r);
  }
  return ranks;
}

size_t step_park_warnings(const StepMessages& m) {
  size_t n = 0;
  for (const auto& d : m.notes.items())
    if (d.what.find("could not be parked on disk") != std::string::npos) ++n;
  return n;
}

void expect_same_topn(const io::Table& a, const io::Table& b) {
  ASSERT_EQ(a.rows(), 3u);
  ASSERT_EQ(b.rows(), a.rows());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    EXPECT_EQ(a.columns[c].strings, b.columns[c].strings) << a.columns[c].name;
    EXPECT_EQ(a.columns[c].ints, b.columns[c].ints) << a.columns[c].name;
    ASSERT_EQ(a.columns[c].doubles.size(), b.columns[c].doubles.size());
    for (size_t r = 0; r < a.columns[c].doubles.size(); ++r)
      EXPECT_EQ(std::bit_cast<uint64_t>(a.columns[c].doubles[r]),
                std::bit_cast<uint64_t>(b.columns[c].doubles[r]))
          << a.columns[c].name << " row " << r;
  }
}

TEST(OperatorsStepPark, UnwritableFileWarnsOnceAndGivesTheSameTable) {
  const std::vector<load::RankData> ranks = ranks_with_kernels();
  AnalysisOptions opts;
  opts.top_n = 0;
  const OperatorsResult held = operators_step(AnalysisInputs{ranks, nullptr, nullptr}, opts);
  EXPECT_EQ(step_park_warnings(held.messages), 0u);  // no file: the loader said why
  const OperatorsResult parked =
      operators_step(AnalysisInputs{ranks, nullptr, runtime::SpillFile::create()}, opts);
  EXPECT_EQ(step_park_warnings(parked.messages), 0u);
  expect_same_topn(held.topn, parked.topn);

  auto file = runtime::SpillFile::create();
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit limit = before;
  limit.rlim_cur = 4096;  // not one block
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  OperatorsResult full;
  try {
    full = operators_step(AnalysisInputs{ranks, nullptr, file}, opts);
  } catch (...) {
    setrlimit(RLIMIT_FSIZE, &before);
    std::signal(SIGXFSZ, old_handler);
    throw;
  }
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(step_park_warnings(full.messages), 1u);
  EXPECT_TRUE(full.messages.output.empty());
  expect_same_topn(held.topn, full.topn);
  ASSERT_EQ(full.by_cv.size(), held.by_cv.size());
  for (size_t i = 0; i < held.by_cv.size(); ++i) EXPECT_EQ(full.by_cv[i].key, held.by_cv[i].key);
}

}  // namespace
}  // namespace cs::cluster

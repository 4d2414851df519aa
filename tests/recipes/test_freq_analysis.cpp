// The freq_analysis recipe.
// - judge_frequencies: 1800 only is normal, exactly 800 and 1800 idle, anything else abnormal.
// - Golden: a five-rank job built from the real db_level1 sample (ranks r % 2's files, renumbered
//   r, RANK_DEVICE_MAP set to r; its AICORE_FREQ holds only 1800 MHz) with frequencies added:
//   rank 1 and 4 at 800 (idle), rank 2 at 1200 and rank 3 at 1000 and 800 (abnormal). `cluster -m
//   freq_analysis --export_type db` writes exactly what msprof-analyze 8399c1cd wrote for it
//   (tests/data/ascend-real/msprof-analyze-ref/db_level1_freq5__freq_analysis__db), and the same
//   bytes under mpirun -np 1, 2 and 4.
// - Golden, generated: `generate --slow-freq 3:800 --slow-freq 5:1200` (AICORE_FREQ: 1800 MHz at
//   every step start, those ranks at 800 / 1200 from their second step) gives msprof-analyze's
//   FreeFrequencyRanks [3] and AbnormalFrequencyRanks [5]
//   (tests/data/generated-db/tp2pp2s3_freq_analysis__db).
// - The real sample itself (1800 MHz only) gets no table; the text export writes no file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "msprof_analyze/recipes/freq_analysis/freq_analysis.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::freq_analysis::FreqVerdict;
using cs::recipes::freq_analysis::judge_frequencies;

namespace {

const fs::path& freq_scratch() {
  static const cs::test::ScratchDir dir("freq-analysis");
  return dir.path();
}

const fs::path& freq_job() {
  static const fs::path job = [] {
    const fs::path j = freq_scratch() / "freq5";
    const char* added[] = {"", "INSERT INTO AICORE_FREQ VALUES (1, 1, 800);",
                           "INSERT INTO AICORE_FREQ VALUES (0, 1, 1200);",
                           "INSERT INTO AICORE_FREQ VALUES (1, 1, 1000);"
                           "INSERT INTO AICORE_FREQ VALUES (1, 2, 800);",
                           "INSERT INTO AICORE_FREQ VALUES (0, 1, 800);"};
    for (int r = 0; r < 5; ++r) {
      cs::test::copy_real_db_rank(j, r);
      cs::test::exec_sql(
          j / ("node_" + std::to_string(100 + r) + "_1736410538_ascend_pt") /
              "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(r) + ".db"),
          "UPDATE RANK_DEVICE_MAP SET rankId = " + std::to_string(r) + ";" + added[r]);
    }
    return j;
  }();
  return job;
}

fs::path run_freq(const fs::path& job, const std::string& launcher, const std::string& name,
                  const std::string& type) {
  return cs::test::run_recipe(job, freq_scratch() / name, "freq_analysis", type, launcher);
}

TEST(FreqAnalysis, Verdicts) {
  EXPECT_EQ(judge_frequencies({1800}), FreqVerdict::kNormal);
  EXPECT_EQ(judge_frequencies({800, 1800}), FreqVerdict::kIdle);
  EXPECT_EQ(judge_frequencies({800}), FreqVerdict::kAbnormal);
  EXPECT_EQ(judge_frequencies({1200, 1800}), FreqVerdict::kAbnormal);
  EXPECT_EQ(judge_frequencies({800, 1000, 1800}), FreqVerdict::kAbnormal);
}

TEST(FreqAnalysis, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const fs::path ref = fs::path(CS_TEST_DATA) / "ascend-real" / "msprof-analyze-ref" /
                       "db_level1_freq5__freq_analysis__db";
  const fs::path single = run_freq(freq_job(), "", "nolauncher", "db");
  cs::test::expect_same_outputs(single, ref);
  cs::test::expect_same_at_process_counts(single, "", [](const auto& launcher, const auto& name) {
    return run_freq(freq_job(), launcher, name, "db");
  });
}

TEST(FreqAnalysis, GeneratedSlowFreqMatchesMsprofAnalyze) {
  const fs::path job = cs::test::generate_job(freq_scratch() / "generated",
                                              "--ranks 8 --tp 2 --pp 2 --steps 3 --export-type db "
                                              "--slow-freq 3:800 --slow-freq 5:1200");
  cs::test::expect_same_outputs(
      run_freq(job, "", "generated-out", "db"),
      fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2s3_freq_analysis__db");
}

TEST(FreqAnalysis, NormalJobAndTextExportWriteNothing) {
  const fs::path real = fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1";
  for (const auto& [job, type] : {std::pair{real, "db"}, std::pair{freq_job(), "text"}}) {
    const fs::path out = run_freq(job, "", std::string("none-") + type, type);
    for (const auto& f : fs::recursive_directory_iterator(out))
      EXPECT_FALSE(f.is_regular_file() && f.path().filename() != ".clusterscope_written")
          << f.path();
  }
}

}  // namespace

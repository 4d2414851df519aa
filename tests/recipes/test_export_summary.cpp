// The export_summary recipe.
// - python_true_divide: Python's int / int, the double nearest the exact quotient, also past
//   2^53 where converting first and dividing rounds twice.
// - Golden, real: `cluster -m export_summary` on the real two-rank DB job (ascend-real/db_level1:
//   PMU counters, communication ops) writes each rank's api_statistic.csv and kernel_details.csv
//   byte for byte as msprof-analyze 8399c1cd wrote them into the rank directories of a copy
//   (tests/data/ascend-real/msprof-analyze-ref/db_level1__export_summary), under
//   ExportSummary/<rank directory>/, and the same bytes under mpirun -np 1, 2 and 4.
// - Golden, generated: the same on `generate JOB --ranks 4 --tp 2 --pp 2 --steps 1 --export-type
//   db` (no PMU counters; tests/data/generated-db/tp2pp2s1_export_summary).
// - The inputs are never written: no CSV appears in the rank directories.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "msprof_analyze/recipes/export_summary/export_summary.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::export_summary::python_true_divide;

namespace {

const fs::path& export_summary_scratch() {
  static const cs::test::ScratchDir dir("export-summary");
  return dir.path();
}

const fs::path& export_summary_job() {
  static const fs::path job = [] {
    const fs::path j = export_summary_scratch() / "tp2pp2s1";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 4 --tp 2 --pp 2 --steps 1 --export-type db",
                                         (export_summary_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(export_summary_scratch() / "generate.log");
    return j;
  }();
  return job;
}

fs::path run_export_summary(const fs::path& job, const std::string& launcher,
                            const std::string& name) {
  const fs::path out = export_summary_scratch() / name;
  const int rc = cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " + job.string() +
                                           " -o " + out.string() + " -m export_summary",
                                       out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

void expect_golden(const fs::path& job, const fs::path& ref, const std::string& name) {
  const fs::path single = run_export_summary(job, "", name + "-nolauncher");
  cs::test::expect_same_outputs(single, ref);
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_export_summary(
                    job, cs::test::mpirun(np), name + "-np" + std::to_string(np))) == expected)
        << "np=" << np;
  for (const auto& f : fs::recursive_directory_iterator(job))
    EXPECT_NE(f.path().extension(), ".csv") << f.path();
}

TEST(ExportSummary, PythonTrueDivide) {
  EXPECT_EQ(python_true_divide(53761, 1000), 53.761);
  EXPECT_EQ(python_true_divide(-7, 2), -3.5);
  // Values Python 3 printed: x / 1000 for x past 2^53 (double spacing 0.25 at the quotient).
  EXPECT_EQ(python_true_divide(1736410576404465540, 1000), 1736410576404465.5);
  // Here converting x to a double first (x rounds to a multiple of 256) lands a step too high.
  EXPECT_EQ(python_true_divide(2241844888877521059, 1000), 2241844888877521.0);
  EXPECT_EQ(static_cast<double>(2241844888877521059) / 1000.0, 2241844888877521.25);
}

TEST(ExportSummary, RealJobMatchesMsprofAnalyzeAtAnyProcessCount) {
  expect_golden(
      fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1",
      fs::path(CS_TEST_DATA) / "ascend-real" / "msprof-analyze-ref" / "db_level1__export_summary",
      "real");
}

TEST(ExportSummary, GeneratedJobMatchesMsprofAnalyzeAtAnyProcessCount) {
  expect_golden(export_summary_job(),
                fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2s1_export_summary", "gen");
}

}  // namespace

// The cluster_time_compare_summary recipe.
// - Golden: two generated DB jobs, A (`generate --ranks 8 --tp 4 --pp 2 --steps 3 --slow-rank
//   5:1.5`) and C (the same shape, `--steps 2 --seed 3`), each with its ClusterTimeSummary
//   written by `cluster -m cluster_time_summary -o` itself; `cluster -d A -m
//   cluster_time_compare_summary --bp C` (A's third step has no base: those rows dropped, the base
//   and diff columns float) and `-d C --bp A` (every row matched, int columns stay int) write
//   exactly what msprof-analyze 8399c1cd wrote (tests/data/generated-db/cmp_{AC,CA}), also under
//   mpirun -np 2.
// - Without --bp, with the text export, or a base without ClusterTimeSummary: exit 1 and what to
//   do.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;

namespace {

const fs::path& time_compare_scratch() {
  static const cs::test::ScratchDir dir("time-compare");
  return dir.path();
}

// A generated job with its cluster_analysis_output/cluster_analysis.db (ClusterTimeSummary).
fs::path time_compare_job(const std::string& name, const std::string& args) {
  const fs::path j = time_compare_scratch() / name;
  if (fs::exists(j)) return j;
  const std::string log = (time_compare_scratch() / (name + ".log")).string();
  EXPECT_EQ(cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                      " --ranks 8 --tp 4 --pp 2 --export-type db " + args,
                                  log),
            0)
      << cs::test::read_file(log);
  EXPECT_EQ(cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " + j.string() + " -o " +
                                      j.string() + " -m cluster_time_summary --export_type db",
                                  log),
            0)
      << cs::test::read_file(log);
  return j;
}
fs::path job_a() {
  return time_compare_job("A", "--steps 3 --slow-rank 5:1.5");
}
fs::path job_c() {
  return time_compare_job("C", "--steps 2 --seed 3");
}

int compare(const std::string& launcher, const fs::path& current, const std::string& args,
            const std::string& name) {
  const fs::path out = time_compare_scratch() / name;
  return cs::test::run_command(launcher + CS_BINARY + " cluster -d " + current.string() + " -o " +
                                   out.string() + " -m cluster_time_compare_summary " + args,
                               out.string() + ".log");
}

TEST(ClusterTimeCompareSummary, MatchesMsprofAnalyze) {
  for (const auto& [name, current, base] :
       {std::tuple{"AC", job_a(), job_c()}, std::tuple{"CA", job_c(), job_a()}}) {
    const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / ("cmp_" + std::string(name));
    for (const std::string& launcher : {std::string(), cs::test::mpirun(2)}) {
      const std::string out = std::string(name) + (launcher.empty() ? "" : "-np2");
      ASSERT_EQ(compare(launcher, current, "--export_type db --bp " + base.string(), out), 0)
          << cs::test::read_file(time_compare_scratch() / (out + ".log"));
      cs::test::expect_same_outputs(time_compare_scratch() / out / "cluster_analysis_output", ref);
    }
  }
}

TEST(ClusterTimeCompareSummary, SaysWhatIsMissing) {
  const fs::path bare = time_compare_scratch() / "bare";
  cs::test::copy_real_db_rank(bare, 0);
  const std::pair<std::string, std::string> cases[] = {
      {"--export_type db", "--bp BASE_DIR"},
      {"--export_type text --bp " + job_c().string(), "--export_type db"},
      {"--export_type db --bp " + bare.string(), "cluster_time_summary"}};
  int k = 0;
  for (const auto& [args, hint] : cases) {
    const std::string name = "bad" + std::to_string(k++);
    EXPECT_EQ(compare("", job_a(), args, name), 1);
    const std::string log = cs::test::read_file(time_compare_scratch() / (name + ".log"));
    EXPECT_NE(log.find(hint), std::string::npos) << log;
  }
}

}  // namespace

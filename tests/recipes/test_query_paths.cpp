// The one query path (msprof_analyze/recipes/recipe_skeleton.h answer_query): `cluster -m
// <recipe> --progress` on the real 2-rank DB job says, per query, how many ranks its scan and its
// SQL answered; with CS_RECIPE_SCANS=off every query is answered by SQL, and the outputs are the
// same bytes either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;

namespace {

// Every regular file below `dir` (the run's ledger aside) by relative path, with its bytes. A
// file name's run time (cluster_time_summary_20261129092148.csv, as msprof-analyze names its text
// outputs) reads "<time>": the two runs compared may fall in different seconds.
std::map<std::string, std::string> files_below(const fs::path& dir) {
  static const std::regex kRunTime("_[0-9]{14}(\\.[a-z]+)$");
  std::map<std::string, std::string> out;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.is_regular_file() && f.path().filename() != ".clusterscope_written") {
      const std::string name =
          std::regex_replace(fs::relative(f.path(), dir).string(), kRunTime, "_<time>$1");
      out[name] = cs::test::read_file(f.path().string());
    }
  return out;
}

// Runs `recipe` (text export, --progress) with the scans on or off; its stderr+stdout and the
// outputs' directory. The job is a private copy: a scan declines a database with a sidecar beside
// it (-journal, -wal), which another test opening the shared tests/data copy could leave for a
// moment, and the counts would then be off.
std::string run_query_paths(const std::string& recipe, bool scans, const fs::path& out) {
  const fs::path input = out.string() + "-job";
  fs::copy(fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1", input,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const std::string env = scans ? "CS_RECIPE_SCANS=on " : "CS_RECIPE_SCANS=off ";
  const std::string log = out.string() + ".log";
  const int rc =
      cs::test::run_command(env + CS_BINARY + " cluster -d " + input.string() + " -o " +
                                out.string() + " -m " + recipe + " --export_type text --progress",
                            log);
  EXPECT_EQ(rc, 0) << cs::test::read_file(log);
  return cs::test::read_file(log);
}

struct QueryCase {
  const char* recipe;
  std::vector<const char*> queries;  // the queries its map asks on each rank
};

class QueryPaths : public ::testing::TestWithParam<QueryCase> {};

TEST_P(QueryPaths, CountedPerQueryAndSameOutputs) {
  const QueryCase c = GetParam();
  const fs::path on = cs::test::temp_dir(std::string("paths-on-") + c.recipe);
  const fs::path off = cs::test::temp_dir(std::string("paths-off-") + c.recipe);
  const std::string log_on = run_query_paths(c.recipe, true, on);
  const std::string log_off = run_query_paths(c.recipe, false, off);
  for (const char* q : c.queries) {
    // Both ranks of the real job have the plain layout each scan reproduces.
    EXPECT_NE(log_on.find(std::string("query ") + q + ": 2 ranks by scan, 0 by SQL"),
              std::string::npos)
        << log_on;
    EXPECT_NE(log_off.find(std::string("query ") + q + ": 0 ranks by scan, 2 by SQL"),
              std::string::npos)
        << log_off;
  }
  const auto a = files_below(on / "cluster_analysis_output");
  const auto b = files_below(off / "cluster_analysis_output");
  EXPECT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) {
    auto it = b.find(name);
    ASSERT_NE(it, b.end()) << name;
    EXPECT_TRUE(bytes == it->second) << name << " differs with the scans off";
  }
  fs::remove_all(on);
  fs::remove_all(off);
}

INSTANTIATE_TEST_SUITE_P(
    Db, QueryPaths,
    ::testing::Values(QueryCase{"hccl_sum", {"hccl_sum.communication_ops"}},
                      QueryCase{"compute_op_sum", {"compute_op_sum.compute_ops"}},
                      QueryCase{"free_analysis", {"free_analysis.busy", "free_analysis.link"}},
                      QueryCase{
                          "cluster_time_summary",
                          {"cluster_time_summary.communication", "cluster_time_summary.memory"}},
                      QueryCase{"export_summary",
                                {"export_summary.api_statistic", "export_summary.compute_tasks",
                                 "export_summary.communication_ops"}}),
    [](const auto& info) { return std::string(info.param.recipe); });

// The counts the processes send the root add up per query, and print one line each.
TEST(QueryPathCounts, MergeAndLines) {
  cs::recipes::QueryPathCounts a{{"hccl_sum.communication_ops", {254, 0}}};
  cs::recipes::add_query_paths(
      a, {{"hccl_sum.communication_ops", {0, 2}}, {"mstx_sum.marks", {1, 3}}});
  const auto lines = cs::recipes::query_path_lines(a);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "query hccl_sum.communication_ops: 254 ranks by scan, 2 by SQL");
  EXPECT_EQ(lines[1], "query mstx_sum.marks: 1 ranks by scan, 3 by SQL");
}

// answer_query tries the scan first, runs the SQL when it declines, and counts the path.
TEST(QueryPathCounts, AnswerQueryCountsThePath) {
  cs::recipes::take_query_paths();
  int sql_runs = 0;
  EXPECT_TRUE(cs::recipes::answer_query(
      "t.q", [] { return true; }, [&] { return ++sql_runs > 0; }));
  EXPECT_TRUE(cs::recipes::answer_query(
      "t.q", [] { return false; }, [&] { return ++sql_runs > 0; }));
  EXPECT_FALSE(cs::recipes::answer_query("t.q", nullptr, [] { return false; }));
  EXPECT_EQ(sql_runs, 1);
  const auto counts = cs::recipes::take_query_paths();
  ASSERT_EQ(counts.count("t.q"), 1u);
  EXPECT_EQ(counts.at("t.q").scan, 1);
  EXPECT_EQ(counts.at("t.q").sql, 2);
  EXPECT_TRUE(cs::recipes::take_query_paths().empty());
}

}  // namespace

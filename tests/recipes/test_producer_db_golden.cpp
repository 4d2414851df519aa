// MindSpore's and CANN msprof's DB exports as their producers write them (generate --framework
// mindspore|msprof --export-type db: msprof's tables, communication_analyzer.db without step and
// type columns, its CommAnalyzerMatrix one row per op instance; docs/generated_db.md):
// `cluster -m all` and the recipes write exactly what msprof-analyze 8399c1cd wrote for the same
// jobs (tests/data/generated-db/{ms,prof}_tp4pp2s3/<mode>__<type>/; tests/data/SOURCES.md), and
// the same bytes under mpirun -np 1, 2 and 4.
// - -m all: every table of cluster_analysis.db (ClusterStepTraceTime the whole-run rows without
//   stage rows, RankDeviceMap's device from the PROF_ directory), profilePath compared as the
//   rank directory's name;
// - communication_matrix_sum: msprof-analyze's reshaping of the per-instance matrix
//   (msprof_analyze/recipes/communication_matrix_sum/msprof_matrix_rows.h);
// - slow_rank on the MindSpore job only: msprof-analyze declines it for msprof databases.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "recipes/recipe_test_util.h"
#include "support/test_files.h"

namespace fs = std::filesystem;

namespace {

const fs::path& producer_db_scratch() {
  static const cs::test::ScratchDir dir("producer-db");
  return dir.path();
}

// The generated job of `layout` ("ms" or "prof").
const fs::path& producer_db_job(const std::string& layout) {
  static const std::pair<fs::path, fs::path> jobs = [] {
    std::pair<fs::path, fs::path> j{producer_db_scratch() / "ms", producer_db_scratch() / "prof"};
    for (const auto& [dir, framework] : {std::pair{j.first, "mindspore"}, {j.second, "msprof"}}) {
      const fs::path log = producer_db_scratch() / (std::string(framework) + ".log");
      const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + dir.string() +
                                               " --ranks 8 --tp 4 --pp 2 --steps 3 --slow-rank "
                                               "5:1.5 --export-type db --framework " +
                                               framework,
                                           log.string());
      EXPECT_EQ(rc, 0) << cs::test::read_file(log);
    }
    return j;
  }();
  return layout == "ms" ? jobs.first : jobs.second;
}

fs::path reference(const std::string& layout, const std::string& mode) {
  return fs::path(CS_TEST_DATA) / "generated-db" / (layout + "_tp4pp2s3") / mode;
}

// `cluster -m MODE --export_type TYPE` on the layout's job; its cluster_analysis_output.
fs::path run_producer_db(const std::string& launcher, const std::string& layout,
                         const std::string& mode, const std::string& type,
                         const std::string& name) {
  const fs::path out = producer_db_scratch() / (layout + "-" + mode + "-" + type + "-" + name);
  const int rc = cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " +
                                           producer_db_job(layout).string() + " -o " +
                                           out.string() + " -m " + mode + " --export_type " + type,
                                       out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

// cluster_analysis.db as text, RankDeviceMap.profilePath as the rank directory's name (both tools
// write the absolute path of the input they were given).
std::string dump_all_db(const fs::path& db, const std::string& layout) {
  std::string text = cs::test::dump_sqlite(db);
  const std::string prefix = producer_db_job(layout).string() + "/";
  for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  return text;
}

struct ProducerCase {
  const char* layout;
  const char* mode;
  const char* type;
};

class ProducerDbGolden : public ::testing::TestWithParam<ProducerCase> {};

TEST_P(ProducerDbGolden, MatchesMsprofAnalyze) {
  const ProducerCase c = GetParam();
  const fs::path got = run_producer_db("", c.layout, c.mode, c.type, "nolauncher");
  cs::test::expect_same_outputs(got, reference(c.layout, std::string(c.mode) + "__" + c.type));
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, ProducerDbGolden,
    ::testing::Values(
        ProducerCase{"ms", "communication_matrix_sum", "text"},
        ProducerCase{"ms", "communication_matrix_sum", "db"},
        ProducerCase{"ms", "communication_group_map", "db"}, ProducerCase{"ms", "hccl_sum", "text"},
        ProducerCase{"ms", "compute_op_sum", "text"}, ProducerCase{"ms", "cann_api_sum", "text"},
        ProducerCase{"ms", "mstx_sum", "text"}, ProducerCase{"ms", "mstx_sum", "db"},
        ProducerCase{"ms", "slow_rank", "text"}, ProducerCase{"ms", "slow_rank", "db"},
        ProducerCase{"ms", "slow_link", "db"},
        ProducerCase{"prof", "communication_matrix_sum", "text"},
        ProducerCase{"prof", "communication_matrix_sum", "db"},
        ProducerCase{"prof", "communication_group_map", "db"},
        ProducerCase{"prof", "hccl_sum", "text"}, ProducerCase{"prof", "compute_op_sum", "text"},
        ProducerCase{"prof", "cann_api_sum", "text"}, ProducerCase{"prof", "mstx_sum", "text"},
        ProducerCase{"prof", "mstx_sum", "db"}, ProducerCase{"prof", "slow_link", "db"}),
    [](const ::testing::TestParamInfo<ProducerCase>& i) {
      return std::string(i.param.layout) + "_" + i.param.mode + "_" + i.param.type;
    });

class ProducerDbAll : public ::testing::TestWithParam<const char*> {};

TEST_P(ProducerDbAll, ClusterAnalysisDbMatchesAtAnyProcessCount) {
  const std::string layout = GetParam();
  const std::string expected =
      cs::test::dump_sqlite(reference(layout, "all__db") / "cluster_analysis.db");
  const fs::path single =
      run_producer_db("", layout, "all", "db", "nolauncher") / "cluster_analysis.db";
  EXPECT_EQ(dump_all_db(single, layout), expected);
  for (int np : {1, 2, 4}) {
    const fs::path got =
        run_producer_db(cs::test::mpirun(np), layout, "all", "db", "np" + std::to_string(np)) /
        "cluster_analysis.db";
    EXPECT_EQ(dump_all_db(got, layout), expected) << "np=" << np;
  }
  // The recipes too: the reshaped matrix and the slow ranks, gathered from every process.
  for (const char* mode : {"communication_matrix_sum", "slow_rank"}) {
    if (layout == "prof" && std::string(mode) == "slow_rank") continue;
    const auto want = cs::test::read_tree(run_producer_db("", layout, mode, "db", "single"));
    for (int np : {2, 4})
      EXPECT_TRUE(cs::test::read_tree(run_producer_db(cs::test::mpirun(np), layout, mode, "db",
                                                      "np" + std::to_string(np))) == want)
          << mode << " np=" << np;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, ProducerDbAll, ::testing::Values("ms", "prof"));

}  // namespace

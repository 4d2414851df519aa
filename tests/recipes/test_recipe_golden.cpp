// Golden tests: `cluster -m <recipe> --export_type text|db` on the real 2-rank DB job
// (tests/data/ascend-real/db_level1) writes exactly what msprof-analyze 8399c1cd wrote for it
// (tests/data/ascend-real/msprof-analyze-ref/db_level1__<recipe>__<type>/): CSV files byte for
// byte, databases table for table (CREATE statement, every value's type and bits).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;

namespace {

class RecipeGolden : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(RecipeGolden, MatchesMsprofAnalyze) {
  const auto [recipe, type] = GetParam();
  const fs::path out = cs::test::temp_dir(std::string("golden-") + recipe + "-" + type);
  const fs::path input = fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1";
  const fs::path ref = fs::path(CS_TEST_DATA) / "ascend-real" / "msprof-analyze-ref" /
                       ("db_level1__" + std::string(recipe) + "__" + type);
  const int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -d " + input.string() +
                                           " -o " + out.string() + " -m " + recipe +
                                           " --export_type " + type + " --quiet",
                                       out.string() + ".log");
  ASSERT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  cs::test::expect_same_outputs(out / "cluster_analysis_output", ref);
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(
    Db, RecipeGolden,
    ::testing::Values(
        std::pair{"communication_group_map", "text"}, std::pair{"communication_group_map", "db"},
        std::pair{"communication_time_sum", "text"}, std::pair{"communication_time_sum", "db"},
        std::pair{"communication_matrix_sum", "text"}, std::pair{"communication_matrix_sum", "db"},
        std::pair{"hccl_sum", "text"}, std::pair{"hccl_sum", "db"},
        std::pair{"compute_op_sum", "text"}, std::pair{"compute_op_sum", "db"},
        std::pair{"cann_api_sum", "text"}, std::pair{"cann_api_sum", "db"},
        std::pair{"cluster_time_summary", "text"}, std::pair{"cluster_time_summary", "db"},
        std::pair{"free_analysis", "text"}, std::pair{"free_analysis", "db"}),
    [](const auto& info) { return std::string(info.param.first) + "_" + info.param.second; });

}  // namespace

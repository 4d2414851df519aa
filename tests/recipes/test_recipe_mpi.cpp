// Every recipe under mpirun: an 8-rank DB mpi_job (the real 2-rank job's rank directories repeated,
// renumbered) gives the same files, byte for byte, with no launcher and under mpirun -np 1, 2
// and 4, where each process reads its share of the ranks and sends the partial results to the
// root. And the same files and messages whatever the number of threads reading the ranks.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::test::expect_same_tree;
using cs::test::read_file;
using cs::test::read_tree;
using cs::test::run_command;

namespace {

const fs::path& mpi_job() {
  static const cs::test::ScratchDir dir("recipe-mpi");
  static const bool made = [] {
    for (int r = 0; r < 8; ++r) cs::test::copy_real_db_rank(dir.path(), r);
    return true;
  }();
  (void)made;
  return dir.path();
}

class RecipeMpi : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(RecipeMpi, SameBytesAtOneTwoAndFourProcesses) {
  // (Named copies, not structured bindings: clang 14, the sanitizer build's compiler, cannot
  // capture those in a lambda.)
  const char* const recipe = GetParam().first;
  const char* const type = GetParam().second;
  const fs::path out = cs::test::temp_dir(std::string("recipe-mpi-") + recipe + "-" + type);
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path o = out / name;
    const int rc =
        run_command(launcher + CS_BINARY + " cluster -d " + mpi_job().string() + " -o " +
                        o.string() + " -m " + recipe + " --export_type " + type + " --quiet",
                    o.string() + ".log");
    EXPECT_EQ(rc, 0) << read_file(o.string() + ".log");
    return read_tree(o / "cluster_analysis_output");
  };
  const auto expected = run("", "nolauncher");
  ASSERT_FALSE(expected.empty());
  for (int np : {1, 2, 4}) {
    expect_same_tree(expected, run(cs::test::mpirun(np), "np" + std::to_string(np)),
                     "np=" + std::to_string(np));
  }
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, RecipeMpi,
    ::testing::Values(std::pair{"communication_group_map", "db"},
                      std::pair{"communication_time_sum", "text"},
                      std::pair{"communication_time_sum", "db"},
                      std::pair{"communication_matrix_sum", "text"},
                      std::pair{"communication_matrix_sum", "db"}, std::pair{"hccl_sum", "text"},
                      std::pair{"hccl_sum", "db"}, std::pair{"compute_op_sum", "text"},
                      std::pair{"compute_op_sum", "db"}, std::pair{"cann_api_sum", "text"},
                      std::pair{"cann_api_sum", "db"},
                      // (its text file is named after the time, so db only here)
                      std::pair{"cluster_time_summary", "db"}, std::pair{"free_analysis", "text"},
                      std::pair{"free_analysis", "db"}),
    [](const auto& info) { return std::string(info.param.first) + "_" + info.param.second; });

// --threads: each process reads its ranks on that many threads; the outputs and the messages
// (in rank order) are those of one thread.
TEST(RecipeThreads, SameBytesAndMessagesOnOneAndFourThreads) {
  const fs::path out = cs::test::temp_dir("recipe-threads");
  for (const char* recipe : {"communication_time_sum", "communication_matrix_sum", "compute_op_sum",
                             "free_analysis", "communication_group_map"}) {
    for (const char* type : {"db", "text"}) {
      auto run = [&](int threads) {
        const std::string name = std::string(recipe) + "-" + type + "-t" + std::to_string(threads);
        const fs::path o = out / name;
        const int rc = run_command(std::string(CS_BINARY) + " cluster -d " + mpi_job().string() +
                                       " -o " + o.string() + " -m " + recipe + " --export_type " +
                                       type + " --threads " + std::to_string(threads),
                                   o.string() + ".log");
        EXPECT_EQ(rc, 0) << read_file(o.string() + ".log");
        std::string log = read_file(o.string() + ".log");
        for (size_t at; (at = log.find(name)) != std::string::npos;)
          log.replace(at, name.size(), "OUT");
        return std::make_pair(read_tree(o / "cluster_analysis_output"), log);
      };
      const auto [expected, expected_log] = run(1);
      ASSERT_FALSE(expected.empty()) << recipe;
      const auto [got, got_log] = run(4);
      EXPECT_EQ(got_log, expected_log) << recipe << " " << type;
      expect_same_tree(expected, got, std::string(recipe) + " " + type + " with 4 threads");
    }
  }
  fs::remove_all(out);
}

}  // namespace

// The map results travel to the root rank by rank, in batches (msprof_analyze/recipes/
// recipe_gather.h): with one rank per batch (CS_RECIPE_GATHER_BYTES=1) `cluster -m all`, whose
// cluster_analysis.db comes from two recipes reduced from the gathered ranks, writes the same
// files at 2 and 4 processes as with no launcher.
TEST(RecipeGather, OneRankPerBatchGivesTheSameBytes) {
  const fs::path out = cs::test::temp_dir("recipe-gather");
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path o = out / name;
    const int rc = run_command(launcher + CS_BINARY + " cluster -d " + mpi_job().string() + " -o " +
                                   o.string() + " -m all --format json,csv --quiet --threads 2",
                               o.string() + ".log");
    EXPECT_EQ(rc, 0) << read_file(o.string() + ".log");
    return read_tree(o / "cluster_analysis_output");
  };
  const auto expected = run("", "nolauncher");
  ASSERT_TRUE(expected.contains("cluster_analysis.db"));
  for (int np : {2, 4}) {
    expect_same_tree(
        expected,
        run("CS_RECIPE_GATHER_BYTES=1 " + cs::test::mpirun(np), "np" + std::to_string(np)),
        "np=" + std::to_string(np));
  }
  fs::remove_all(out);
}

// The computational_op_masking recipe.
// - --parallel_types parsed as msprof-analyze parses it (groups by ';', names by ',', spaces
//   stripped, blank = the default, an empty group or name refused).
// - merge_intervals / masked_time on intervals worked out by hand: touching intervals merge,
//   compute covering part of a communication interval, compute outside it.
// - Golden: `cluster -m computational_op_masking` on `generate JOB --ranks 16 --tp 2 --pp 2
//   --steps 2 --export-type db` writes exactly what msprof-analyze 8399c1cd wrote for that job
//   (tests/data/generated-db/tp2pp2s2_computational_op_masking__{text,db}, and _pt__db for
//   --parallel_types "dp, tp ;pp,dp"; tests/data/SOURCES.md), and the same bytes under mpirun
//   -np 1, 2 and 4.
// - The real two-rank job has no parallel_group_info: nothing written, as msprof-analyze.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/computational_op_masking/computational_op_masking.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace com = cs::recipes::computational_op_masking;

namespace {

const fs::path& op_masking_scratch() {
  static const cs::test::ScratchDir dir("op-masking");
  return dir.path();
}

const fs::path& op_masking_job() {
  static const fs::path job = [] {
    const fs::path j = op_masking_scratch() / "tp2pp2s2";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 16 --tp 2 --pp 2 --steps 2 --export-type db",
                                         (op_masking_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(op_masking_scratch() / "generate.log");
    return j;
  }();
  return job;
}

fs::path run_op_masking(const fs::path& job, const std::string& launcher, const std::string& name,
                        const std::string& args) {
  const fs::path out = op_masking_scratch() / name;
  const int rc =
      cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " + job.string() + " -o " +
                                out.string() + " -m computational_op_masking " + args,
                            out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

TEST(ComputationalOpMasking, ParsesParallelTypes) {
  std::vector<com::ParallelType> t;
  std::string error;
  ASSERT_TRUE(com::parse_parallel_types(" dp, tp ;pp", t, error));
  EXPECT_EQ(t, (std::vector<com::ParallelType>{{"dp", "tp"}, {"pp"}}));
  ASSERT_TRUE(com::parse_parallel_types("  ", t, error));
  EXPECT_EQ(t, com::default_parallel_types());
  EXPECT_EQ(t.front(), (com::ParallelType{"dp", "edp"}));
  EXPECT_FALSE(com::parse_parallel_types("dp;;tp", t, error));
  EXPECT_NE(error.find("position 2"), std::string::npos) << error;
  EXPECT_FALSE(com::parse_parallel_types("dp;", t, error));
  EXPECT_FALSE(com::parse_parallel_types("dp,,tp", t, error));
}

TEST(ComputationalOpMasking, MergesAndMasksByHand) {
  const auto m = com::merge_intervals({{10, 20}, {0, 5}, {5, 8}, {15, 30}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].start, 0);
  EXPECT_EQ(m[0].end, 8);
  EXPECT_EQ(m[1].start, 10);
  EXPECT_EQ(m[1].end, 30);
  // Communication [0, 8) and [10, 30): 28 ns. Compute [2, 4), [3, 6) -> [2, 6) covers 4 ns of
  // the first; [25, 40) covers 5 ns of the second; [8, 10) covers nothing.
  const auto t =
      com::masked_time({{10, 20}, {0, 5}, {5, 8}, {15, 30}}, {{2, 4}, {3, 6}, {25, 40}, {8, 10}});
  EXPECT_EQ(t.communication, 28);
  EXPECT_EQ(t.uncovered, 28 - 4 - 5);
  EXPECT_EQ(com::masked_time({}, {{0, 5}}).communication, 0);
}

struct GoldenCase {
  const char* ref;
  const char* args;
};

class ComputationalOpMaskingGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ComputationalOpMaskingGolden, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const GoldenCase c = GetParam();
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / c.ref;
  const std::string name = c.ref;
  const fs::path single = run_op_masking(op_masking_job(), "", name + "-nolauncher", c.args);
  cs::test::expect_same_outputs(single, ref);
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_op_masking(op_masking_job(), cs::test::mpirun(np),
                                                   name + "-np" + std::to_string(np), c.args)) ==
                expected)
        << "np=" << np;
}

INSTANTIATE_TEST_SUITE_P(
    Export, ComputationalOpMaskingGolden,
    ::testing::Values(GoldenCase{"tp2pp2s2_computational_op_masking__text", "--export_type text"},
                      GoldenCase{"tp2pp2s2_computational_op_masking__db", "--export_type db"},
                      GoldenCase{"tp2pp2s2_computational_op_masking_pt__db",
                                 "--export_type db --parallel_types 'dp, tp ;pp,dp'"}));

TEST(ComputationalOpMasking, RealJobWithoutGroupNamesWritesNothing) {
  const fs::path input = fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1";
  const fs::path out = run_op_masking(input, "", "real", "--export_type text");
  EXPECT_FALSE(
      fs::exists(out / "ComputationalOpMasking" / "computational_operator_masking_linearity.csv"));
}

TEST(ComputationalOpMasking, RefusesAnEmptyGroup) {
  const fs::path out = op_masking_scratch() / "bad-arg";
  const int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " +
                                           op_masking_job().string() + " -o " + out.string() +
                                           " -m computational_op_masking --parallel_types 'dp;'",
                                       out.string() + ".log");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(cs::test::read_file(out.string() + ".log").find("empty group"), std::string::npos);
}

}  // namespace

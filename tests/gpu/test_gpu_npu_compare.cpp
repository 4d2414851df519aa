// `compare` of a GPU job (generate --framework kineto) against an Ascend cluster of the same
// shape and seed (generate, torch_npu): the generator simulates one job for both, so every rank's
// computing is the same on both sides but rank 3's, which the GPU job runs 1.5x slower: the NPU
// side computes 1/1.5 of it (diff_ratio -1/3, an improvement), the others "same".

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "support/test_files.h"

namespace {

struct Row {
  double base = 0, comparison = 0, ratio = 0;
  std::string verdict;
};

// rank_compare.csv's row of (rank, category).
Row find_row(const std::string& csv, int rank, const std::string& category) {
  std::istringstream in(csv);
  std::string line;
  const std::string key = std::to_string(rank) + "," + category + ",";
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::istringstream f(line.substr(key.size()));
    Row r;
    std::string cell, diff;
    std::getline(f, cell, ',');
    r.base = std::stod(cell);
    std::getline(f, cell, ',');
    r.comparison = std::stod(cell);
    std::getline(f, diff, ',');
    std::getline(f, cell, ',');
    r.ratio = std::stod(cell);
    std::getline(f, r.verdict, ',');
    return r;
  }
  ADD_FAILURE() << "no row " << key;
  return {};
}

}  // namespace

TEST(GpuNpuCompare, SameModelOnGpuAndNpu) {
  cs::test::TempDir t("gpu_npu");
  const std::string bin = CS_BINARY, shape = " --ranks 8 --tp 2 --pp 2 --steps 2 --seed 5";
  std::string log;
  ASSERT_EQ(cs::test::run_merged(bin + " generate " + t.str() + "/npu" + shape, log), 0) << log;
  ASSERT_EQ(cs::test::run_merged(bin + " generate " + t.str() + "/gpu" + shape +
                                     " --framework kineto --slow-rank 3:1.5",
                                 log),
            0)
      << log;
  ASSERT_EQ(cs::test::run_merged(
                bin + " compare " + t.str() + "/gpu " + t.str() + "/npu -o " + t.str() + "/o", log),
            0)
      << log;
  EXPECT_NE(log.find("GPU vs NPU: base GPU (Kineto), comparison NPU (Ascend); 8 rank(s)"),
            std::string::npos)
      << log;
  const std::string csv =
      cs::test::slurp(t.path() / "o" / "comparison_output" / "rank_compare.csv");
  ASSERT_EQ(csv.substr(0, csv.find('\n')),
            "rank,category,base_us,comparison_us,diff_us,diff_ratio,verdict");
  for (int rank = 0; rank < 8; ++rank) {
    const Row c = find_row(csv, rank, "computing");
    if (rank == 3) {
      EXPECT_NEAR(c.ratio, 1.0 / 1.5 - 1.0, 1e-6) << csv;
      EXPECT_EQ(c.verdict, "improvement");
    } else {
      EXPECT_NEAR(c.base, c.comparison, 0.01) << rank;  // the same simulated kernels, ns rounding
      EXPECT_EQ(c.verdict, "same") << rank;
    }
    // The parts add up to the step on both sides.
    const Row n = find_row(csv, rank, "comm_not_overlapped"), f = find_row(csv, rank, "free"),
              s = find_row(csv, rank, "step");
    EXPECT_NEAR(c.base + n.base + f.base, s.base, 0.01) << rank;
    EXPECT_NEAR(c.comparison + n.comparison + f.comparison, s.comparison, 0.01) << rank;
  }
  // The other way round: the NPU side is the base, rank 3's computing a regression of +50%.
  ASSERT_EQ(
      cs::test::run_merged(
          bin + " compare -q " + t.str() + "/npu " + t.str() + "/gpu -o " + t.str() + "/r", log),
      0)
      << log;
  const Row r3 = find_row(
      cs::test::slurp(t.path() / "r" / "comparison_output" / "rank_compare.csv"), 3, "computing");
  EXPECT_NEAR(r3.ratio, 0.5, 1e-6);
  EXPECT_EQ(r3.verdict, "regression");
}

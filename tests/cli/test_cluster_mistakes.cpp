// Mistakes get a clear answer, not an empty success (issue 15, point 8), on the real 2-rank
// torch_npu job ascend-real/text_level1 (one step, 50) and on constructed duplicate runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::temp_dir;

namespace {

// A copy of ascend-real/text_level1 (profiler_info, metadata, communication, matrix, step trace,
// kernel_details of both ranks).
using cs::test::kTextJob;

std::string cs_cmd(const std::string& args) {
  return std::string(CS_BINARY) + " " + args;
}

TEST(ClusterMistakes, StepNotInTheDataExits2NamingTheSteps) {
  ASSERT_TRUE(fs::is_directory(kTextJob)) << kTextJob;
  const fs::path out = temp_dir("cs_mistake_step");
  const std::string log = (out / "log.txt").string();
  const int rc = run_command(
      cs_cmd("cluster -d " + kTextJob + " -o " + (out / "o").string() + " --step 9 -m step_trace"),
      log);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(read_file(log).find("step 9 is not in the data \u2014 steps present: 50"),
            std::string::npos)
      << read_file(log);
  // The step that is there works.
  EXPECT_EQ(run_command(cs_cmd("cluster -d " + kTextJob + " -o " + (out / "p").string() +
                               " --step 50 -m step_trace --format csv"),
                        log),
            0)
      << read_file(log);
  // --format csv writes msprof-analyze's CSV too.
  EXPECT_TRUE(fs::is_regular_file(out / "p/cluster_analysis_output/cluster_step_trace_time.csv"));
}

TEST(ClusterMistakes, RankListNamesRanksThatDoNotExist) {
  const fs::path out = temp_dir("cs_mistake_ranks");
  const std::string log = (out / "log.txt").string();
  run_command(cs_cmd("cluster -d " + kTextJob + " -o " + (out / "o").string() +
                     " --rank-list 0-3,20 -m step_trace --format csv"),
              log);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("rank(s) 2-3,20 that are not in the data (ranks present: 0-1)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("may be missing"), std::string::npos) << text;
}

// Two runs of rank 0 and 1 (copies of the real job) under one directory, torch_npu-style names:
// the newer is kept and said once on stderr, with both timestamps; the manifest lists the other.
TEST(ClusterMistakes, DuplicateRunsSaidOnceWithTimestamps) {
  const fs::path in = temp_dir("cs_mistake_dup");
  for (const char* run : {"h_1_20250109074800000", "h_1_20250109084800000"}) {
    fs::create_directories(in / run);
    for (int r = 0; r < 2; ++r)
      fs::copy(kTextJob + "/rank" + std::to_string(r) + "_ascend_pt",
               in / run / (std::string("r") + std::to_string(r) + "_" + run + "_ascend_pt"),
               fs::copy_options::recursive);
  }
  const fs::path out = temp_dir("cs_mistake_dup_out");
  const std::string log = (out / "log.txt").string();
  run_command(
      cs_cmd("cluster -d " + in.string() + " -o " + out.string() + " -m step_trace --format csv"),
      log);
  const std::string text = read_file(log);
  size_t n = 0;
  for (size_t at = text.find("more than one run"); at != std::string::npos;
       at = text.find("more than one run", at + 1))
    ++n;
  EXPECT_EQ(n, 1u) << text;
  EXPECT_NE(text.find("2025-01-09 08:48:00.000"), std::string::npos) << text;
  EXPECT_NE(text.find("2025-01-09 07:48:00.000"), std::string::npos) << text;
  const std::string manifest = read_file(out / "cluster_analysis_output/rank_manifest.csv");
  EXPECT_NE(manifest.find("another run of rank 0"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("another run of rank 1"), std::string::npos) << manifest;
}

}  // namespace

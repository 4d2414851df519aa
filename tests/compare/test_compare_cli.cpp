// End-to-end: the clusterscope binary's compare command on the real samples.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_data.h"
#include "support/test_files.h"

namespace {

namespace fs = std::filesystem;

struct CompareCliRun {
  int status = -1;
  std::string out;
};

CompareCliRun run_compare_cli(const std::string& args) {
  CompareCliRun r;
  r.status =
      cs::test::run_capture(std::string(CS_BINARY) + " compare " + args + " 2>/dev/null", r.out);
  return r;
}

using cs::test::slurp;

using cs::test::kData;

TEST(CompareCli, GpuVsNpuWritesAllOutputs) {
  const fs::path out = fs::path(CS_BUILD_DIR) / "cmp_cli_gpu_npu";
  fs::remove_all(out);
  const CompareCliRun r = run_compare_cli(kData + "/kineto/sampled_rank-0.json.gz " + kData +
                                          "/ascend/trace_view.json -o " + out.string());
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Computing Time"), std::string::npos);
  EXPECT_NE(r.out.find("E2E Time"), std::string::npos);
  const fs::path dir = out / "comparison_output";
  for (const char* f : {"overall_metrics.csv", "kernel_compare.csv", "operator_compare.csv",
                        "communication_compare.csv", "comparison.h5"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const std::string overall = slurp(dir / "overall_metrics.csv");
  EXPECT_EQ(overall.substr(0, overall.find('\n')),
            "metric,base_ms,base_ratio,base_count,comparison_ms,comparison_ratio,comparison_count,"
            "diff_ms,diff_ratio");
  // GPU computing 211.623 ms from 1194 kernels; NPU computing 1.7882505 ms.
  EXPECT_NE(overall.find("Computing Time,211.623,"), std::string::npos) << overall;
  EXPECT_NE(overall.find("E2E Time,1222.847,"), std::string::npos) << overall;
  const std::string comm = slurp(dir / "communication_compare.csv");
  EXPECT_NE(comm.find("sendrecv,10,396199,"), std::string::npos) << comm;
}

TEST(CompareCli, StepsAndClusterDirectory) {
  const fs::path out = fs::path(CS_BUILD_DIR) / "cmp_cli_steps";
  fs::remove_all(out);
  const CompareCliRun r =
      run_compare_cli(kData + "/kineto " + kData +
                      "/kineto/sampled_rank-1.json.gz --base-step 551 "
                      "--comparison-step 552 --max-kernel-num 20 --use-input-shape -o " +
                      out.string());
  EXPECT_EQ(r.status, 0);
  const std::string comm = slurp(out / "comparison_output" / "communication_compare.csv");
  EXPECT_NE(comm.find("sendrecv,5,"), std::string::npos) << comm;
}

TEST(CompareCli, Errors) {
  EXPECT_EQ(run_compare_cli("").status, 2);
  EXPECT_EQ(run_compare_cli("onlyone").status, 2);
  EXPECT_EQ(run_compare_cli("--no-such-option a b").status, 2);
  EXPECT_EQ(run_compare_cli("/nonexistent/a /nonexistent/b").status, 1);
  EXPECT_EQ(run_compare_cli(kData + "/kineto/sampled_rank-0.json.gz " + kData +
                            "/ascend/trace_view.json --base-step 9 -o " +
                            (fs::path(CS_BUILD_DIR) / "cmp_cli_err").string())
                .status,
            1);
  EXPECT_EQ(run_compare_cli("--help").status, 0);
}

}  // namespace

// Issue 17, findings 5 and 8, end to end on copies of the real 2-rank job ascend-real/text_level1:
// sums of finite inputs that overflow never reach the JSON outputs as NaN/Infinity (null, one
// warning per file) nor the summary as "nan MB"; a rank directory whose name holds an escape
// sequence and a newline cannot colour the terminal or forge a "clusterscope:" line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "cli/strict_json_check.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::python_json_error;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::strict_json_error;
using cs::test::temp_dir;

namespace {

using cs::test::kTextJob;

// Lines of `text` holding both `a` and `b`.
int count_lines_with(const std::string& text, const std::string& a, const std::string& b) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    n += line.find(a) != std::string::npos && line.find(b) != std::string::npos;
  return n;
}

// Every non-zero "Transit Size(MB)" of both ranks' communication files set to 1.7e308: each value
// is finite, every sum of two overflows.
fs::path overflowing_job(const fs::path& root) {
  const fs::path job = root / "job";
  fs::copy(kTextJob, job, fs::copy_options::recursive);
  const std::regex size("(\"Transit Size\\(MB\\)\": )[0-9.]*[1-9][0-9.e+-]*");
  for (const char* rank : {"rank0_ascend_pt", "rank1_ascend_pt"})
    for (const char* file : {"communication.json", "communication_matrix.json"}) {
      const fs::path p = job / rank / "ASCEND_PROFILER_OUTPUT" / file;
      const std::string text = std::regex_replace(read_file(p), size, "$011.7e308");
      std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    }
  return job;
}

TEST(StrictOutputs, OverflowingSumsAreNullWithOneWarningPerFile) {
  const fs::path root = temp_dir("cs_strict_overflow");
  const fs::path job = overflowing_job(root);
  ASSERT_NE(read_file(job / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json")
                .find("\"Transit Size(MB)\": 1.7e308"),
            std::string::npos);
  const std::string log = (root / "log.txt").string();
  const int rc = run_command(std::string(CS_BINARY) + " cluster -d " + job.string() + " -o " +
                                 (root / "o").string() + " --format json,csv",
                             log);
  const std::string text = read_file(log);
  EXPECT_EQ(rc, 0) << text;
  const fs::path out = root / "o/cluster_analysis_output";
  for (const char* name : {"cluster_communication.json", "cluster_communication_matrix.json"}) {
    const std::string path = (out / name).string();
    const std::string json = read_file(path);
    ASSERT_FALSE(json.empty()) << name;
    EXPECT_EQ(json.find("Infinity"), std::string::npos) << name;
    EXPECT_EQ(json.find("NaN"), std::string::npos) << name;
    EXPECT_NE(json.find("null"), std::string::npos) << name;
    EXPECT_EQ(strict_json_error(path), "") << name;
    EXPECT_EQ(python_json_error(path), "") << name;
    // One warning for the file, with the count.
    EXPECT_EQ(count_lines_with(text, "/" + std::string(name) + ": ", " number(s) overflowed"), 1)
        << text;
  }
  // The summary never prints a non-finite size.
  EXPECT_EQ(text.find("nan MB"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf MB"), std::string::npos) << text;
}

TEST(StrictOutputs, HostileRankDirectoryNameIsEscapedEverywhere) {
  const fs::path root = temp_dir("cs_strict_names");
  const fs::path job = root / "job";
  fs::copy(kTextJob, job, fs::copy_options::recursive);
  const std::string hostile = "r\x1b[31m\nclusterscope: all good_ascend_pt";
  fs::rename(job / "rank1_ascend_pt", job / hostile);
  // A broken file in that directory makes a message that names it.
  std::ofstream(job / hostile / "ASCEND_PROFILER_OUTPUT/communication.json",
                std::ios::binary | std::ios::trunc)
      << "{\"step50\": ";
  const std::string log = (root / "log.txt").string();
  run_command(std::string(CS_BINARY) + " cluster -d " + job.string() + " -o " +
                  (root / "o").string() + " --format csv",
              log);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("r\\x1b[31m\\nclusterscope: all good_ascend_pt"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find("\nclusterscope: all good"), std::string::npos) << text;
  const std::string manifest = read_file(root / "o/cluster_analysis_output/rank_manifest.csv");
  ASSERT_FALSE(manifest.empty());
  EXPECT_NE(manifest.find("r\\x1b[31m\\nclusterscope: all good_ascend_pt"), std::string::npos)
      << manifest;
  EXPECT_EQ(manifest.find('\x1b'), std::string::npos) << manifest;
}

}  // namespace

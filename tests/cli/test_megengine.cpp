// End to end: `top`, `compare` and `merge` on MegEngine's profiles (tests/data/megengine,
// described in tests/readers/test_megengine.cpp; hand-computed values there and in
// tests/top/test_top_megengine.cpp and tests/compare/test_megengine_compare.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "io/json/gzip_input.h"
#include "tests/cli/cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::temp_dir;

const std::string kDir = std::string(CS_TEST_DATA) + "/megengine/";
using cs::test::kBin;

// The value column `col` of overall_metrics.csv's row `metric`.
double overall(const std::string& csv, const std::string& metric, size_t col) {
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(metric + ",", 0) != 0) continue;
    std::istringstream ls(line);
    std::string cell;
    for (size_t i = 0; i <= col && std::getline(ls, cell, ','); ++i) {
    }
    return std::stod(cell);
  }
  ADD_FAILURE() << "no row " << metric;
  return 0;
}

TEST(MegEngineCli, TopOnTheStaticGraphProfile) {
  const fs::path dir = temp_dir("megengine-top");
  const std::string prof = kDir + "static_graph.profile.json";
  ASSERT_EQ(run_command(kBin + " top " + prof + " -t 3 --csv " + (dir / "t.csv").string(),
                        (dir / "t.log").string()),
            0)
      << read_file(dir / "t.log");
  const std::string log = read_file(dir / "t.log");
  // conv1 first with 3.000 ms, 42.9% of the 7 ms.
  EXPECT_NE(log.find("conv1"), std::string::npos) << log;
  EXPECT_NE(log.find("42.9%"), std::string::npos) << log;
  const std::string csv = read_file(dir / "t.csv");
  EXPECT_NE(csv.find("\n1,conv1,ConvolutionForward,1,3000"), std::string::npos) << csv;
  // --aggregate-by type --aggregate sum --order-by memory: Elemwise (6430528 bytes) first.
  ASSERT_EQ(run_command(kBin + " top -q " + prof +
                            " --aggregate-by type --aggregate sum --order-by memory --csv " +
                            (dir / "a.csv").string(),
                        (dir / "a.log").string()),
            0)
      << read_file(dir / "a.log");
  EXPECT_NE(read_file(dir / "a.csv").find("\n1,Elemwise,Elemwise,2,1500"), std::string::npos)
      << read_file(dir / "a.csv");
  // --type and --min-time (seconds) filter; shares stay of the total device time.
  ASSERT_EQ(run_command(kBin + " top -q " + prof + " --type MatrixMul --min-time 0.001",
                        (dir / "f.log").string()),
            0);
  EXPECT_NE(read_file(dir / "f.log").find("28.6%"), std::string::npos) << read_file(dir / "f.log");
  fs::remove_all(dir);
}

TEST(MegEngineCli, ProfileAnalyzeOptionsAndSummary) {
  // copy_graph.profile.json (values by hand in tests/top/test_top_megengine.cpp): total device
  // 4.1 ms, host 115 µs; Copy 0.4 + 0.5 ms, waits 0.1 + 0.2 ms.
  const fs::path dir = temp_dir("megengine-pa");
  const std::string prof = kDir + "copy_graph.profile.json";
  ASSERT_EQ(run_command(kBin + " top -q " + prof + " --copy-time --show-host -t 2",
                        (dir / "s.log").string()),
            0)
      << read_file(dir / "s.log");
  const std::string log = read_file(dir / "s.log");
  EXPECT_NE(
      log.find("total device time  4.10 ms\ntotal host time    115.0 \u00b5s\n"
               "copy time          tot=900.0 \u00b5s avg=450.0 \u00b5s over 2 Copy operators\n"
               "copy wait time     tot=300.0 \u00b5s avg=150.0 \u00b5s over 2 Copy operators\n"),
      std::string::npos)
      << log;
  // The device table (conv 2.0 ms = 48.8% of 4.1), then the host one (fc 40 µs = 34.8% of 115).
  const size_t device = log.find("device self time"), host = log.find("host self time");
  ASSERT_NE(device, std::string::npos) << log;
  ASSERT_NE(host, std::string::npos) << log;
  EXPECT_LT(device, host);
  EXPECT_NE(log.find("48.8%", device), std::string::npos) << log;
  EXPECT_NE(log.find("34.8%", host), std::string::npos) << log;
  EXPECT_NE(log.find("host time in total"), std::string::npos) << log;
  // --top-end-key kern --opr-name conv --input-dtype Float16 --csv: conv.w_copy 200 µs, conv 100.
  ASSERT_EQ(run_command(kBin + " top -q " + prof +
                            " --top-end-key kern --opr-name conv --input-dtype Float16 --csv " +
                            (dir / "k.csv").string(),
                        (dir / "k.log").string()),
            0)
      << read_file(dir / "k.log");
  const std::string csv = read_file(dir / "k.csv");
  EXPECT_NE(csv.find("\n1,conv.w_copy,Copy,1,200"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n2,conv,ConvolutionForward,1,100"), std::string::npos) << csv;
  // --order-by +time: the shortest first (data 200 µs).
  ASSERT_EQ(
      run_command(kBin + " top -q " + prof + " --order-by +time --csv " + (dir / "o.csv").string(),
                  (dir / "o.log").string()),
      0);
  EXPECT_NE(read_file(dir / "o.csv").find("\n1,data,Host2DeviceCopy,1,200"), std::string::npos)
      << read_file(dir / "o.csv");
  // --aggregate min alone: one row "all", 200 µs (data).
  ASSERT_EQ(run_command(kBin + " top -q " + prof + " --aggregate min --max-time 0.0015 --csv " +
                            (dir / "a.csv").string(),
                        (dir / "a.log").string()),
            0);
  EXPECT_NE(read_file(dir / "a.csv").find("\n1,all,all,4,200"), std::string::npos)
      << read_file(dir / "a.csv");
  fs::remove_all(dir);
}

TEST(MegEngineCli, ProfileAnalyzeOptionMistakesExitTwo) {
  const fs::path dir = temp_dir("megengine-bad");
  const std::string prof = kDir + "copy_graph.profile.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {prof + " --top-end-key wall", "unknown --top-end-key 'wall' \u2014 valid: end, kern"},
      {prof + " --aggregate avg", "valid: sum, mean, max, min"},
      {prof + " --order-by +speed",
       "unknown --order-by '+speed' \u2014 valid: time, memory, flops, computation, bandwidth"},
      {prof + " --opr-name '(conv'", "--opr-name '(conv' is not a valid regular expression"},
      {prof + " --min-time 0.002 --max-time 0.001", "is below --min-time"},
      {kDir + "dynamic.chrome_timeline.json --show-host",
       "--show-host needs a MegEngine static-graph profile"},
      {kDir + "dynamic.chrome_timeline.json --top-end-key kern",
       "--top-end-key needs a MegEngine static-graph profile"},
  };
  for (const auto& [args, message] : cases) {
    EXPECT_EQ(run_command(kBin + " top " + args, (dir / "e.log").string()), 2) << args;
    const std::string log = read_file(dir / "e.log");
    EXPECT_NE(log.find(message), std::string::npos) << args << "\n" << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;  // one message
  }
  fs::remove_all(dir);
}

TEST(MegEngineCli, TopTypesCuptiKernelsByTheirOps) {
  const fs::path dir = temp_dir("megengine-cupti");
  ASSERT_EQ(run_command(kBin + " top -q " + kDir + "cupti.chrome_timeline.json --csv " +
                            (dir / "c.csv").string(),
                        (dir / "c.log").string()),
            0)
      << read_file(dir / "c.log");
  const std::string csv = read_file(dir / "c.csv");
  EXPECT_NE(csv.find("\n1,cudnn::detail::implicit_convolve_sgemm,Convolution,1,100"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",sgemm_128x64_nn,MatrixMul,1,80"), std::string::npos) << csv;
  fs::remove_all(dir);
}

TEST(MegEngineCli, CompareAndMergeTheTimelineBesideAKinetoTrace) {
  const fs::path dir = temp_dir("megengine-cmp");
  fs::create_directories(dir / "in");
  fs::copy_file(kDir + "dynamic.chrome_timeline.json", dir / "in/rank0.chrome_timeline.json");
  simdjson::padded_string kineto;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(cs::io::load_json_maybe_gzip(
      std::string(CS_TEST_DATA) + "/kineto-variants/hta_compare_base.json.gz", kineto, diag));
  std::ofstream(dir / "in/object.json") << std::string_view(kineto.data(), kineto.size());
  const std::string meg = (dir / "in/rank0.chrome_timeline.json").string();
  ASSERT_EQ(run_command(kBin + " compare " + meg + " " + (dir / "in/object.json").string() +
                            " -o " + (dir / "cmp").string(),
                        (dir / "cmp.log").string()),
            0)
      << read_file(dir / "cmp.log");
  const std::string csv = read_file(dir / "cmp/comparison_output/overall_metrics.csv");
  // The MegEngine side (base_ms, column 1): 0.214 ms computing, 0.050 uncovered, 0.031 free,
  // 0.295 E2E; both sides keep the invariants.
  EXPECT_NEAR(overall(csv, "Computing Time", 1), 0.214, 1e-6) << csv;
  EXPECT_NEAR(overall(csv, "Uncovered Communication Time", 1), 0.050, 1e-6);
  EXPECT_NEAR(overall(csv, "Free Time", 1), 0.031, 1e-6);
  EXPECT_NEAR(overall(csv, "E2E Time", 1), 0.295, 1e-6);
  for (size_t col : {1u, 4u}) {
    const double computing = overall(csv, "Computing Time", col);
    const double total = computing + overall(csv, "Uncovered Communication Time", col) +
                         overall(csv, "Free Time", col);
    EXPECT_NEAR(total, overall(csv, "E2E Time", col), 0.01 * total) << col;
  }
  // merge: the MegEngine timeline (rank 0 from its name) and the Kineto trace (rank 1).
  ASSERT_EQ(run_command(
                kBin + " merge " + (dir / "in").string() + " -o " + (dir / "merged.json").string(),
                (dir / "merge.log").string()),
            0)
      << read_file(dir / "merge.log");
  EXPECT_NE(read_file(dir / "merge.log").find("merged 2 of 2 timelines"), std::string::npos)
      << read_file(dir / "merge.log");
  const std::string merged = read_file(dir / "merged.json");
  EXPECT_NE(merged.find("rank 0 \u00b7 pid 100"), std::string::npos);
  EXPECT_NE(merged.find("\"CollectiveComm\""), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace

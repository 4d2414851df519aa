// Memory across the cluster, end to end (memory/, generator/job/memory_model.h):
//  - the text and DB exports of one generated job give the same memory tables, byte for byte;
//  - no launcher and mpirun at 1, 2 and 4 processes give the same memory tables;
//  - the accuracy of the memory findings over 27 generated scenarios (injected imbalance and
//    leaks against truth.json; ranks pushed near the capacity --memory-capacity names):
//    precision and recall >= 0.95, clean jobs without a finding.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "support/missing_tool.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const char* const kMemoryTables[] = {
    "memory_ranks.csv",     "memory_groups.csv",     "memory_steps.csv",  "memory_stages.csv",
    "memory_operators.csv", "memory_components.csv", "memory_curves.csv", "memory_findings.csv"};

std::string analyse_memory(const std::string& launcher, const fs::path& in, const fs::path& out,
                           const std::string& extra = {}) {
  const int rc = run_command(launcher + CS_BINARY + " cluster -d " + in.string() + " -o " +
                                 out.string() + " -m diagnosis --quiet --format csv" + extra,
                             out.string() + ".log");
  return rc == 0 ? std::string() : "cluster failed: " + read_file(out.string() + ".log");
}

class ClusterMemoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = cs::test::temp_dir("memory");
    const int rc = run_command(std::string(CS_BINARY) + " generate " + (root_ / "in").string() +
                                   " --ranks 16 --tp 2 --pp 2 --steps 4 --seed 3 --export-type "
                                   "both --no-trace-view --memory-imbalance 5:4 --memory-leak "
                                   "10:200",
                               (root_ / "gen.log").string());
    ASSERT_EQ(rc, 0) << read_file(root_ / "gen.log");
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static fs::path root_;
};
fs::path ClusterMemoryTest::root_;

TEST_F(ClusterMemoryTest, TextAndDbExportsGiveTheSameMemoryTables) {
  ASSERT_EQ(analyse_memory("", root_ / "in", root_ / "text", " --data-type text"), "");
  ASSERT_EQ(analyse_memory("", root_ / "in", root_ / "db", " --data-type db"), "");
  for (const char* t : kMemoryTables) {
    const std::string a = read_file(root_ / "text/cluster_analysis_output" / t);
    ASSERT_FALSE(a.empty()) << t;
    EXPECT_TRUE(a == read_file(root_ / "db/cluster_analysis_output" / t)) << t;
  }
  // Both find the two injected faults, with their numbers.
  const std::string f = read_file(root_ / "text/cluster_analysis_output/memory_findings.csv");
  EXPECT_NE(f.find("5,0,imbalance,4.0"), std::string::npos) << f;
  EXPECT_NE(f.find("10,1,leak,200"), std::string::npos) << f;
  EXPECT_NE(f.find("grows 200 MB per step on rank 10"), std::string::npos) << f;
  const std::string ranks = read_file(root_ / "text/cluster_analysis_output/memory_ranks.csv");
  EXPECT_EQ(ranks.rfind("rank,stage,series,peak_allocated_mb,peak_reserved_mb,"
                        "peak_app_reserved_mb,",
                        0),
            0u);
  EXPECT_EQ(cs::test::lines_with(ranks, ",PTA+GE,"), 16u);
}

TEST_F(ClusterMemoryTest, SameMemoryTablesAtOneTwoAndFourProcesses) {
  ASSERT_EQ(analyse_memory("", root_ / "in", root_ / "np0"), "");
  for (int np : {1, 2, 4}) {
    const fs::path out = root_ / ("np" + std::to_string(np));
    ASSERT_EQ(analyse_memory(mpirun(np), root_ / "in", out), "");
    for (const char* t : kMemoryTables)
      EXPECT_TRUE(read_file(root_ / "np0/cluster_analysis_output" / t) ==
                  read_file(out / "cluster_analysis_output" / t))
          << t << " at np=" << np;
  }
}

// The memory tables are HDF5 datasets too (h5dump reads them back: HDF5's own tool).
TEST_F(ClusterMemoryTest, MemoryTablesAreHdf5Datasets) {
  if (!fs::exists("/usr/bin/h5dump")) CS_MISSING_TOOL("h5dump");
  const fs::path out = root_ / "h5";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + (root_ / "in").string() + " -o " +
                            out.string() + " -m diagnosis -q --format csv,hdf5",
                        out.string() + ".log"),
            0);
  const fs::path h5 = out / "cluster_analysis_output/cluster_analysis.h5";
  const fs::path dump = root_ / "h5.txt";
  ASSERT_EQ(run_command(
                "h5dump -d /memory_ranks/peak_allocated_mb -d /memory_findings/kind " + h5.string(),
                dump.string()),
            0);
  const std::string d = read_file(dump);
  EXPECT_NE(d.find("DATASPACE  SIMPLE { ( 16 )"), std::string::npos) << d;
  EXPECT_NE(d.find("\"imbalance\""), std::string::npos) << d;
  EXPECT_NE(d.find("leak"), std::string::npos) << d;
}

// compare RUN_A RUN_B: the same job without the faults against this one: rank 5's peak 4 GB
// (4096 MB) higher, aten::empty_strided 4096 MB more, aten::cat's 4 x 200 MB new.
TEST_F(ClusterMemoryTest, CompareRunsDiffsPeaksAndOperators) {
  const fs::path clean = root_ / "clean";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + clean.string() +
                            " --ranks 16 --tp 2 --pp 2 --steps 4 --seed 3 --memory "
                            "--no-trace-view",
                        clean.string() + ".log"),
            0);
  const fs::path out = root_ / "cmp";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " compare " + clean.string() + " " +
                            (root_ / "in").string() + " -o " + out.string() + " -q",
                        out.string() + ".log"),
            0)
      << read_file(out.string() + ".log");
  const std::string ranks = read_file(out / "comparison_output/memory_rank_diff.csv");
  EXPECT_EQ(ranks.rfind("rank,base_peak_mb,comparison_peak_mb,diff_mb,diff_pct", 0), 0u) << ranks;
  EXPECT_NE(ranks.find(",4096,"), std::string::npos) << ranks;
  const std::string ops = read_file(out / "comparison_output/memory_operator_diff.csv");
  EXPECT_NE(ops.find("aten::empty_strided,98304,102400,4096,16,16"), std::string::npos) << ops;
  EXPECT_NE(ops.find("aten::cat,0,800,800,0,4"), std::string::npos) << ops;
  EXPECT_NE(read_file(out.string() + ".log").find("changed most on rank 5: +4.00 GB"),
            std::string::npos);
}

// GPU vs NPU: a real Kineto trace with "[memory]" events (H100) against the real torch_npu rank 0
// (its timeline and its memory files, assembled from tests/data): one row, the two peaks as
// tests/memory/test_memory_readers.cpp works them out (231332864 and 1322299392 bytes).
TEST(MemoryCompare, GpuVsNpuPeaks) {
  const fs::path root = cs::test::temp_dir("memory_gvn");
  const fs::path npu = root / "rank0_ascend_pt";
  const std::string data = CS_TEST_DATA;
  fs::create_directories(npu / "ASCEND_PROFILER_OUTPUT");
  fs::copy(data + "/ascend-real/text_level1/rank0_ascend_pt", npu,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::copy(data + "/memory/text_level1/rank0_ascend_pt", npu,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  // The timeline is stored gzipped in tests/data; the rank directory holds it as written.
  ASSERT_EQ(run_command("gzip -d " + (npu / "ASCEND_PROFILER_OUTPUT/trace_view.json.gz").string()),
            0);
  const fs::path out = root / "out";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " compare " + data +
                            "/kineto-variants/pretty_h100_falconsai.json.gz " + npu.string() +
                            " -o " + out.string(),
                        out.string() + ".log"),
            0)
      << read_file(out.string() + ".log");
  const std::string ranks = read_file(out / "comparison_output/memory_rank_diff.csv");
  // 231332864 / 1048576 = 220.616211 MB; 1322299392 / 1048576 = 1261.042969 MB.
  EXPECT_NE(ranks.find("0,220.616211,1261.042969,1040.426758,"), std::string::npos) << ranks;
  EXPECT_NE(read_file(out.string() + ".log").find("Memory: peak 0.22 GB (base) vs 1.23 GB"),
            std::string::npos);
  fs::remove_all(root);
}

// One generated scenario and what truth.json says was injected.
struct Scenario {
  std::string shape;                               // generator options
  std::vector<std::pair<int, std::string>> truth;  // (rank, kind)
};

// The (rank, kind) rank findings of memory_findings.csv.
std::set<std::pair<int, std::string>> found(const fs::path& csv) {
  std::set<std::pair<int, std::string>> out;
  std::istringstream in(read_file(csv));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string rank, stage, kind;
    std::getline(cells, rank, ',');
    std::getline(cells, stage, ',');
    std::getline(cells, kind, ',');
    if (kind == "stage_imbalance") continue;  // by design of the pipeline, not a rank fault
    out.insert({std::stoi(rank), kind});
  }
  return out;
}

TEST(MemoryAccuracy, InjectedImbalanceAndLeaksAreFoundCleanJobsAreSilent) {
  const fs::path root = cs::test::temp_dir("memory_accuracy");
  const std::string j16 = "--ranks 16 --tp 2 --pp 2 --steps 4";
  const std::string j32 = "--ranks 32 --tp 2 --pp 4 --steps 4";
  const std::string j16p1 = "--ranks 16 --tp 4 --pp 1 --steps 5";
  const std::vector<Scenario> scenarios = {
      {j16 + " --seed 1 --memory", {}},
      {j32 + " --seed 2 --memory", {}},
      {j16p1 + " --seed 3 --memory", {}},
      {j16 + " --seed 4 --memory --rank-jitter 0.05", {}},
      {j32 + " --seed 5 --memory --first-stage-work 1.2", {}},
      {j16 + " --seed 6 --memory-imbalance 3:2", {{3, "imbalance"}}},
      {j16 + " --seed 7 --memory-imbalance 12:6", {{12, "imbalance"}}},
      {j32 + " --seed 8 --memory-imbalance 0:3", {{0, "imbalance"}}},
      {j32 + " --seed 9 --memory-imbalance 31:1.5", {{31, "imbalance"}}},
      {j16p1 + " --seed 10 --memory-imbalance 7:2.5", {{7, "imbalance"}}},
      {j16 + " --seed 11 --memory-leak 4:100", {{4, "leak"}}},
      {j16 + " --seed 12 --memory-leak 9:500", {{9, "leak"}}},
      {j32 + " --seed 13 --memory-leak 17:150", {{17, "leak"}}},
      {j32 + " --seed 14 --memory-leak 25:300", {{25, "leak"}}},
      {j16p1 + " --seed 15 --memory-leak 2:120", {{2, "leak"}}},
      {j16 + " --seed 16 --memory-imbalance 1:4 --memory-leak 14:250",
       {{1, "imbalance"}, {14, "leak"}}},
      {j32 + " --seed 17 --memory-imbalance 8:5 --memory-imbalance 20:2",
       {{8, "imbalance"}, {20, "imbalance"}}},
      {j32 + " --seed 18 --memory-leak 6:200 --memory-leak 30:100", {{6, "leak"}, {30, "leak"}}},
      {j16 + " --seed 19 --memory-imbalance 6:3 --memory-leak 6:300",
       {{6, "imbalance"}, {6, "leak"}}},
      {j16p1 + " --seed 20 --memory-imbalance 11:8 --memory-leak 0:400",
       {{11, "imbalance"}, {0, "leak"}}},
      {j32 + " --seed 21 --memory-imbalance 13:2 --rank-jitter 0.05", {{13, "imbalance"}}},
      {j16 + " --seed 22 --memory-leak 13:180 --slow-rank 2:1.5", {{13, "leak"}}},
      {j16 + " --seed 23 --memory --slow-rank 5:2", {}},
      {j32 + " --seed 24 --memory-imbalance 27:2.5 --memory-leak 3:150",
       {{27, "imbalance"}, {3, "leak"}}},
      // Near capacity: the DB's NPU_INFO names a chip whose HBM is known (--memory-capacity).
      {j16 + " --seed 25 --memory-capacity 32 --memory-imbalance 3:18 --export-type db",
       {{3, "imbalance"}, {3, "near_capacity"}}},
      {j16 + " --seed 26 --memory-capacity 64 --memory-imbalance 12:49 --export-type db",
       {{12, "imbalance"}, {12, "near_capacity"}}},
      {j32 + " --seed 27 --memory --memory-capacity 32 --export-type db", {}},
  };
  int tp = 0, fp = 0, fn = 0, clean = 0, clean_silent = 0;
  std::string report;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const fs::path in = root / ("s" + std::to_string(i));
    const fs::path out = root / ("o" + std::to_string(i));
    ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + in.string() + " " +
                              scenarios[i].shape + " --no-trace-view",
                          in.string() + ".log"),
              0)
        << read_file(in.string() + ".log");
    ASSERT_EQ(analyse_memory("", in, out), "");
    const auto got = found(out / "cluster_analysis_output/memory_findings.csv");
    const std::set<std::pair<int, std::string>> want(scenarios[i].truth.begin(),
                                                     scenarios[i].truth.end());
    int s_tp = 0, s_fp = 0;
    for (const auto& g : got) (want.count(g) ? s_tp : s_fp)++;
    const int s_fn = static_cast<int>(want.size()) - s_tp;
    tp += s_tp;
    fp += s_fp;
    fn += s_fn;
    if (want.empty()) {
      ++clean;
      clean_silent += got.empty();
    }
    report += "| " + std::to_string(i + 1) + " | `" + scenarios[i].shape + "` | " +
              std::to_string(want.size()) + " | " + std::to_string(s_tp) + " | " +
              std::to_string(s_fp) + " | " + std::to_string(s_fn) + " |\n";
    fs::remove_all(in);
  }
  const double precision = tp + fp > 0 ? static_cast<double>(tp) / (tp + fp) : 1.0;
  const double recall = tp + fn > 0 ? static_cast<double>(tp) / (tp + fn) : 1.0;
  std::printf("%s", report.c_str());
  std::printf("TP %d FP %d FN %d precision %.3f recall %.3f clean silent %d/%d\n", tp, fp, fn,
              precision, recall, clean_silent, clean);
  EXPECT_GE(scenarios.size(), 20u);
  EXPECT_GE(precision, 0.95);
  EXPECT_GE(recall, 0.95);
  EXPECT_EQ(clean_silent, clean);
  fs::remove_all(root);
}

}  // namespace

// End to end, the host side of `clusterscope cluster`: on the real torch_npu samples (text and DB
// export) free_breakdown.csv holds the producer's Free per rank and step, its parts add up, and
// host_ops.csv, free_breakdown.csv and every other file are the same bytes with no launcher and
// under mpirun at 1, 2 and 4 processes; a job without host timelines says so once and leaves its
// Free unattributed.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::read_tree;
using cs::test::run_command;

namespace {

const fs::path& host_root() {
  static const cs::test::ScratchDir d("host");
  return d.path();
}

// CSV rows (no quoted fields in these files) as name -> column values, header first.
std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

int run_cluster(const std::string& launcher, const std::string& input, const fs::path& out) {
  return run_command(launcher + CS_BINARY + " cluster -d " + input + " -o " + out.string() +
                         " --quiet --format json,csv",
                     out.string() + ".log");
}

struct Sample {
  const char* dir;
  int status;                           // rank 1 of the text sample lacks its matrix: partial
  std::map<int, double> producer_free;  // rank -> Free of step 50, from the producer's files
};

class ClusterHost : public ::testing::TestWithParam<Sample> {};

// Free of step 50 as the producer wrote it: step_trace_time.csv (text: 25744.050000000003,
// 26675.27399999998) and analysis.db StepTraceTime.free (DB: 25258.144, 25840.499).
INSTANTIATE_TEST_SUITE_P(
    RealSamples, ClusterHost,
    ::testing::Values(Sample{"text_level1", 3, {{0, 25744.05}, {1, 26675.274}}},
                      Sample{"db_level1", 0, {{0, 25258.144}, {1, 25840.499}}}),
    [](const auto& info) { return std::string(info.param.dir); });

TEST_P(ClusterHost, FreeBreakdownIsTheProducersFreeAndSameUnderMpi) {
  const Sample& s = GetParam();
  const std::string input = std::string(CS_TEST_DATA) + "/ascend-real/" + s.dir;
  const fs::path base = host_root() / (std::string(s.dir) + "-nolauncher");
  ASSERT_EQ(run_cluster("", input, base), s.status) << read_file(base.string() + ".log");
  const auto expected = read_tree(base / "cluster_analysis_output");
  ASSERT_TRUE(expected.count("host_ops.csv"));
  ASSERT_TRUE(expected.count("free_breakdown.csv"));

  const auto rows = rows_of(expected.at("free_breakdown.csv"));
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(rows[0].size(), 9u);
  EXPECT_EQ(rows[0][2], "free_us");
  for (size_t i = 1; i < rows.size(); ++i) {
    const int rank = std::stoi(rows[i][0]);
    EXPECT_EQ(rows[i][1], "50");
    const double free = std::stod(rows[i][2]);
    EXPECT_NEAR(free, s.producer_free.at(rank), 0.0005);
    double parts = 0;
    for (size_t c = 3; c < rows[i].size(); ++c) parts += std::stod(rows[i][c]);
    EXPECT_NEAR(parts, free, 0.004);  // six cells rounded to the nanosecond
  }
  // The same tables in cluster_analysis.h5 (the default formats write it), rows for rows.
  const std::string py =
      "/usr/bin/python3 -c \"import h5py,sys; f=h5py.File(sys.argv[1]); "
      "sys.exit(0 if len(f['free_breakdown']['free_us']) == 2 and "
      "len(f['host_ops']['operator']) == int(sys.argv[2]) else 1)\" ";
  const fs::path h5 = host_root() / (std::string(s.dir) + "-h5");
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input + " -o " + h5.string() +
                            " --quiet --format hdf5",
                        h5.string() + ".log"),
            s.status);
  const auto n_ops = rows_of(expected.at("host_ops.csv")).size() - 1;
  EXPECT_EQ(run_command(py + (h5 / "cluster_analysis_output" / "cluster_analysis.h5").string() +
                        " " + std::to_string(n_ops)),
            0);
  // The host-heaviest operator of both ranks: aten::_local_scalar_dense (.item()), 27 calls each.
  const auto ops = rows_of(expected.at("host_ops.csv"));
  ASSERT_GE(ops.size(), 2u);
  EXPECT_EQ(ops[1][0], "aten::_local_scalar_dense");
  EXPECT_EQ(ops[1][2], "54");

  for (int np : {1, 2, 4}) {
    const fs::path out = host_root() / (std::string(s.dir) + "-np" + std::to_string(np));
    ASSERT_EQ(run_cluster(mpirun(np), input, out), s.status) << read_file(out.string() + ".log");
    cs::test::expect_same_tree(expected, read_tree(out / "cluster_analysis_output"),
                               "np=" + std::to_string(np));
  }
}

TEST(ClusterHostNoTimeline, FreeUnattributedSaidOnce) {
  const fs::path input = host_root() / "no-trace-view";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + input.string() +
                            " --ranks 4 --tp 2 --steps 2 --seed 4 --no-trace-view",
                        (host_root() / "gen.log").string()),
            0)
      << read_file(host_root() / "gen.log");
  const fs::path out = host_root() / "no-trace-view-out";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input.string() + " -o " +
                            out.string() + " --format csv",
                        out.string() + ".log"),
            0);
  const std::string log = read_file(out.string() + ".log");
  size_t said = 0;
  for (size_t at = log.find("no host timeline"); at != std::string::npos;
       at = log.find("no host timeline", at + 1))
    ++said;
  EXPECT_EQ(said, 1u) << log;
  const auto rows = rows_of(read_file(out / "cluster_analysis_output" / "free_breakdown.csv"));
  ASSERT_EQ(rows.size(), 1u + 4 * 2);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][2], rows[i][8]);  // free_us == unattributed_us
    for (size_t c = 3; c < 8; ++c) EXPECT_EQ(rows[i][c], "0");
  }
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "host_ops.csv"));
}

}  // namespace

namespace {

// Run vs run: the same job generated twice, the second with rank 3's host slow (80 µs more before
// every kernel launch): regressions.csv names rank 3's dispatch as a significant regression.
TEST(CompareHost, SlowHostIsADispatchRegression) {
  const fs::path base = host_root() / "cmp-base", slow = host_root() / "cmp-slow";
  const std::string gen = std::string(CS_BINARY) + " generate ";
  const std::string shape = " --ranks 8 --tp 2 --steps 2 --seed 9";
  ASSERT_EQ(run_command(gen + base.string() + shape, (host_root() / "cmp-gen1.log").string()), 0);
  ASSERT_EQ(run_command(gen + slow.string() + shape + " --slow-host 3:80",
                        (host_root() / "cmp-gen2.log").string()),
            0);
  const fs::path out = host_root() / "cmp-out";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " compare " + base.string() + " " + slow.string() +
                            " -o " + out.string() + " --quiet",
                        out.string() + ".log"),
            0)
      << read_file(out.string() + ".log");
  const auto reg = rows_of(read_file(out / "comparison_output" / "regressions.csv"));
  ASSERT_GE(reg.size(), 2u);
  const auto sig = std::find(reg[0].begin(), reg[0].end(), "significant") - reg[0].begin();
  bool found = false;
  for (size_t i = 1; i < reg.size(); ++i)
    if (reg[i][0] == "dispatch" && reg[i][1] == "rank 3")
      found = reg[i][static_cast<size_t>(sig)] == "1";
  EXPECT_TRUE(found) << read_file(out / "comparison_output" / "regressions.csv");
}

}  // namespace

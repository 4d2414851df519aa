// End to end: what `clusterscope cluster` writes for each mode, and its HDF5 file read by h5py.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "cli/cli_test_util.h"
#include "support/missing_tool.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

class ClusterOutputs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = cs::test::temp_dir("outputs");
    input_ = root_ / "input";
    ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + input_.string() +
                              " --ranks 16 --tp 4 --pp 2 --steps 2 --seed 5 --slow-rank 6:1.4",
                          (root_ / "gen.log").string()),
              0)
        << read_file(root_ / "gen.log");
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static std::set<std::string> files_of(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    // The list of this run's outputs (io/output_ledger.h) is always there.
    EXPECT_EQ(names.erase(".clusterscope_written"), 1u) << dir;
    return names;
  }

  static fs::path root_, input_;
};
fs::path ClusterOutputs::root_, ClusterOutputs::input_;

TEST_F(ClusterOutputs, Hdf5FileMatchesTheCsvTablesInH5py) {
  if (run_command("/usr/bin/python3 -c 'import h5py'", "/dev/null") != 0)
    CS_MISSING_TOOL("python3-h5py");
  const fs::path out = root_ / "all";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input_.string() + " -o " +
                            out.string() + " --quiet --op-tables csv",
                        (root_ / "all.log").string()),
            0)
      << read_file(root_ / "all.log");
  const fs::path dir = out / "cluster_analysis_output";
  const fs::path log = root_ / "h5check.log";
  EXPECT_EQ(run_command("/usr/bin/python3 " CS_SOURCE_DIR "/tests/data/cli/check_cluster_h5.py " +
                            dir.string() + " 16",
                        log.string()),
            0)
      << read_file(log);
  // The slow rank injected by the generator is the first finding.
  const std::string slow = read_file(dir / "slow_ranks.csv");
  EXPECT_EQ(slow.rfind("rank,score,cause,evidence\n6,", 0), 0u) << slow;
  // The report is one self-contained page.
  const std::string html = read_file(dir / "report.html");
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
}

// By default the per-op tables are in cluster_analysis.h5 only and the closing summary says so;
// --op-tables csv.gz writes them gzipped, the same text as --op-tables csv; a wrong choice lists
// the valid ones.
TEST_F(ClusterOutputs, PerOpTablesGoToHdf5UnlessCsvIsAsked) {
  const auto run = [&](const std::string& name, const std::string& args) {
    const fs::path out = root_ / ("op-" + name);
    std::string said;
    const int rc = cs::test::run_merged(std::string(CS_BINARY) + " cluster -d " + input_.string() +
                                            " -o " + out.string() + " " + args,
                                        said);
    return std::make_pair(rc, said);
  };
  const auto [rc, said] = run("default", "");
  ASSERT_EQ(rc, 0) << said;
  const std::set<std::string> files = files_of(root_ / "op-default" / "cluster_analysis_output");
  for (const char* f : {"communication_ops.csv", "communication_matrix.csv",
                        "communication_ops.csv.gz", "communication_matrix.csv.gz"})
    EXPECT_EQ(files.count(f), 0u) << f;
  for (const char* f : {"cluster_analysis.h5", "communication_bandwidth.csv", "step_trace.csv",
                        "cluster_communication_matrix.json", "report.html"})
    EXPECT_EQ(files.count(f), 1u) << f;
  EXPECT_NE(said.find("Outputs: "), std::string::npos) << said;
  EXPECT_NE(said.find("in cluster_analysis.h5 only (--op-tables csv or csv.gz"), std::string::npos)
      << said;
  // The summary names the communication_ops table with its rows: 16 ranks x the generated ops.
  EXPECT_NE(said.find("communication_ops ("), std::string::npos) << said;

  // With --format json nothing takes the per-op tables' rows (they are not built): the summary
  // still names them with the default run's counts, not written.
  const auto [rc_json, said_json] = run("json", "--format json");
  ASSERT_EQ(rc_json, 0) << said_json;
  const auto rows_of = [](const std::string& text, const std::string& table) {
    const size_t at = text.find(table + " (");
    return at == std::string::npos ? std::string() : text.substr(at, text.find(" rows)", at) - at);
  };
  for (const char* t : {"communication_ops", "communication_matrix"}) {
    EXPECT_FALSE(rows_of(said, t).empty()) << t << ": " << said;
    EXPECT_EQ(rows_of(said_json, t), rows_of(said, t)) << said_json;
  }
  EXPECT_NE(said_json.find("not written (--format without hdf5"), std::string::npos) << said_json;

  const auto [rc_csv, said_csv] = run("csv", "--op-tables csv --format csv");
  ASSERT_EQ(rc_csv, 0) << said_csv;
  const auto [rc_gz, said_gz] = run("gz", "--op-tables csv.gz --format json,csv");
  ASSERT_EQ(rc_gz, 0) << said_gz;
  EXPECT_NE(said_gz.find("as <name>.csv.gz"), std::string::npos) << said_gz;
  for (const char* t : {"communication_ops", "communication_matrix"}) {
    const fs::path csv = root_ / "op-csv" / "cluster_analysis_output" / (std::string(t) + ".csv");
    const fs::path gz = root_ / "op-gz" / "cluster_analysis_output" / (std::string(t) + ".csv.gz");
    ASSERT_TRUE(fs::exists(gz)) << gz;
    EXPECT_FALSE(fs::exists(gz.parent_path() / (std::string(t) + ".csv"))) << t;
    std::string back;  // the gzip tool, a reader we did not write
    ASSERT_EQ(cs::test::run_capture("gzip -dc " + gz.string(), back), 0);
    EXPECT_GT(fs::file_size(csv), 1000u) << t;
    EXPECT_EQ(back, read_file(csv)) << t;
  }
  // msprof-analyze's documents do not depend on where the per-op tables go.
  for (const char* f : {"cluster_communication.json", "cluster_communication_matrix.json",
                        "cluster_step_trace_time.csv", "communication_group.json"})
    EXPECT_EQ(read_file(root_ / "op-default" / "cluster_analysis_output" / f),
              read_file(root_ / "op-gz" / "cluster_analysis_output" / f))
        << f;

  const auto [rc_bad, said_bad] = run("bad", "--op-tables cvs");
  EXPECT_EQ(rc_bad, 2);
  EXPECT_NE(said_bad.find("unknown --op-tables 'cvs' \u2014 valid: hdf5, csv, csv.gz"),
            std::string::npos)
      << said_bad;
  const auto [rc_no_h5, said_no_h5] = run("no-h5", "--op-tables hdf5 --format csv");
  EXPECT_EQ(rc_no_h5, 2);
  EXPECT_NE(said_no_h5.find("--op-tables hdf5 needs the HDF5 file"), std::string::npos)
      << said_no_h5;
}

TEST_F(ClusterOutputs, EachModeWritesWhatItOwns) {
  const std::map<std::string, std::set<std::string>> expected = {
      {"communication_time",
       {"communication_group.json", "cluster_communication.json", "communication_ops.csv",
        "communication_bandwidth.csv", "rank_manifest.csv"}},
      {"communication_matrix",
       {"communication_group.json", "cluster_communication_matrix.json", "communication_matrix.csv",
        "rank_manifest.csv"}},
      {"step_trace",
       {"communication_group.json", "cluster_step_trace_time.csv", "step_trace.csv",
        "rank_manifest.csv"}},
      {"operators", {"operators_topn.csv", "rank_manifest.csv"}},
  };
  for (const auto& [mode, files] : expected) {
    const fs::path out = root_ / ("mode-" + mode);
    const fs::path log = root_ / ("mode-" + mode + ".log");
    ASSERT_EQ(
        run_command(std::string(CS_BINARY) + " cluster -d " + input_.string() + " -o " +
                        out.string() + " -m " + mode + " --format json,csv --op-tables csv --quiet",
                    log.string()),
        0)
        << mode << ": " << read_file(log);
    EXPECT_EQ(files_of(out / "cluster_analysis_output"), files) << mode;
  }
  // msprof-analyze's spellings work too.
  const fs::path out = root_ / "msprof-spelling";
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster --profiling_path " + input_.string() +
                            " --output_path " + out.string() +
                            " --mode communication_time --rank_list 0-7 --format json --quiet",
                        (root_ / "spelling.log").string()),
            0)
      << read_file(root_ / "spelling.log");
  const std::string groups =
      read_file(out / "cluster_analysis_output" / "communication_group.json");
  const std::string lists = groups.substr(0, groups.find("comm_group_parallel_info"));
  EXPECT_EQ(lists.find(", 15]"), std::string::npos) << "rank 15 was filtered out: " << lists;
  EXPECT_EQ(lists.find("[15"), std::string::npos) << "rank 15 was filtered out: " << lists;
  EXPECT_NE(lists.find("[0, 1, 2, 3]"), std::string::npos) << lists;
}

// A mode frees the ranks' data its later steps do not read (the matrix links without a matrix
// merge, the communication ops without communication outputs or diagnosis: cluster_outputs.cpp):
// each file it writes has the bytes -m all writes (the manifest aside: it lists the files read).
TEST_F(ClusterOutputs, EachModesFilesAreTheBytesOfModeAll) {
  auto run = [&](const std::string& mode) {
    const fs::path out = root_ / ("same-" + mode);
    EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input_.string() + " -o " +
                              out.string() + " -m " + mode + " --format json,csv --quiet",
                          out.string() + ".log"),
              0)
        << mode << ": " << read_file(out.string() + ".log");
    auto files = cs::test::read_tree(out / "cluster_analysis_output");
    files.erase("rank_manifest.csv");
    files.erase(".clusterscope_written");  // the run's own list of its files
    return files;
  };
  const auto all = run("all");
  for (const char* mode : {"communication_time", "communication_matrix", "step_trace"}) {
    const auto got = run(mode);
    EXPECT_GE(got.size(), 2u) << mode;
    for (const auto& [name, content] : got) {
      ASSERT_TRUE(all.count(name)) << mode << " wrote " << name << ", -m all did not";
      EXPECT_TRUE(content == all.at(name)) << name << " differs between -m " << mode << " and all";
    }
  }
}

TEST_F(ClusterOutputs, MissingFileMakesTheRankPartialAndExitThree) {
  const fs::path input = root_ / "no-matrix";
  fs::copy(input_, input, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(input))
    if (e.path().filename() == "profiler_info_2.json")
      fs::remove(e.path().parent_path() / "ASCEND_PROFILER_OUTPUT" / "communication_matrix.json");
  const fs::path out = root_ / "no-matrix-out";
  const fs::path log = root_ / "no-matrix.log";
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input.string() + " -o " +
                            out.string() + " --format csv",
                        log.string()),
            3)
      << read_file(log);
  const std::string manifest = read_file(out / "cluster_analysis_output" / "rank_manifest.csv");
  EXPECT_NE(manifest.find("2,"), std::string::npos);
  EXPECT_NE(manifest.find("partial,"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("communication_matrix.json: missing"), std::string::npos) << manifest;
}

}  // namespace

namespace {

// `generate --slow-link S-D:0.3` (a link at 0.3x its bandwidth) and `:4` (4 times slower) both
// slow the link down, and `cluster` names it in slow_links.csv.
TEST(ClusterSlowLink, BothFactorSpellingsAreFoundAsSlowLinks) {
  const fs::path root = cs::test::temp_dir("slowlink");
  for (const char* factor : {"0.3", "4"}) {
    const fs::path in = root / (std::string("in-") + factor);
    const fs::path out = root / (std::string("out-") + factor);
    ASSERT_EQ(
        run_command(std::string(CS_BINARY) + " generate " + in.string() +
                        " --ranks 16 --tp 4 --pp 2 --steps 2 --seed 9 --slow-link 0-1:" + factor,
                    (root / "gen.log").string()),
        0)
        << read_file(root / "gen.log");
    ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + in.string() + " -o " +
                              out.string() + " --quiet --format csv",
                          (root / "cluster.log").string()),
              0)
        << read_file(root / "cluster.log");
    const std::string links = read_file(out / "cluster_analysis_output" / "slow_links.csv");
    const size_t first_row = links.find('\n') + 1;
    EXPECT_TRUE(links.compare(first_row, 4, "0,1,") == 0 ||
                links.compare(first_row, 4, "1,0,") == 0)
        << "factor " << factor << ":\n"
        << links;
  }
  fs::remove_all(root);
}

}  // namespace

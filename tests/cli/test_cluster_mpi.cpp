// End to end: `clusterscope cluster` with no launcher and under mpirun at 1, 2 and 4 processes must
// write the same files byte for byte; a corrupt rank under mpirun -np 2 ends with status 3 and is
// listed in the manifest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "cli/cli_test_util.h"
#include "support/missing_tool.h"
#include "support/test_files.h"
#include "support/under_asan.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::read_tree;
using cs::test::run_command;

namespace {

class ClusterMpiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = cs::test::temp_dir("mpi");
    input_ = root_ / "input";
    int rc = run_command(std::string(CS_BINARY) + " generate " + input_.string() +
                             " --ranks 16 --tp 2 --pp 2 --steps 3 --seed 11 --slow-rank 5:1.5",
                         (root_ / "generate.log").string());
    ASSERT_EQ(rc, 0) << read_file(root_ / "generate.log");
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // Runs the analysis into OUT and returns the exit status.
  static int analyse(const std::string& launcher, const fs::path& input, const fs::path& out) {
    return run_command(launcher + CS_BINARY + " cluster -d " + input.string() + " -o " +
                           out.string() + " --quiet --format json,csv",
                       (out.string() + ".log"));
  }

  // The files of `out` equal `expected`, name for name and byte for byte.
  static void expect_same_tree(const std::map<std::string, std::string>& expected,
                               const fs::path& out, int np) {
    cs::test::expect_same_tree(expected, read_tree(out / "cluster_analysis_output"),
                               "np=" + std::to_string(np));
  }

  static fs::path root_, input_;
};
fs::path ClusterMpiTest::root_, ClusterMpiTest::input_;

TEST_F(ClusterMpiTest, SameOutputWithAndWithoutLauncher) {
  const fs::path base = root_ / "out-nolauncher";
  ASSERT_EQ(analyse("", input_, base), 0) << read_file(base.string() + ".log");
  const auto expected = read_tree(base / "cluster_analysis_output");
  ASSERT_FALSE(expected.empty());
  for (const char* must : {"rank_manifest.csv", "cluster_communication.json",
                           "communication_group.json", "cluster_step_trace_time.csv"}) {
    if (expected.count(must) == 0) ADD_FAILURE() << "missing output " << must;
  }
  for (int np : {1, 2, 4}) {
    const fs::path out = root_ / ("out-np" + std::to_string(np));
    ASSERT_EQ(analyse(mpirun(np), input_, out), 0) << read_file(out.string() + ".log");
    expect_same_tree(expected, out, np);
  }
}

// cluster_analysis.h5 too: the same datasets and attributes with no launcher and at 1, 2 and 4
// processes (h5diff, HDF5's own comparison; /meta records the run: its process count and time),
// and every other file byte for byte. h5diff is shown to see a difference: a run over fewer ranks.
TEST_F(ClusterMpiTest, Hdf5AndEveryOutputSameAtAnyProcessCount) {
  if (!fs::exists("/usr/bin/h5diff")) CS_MISSING_TOOL("h5diff (hdf5-tools)");
  auto run = [&](const std::string& launcher, const std::string& name,
                 const std::string& extra = "") {
    const fs::path out = root_ / name;
    EXPECT_EQ(run_command(launcher + CS_BINARY + " cluster -d " + input_.string() + " -o " +
                              out.string() + " --quiet --format json,csv,hdf5" + extra,
                          out.string() + ".log"),
              0)
        << read_file(out.string() + ".log");
    return out / "cluster_analysis_output";
  };
  auto h5diff = [&](const fs::path& a, const fs::path& b) {
    return run_command("h5diff --exclude-path /meta " + (a / "cluster_analysis.h5").string() + " " +
                           (b / "cluster_analysis.h5").string(),
                       (root_ / "h5diff.log").string());
  };
  const fs::path base = run("", "h5-nolauncher");
  auto expected = read_tree(base);
  ASSERT_EQ(expected.erase("cluster_analysis.h5"), 1u) << "no cluster_analysis.h5 written";
  for (int np : {1, 2, 4}) {
    const fs::path out = run(mpirun(np), "h5-np" + std::to_string(np));
    EXPECT_EQ(h5diff(base, out), 0) << "np=" << np << ": " << read_file(root_ / "h5diff.log");
    auto got = read_tree(out);
    got.erase("cluster_analysis.h5");
    ASSERT_EQ(got.size(), expected.size()) << "np=" << np;
    for (const auto& [name, content] : expected)
      EXPECT_TRUE(got.count(name) && got.at(name) == content) << name << " differs at np=" << np;
  }
  const fs::path fewer = run(mpirun(2), "h5-fewer", " --rank-list 0-7");
  EXPECT_EQ(h5diff(base, fewer), 1) << "h5diff saw no difference between 16 and 8 ranks";
}

// The per-op tables streamed to cluster_analysis.h5 and their CSV files a batch at a time
// (cluster/table_sink.h: TableSink::open_stream), forced through many batches and HDF5 chunks
// (CS_STREAM_ROWS=5: batches of about 5 op reports or matrix link reports, chunks of 5 rows;
// communication_ops, communication_bandwidth, communication_matrix): the same CSV bytes and the
// same HDF5 datasets (h5diff) as the default batches, with no launcher and at 1, 2 and 4 processes.
TEST_F(ClusterMpiTest, StreamedPerOpTablesSameAtAnyProcessCountAndBatchSize) {
  if (!fs::exists("/usr/bin/h5diff")) CS_MISSING_TOOL("h5diff (hdf5-tools)");
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = root_ / name;
    EXPECT_EQ(run_command(launcher + CS_BINARY + " cluster -d " + input_.string() + " -o " +
                              out.string() + " --quiet --format json,csv,hdf5 --op-tables csv",
                          out.string() + ".log"),
              0)
        << read_file(out.string() + ".log");
    return out / "cluster_analysis_output";
  };
  const fs::path base = run("", "stream-default");
  auto expected = read_tree(base);
  ASSERT_EQ(expected.erase("cluster_analysis.h5"), 1u);
  for (const char* must :
       {"communication_ops.csv", "communication_bandwidth.csv", "communication_matrix.csv"})
    ASSERT_GT(expected.count(must) ? expected.at(must).size() : 0, 1000u) << must;
  for (int np : {0, 1, 2, 4}) {
    const std::string launcher = "CS_STREAM_ROWS=5 " + (np == 0 ? std::string() : mpirun(np));
    const fs::path out = run(launcher, "stream-small-np" + std::to_string(np));
    EXPECT_EQ(run_command("h5diff --exclude-path /meta " + (base / "cluster_analysis.h5").string() +
                              " " + (out / "cluster_analysis.h5").string(),
                          (root_ / "h5diff-stream.log").string()),
              0)
        << "np=" << np << ": " << read_file(root_ / "h5diff-stream.log");
    auto got = read_tree(out);
    got.erase("cluster_analysis.h5");
    ASSERT_EQ(got.size(), expected.size()) << "np=" << np;
    for (const auto& [name, content] : expected)
      EXPECT_TRUE(got.count(name) && got.at(name) == content) << name << " differs at np=" << np;
  }
}

// The per-rank tables of cluster_analysis.h5 (rank_manifest, memory_steps, memory_components,
// memory_curves, free_breakdown: cluster/rank_tables.h) are written by every process, each its own
// ranks' rows at their place in rank order (parallel HDF5, MPI-IO). A job with memory and host
// data and one directory found but skipped (a second copy of rank 2: the manifest's last row,
// written by the root): the same file with no launcher and at 1, 2 and 4 processes, the tables
// with every rank's rows, and the CSV forms byte for byte (those files are written by every process
// too, each its ranks' rows at their offsets).
TEST_F(ClusterMpiTest, PerRankTablesWrittenByEveryProcessAreTheSame) {
  if (!fs::exists("/usr/bin/h5diff")) CS_MISSING_TOOL("h5diff (hdf5-tools)");
  const fs::path input = root_ / "input-per-rank";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + input.string() +
                            " --ranks 8 --tp 2 --pp 2 --steps 2 --seed 3 --memory",
                        (root_ / "generate-per-rank.log").string()),
            0)
      << read_file(root_ / "generate-per-rank.log");
  fs::path rank2;
  for (const auto& e : fs::recursive_directory_iterator(input))
    if (e.path().filename() == "profiler_info_2.json") rank2 = e.path().parent_path();
  ASSERT_FALSE(rank2.empty());
  fs::copy(rank2, input / ("zz_copy_" + rank2.filename().string()), fs::copy_options::recursive);
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = root_ / name;
    const int rc = run_command(launcher + CS_BINARY + " cluster -d " + input.string() + " -o " +
                                   out.string() + " --quiet --format csv,hdf5",
                               out.string() + ".log");
    EXPECT_TRUE(rc == 0 || rc == 3) << rc << ": " << read_file(out.string() + ".log");
    return out / "cluster_analysis_output";
  };
  const fs::path base = run("", "per-rank-nolauncher");
  // Every per-rank table is there, with every rank's rows (h5ls: "Dataset {rows/Inf}").
  std::string listing;
  ASSERT_EQ(cs::test::run_capture("h5ls -r " + (base / "cluster_analysis.h5").string(), listing),
            0);
  auto dataset_of = [&](const std::string& path) {  // "Dataset {9/Inf}" for "/t/c"
    const size_t at = listing.find(path + " ");
    if (at == std::string::npos) return std::string();
    const size_t from = listing.find("Dataset", at);
    return listing.substr(from, listing.find('\n', from) - from);
  };
  EXPECT_EQ(dataset_of("/rank_manifest/rank"), "Dataset {9/Inf}") << listing;  // 8 + 1 skipped
  EXPECT_EQ(dataset_of("/memory_steps/rank"), "Dataset {16/Inf}") << listing;  // 8 ranks x 2 steps
  for (const char* table : {"memory_steps", "memory_components", "memory_curves", "free_breakdown"})
    EXPECT_NE(dataset_of(std::string("/") + table + "/rank"), "") << table << " missing:\n"
                                                                  << listing;
  const std::string manifest = read_file(base / "rank_manifest.csv");
  EXPECT_NE(manifest.find("zz_copy_"), std::string::npos) << manifest;
  auto expected = read_tree(base);
  ASSERT_EQ(expected.erase("cluster_analysis.h5"), 1u);
  for (int np : {1, 2, 4}) {
    const fs::path out = run(mpirun(np), "per-rank-np" + std::to_string(np));
    EXPECT_EQ(run_command("h5diff --exclude-path /meta " + (base / "cluster_analysis.h5").string() +
                              " " + (out / "cluster_analysis.h5").string(),
                          (root_ / "h5diff-per-rank.log").string()),
              0)
        << "np=" << np << ": " << read_file(root_ / "h5diff-per-rank.log");
    auto got = read_tree(out);
    got.erase("cluster_analysis.h5");
    ASSERT_EQ(got.size(), expected.size()) << "np=" << np;
    for (const auto& [name, content] : expected)
      EXPECT_TRUE(got.count(name) && got.at(name) == content) << name << " differs at np=" << np;
  }
  // CSV alone (no HDF5 file): the per-rank tables' CSV files are still written by the processes
  // that parsed the ranks (io/csv/csv_collective.h), the same bytes.
  {
    const fs::path out = root_ / "per-rank-csv-np2";
    const std::string log = out.string() + ".log";
    const int rc = run_command(mpirun(2) + CS_BINARY + " cluster -d " + input.string() + " -o " +
                                   out.string() + " --progress --format csv",
                               log);
    EXPECT_TRUE(rc == 0 || rc == 3) << rc << ": " << read_file(log);
    const std::string said = read_file(log);
    EXPECT_NE(said.find("per-rank CSV files"), std::string::npos) << said;
    EXPECT_NE(said.find("5 files written by 2 process(es)"), std::string::npos) << said;
    const auto got = read_tree(out / "cluster_analysis_output");
    for (const char* name : {"rank_manifest.csv", "memory_steps.csv", "memory_components.csv",
                             "memory_curves.csv", "free_breakdown.csv"})
      EXPECT_TRUE(got.count(name) && got.at(name) == expected.at(name)) << name;
    EXPECT_EQ(got.count("cluster_analysis.h5"), 0u);
  }
  fs::remove_all(input);

  // 160 ranks on 2 processes: each process's ranks lie in more than 64 separate runs of rows,
  // which the writer selects point by point (io/hdf5/hdf5_collective_table.cpp).
  ASSERT_EQ(
      run_command(std::string(CS_BINARY) + " generate " + input.string() +
                      " --ranks 160 --tp 2 --pp 2 --steps 1 --seed 4 --memory --no-trace-view",
                  (root_ / "generate-per-rank.log").string()),
      0)
      << read_file(root_ / "generate-per-rank.log");
  const fs::path many = run("", "per-rank-160");
  const fs::path many2 = run(mpirun(2), "per-rank-160-np2");
  EXPECT_EQ(run_command("h5diff --exclude-path /meta " + (many / "cluster_analysis.h5").string() +
                            " " + (many2 / "cluster_analysis.h5").string(),
                        (root_ / "h5diff-per-rank.log").string()),
            0)
      << read_file(root_ / "h5diff-per-rank.log");
  fs::remove_all(input);
}

// Other processes stream their ranks to the root in batches of about 4 MB while they parse, and
// with several parse threads the ranks are packed out of order. A larger job (several batches per
// process) must still give the same bytes as one process.
TEST_F(ClusterMpiTest, SameOutputWhenRanksArriveInManyBatches) {
  const fs::path input = root_ / "input-batches";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + input.string() +
                            " --ranks 64 --tp 8 --pp 2 --steps 8 --seed 5 --no-trace-view",
                        (root_ / "generate-batches.log").string()),
            0)
      << read_file(root_ / "generate-batches.log");
  const fs::path base = root_ / "out-batches-1";
  ASSERT_EQ(analyse("", input, base), 0) << read_file(base.string() + ".log");
  const auto expected = read_tree(base / "cluster_analysis_output");
  for (int np : {2, 3}) {
    const fs::path out = root_ / ("out-batches-np" + std::to_string(np));
    ASSERT_EQ(
        run_command(mpirun(np) + "--bind-to none " + CS_BINARY + " cluster -d " + input.string() +
                        " -o " + out.string() + " --quiet --format json,csv --threads 2",
                    out.string() + ".log"),
        0)
        << read_file(out.string() + ".log");
    expect_same_tree(expected, out, np);
  }
  fs::remove_all(input);
}

// The root renders the msprof-analyze documents and runs the analyses on threads: the bytes must
// not depend on how many.
TEST_F(ClusterMpiTest, SameOutputForAnyThreadCount) {
  auto run = [&](int threads) {
    const fs::path out = root_ / ("out-threads" + std::to_string(threads));
    EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input_.string() + " -o " +
                              out.string() + " --quiet --format json,csv --threads " +
                              std::to_string(threads),
                          out.string() + ".log"),
              0)
        << read_file(out.string() + ".log");
    return read_tree(out / "cluster_analysis_output");
  };
  const auto expected = run(1);
  ASSERT_GE(expected.size(), 10u);
  for (int threads : {2, 3, 8}) {
    const auto got = run(threads);
    ASSERT_EQ(got.size(), expected.size()) << "threads=" << threads;
    for (const auto& [name, content] : expected) {
      auto it = got.find(name);
      ASSERT_NE(it, got.end()) << name << " missing at threads=" << threads;
      EXPECT_TRUE(it->second == content) << name << " differs at threads=" << threads;
    }
  }
}

TEST_F(ClusterMpiTest, CorruptRankUnderMpiExitsThreeAndIsListed) {
  const fs::path input = root_ / "corrupt-input";
  fs::copy(input_, input, fs::copy_options::recursive);
  // Truncate rank 3's communication.json in the middle.
  fs::path victim;
  for (const auto& e : fs::recursive_directory_iterator(input)) {
    if (e.path().filename() == "profiler_info_3.json") {
      victim = e.path().parent_path() / "ASCEND_PROFILER_OUTPUT" / "communication.json";
    }
  }
  ASSERT_FALSE(victim.empty());
  const std::string text = read_file(victim);
  ASSERT_GT(text.size(), 100u);
  {
    std::ofstream out(victim, std::ios::binary | std::ios::trunc);
    out << text.substr(0, text.size() / 2);
  }
  const fs::path out = root_ / "out-corrupt";
  EXPECT_EQ(analyse(mpirun(2), input, out), 3) << read_file(out.string() + ".log");
  const std::string manifest = read_file(out / "cluster_analysis_output" / "rank_manifest.csv");
  std::istringstream lines(manifest);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    if (line.rfind("3,", 0) == 0) {
      found = true;
      EXPECT_NE(line.find("partial"), std::string::npos) << line;
      EXPECT_NE(line.find("communication.json"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found) << manifest;
  // The error names the file on stderr.
  EXPECT_NE(read_file(out.string() + ".log").find("communication.json"), std::string::npos);
  // --strict turns 3 into 1.
  EXPECT_EQ(run_command(mpirun(2) + CS_BINARY + " cluster -d " + input.string() + " -o " +
                            (root_ / "out-strict").string() + " --quiet --strict --format csv",
                        (root_ / "strict.log").string()),
            1);
}

TEST_F(ClusterMpiTest, MissingInputIsAClearError) {
  const fs::path log = root_ / "missing.log";
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + (root_ / "nope").string(),
                        log.string()),
            1);
  EXPECT_NE(read_file(log).find("clusterscope: "), std::string::npos);
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster --mode bogus -d x", log.string()), 2);
}

// The root of several processes (one malloc arena) restarts itself once with 64-block thread
// caches (runtime/allocator_tuning.h) and says so in its progress log; a user's own
// glibc.malloc.tcache_count is kept; one process alone does not restart. The outputs of the
// restarted roots are the ones the other tests compare.
TEST_F(ClusterMpiTest, RootOfSeveralRunsWithLargerThreadCachesUnlessTheUserChoseTheirs) {
  auto settings = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = root_ / name;
    const int rc = run_command(launcher + CS_BINARY + " cluster -d " + input_.string() + " -o " +
                                   out.string() + " --progress --format json",
                               out.string() + ".log");
    EXPECT_EQ(rc, 0) << read_file(out.string() + ".log");
    const std::string log = read_file(out.string() + ".log");
    const size_t at = log.find("peak RSS of the root process");
    if (at == std::string::npos) return std::string("no root line in: ") + log;
    return log.substr(at, log.find('\n', at) - at);
  };
  const std::string two = settings(mpirun(2), "tcache-np2");
  const std::string chosen =
      settings(mpirun(2) + "-x GLIBC_TUNABLES=glibc.malloc.tcache_count=7 ", "tcache-user");
  const std::string one = settings(mpirun(1), "tcache-np1");
  if (CS_UNDER_ASAN) {  // AddressSanitizer's allocator: no restart
    EXPECT_NE(two.find("(malloc: 1 arena)"), std::string::npos) << two;
  } else {
    EXPECT_NE(two.find("(malloc: 1 arena, 64-block thread caches)"), std::string::npos) << two;
  }
  EXPECT_NE(chosen.find("(malloc: 1 arena, 7-block thread caches)"), std::string::npos) << chosen;
  EXPECT_EQ(one.find("thread caches"), std::string::npos) << one;
  EXPECT_NE(one.find(" arenas)"), std::string::npos) << one;
}

// Under mpirun's default binding of two processes (one core each) the root analyses on the cores
// of its node's processes, which wait meanwhile, and says so; the outputs are the same. Bound to
// no core, it has them already and says nothing.
TEST_F(ClusterMpiTest, RootAnalysesOnTheCoresOfItsNodesWaitingProcesses) {
  ASSERT_GE(std::thread::hardware_concurrency(), 2u) << "the test needs 2 cores";
  const fs::path base = root_ / "cores-nolauncher";
  ASSERT_EQ(analyse("", input_, base), 0) << read_file(base.string() + ".log");
  const auto expected = read_tree(base / "cluster_analysis_output");
  auto run = [&](const std::string& binding, const std::string& name) {
    const fs::path out = root_ / name;
    const int rc = run_command(mpirun(2) + binding + CS_BINARY + " cluster -d " + input_.string() +
                                   " -o " + out.string() + " --progress --format json,csv",
                               out.string() + ".log");
    EXPECT_EQ(rc, 0) << read_file(out.string() + ".log");
    expect_same_tree(expected, out, 2);
    return read_file(out.string() + ".log");
  };
  const std::string bound = run("--bind-to core ", "cores-bound");
  EXPECT_NE(bound.find("clusterscope: the root analyses on 2 core(s): those of its node's 2 "
                       "processes, which wait meanwhile"),
            std::string::npos)
      << bound;
  EXPECT_NE(bound.find("analyse/all of the above on 2 thread(s)"), std::string::npos) << bound;
  const std::string unbound = run("--bind-to none ", "cores-unbound");
  EXPECT_EQ(unbound.find("the root analyses on"), std::string::npos) << unbound;
  EXPECT_NE(unbound.find("analyse/all of the above on 2 thread(s)"), std::string::npos) << unbound;
}

// Where memory does not come first (no launcher, two threads) cluster_communication.json and its
// tables are built beside the matrix merge, both streaming their per-op tables to the sink at
// once; one thread, or the root of two processes, builds them in turn. The files are the same
// each way, also with many small batches (CS_STREAM_ROWS) that interleave the two streams' chunks.
// The root of two processes builds them first, alone, and the other steps of stage 4 after them
// (the order itself: StageTasks.TasksMarkedAloneFirstEndBeforeAnyOtherStarts).
TEST_F(ClusterMpiTest, CommunicationBesideTheMatrixMergeUnlessMemoryComesFirst) {
  ASSERT_GE(std::thread::hardware_concurrency(), 2u) << "the test needs 2 cores";
  auto run = [&](const std::string& prefix, const std::string& name, int threads) {
    const fs::path out = root_ / name;
    const int rc = run_command(
        prefix + CS_BINARY + " cluster -d " + input_.string() + " -o " + out.string() +
            " --progress --format json,csv --op-tables csv --threads " + std::to_string(threads),
        out.string() + ".log");
    EXPECT_EQ(rc, 0) << read_file(out.string() + ".log");
    return read_file(out.string() + ".log");
  };
  const std::string kBeside = "analyse/cluster_communication.json, communication tables (beside)";
  const std::string in_turn = run("", "beside-1", 1);
  EXPECT_EQ(in_turn.find(kBeside), std::string::npos) << in_turn;
  const auto expected = read_tree(root_ / "beside-1" / "cluster_analysis_output");
  ASSERT_TRUE(expected.count("communication_ops.csv") &&
              expected.count("communication_matrix.csv"));
  const std::string beside = run("", "beside-2", 2);
  EXPECT_NE(beside.find(kBeside), std::string::npos) << beside;
  expect_same_tree(expected, root_ / "beside-2", 1);
  const std::string small = run("CS_STREAM_ROWS=7 ", "beside-2-small", 2);
  EXPECT_NE(small.find(kBeside), std::string::npos) << small;
  expect_same_tree(expected, root_ / "beside-2-small", 1);
  const std::string root_of_two = run(mpirun(2) + "--bind-to none ", "beside-np2", 2);
  EXPECT_EQ(root_of_two.find(kBeside), std::string::npos) << root_of_two;
  const std::string kFirst = "analyse/cluster_communication.json, communication tables (first)";
  EXPECT_NE(root_of_two.find(kFirst), std::string::npos) << root_of_two;
  EXPECT_EQ(in_turn.find(kFirst), std::string::npos) << in_turn;
  expect_same_tree(expected, root_ / "beside-np2", 2);
}

}  // namespace

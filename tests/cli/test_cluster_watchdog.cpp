// Issue 17, finding 10: a stopped MPI process made the job wait forever. With --timeout the
// processes give up on a peer that stops answering: one message naming the process and its
// host, MPI_Abort, exit status 1, within a few seconds of the timeout, in every phase (start-up,
// the root working alone, the gathers of the recipes). The stalled process is made by the
// test-only hook CLUSTERSCOPE_TEST_STALL_PROCESS / _PHASE (mpi/mpi_comm.h): it sleeps there
// sending nothing, as a process under SIGSTOP would.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

using cs::test::kDbJob;
using cs::test::kTextJob;

struct Stalled {
  int rc = 0;
  double seconds = 0;
  std::string log;
};

// Runs `args` (after `command`) under mpirun -np 2 with process `process` stalled at `phase`;
// `extra` is more environment (NAME=VALUE, passed on with -x).
Stalled run_stalled(int process, const std::string& phase, const std::string& args,
                    const std::string& extra = {}, const std::string& command = "cluster") {
  const fs::path root = cs::test::temp_dir("cs_watchdog_" + phase + std::to_string(process));
  const std::string log = (root / "log.txt").string();
  std::string env = "CLUSTERSCOPE_TEST_STALL_PROCESS=" + std::to_string(process) +
                    " CLUSTERSCOPE_TEST_STALL_PHASE=" + phase +
                    " CLUSTERSCOPE_TEST_STALL_SECONDS=120 ";
  std::string pass =
      "-x CLUSTERSCOPE_TEST_STALL_PROCESS -x CLUSTERSCOPE_TEST_STALL_PHASE -x "
      "CLUSTERSCOPE_TEST_STALL_SECONDS ";
  if (!extra.empty()) {
    env += extra + " ";
    pass += "-x " + extra.substr(0, extra.find('=')) + " ";
  }
  const auto start = std::chrono::steady_clock::now();
  Stalled r;
  r.rc = run_command(env + mpirun(2) + pass + CS_BINARY + " " + command + " " + args + " -o " +
                         (root / "o").string() + " --quiet",
                     log);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.log = read_file(log);
  fs::remove_all(root);
  return r;
}

// One line from the watchdog in `log`, naming `who`, ending with `tail`.
void expect_one_message(const Stalled& r, const std::string& who, const std::string& tail) {
  EXPECT_EQ(r.rc, 1) << r.log;
  const size_t at = r.log.find("clusterscope: " + who);
  EXPECT_NE(at, std::string::npos) << r.log;
  EXPECT_NE(r.log.find(tail, at), std::string::npos) << r.log;
  size_t lines = 0;
  for (size_t p = r.log.find("clusterscope: "); p != std::string::npos;
       p = r.log.find("clusterscope: ", p + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << r.log;
}

TEST(ClusterWatchdog, StalledProcessEndsTheJobNamingIt) {
  const fs::path root = cs::test::temp_dir("cs_watchdog");
  const std::string log = (root / "log.txt").string();
  const auto start = std::chrono::steady_clock::now();
  const int rc =
      run_command("CLUSTERSCOPE_TEST_STALL_PROCESS=1 CLUSTERSCOPE_TEST_STALL_SECONDS=120 " +
                      mpirun(2) + "-x CLUSTERSCOPE_TEST_STALL_PROCESS -x " +
                      "CLUSTERSCOPE_TEST_STALL_SECONDS " + CS_BINARY + " cluster -d " + kTextJob +
                      " -o " + (root / "o").string() + " --timeout 3 --quiet",
                  log);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = read_file(log);
  EXPECT_NE(rc, 0) << text;
  EXPECT_LT(secs, 15.0) << text;
  EXPECT_GT(secs, 2.5) << text;
  EXPECT_NE(text.find("clusterscope: process 1 on host "), std::string::npos) << text;
  EXPECT_NE(text.find("did not answer for 3 s while the ranks were parsed and gathered "
                      "(--timeout 3)"),
            std::string::npos)
      << text;
  fs::remove_all(root);
}

// Before MPI_Init returns nobody can say which process is missing: process 0 says so.
TEST(ClusterWatchdog, ProcessStalledBeforeMpiInitEndsTheJob) {
  const Stalled r = run_stalled(1, "init", "-d " + kTextJob + " --timeout 2");
  expect_one_message(r, "process 0 on host ",
                     "the MPI start-up did not finish in 2 s (--timeout 2) \u2014 another process");
  EXPECT_LT(r.seconds, 12.0) << r.log;
}

TEST(ClusterWatchdog, ProcessStalledAfterMpiInitIsNamed) {
  const Stalled r = run_stalled(1, "startup", "-d " + kTextJob + " --timeout 2");
  expect_one_message(r, "process 1 (host not known",
                     "did not answer for 2 s while the processes started (--timeout 2)");
  EXPECT_LT(r.seconds, 12.0) << r.log;
}

// The root stops while it works alone: the waiting process names it after 2 x timeout + 2 s.
TEST(ClusterWatchdog, RootStalledInDiscoveryIsNamed) {
  const Stalled r = run_stalled(0, "discover", "-d " + kTextJob + " --timeout 2");
  expect_one_message(r, "process 0 on host ",
                     "did not answer for 6 s while the list of rank directories was sent");
  EXPECT_LT(r.seconds, 15.0) << r.log;
  EXPECT_GT(r.seconds, 5.5) << r.log;
}

TEST(ClusterWatchdog, RootStalledInTheAnalysesIsNamed) {
  const Stalled r = run_stalled(0, "analyse", "-d " + kTextJob + " --timeout 2");
  expect_one_message(r, "process 0 on host ",
                     "did not answer for 6 s while the processes agreed on the exit status");
  EXPECT_LT(r.seconds, 15.0) << r.log;
}

// A waiting process that stops while the root is busy alone is named by the root's heartbeat
// thread, without waiting for the root to finish.
TEST(ClusterWatchdog, WaitingProcessStalledWhileTheRootWorksIsNamed) {
  const Stalled r = run_stalled(1, "analyse", "-d " + kTextJob + " --timeout 2",
                                "CLUSTERSCOPE_TEST_SLOW_ROOT=analyse:60");
  expect_one_message(r, "process 1 on host ",
                     "did not answer for 2 s while the root analysed the ranks and wrote the "
                     "results (--timeout 2)");
  EXPECT_LT(r.seconds, 12.0) << r.log;
}

// A root that is slow but alive (heartbeats) is waited for, however long.
TEST(ClusterWatchdog, SlowRootIsWaitedFor) {
  const Stalled r = run_stalled(5, "none", "-d " + kTextJob + " --timeout 1",
                                "CLUSTERSCOPE_TEST_SLOW_ROOT=analyse:6");
  EXPECT_EQ(r.rc, 0) << r.log;
  EXPECT_GT(r.seconds, 6.0) << r.log;
}

// The recipes' gather (msprof_analyze/recipes/recipe_gather: a BatchStream): a process that
// never sends its results is named.
TEST(ClusterWatchdog, RecipeGatherStalledProcessIsNamed) {
  const Stalled r =
      run_stalled(1, "gather", "-d " + kDbJob + " -m communication_time_sum --timeout 2");
  expect_one_message(r, "process 1 on host ",
                     "did not answer for 2 s while the processes sent their results to the root");
  EXPECT_LT(r.seconds, 12.0) << r.log;
}

TEST(ClusterWatchdog, RecipeRootStalledInTheReduceIsNamed) {
  const Stalled r =
      run_stalled(0, "reduce", "-d " + kDbJob + " -m communication_time_sum --timeout 2");
  expect_one_message(r, "process 0 on host ",
                     "did not answer for 6 s while the processes agreed on the exit status");
  EXPECT_LT(r.seconds, 15.0) << r.log;
}

TEST(ClusterWatchdog, NormalRunUnderATightTimeoutIsUnaffected) {
  const fs::path root = cs::test::temp_dir("cs_watchdog_ok");
  const std::string log = (root / "log.txt").string();
  EXPECT_EQ(run_command(mpirun(2) + CS_BINARY + " cluster -d " + kTextJob + " -o " +
                            (root / "o").string() + " --timeout 1 --quiet --format json,csv",
                        log),
            0)
      << read_file(log);
  EXPECT_TRUE(fs::is_regular_file(root / "o/cluster_analysis_output/cluster_communication.json"));
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + kTextJob + " --timeout=-1", log),
            2);
  EXPECT_NE(read_file(log).find("--timeout must be 0"), std::string::npos) << read_file(log);
  fs::remove_all(root);
}

}  // namespace

// compare of two cluster directories under mpirun: the root compares alone while the others
// wait for it (they used to sit in MPI_Finalize without a limit). A root that stops there is
// named by the waiting process; a waiting process that stops, by the root.
TEST(ClusterWatchdog, CompareRootStalledIsNamed) {
  const Stalled r =
      run_stalled(0, "compare", kTextJob + " " + kTextJob + " --timeout 2", {}, "compare");
  expect_one_message(r, "process 0 on host ", "did not answer for 6 s while ");
  EXPECT_LT(r.seconds, 20.0) << r.log;
}

TEST(ClusterWatchdog, CompareWaitingProcessStalledIsNamed) {
  const Stalled r = run_stalled(1, "compare", kTextJob + " " + kTextJob + " --timeout 2",
                                "CLUSTERSCOPE_TEST_SLOW_ROOT=compare:60", "compare");
  expect_one_message(r, "process 1 on host ",
                     "did not answer for 2 s while the root compared the two runs");
  EXPECT_LT(r.seconds, 20.0) << r.log;
}

// merge takes --timeout too (it always waited 600 s): two Kineto traces, the root stalled where
// it writes the merged file alone.
TEST(ClusterWatchdog, MergeTakesTheTimeout) {
  const fs::path traces = cs::test::temp_dir("cs_watchdog_merge_traces");
  for (int r = 0; r < 2; ++r)
    fs::copy_file(
        std::string(CS_TEST_DATA) + "/kineto/sampled_rank-" + std::to_string(r) + ".json.gz",
        traces / ("sampled_rank-" + std::to_string(r) + ".json.gz"));
  const Stalled r = run_stalled(0, "merge-write", traces.string() + " --timeout 2", {}, "merge");
  fs::remove_all(traces);
  expect_one_message(r, "process 0 on host ", "did not answer for 6 s while ");
  EXPECT_LT(r.seconds, 20.0) << r.log;
  const fs::path root = cs::test::temp_dir("cs_watchdog_timeout_usage");
  const std::string log = (root / "log.txt").string();
  for (const char* cmd : {" merge ", " compare "}) {
    std::string args = std::string(cmd) == " merge "
                           ? kTextJob + " -o " + (root / "m.json").string()
                           : kTextJob + " " + kTextJob;
    EXPECT_EQ(run_command(std::string(CS_BINARY) + cmd + args + " --timeout=-1", log), 2) << cmd;
    EXPECT_NE(read_file(log).find("--timeout must be 0"), std::string::npos) << read_file(log);
  }
  fs::remove_all(root);
}

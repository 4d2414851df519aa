// Issue 17, finding 10: a stopped MPI process made the job wait forever. With --timeout the
// processes give up on a peer that stops answering: one message naming the process and its
// host, MPI_Abort, a non-zero exit status, within a few seconds of the timeout. The stalled
// process is made by the test-only hook CLUSTERSCOPE_TEST_STALL_PROCESS (mpi/mpi_comm.h): it
// sleeps before it sends anything, as a process under SIGSTOP would.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const std::string kJob = std::string(CS_TEST_DATA) + "/text_level1";

TEST(ClusterWatchdog, StalledProcessEndsTheJobNamingIt) {
  const fs::path root = cs::test::temp_dir("cs_watchdog");
  const std::string log = (root / "log.txt").string();
  const auto start = std::chrono::steady_clock::now();
  const int rc =
      run_command("CLUSTERSCOPE_TEST_STALL_PROCESS=1 CLUSTERSCOPE_TEST_STALL_SECONDS=120 " +
                      mpirun(2) + "-x CLUSTERSCOPE_TEST_STALL_PROCESS -x " +
                      "CLUSTERSCOPE_TEST_STALL_SECONDS " + CS_BINARY + " cluster -d " + kJob +
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

TEST(ClusterWatchdog, NormalRunUnderATightTimeoutIsUnaffected) {
  const fs::path root = cs::test::temp_dir("cs_watchdog_ok");
  const std::string log = (root / "log.txt").string();
  EXPECT_EQ(run_command(mpirun(2) + CS_BINARY + " cluster -d " + kJob + " -o " +
                            (root / "o").string() + " --timeout 1 --quiet --format json,csv",
                        log),
            0)
      << read_file(log);
  EXPECT_TRUE(fs::is_regular_file(root / "o/cluster_analysis_output/cluster_communication.json"));
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + kJob + " --timeout=-1", log), 2);
  EXPECT_NE(read_file(log).find("--timeout must be 0"), std::string::npos) << read_file(log);
  fs::remove_all(root);
}

}  // namespace

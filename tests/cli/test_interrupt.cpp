// End to end: SIGINT / SIGTERM to `clusterscope cluster` ends it with 130 / 143 and one line,
// its .tmp files removed and no incomplete file under a final name; under mpirun -np 2 every
// process ends (no hang) whether the signal goes to mpirun or to one rank's process.
// The runs are stopped at known places with the test hook CLUSTERSCOPE_TEST_INTERRUPT
// (runtime/interrupt.h): "<stage>" raises the signal there, "wait:<stage>" waits there for a
// real one sent by the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const fs::path& interrupt_root() {
  static const cs::test::ScratchDir d("interrupt");
  return d.path();
}

class Interrupt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    input_ = interrupt_root() / "input";
    ASSERT_EQ(cs::test::generate_job_and_reference(interrupt_root(), 3), "");
  }

  // `cluster` with the test hook set to `hook`, under `launcher`, at most 120 s (124: a hang).
  static int run_hooked(const std::string& hook, const std::string& launcher, const fs::path& out) {
    return run_command("CLUSTERSCOPE_TEST_INTERRUPT=" + hook + " timeout 120 " + launcher +
                           CS_BINARY + " cluster -d " + input_.string() + " -o " + out.string(),
                       out.string() + ".log");
  }

  // Starts `cluster` in the background waiting at the "table" stage, sends `sig` to the process
  // `target` picks (a shell expression of $pid, the launched process), and returns the exit
  // status (124: a hang).
  static int run_and_signal(const std::string& launcher, const std::string& sig,
                            const std::string& target, const fs::path& out) {
    const std::string log = out.string() + ".log";
    // set -m: the background job gets SIGINT like a foreground one (not ignored).
    const std::string script =
        "set -m; CLUSTERSCOPE_TEST_INTERRUPT=wait:table " + launcher + CS_BINARY + " cluster -d " +
        input_.string() + " -o " + out.string() + " >" + log + " 2>&1 & pid=$!; " +
        "for i in $(seq 600); do grep -q \"waiting for a signal\" " + log +
        " && break; sleep 0.1; done; kill -" + sig + " " + target + "; " +
        "( sleep 120; kill -9 $pid ) & guard=$!; wait $pid; rc=$?; kill $guard 2>/dev/null; "
        "[ $rc -eq 137 ] && exit 124; exit $rc";
    return run_command("bash -c '" + script + "'", out.string() + ".outer.log");
  }

  // No .tmp left, and every file under a final name is the complete run's.
  static void expect_only_complete_files(const fs::path& out) {
    const fs::path dir = out / "cluster_analysis_output";
    const fs::path ref = interrupt_root() / "ref" / "cluster_analysis_output";
    if (!fs::exists(dir)) return;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      EXPECT_FALSE(name.ends_with(".tmp")) << name << " left behind";
      if (name == ".clusterscope_written" || name.ends_with(".h5") || name.ends_with(".html"))
        continue;
      EXPECT_EQ(read_file(e.path()), read_file(ref / name)) << name << " is incomplete";
    }
  }

  static fs::path input_;
};
fs::path Interrupt::input_;

TEST_F(Interrupt, SigintBetweenTablesExits130AndNamesWhatWasWritten) {
  const fs::path out = interrupt_root() / "int-table";
  EXPECT_EQ(run_hooked("table", "", out), 130) << read_file(out.string() + ".log");
  const std::string log = read_file(out.string() + ".log");
  EXPECT_NE(log.find("clusterscope: interrupted (SIGINT) \u2014 "), std::string::npos) << log;
  expect_only_complete_files(out);
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "cluster_analysis.h5"));
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "report.html"));
}

TEST_F(Interrupt, SigtermAfterLoadingExits143WithNoResults) {
  const fs::path out = interrupt_root() / "term-loaded";
  EXPECT_EQ(run_hooked("loaded:TERM", "", out), 143) << read_file(out.string() + ".log");
  const std::string log = read_file(out.string() + ".log");
  EXPECT_NE(log.find("clusterscope: interrupted (SIGTERM) \u2014 no results written; partial "
                     "files removed"),
            std::string::npos)
      << log;
  expect_only_complete_files(out);
}

TEST_F(Interrupt, RealSigintToTheProcess) {
  const fs::path out = interrupt_root() / "real-int";
  EXPECT_EQ(run_and_signal("", "INT", "$pid", out), 130) << read_file(out.string() + ".log");
  expect_only_complete_files(out);
}

TEST_F(Interrupt, UnderMpirunTheHookEndsEveryProcess) {
  const fs::path out = interrupt_root() / "mpi-hook";
  const int rc = run_hooked("table", cs::test::mpirun(2), out);
  EXPECT_EQ(rc, 130) << read_file(out.string() + ".log");
  expect_only_complete_files(out);
}

TEST_F(Interrupt, SigintToMpirunEndsEveryProcess) {
  const fs::path out = interrupt_root() / "mpi-int";
  const int rc = run_and_signal(cs::test::mpirun(2), "INT", "$pid", out);
  EXPECT_NE(rc, 124) << "the job hung\n" << read_file(out.string() + ".log");
  EXPECT_NE(rc, 0) << read_file(out.string() + ".log");
  expect_only_complete_files(out);
}

TEST_F(Interrupt, SigintToOneRankEndsEveryProcess) {
  const fs::path out = interrupt_root() / "mpi-rank";
  // One of mpirun's clusterscope children (a rank's process).
  const int rc = run_and_signal(cs::test::mpirun(2), "INT",
                                "$(pgrep -P $pid -f \"cluster -d\" | tail -n 1)", out);
  EXPECT_NE(rc, 124) << "the job hung\n" << read_file(out.string() + ".log");
  EXPECT_NE(rc, 0) << read_file(out.string() + ".log");
  expect_only_complete_files(out);
}

}  // namespace

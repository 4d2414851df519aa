// End to end: `clusterscope cluster` on a full disk (simulated with `ulimit -f` in a child shell,
// SIGXFSZ ignored so write() fails with EFBIG) ends with status 1, never a crash (HDF5's exit
// cleanup used to die with SIGSEGV, rc 139), names the files it could not write, and leaves no
// incomplete file under a final name, with no launcher and under mpirun -np 2. A failed write of
// cluster_step_trace_time.csv is an error too, also with --quiet. Without room for the root's
// spill file the run keeps the data in memory and writes the same outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const fs::path& full_disk_root() {
  static const cs::test::ScratchDir d("fulldisk");
  return d.path();
}

// A generated 16-rank job and a complete run of it (the reference contents).
class FullDisk : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    input_ = full_disk_root() / "input";
    ASSERT_EQ(cs::test::generate_job_and_reference(full_disk_root(), 7), "");
  }

  // `cluster` with at most `kb` KiB per file written; its exit status (-1 when it died on a
  // signal: a crash). Under a launcher the limit is set in each process (mpirun itself needs
  // larger files for its shared memory).
  static int run_limited(const std::string& launcher, const fs::path& out, int kb,
                         const std::string& extra = "") {
    return run_command(launcher + "bash -c 'trap \"\" XFSZ; ulimit -f " + std::to_string(kb) +
                           "; exec " + CS_BINARY + " cluster -d " + input_.string() + " -o " +
                           out.string() + extra + "'",
                       out.string() + ".log");
  }

  // Every file under a final name in `out` is complete: the same bytes as the complete run's
  // (the HDF5 file and the report carry a time, so they are checked for their ends only). No
  // .tmp is left.
  // `h5_size`: compare the HDF5 file's size too (its layout, hence its size, varies by some
  // hundred bytes from run to run with the order the tables reach the sink's thread; a complete
  // run's file is compared by its presence only).
  static void expect_only_complete_files(const fs::path& out, const fs::path& ref_run = {},
                                         bool h5_size = true) {
    const fs::path dir = out / "cluster_analysis_output";
    const fs::path ref =
        (ref_run.empty() ? full_disk_root() / "ref" : ref_run) / "cluster_analysis_output";
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      EXPECT_FALSE(name.ends_with(".tmp")) << name << " left behind";
      if (name == ".clusterscope_written") continue;
      ASSERT_TRUE(fs::exists(ref / name)) << name;
      if (name.ends_with(".h5")) {
        if (h5_size) {
          EXPECT_EQ(fs::file_size(e.path()), fs::file_size(ref / name)) << name;
        }
      } else if (name.ends_with(".html")) {
        EXPECT_TRUE(read_file(e.path()).ends_with("</html>\n")) << name;
      } else {
        EXPECT_EQ(read_file(e.path()), read_file(ref / name)) << name << " is incomplete";
      }
    }
  }

  static fs::path input_;
};
fs::path FullDisk::input_;

TEST_F(FullDisk, ExitsOneNamesTheFilesAndLeavesNoPartialFile) {
  const fs::path out = full_disk_root() / "limited";
  const int rc = run_limited("", out, 64);
  const std::string log = read_file(out.string() + ".log");
  EXPECT_EQ(rc, 1) << "-1: killed by a signal (the HDF5 exit crash)\n" << log;
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
  EXPECT_NE(log.find("cluster_analysis.h5"), std::string::npos) << log;
  EXPECT_NE(log.find("output(s) not written: "), std::string::npos) << log;
  expect_only_complete_files(out);
}

TEST_F(FullDisk, QuietStillSaysWhatFailed) {
  const fs::path out = full_disk_root() / "limited-quiet";
  EXPECT_EQ(run_limited("", out, 64, " --quiet"), 1);
  const std::string log = read_file(out.string() + ".log");
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
  expect_only_complete_files(out);
}

TEST_F(FullDisk, UnderMpirunEveryProcessEndsWithOne) {
  const fs::path out = full_disk_root() / "limited-mpi";
  const int rc = run_limited(cs::test::mpirun(2), out, 64);
  const std::string log = read_file(out.string() + ".log");
  EXPECT_EQ(rc, 1) << log;
  EXPECT_EQ(log.find("signal 11"), std::string::npos) << log;
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
  expect_only_complete_files(out);
}

// The root parks the ranks' communication ops and matrix in a spill file in $TMPDIR; when it cannot
// be created they are held in memory instead: one warning, status 0, the same outputs, with no
// launcher and under mpirun -np 2 (the ranks that arrive from the other process too).
TEST_F(FullDisk, NoRoomForTheSpillFileKeepsTheDataInMemory) {
  const std::string missing = (full_disk_root() / "missing-tmp").string();
  // Under mpirun the variable goes to the processes alone (-x): Open MPI would create the
  // directory for its own session files. The reference of a run under mpirun is one under mpirun
  // (its HDF5 file, written by both processes, is laid out differently).
  const fs::path ref_mpi = full_disk_root() / "ref-mpi";
  ASSERT_EQ(run_command(cs::test::mpirun(2) + CS_BINARY + " cluster -d " + input_.string() +
                            " -o " + ref_mpi.string() + " --quiet",
                        ref_mpi.string() + ".log"),
            0)
      << read_file(ref_mpi.string() + ".log");
  const struct {
    std::string launcher, name;
    fs::path ref;
  } runs[] = {{"TMPDIR=" + missing + " ", "no-spill", full_disk_root() / "ref"},
              {cs::test::mpirun(2) + "-x TMPDIR=" + missing + " ", "no-spill-mpi", ref_mpi}};
  for (const auto& run : runs) {
    const fs::path out = full_disk_root() / run.name;
    const fs::path log = out.string() + ".log";
    EXPECT_EQ(run_command(run.launcher + CS_BINARY + " cluster -d " + input_.string() + " -o " +
                              out.string() + " --quiet",
                          log.string()),
              0)
        << read_file(log);
    ASSERT_FALSE(fs::exists(missing));
    const std::string text = read_file(log);
    EXPECT_EQ(cs::test::lines_with(text, "could not be parked on disk"), 1u) << text;
    EXPECT_NE(text.find("missing-tmp"), std::string::npos) << text;
    expect_only_complete_files(out, run.ref, /*h5_size=*/false);
    for (const auto& e : fs::directory_iterator(run.ref / "cluster_analysis_output"))
      EXPECT_TRUE(fs::exists(out / "cluster_analysis_output" / e.path().filename()))
          << e.path().filename() << " missing";  // and nothing is missing
  }
}

// A cluster_step_trace_time.csv that cannot be written (a directory holds its name) is an error:
// status 1 and a message naming it, also with --quiet (it used to be a warning, status 0).
TEST_F(FullDisk, FailedStepTraceCsvIsAnError) {
  const fs::path out = full_disk_root() / "step-trace-blocked";
  fs::create_directories(out / "cluster_analysis_output" / "cluster_step_trace_time.csv");
  const fs::path log = out.string() + ".log";
  EXPECT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input_.string() + " -o " +
                            out.string() + " --quiet --format json,csv",
                        log.string()),
            1)
      << read_file(log);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("cluster_step_trace_time.csv"), std::string::npos) << text;
  EXPECT_NE(text.find("1 output(s) not written: cluster_step_trace_time.csv;"), std::string::npos)
      << text;
}

// -m all on DB exports: when a communication table of cluster_analysis.db cannot be written (the
// file-size limit reached while the recipes write ClusterCommunicationMatrix) but the tables the
// root adds afterwards still fit, no incomplete cluster_analysis.db is published: status 1 and
// one line naming it (it used to be published without the table, status 0).
TEST(FullDiskDb, IncompleteClusterAnalysisDbIsNotPublished) {
  const fs::path dir = full_disk_root() / "db";
  const fs::path input = dir / "input", full = dir / "full", limited = dir / "limited";
  fs::create_directories(dir);
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + input.string() +
                            " --ranks 64 --tp 8 --pp 2 --steps 2 --seed 3 --export-type db"
                            " --no-trace-view",
                        (dir / "gen.log").string()),
            0);
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -d " + input.string() + " -o " +
                            full.string() + " --quiet",
                        (dir / "full.log").string()),
            0)
      << read_file(dir / "full.log");
  // Half the complete database: its communication tables do not fit, every other output does.
  const fs::path complete = full / "cluster_analysis_output";
  const uintmax_t db_bytes = fs::file_size(complete / "cluster_analysis.db");
  const uintmax_t limit_kb = db_bytes / 2 / 1024;
  for (const auto& e : fs::directory_iterator(complete))
    if (e.path().filename() != "cluster_analysis.db") {
      ASSERT_LT(fs::file_size(e.path()), limit_kb * 1024) << e.path().filename();
    }
  const fs::path log = limited.string() + ".log";
  EXPECT_EQ(
      run_command("bash -c 'trap \"\" XFSZ; ulimit -f " + std::to_string(limit_kb) + "; exec " +
                      CS_BINARY + " cluster -d " + input.string() + " -o " + limited.string() + "'",
                  log.string()),
      1)
      << read_file(log);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("File too large"), std::string::npos) << text;
  EXPECT_EQ(cs::test::lines_with(text, "cannot write cluster_analysis.db"), 1u) << text;
  EXPECT_FALSE(fs::exists(limited / "cluster_analysis_output" / "cluster_analysis.db"));
  EXPECT_FALSE(fs::exists(limited / "cluster_analysis_output" / ".cluster_analysis_db.tmp"));
}

}  // namespace

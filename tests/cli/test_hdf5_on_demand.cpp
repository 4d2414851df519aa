// End to end: the binary loads HDF5 only when it writes an HDF5 file (io/hdf5/hdf5_library.h),
// and says clearly when it cannot load it, still writing every other output.
// glibc's LD_DEBUG=libs lists every shared library the binary loads ("calling init: PATH").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

class Hdf5OnDemand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = cs::test::temp_dir("hdf5-on-demand");
    input_ = root_ / "input";
    ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + input_.string() +
                              " --ranks 8 --tp 4 --pp 2 --steps 2 --seed 3",
                          (root_ / "gen.log").string()),
              0)
        << read_file(root_ / "gen.log");
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // Runs `env` clusterscope `args` with LD_DEBUG=libs; its exit code, its output in `log`.
  static int run(const std::string& env, const std::string& args, const fs::path& log) {
    return run_command("env LD_DEBUG=libs " + env + " " + std::string(CS_BINARY) + " " + args,
                       log.string());
  }
  static bool mentions_hdf5_library(const std::string& log) {
    return log.find("libhdf5") != std::string::npos;
  }

  static fs::path root_, input_;
};
fs::path Hdf5OnDemand::root_, Hdf5OnDemand::input_;

TEST_F(Hdf5OnDemand, VersionAndCsvOnlyRunsNeverLoadHdf5) {
  const fs::path log1 = root_ / "version.log";
  ASSERT_EQ(run("", "--version", log1), 0) << read_file(log1);
  const std::string v = read_file(log1);
  ASSERT_NE(v.find("calling init:"), std::string::npos) << "LD_DEBUG gave nothing:\n" << v;
  EXPECT_FALSE(mentions_hdf5_library(v)) << v;

  const fs::path out = root_ / "csv-only", log2 = root_ / "csv-only.log";
  ASSERT_EQ(
      run("", "cluster -q -d " + input_.string() + " -o " + out.string() + " --format csv", log2),
      0)
      << read_file(log2);
  EXPECT_FALSE(mentions_hdf5_library(read_file(log2))) << read_file(log2);
  EXPECT_TRUE(fs::exists(out / "cluster_analysis_output" / "step_trace.csv"));
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "cluster_analysis.h5"));
}

TEST_F(Hdf5OnDemand, AnHdf5OutputLoadsTheLibraryAndWritesAnHdf5File) {
  const fs::path out = root_ / "default", log = root_ / "default.log";
  ASSERT_EQ(run("", "cluster -q -d " + input_.string() + " -o " + out.string(), log), 0)
      << read_file(log);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("libhdf5"), std::string::npos) << text;
  const std::string h5 = read_file(out / "cluster_analysis_output" / "cluster_analysis.h5");
  ASSERT_GE(h5.size(), 8u);
  EXPECT_EQ(h5.substr(0, 8), std::string("\x89HDF\r\n\x1a\n", 8));  // HDF5's file signature
}

TEST_F(Hdf5OnDemand, AMissingLibraryIsOneClearErrorAndTheOtherOutputsAreWritten) {
  const fs::path out = root_ / "missing", log = root_ / "missing.log";
  const int rc = run_command(
      "CLUSTERSCOPE_HDF5_LIBRARY=" + (root_ / "no-such-libhdf5.so").string() + " " +
          std::string(CS_BINARY) + " cluster -q -d " + input_.string() + " -o " + out.string(),
      log.string());
  const std::string text = read_file(log);
  EXPECT_EQ(rc, 1) << text;  // an output could not be written
  EXPECT_NE(text.find("cannot load the HDF5 library " + (root_ / "no-such-libhdf5.so").string()),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("leave hdf5 out of --format"), std::string::npos) << text;
  size_t count = 0;
  for (size_t at = text.find("cannot load the HDF5 library"); at != std::string::npos;
       at = text.find("cannot load the HDF5 library", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << "one message per problem:\n" << text;
  const fs::path dir = out / "cluster_analysis_output";
  EXPECT_TRUE(fs::exists(dir / "step_trace.csv"));
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_FALSE(fs::exists(dir / "cluster_analysis.h5"));
  EXPECT_FALSE(fs::exists(dir / "cluster_analysis.h5.tmp"));
}

TEST_F(Hdf5OnDemand, ALibraryThatIsNotHdf5IsNamedWithWhatItLacks) {
  const fs::path out = root_ / "not-hdf5", log = root_ / "not-hdf5.log";
  const int rc = run_command("CLUSTERSCOPE_HDF5_LIBRARY=libz.so.1 " + std::string(CS_BINARY) +
                                 " cluster -q -d " + input_.string() + " -o " + out.string() +
                                 " --format hdf5",
                             log.string());
  const std::string text = read_file(log);
  EXPECT_EQ(rc, 1) << text;
  EXPECT_NE(text.find("the library libz.so.1 lacks H5Aclose"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "cluster_analysis.h5"));
}

}  // namespace

// Issue 17: a recipe run (`cluster -m <recipe>`, --export_type db or text) writes like every
// other output: cluster_analysis.db is built in a .tmp copy of the old one and renamed when
// complete, the CSVs through their .tmp, all listed in the output ledger. A SIGINT (the test hook
// CLUSTERSCOPE_TEST_INTERRUPT=table, runtime/interrupt.h) or a full disk (`ulimit -f` in a child
// shell, SIGXFSZ ignored) mid-write leaves the earlier database byte for byte and no .tmp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

using cs::test::kDbJob;

// `cluster -m recipe` into `out` with `prefix` before the binary (a hook, a shell); its status.
int run_recipe(const fs::path& out, const std::string& recipe, const std::string& extra = "",
               const std::string& prefix = "") {
  return run_command(prefix + CS_BINARY + " cluster -d " + kDbJob + " -o " + out.string() + " -m " +
                         recipe + extra,
                     out.string() + ".log");
}

// `cluster -m recipe` with at most `kb` KiB per written file.
int run_limited(const fs::path& out, const std::string& recipe, int kb,
                const std::string& extra = "") {
  return run_command("bash -c 'trap \"\" XFSZ; ulimit -f " + std::to_string(kb) + "; exec " +
                         CS_BINARY + " cluster -d " + kDbJob + " -o " + out.string() + " -m " +
                         recipe + extra + "'",
                     out.string() + ".log");
}

// No .tmp (nor SQLite journal) anywhere below `dir`.
void expect_no_temporaries(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    EXPECT_FALSE(name.ends_with(".tmp") || name.ends_with("-journal")) << name << " left behind";
  }
}

class RecipeSafeOutputs : public ::testing::Test {
 protected:
  // An output directory holding the database of an earlier recipe run.
  void SetUp() override {
    out_ = cs::test::temp_dir(std::string("recipe-safe-") +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_EQ(run_recipe(out_, "communication_group_map", " --quiet"), 0)
        << read_file(out_.string() + ".log");
    db_ = out_ / "cluster_analysis_output" / "cluster_analysis.db";
    before_ = read_file(db_);
    ASSERT_FALSE(before_.empty());
  }
  void TearDown() override { fs::remove_all(out_); }

  fs::path out_, db_;
  std::string before_;
};

TEST_F(RecipeSafeOutputs, InterruptLeavesTheEarlierDatabaseUntouched) {
  EXPECT_EQ(run_recipe(out_, "communication_time_sum", "", "CLUSTERSCOPE_TEST_INTERRUPT=table "),
            130);
  const std::string log = read_file(out_.string() + ".log");
  EXPECT_NE(log.find("clusterscope: interrupted (SIGINT) \u2014 no results written; partial "
                     "files removed"),
            std::string::npos)
      << log;
  EXPECT_TRUE(read_file(db_) == before_) << "cluster_analysis.db changed";
  expect_no_temporaries(out_);
}

TEST_F(RecipeSafeOutputs, FullDiskLeavesTheEarlierDatabaseUntouched) {
  // Room for the copy of the old database, not for the new table; then not even for the copy.
  const int room = static_cast<int>(before_.size() / 1024);
  for (const int kb : {room + 2, room / 2}) {
    EXPECT_EQ(run_limited(out_, "communication_time_sum", kb, " --quiet"), 1) << kb;
    const std::string log = read_file(out_.string() + ".log");
    EXPECT_NE(log.find("cluster_analysis.db"), std::string::npos) << log;
    EXPECT_EQ(log.find("cluster_analysis.db.tmp"), std::string::npos) << log;  // the user's name
    EXPECT_TRUE(read_file(db_) == before_) << "cluster_analysis.db changed at " << kb << " KiB";
    expect_no_temporaries(out_);
  }
}

TEST_F(RecipeSafeOutputs, CompleteRunExtendsTheDatabaseAndListsIt) {
  ASSERT_EQ(run_recipe(out_, "communication_time_sum", " --quiet"), 0)
      << read_file(out_.string() + ".log");
  const std::string tables = cs::test::dump_sqlite(db_);
  EXPECT_NE(tables.find("CREATE TABLE \"CommunicationGroupMapping\""), std::string::npos);
  EXPECT_NE(tables.find("CREATE TABLE \"ClusterCommunicationTime\""), std::string::npos);
  EXPECT_NE(tables.find("CREATE TABLE \"ClusterCommunicationBandwidth\""), std::string::npos);
  expect_no_temporaries(out_);
  EXPECT_NE(read_file(out_ / "cluster_analysis_output" / ".clusterscope_written")
                .find("\ncluster_analysis.db\n"),
            std::string::npos);
}

TEST_F(RecipeSafeOutputs, TextExportInterruptedOrFullLeavesNoPartialCsv) {
  EXPECT_EQ(run_recipe(out_, "communication_time_sum", " --export_type text",
                       "CLUSTERSCOPE_TEST_INTERRUPT=table "),
            130);
  const fs::path dir = out_ / "cluster_analysis_output" / "CommunicationTimeSum";
  EXPECT_FALSE(fs::exists(dir / "cluster_communication_time.csv"));
  expect_no_temporaries(out_);
  EXPECT_EQ(run_limited(out_, "communication_time_sum", 1, " --export_type text --quiet"), 1);
  EXPECT_FALSE(fs::exists(dir / "cluster_communication_time.csv"));
  expect_no_temporaries(out_);
  ASSERT_EQ(run_recipe(out_, "communication_time_sum", " --export_type text --quiet"), 0);
  EXPECT_TRUE(fs::exists(dir / "cluster_communication_time.csv"));
  EXPECT_NE(read_file(out_ / "cluster_analysis_output" / ".clusterscope_written")
                .find("CommunicationTimeSum/cluster_communication_time.csv\n"),
            std::string::npos);
}

}  // namespace

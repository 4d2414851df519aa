// cluster -m all with one process runs cluster_analysis.db's first part (the communication
// recipes) beside the main run (recipes/cluster_db_all.h ClusterDbWriter); what that part says is
// held back and printed once, after everything the main run says, as when the two run in turn.
// A rank whose CommAnalyzerMatrix lacks a column makes both parts speak.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "cli_test_util.h"
#include "support/test_files.h"

namespace fs = std::filesystem;

namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ClusterDbMessages, DatabasePartSpeaksOnceAfterTheMainRun) {
  const fs::path dir = cs::test::temp_dir("cluster-db-messages");
  const fs::path job = dir / "job";
  fs::copy(fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1", job, fs::copy_options::recursive);
  const fs::path db = job / "rank1_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "analysis.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "ALTER TABLE CommAnalyzerMatrix DROP COLUMN transit_size", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  // Several runs: the two parts race each time.
  for (int run = 0; run < 3; ++run) {
    std::string err;
    const fs::path out = dir / ("out" + std::to_string(run));
    cs::test::run_capture(std::string(CS_BINARY) + " cluster -q -d " + job.string() + " -o " +
                              out.string() + " -m all --export_type db 2>&1 >/dev/null",
                          err);
    const std::string main_says = "table CommAnalyzerMatrix: missing column(s) transit_size";
    const std::string db_says = "table CommAnalyzerMatrix: no column transit_size";
    ASSERT_EQ(count_of(err, main_says), 1u) << err;
    ASSERT_EQ(count_of(err, db_says), 1u) << err;
    // The database part's line is the last one.
    const size_t line = err.rfind("clusterscope: ", err.size() - 1);
    EXPECT_NE(err.find(db_says, line), std::string::npos) << err;
    EXPECT_TRUE(fs::exists(out / "cluster_analysis_output" / "cluster_analysis.db"));
  }
  fs::remove_all(dir);
}

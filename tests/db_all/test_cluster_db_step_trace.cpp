// msprof_analyze/db_all/cluster_db_step_trace: a MindSpore or msprof rank's whole-run row read from
// a tiny hand-made profiler database — receive ops found by their STRING_IDS name, absent or
// damaged tables, and the DP/PP/TP columns only from profiler_metadata.json.
#include "msprof_analyze/db_all/cluster_db_step_trace.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"
#include "support/sqlite_exec.h"
#include "support/test_files.h"

namespace cs::recipes {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStrings =
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "INSERT INTO STRING_IDS VALUES (1,'hcom_receive__7_1'),(2,'hcom_send__7_2'),"
    "(3,'HCOM_RECEIVE__7_3');";
constexpr const char* kCompute =
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,globalTaskId INTEGER);"
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY);"
    "INSERT INTO TASK VALUES (0,4000,10),(3000,6000,11),(100,200,12);"  // 12: not a compute task
    "INSERT INTO COMPUTE_TASK_INFO VALUES (0,10),(0,11);";
constexpr const char* kComm =
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER);";

// A PROF_ rank directory holding msprof_20240101000000.db made from `sql`.
struct ProfRank {
  fs::path dir;
  std::string db;
  load::RankEntry entry;
  explicit ProfRank(const std::string& name, const std::string& sql) {
    dir = cs::test::temp_dir(name) / "PROF_000000_20240101000000000_ABCDEF";
    fs::create_directories(dir);
    db = (dir / "msprof_20240101000000.db").string();
    test::sqlite_exec(db, sql);
    entry.rank = 0;
    entry.path = dir.string();
    entry.framework = load::Framework::kMsprof;
    entry.export_type = load::ExportType::kDb;
    entry.files = {"msprof_20240101000000.db"};
  }
  ~ProfRank() { fs::remove_all(dir.parent_path()); }
};

std::string all_text(const io::Diagnostics& diag) {
  std::string s;
  for (const auto& d : diag.items()) s += d.to_string() + "\n";
  return s;
}

TEST(ClusterDbStepTrace, ReceiveOpsAreNamedHcomReceiveInStringIds) {
  // Communication: receive [5000,9000] heads the merged [5000,12000] (bubble 7000); the send
  // [20000,21000] and the upper-case name are not receives.
  ProfRank r("db-step-receive", std::string(kStrings) + kCompute + kComm +
                                    "INSERT INTO COMMUNICATION_OP VALUES (1,5000,9000),"
                                    "(2,8000,12000),(2,20000,21000),(3,30000,31000);");
  io::Diagnostics diag;
  const auto t = db_all::read_whole_run_totals(r.db, diag);
  ASSERT_TRUE(t) << all_text(diag);
  EXPECT_TRUE(diag.empty()) << all_text(diag);
  EXPECT_EQ(t->computing, 6000);
  EXPECT_EQ(t->communication, 9000);
  EXPECT_EQ(t->bubble, 7000);
  EXPECT_EQ(t->communication_not_overlapped, 8000);  // [6000,12000] + two ops alone
  EXPECT_EQ(t->free, 8000 + 9000);                   // 12000..20000, 21000..30000
}

TEST(ClusterDbStepTrace, AbsentCommunicationTableCountsAsEmptyWithAWarning) {
  ProfRank r("db-step-nocomm", std::string(kStrings) + kCompute);
  io::Diagnostics diag;
  const auto t = db_all::read_whole_run_totals(r.db, diag);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->computing, 6000);
  EXPECT_EQ(t->communication, 0);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].severity, io::Severity::kWarning);
  EXPECT_NE(diag.items()[0].what.find("no COMMUNICATION_OP table"), std::string::npos);
  EXPECT_EQ(diag.items()[0].file, r.db);
}

TEST(ClusterDbStepTrace, NullTimeLeavesTheRankOutNamingFileAndTable) {
  ProfRank r("db-step-null", std::string(kStrings) + kCompute + kComm +
                                 "INSERT INTO COMMUNICATION_OP VALUES (1,NULL,9000);");
  io::Diagnostics diag;
  EXPECT_FALSE(db_all::read_whole_run_totals(r.db, diag));
  ASSERT_EQ(diag.items().size(), 1u) << all_text(diag);
  EXPECT_EQ(diag.items()[0].severity, io::Severity::kWarning);
  EXPECT_EQ(diag.items()[0].file, r.db);
  EXPECT_NE(diag.items()[0].what.find("COMMUNICATION_OP"), std::string::npos);
  EXPECT_NE(diag.items()[0].hint.find("no row in ClusterStepTraceTime"), std::string::npos);
}

TEST(ClusterDbStepTrace, TimeBeyond2To62NsLeavesTheRankOutNamingFileAndTable) {
  ProfRank r("db-step-far", std::string(kStrings) + kCompute + kComm +
                                "INSERT INTO COMMUNICATION_OP VALUES (1,-9000000000000000000,"
                                "9000000000000000000);");
  io::Diagnostics diag;
  EXPECT_FALSE(db_all::read_whole_run_totals(r.db, diag));
  ASSERT_EQ(diag.items().size(), 1u) << all_text(diag);
  EXPECT_EQ(diag.items()[0].file, r.db);
  EXPECT_NE(diag.items()[0].what.find(
                "COMMUNICATION_OP has a row whose startNs or endNs is out of range"),
            std::string::npos)
      << diag.items()[0].what;
}

TEST(ClusterDbStepTrace, ComputeTasksWithoutTaskTableLeaveTheRankOut) {
  ProfRank r("db-step-notask",
             std::string(kStrings) + kComm +
                 "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER);");
  io::Diagnostics diag;
  EXPECT_FALSE(db_all::read_whole_run_totals(r.db, diag));
  EXPECT_FALSE(diag.empty());
  EXPECT_FALSE(db_all::read_whole_run_totals((r.dir / "absent.db").string(), diag));
}

TEST(ClusterDbStepTrace, IndexColumnsOnlyFromProfilerMetadataJson) {
  ProfRank r("db-step-meta", std::string(kStrings) + kCompute + kComm +
                                 "INSERT INTO COMMUNICATION_OP VALUES (1,5000,9000);");
  io::Diagnostics diag;
  auto t = db_all::cluster_db_step_trace({r.entry}, nullptr, 1, diag);
  ASSERT_EQ(t.row_count(), 1u) << all_text(diag);
  const auto row = t.row(0);
  EXPECT_EQ(row[0].kind, documents::StepCell::kNull);  // the whole run: step None
  EXPECT_EQ(row[1].s, "rank");
  EXPECT_EQ(row[3].n.v, 6.0);  // computing, µs
  EXPECT_EQ(row.size(), 12u);  // no DP/PP/TP: cluster_analysis.db pads them with 0
  EXPECT_EQ(t.header.size(), 12u);

  cs::test::write_file(r.dir / "profiler_metadata.json",
                       "{\"distributed_args\": {\"world_size\": 1, \"rank\": 0}}");
  t = db_all::cluster_db_step_trace({r.entry}, nullptr, 1, diag);
  ASSERT_EQ(t.row_count(), 1u);
  EXPECT_EQ(t.width(), 15u);  // DP, PP, TP index 0, 0, 0
  EXPECT_EQ(t.cell(0, 12).n.v, 0.0);
}

}  // namespace
}  // namespace cs::recipes

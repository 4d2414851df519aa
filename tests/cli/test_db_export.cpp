// End to end on DB exports: the real db_level1 job (analysis.db + ascend_pytorch_profiler_N.db
// and profiler_info_N.json only), a rank with both exports, a job mixing text and DB ranks, and a
// damaged database in one rank (not a database, truncated, a missing table or column, a string
// id missing from STRING_IDS, NULLs where numbers belong): that rank is partial or skipped with a
// one-line diagnostic naming the file and the table, every other rank is analysed, also under
// mpirun. Expected step-trace values are msprof-analyze's (its ClusterStepTraceTime for the same
// input: rank 0 computing 8903.431, rank 1 8915.634).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "cli_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

using cs::test::kDataDir;
using cs::test::kDbJob;
const fs::path kTextRank0 = kDataDir / "ascend-real/text_level1/rank0_ascend_pt";

const fs::path& db_export_scratch() {
  static const cs::test::ScratchDir d("db-export");
  return d.path();
}

// A writable copy of the db_level1 job under db_export_scratch()/name.
fs::path copy_job(const std::string& name) {
  fs::path dst = db_export_scratch() / name;
  fs::remove_all(dst);
  fs::copy(kDbJob, dst, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(dst))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  return dst;
}

fs::path rank_db(const fs::path& job, int rank, const std::string& file) {
  return job / ("rank" + std::to_string(rank) + "_ascend_pt") / "ASCEND_PROFILER_OUTPUT" / file;
}

void exec_sql(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(h);
}

struct RunResult {
  int rc;
  std::string log;
  std::string manifest;
  fs::path out;
};

RunResult run_db_cluster(const fs::path& job, const std::string& extra = {},
                         const std::string& launcher = {}) {
  fs::path out = job.string() + "-out";
  fs::remove_all(out);
  fs::path log = job.string() + ".log";
  int rc = run_command(launcher + CS_BINARY + std::string(" cluster -d ") + job.string() + " -o " +
                           out.string() + " " + extra,
                       log.string());
  return {rc, read_file(log), read_file(out / "cluster_analysis_output/rank_manifest.csv"),
          out / "cluster_analysis_output"};
}

// The manifest row of a rank ("" when absent).
std::string manifest_row(const std::string& manifest, int rank) {
  std::string prefix = "\n" + std::to_string(rank) + ",";
  auto p = manifest.find(prefix);
  if (p == std::string::npos) return {};
  auto e = manifest.find('\n', p + 1);
  return manifest.substr(p + 1, e - p - 1);
}

}  // namespace

// The first value of a query's first row ("" when none).
std::string query_value(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::string v;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return v;
}

TEST(DbExport, DbOnlyJobIsAnalysed) {
  fs::path job = copy_job("dbonly");
  // By default (DB inputs), msprof-analyze's outputs go to cluster_analysis.db, as msprof-analyze
  // writes them, and its text documents are not written; clusterscope's own tables are.
  RunResult r = run_db_cluster(job, "-q");
  ASSERT_EQ(r.rc, 0) << r.log;
  const std::string& manifest = r.manifest;
  EXPECT_NE(manifest.find("problems,export\n"), std::string::npos) << manifest;
  EXPECT_TRUE(manifest_row(manifest, 0).ends_with(",ok,2,884736,,db")) << manifest;
  EXPECT_TRUE(manifest_row(manifest, 1).ends_with(",ok,2,798720,,db")) << manifest;
  for (const char* doc : {"cluster_step_trace_time.csv", "cluster_communication.json",
                          "cluster_communication_matrix.json", "communication_group.json"})
    EXPECT_FALSE(fs::exists(r.out / doc)) << doc;
  const fs::path db = r.out / "cluster_analysis.db";
  EXPECT_EQ(query_value(
                db, "SELECT computing FROM ClusterStepTraceTime WHERE type='rank' AND \"index\"=0"),
            "8903.431");
  EXPECT_EQ(query_value(
                db, "SELECT computing FROM ClusterStepTraceTime WHERE type='rank' AND \"index\"=1"),
            "8915.634");
  EXPECT_NE(query_value(db, "SELECT count(*) FROM ClusterCommunicationTime"), "0");
  EXPECT_NE(read_file(r.out / "operators_topn.csv").find("TransData"), std::string::npos);

  // --export_type text: its text documents instead, and no database.
  r = run_db_cluster(job, "-q --export_type text");
  ASSERT_EQ(r.rc, 0) << r.log;
  EXPECT_FALSE(fs::exists(r.out / "cluster_analysis.db"));
  std::string steps = read_file(r.out / "cluster_step_trace_time.csv");
  EXPECT_NE(steps.find("50,rank,0,8903.431,98071.947,4036.153,102108.1,25258.144,132233.522,"),
            std::string::npos)
      << steps;
  EXPECT_NE(steps.find("50,rank,1,8915.634,94556.05,"), std::string::npos) << steps;
  std::string comm = read_file(r.out / "cluster_communication.json");
  EXPECT_NE(comm.find("\"(0, 1)\": {\"step50\": {\"hcom_allReduce__210_0_1@17148521525495523210\""),
            std::string::npos);
}

TEST(DbExport, SameOutputsUnderMpirun) {
  fs::path job = copy_job("mpi");
  RunResult one = run_db_cluster(job, "-q --format json,csv");
  ASSERT_EQ(one.rc, 0) << one.log;
  auto a = cs::test::read_tree(one.out);
  RunResult two = run_db_cluster(job, "-q --format json,csv", cs::test::mpirun(2));
  ASSERT_EQ(two.rc, 0) << two.log;
  auto b = cs::test::read_tree(two.out);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, content] : a) EXPECT_EQ(content, b[name]) << name;
}

TEST(DbExport, BothExportsDbFirstUnlessDataTypeSaysText) {
  fs::path job = copy_job("both");
  fs::path r0 = job / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT";
  for (const auto& e : fs::directory_iterator(kTextRank0 / "ASCEND_PROFILER_OUTPUT"))
    fs::copy_file(e.path(), r0 / e.path().filename());
  RunResult db = run_db_cluster(job, "-q");
  ASSERT_EQ(db.rc, 0) << db.log;
  EXPECT_TRUE(manifest_row(db.manifest, 0).ends_with(",db")) << db.manifest;
  RunResult text = run_db_cluster(job, "-q --data-type text");
  ASSERT_EQ(text.rc, 0) << text.log;
  // 5 files: the four of the analyses and trace_view.json (132909 bytes), the host side (host/).
  EXPECT_TRUE(manifest_row(text.manifest, 0).ends_with(",ok,5,213574,,text")) << text.manifest;
  // Rank 1 has no text export: read from its DB, with a note that does not make it partial.
  EXPECT_TRUE(manifest_row(text.manifest, 1)
                  .ends_with(",ok,2,798720,no text export; read the DB export,db"))
      << text.manifest;
  RunResult bad = run_db_cluster(job, "-q --data_type csv");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.log.find("--data-type"), std::string::npos) << bad.log;
}

TEST(DbExport, JobMixingTextAndDbRanks) {
  fs::path job = copy_job("mixed");
  fs::remove_all(job / "rank0_ascend_pt");
  fs::copy(kTextRank0, job / "rank0_ascend_pt", fs::copy_options::recursive);
  RunResult r = run_db_cluster(job, "-q --export_type text");
  ASSERT_EQ(r.rc, 0) << r.log;
  EXPECT_TRUE(manifest_row(r.manifest, 0).ends_with(",ok,5,213574,,text")) << r.manifest;
  EXPECT_TRUE(manifest_row(r.manifest, 1).ends_with(",ok,2,798720,,db")) << r.manifest;
  std::string steps = read_file(r.out / "cluster_step_trace_time.csv");
  EXPECT_NE(steps.find("50,rank,0,8873.756000000001,"), std::string::npos) << steps;  // text
  EXPECT_NE(steps.find("50,rank,1,8915.634,"), std::string::npos) << steps;           // DB
}

// One damaged database in rank 1: exit 3, rank 1 partial (or skipped), rank 0 ok, and a one-line
// diagnostic naming the file and `table`.
void expect_rank1_damaged(const fs::path& job, const std::string& file, const std::string& what,
                          const std::string& status, const std::string& launcher = {}) {
  RunResult r = run_db_cluster(job, "--export_type text", launcher);
  EXPECT_EQ(r.rc, 3) << r.log;
  EXPECT_NE(manifest_row(r.manifest, 0).find(",ok,"), std::string::npos) << r.manifest;
  std::string row1 = manifest_row(r.manifest, 1);
  EXPECT_NE(row1.find("," + status + ","), std::string::npos) << r.manifest;
  EXPECT_NE(row1.find(file), std::string::npos) << row1;
  bool found = false;
  size_t start = 0;
  while (start < r.log.size()) {
    size_t end = r.log.find('\n', start);
    std::string line = r.log.substr(start, end - start);
    if (line.starts_with("clusterscope: ") && line.find(file + ":") != std::string::npos &&
        line.find(what) != std::string::npos && line.find("\u2014") != std::string::npos)
      found = true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  EXPECT_TRUE(found) << "no diagnostic naming " << file << " and '" << what << "' in:\n" << r.log;
  // Rank 0 was analysed.
  EXPECT_NE(read_file(r.out / "cluster_step_trace_time.csv").find("50,rank,0,8903.431"),
            std::string::npos);
}

TEST(DbExport, NotADatabase) {
  fs::path job = copy_job("notadb");
  std::ofstream(rank_db(job, 1, "analysis.db"), std::ios::trunc) << "Step,Computing\n50,1\n";
  expect_rank1_damaged(job, "analysis.db", "not a database", "partial");
}

TEST(DbExport, TruncatedProfilerDb) {
  fs::path job = copy_job("trunc");
  fs::resize_file(rank_db(job, 1, "ascend_pytorch_profiler_1.db"), 300000);
  expect_rank1_damaged(job, "ascend_pytorch_profiler_1.db", "malformed", "partial");
}

TEST(DbExport, CorruptPagesInAnalysisDb) {
  fs::path job = copy_job("corrupt");
  fs::path p = rank_db(job, 1, "analysis.db");
  std::string bytes = read_file(p);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x5a ^ (i * 7));
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
  expect_rank1_damaged(job, "analysis.db", "malformed", "partial");
}

TEST(DbExport, MissingTable) {
  fs::path job = copy_job("notable");
  exec_sql(rank_db(job, 1, "analysis.db"), "DROP TABLE CommAnalyzerTime;");
  expect_rank1_damaged(job, "analysis.db", "table CommAnalyzerTime is missing", "partial");
}

TEST(DbExport, MissingColumn) {
  fs::path job = copy_job("nocolumn");
  exec_sql(rank_db(job, 1, "analysis.db"), "ALTER TABLE CommAnalyzerMatrix DROP COLUMN src_rank;");
  expect_rank1_damaged(job, "analysis.db", "table CommAnalyzerMatrix: missing column(s) src_rank",
                       "partial");
}

TEST(DbExport, StringIdMissingFromStringIds) {
  fs::path job = copy_job("noid");
  exec_sql(rank_db(job, 1, "ascend_pytorch_profiler_1.db"),
           "DELETE FROM STRING_IDS WHERE id IN (SELECT opType FROM COMPUTE_TASK_INFO LIMIT 3);");
  expect_rank1_damaged(job, "ascend_pytorch_profiler_1.db", "missing from STRING_IDS", "partial");
}

TEST(DbExport, NullsWhereNumbersBelong) {
  fs::path job = copy_job("nulls");
  exec_sql(rank_db(job, 1, "analysis.db"),
           "UPDATE CommAnalyzerTime SET elapse_time = NULL WHERE rowid = 1;"
           "UPDATE StepTraceTime SET computing = NULL;");
  expect_rank1_damaged(job, "analysis.db", "NULL, non-numeric or out-of-range", "partial");
}

TEST(DbExport, BothDatabasesGarbageUnderMpirun) {
  fs::path job = copy_job("garbage");
  std::ofstream(rank_db(job, 1, "analysis.db"), std::ios::trunc) << std::string(10000, '\xff');
  std::ofstream(rank_db(job, 1, "ascend_pytorch_profiler_1.db"), std::ios::trunc) << "SQLite";
  expect_rank1_damaged(job, "analysis.db", "not a database", "skipped", cs::test::mpirun(2));
}

// Level0 profiles carry no communication analysis in analysis.db (the real db_level0 sample holds
// only StepTraceTime): that is the producer's choice, said once for all ranks with the level
// profiler_info gives, not "table is missing — re-export" twice per rank.
TEST(DbExport, Level0JobSaysOnceThatItHasNoCommunication) {
  fs::path job = db_export_scratch() / "level0";
  fs::remove_all(job);
  fs::copy(kDataDir / "ascend-real/db_level0", job, fs::copy_options::recursive);
  RunResult r = run_db_cluster(job, "--export_type text");
  EXPECT_EQ(r.rc, 3) << r.log;  // partial: the communication outputs are empty
  size_t lines = 0;
  for (size_t p = 0; (p = r.log.find("no communication analysis", p)) != std::string::npos; ++p)
    ++lines;
  EXPECT_EQ(lines, 1u) << r.log;
  EXPECT_NE(r.log.find("_profiler_level Level0"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("(the same in 2 ranks: 0-1)"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("is missing"), std::string::npos) << r.log;
  EXPECT_NE(manifest_row(r.manifest, 1).find(",partial,"), std::string::npos) << r.manifest;
  EXPECT_NE(manifest_row(r.manifest, 1).find("no communication analysis"), std::string::npos);
  // The step trace is still there (StepTraceTime is exported at Level0).
  EXPECT_NE(read_file(r.out / "cluster_step_trace_time.csv").find("\n"), std::string::npos);
}

// text_level1 holds ranks 0 and 1 of an 8-rank group (the copy in tests/data has rank 1's matrix
// trimmed): the links to the absent local ranks cannot be mapped. One line for the group (the
// full sample gave 72 lines, one per link and rank).
TEST(DbExport, UnmappableLocalRanksSaidOncePerGroup) {
  fs::path job = db_export_scratch() / "text-unmapped";
  fs::remove_all(job);
  fs::copy(kDataDir / "ascend-real/text_level1", job, fs::copy_options::recursive);
  RunResult r = run_db_cluster(job);
  size_t lines = 0;
  for (size_t p = 0; (p = r.log.find("cannot be mapped", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 1u) << r.log;
  EXPECT_NE(r.log.find("2, 3, 4, 5, 6, 7 cannot be mapped"), std::string::npos) << r.log;
}

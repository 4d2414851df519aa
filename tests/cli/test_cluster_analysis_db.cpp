// cluster -m all on the real db_level1 job writes cluster_analysis.db equal to msprof-analyze's
// (tests/data/ascend-real/msprof-analyze-ref/db_level1__all/cluster_analysis.db, from
// `cluster_analysis.py -d db_level1 -m all`): same tables in the same order with the same CREATE
// statements, same rows with the same storage classes and bit-identical numbers. As
// tests/data/SOURCES.md notes, the reference's RankDeviceMap.profilePath holds only the rank
// directory's name and HostInfo.hostName was replaced by "localhost": profilePath is compared by
// its last component, hostName not at all.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;

namespace {

using cs::test::kDataDir;

const fs::path& analysis_db_scratch() {
  static const cs::test::ScratchDir d("cluster-analysis-db");
  return d.path();
}

struct Table {
  std::string name, sql;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // "type:value" per cell
};

std::vector<Table> dump(const fs::path& path) {
  std::vector<Table> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK) << path;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY rowid",
                     -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    out.push_back({reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                   reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
                   {},
                   {}});
  }
  sqlite3_finalize(st);
  for (auto& t : out) {
    std::string q = "SELECT * FROM \"" + t.name + "\" ORDER BY rowid";
    sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr);
    for (int i = 0; i < sqlite3_column_count(st); ++i)
      t.columns.push_back(sqlite3_column_name(st, i));
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        char buf[64];
        switch (sqlite3_column_type(st, i)) {
          case SQLITE_INTEGER:
            row.push_back("int:" + std::to_string(sqlite3_column_int64(st, i)));
            break;
          case SQLITE_FLOAT:
            std::snprintf(buf, sizeof buf, "real:%.17g", sqlite3_column_double(st, i));
            row.push_back(buf);
            break;
          case SQLITE_NULL:
            row.push_back("null");
            break;
          default:
            row.push_back(std::string("text:") +
                          reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
        }
      }
      t.rows.push_back(std::move(row));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// Every table of `ref_path` in `mine_path`, in the same order, with the same CREATE statement,
// columns, storage classes and values (see the comment at the top for the two exceptions).
void expect_same_database(const fs::path& ref_path, const fs::path& mine_path,
                          size_t expected_tables) {
  auto ref = dump(ref_path);
  auto mine = dump(mine_path);
  ASSERT_EQ(ref.size(), expected_tables);
  ASSERT_EQ(mine.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    const Table& a = ref[i];
    const Table& b = mine[i];
    ASSERT_EQ(b.name, a.name);
    EXPECT_EQ(b.sql, a.sql) << a.name;
    EXPECT_EQ(b.columns, a.columns) << a.name;
    ASSERT_EQ(b.rows.size(), a.rows.size()) << a.name;
    for (size_t r = 0; r < a.rows.size(); ++r) {
      for (size_t c = 0; c < a.columns.size(); ++c) {
        std::string x = a.rows[r][c], y = b.rows[r][c];
        if (a.name == "HostInfo" && a.columns[c] == "hostName") continue;
        if (a.name == "RankDeviceMap" && a.columns[c] == "profilePath") {
          // The shared reference holds the directory's name only, ours an absolute path.
          x = "text:" + fs::path(x.substr(5)).filename().string();
          y = "text:" + fs::path(y.substr(5)).filename().string();
          EXPECT_TRUE(fs::path(b.rows[r][c].substr(5)).is_absolute()) << b.rows[r][c];
        }
        EXPECT_EQ(y, x) << a.name << " row " << r << " column " << a.columns[c];
      }
    }
  }
}

// cluster -m all on a copy of `job_src` (plus `extra` files copied in) into OUT; returns OUT's db.
fs::path run_all_on_copy(const std::string& name, const fs::path& job_src,
                         const std::vector<std::pair<fs::path, fs::path>>& extra = {}) {
  fs::path job = analysis_db_scratch() / name;
  fs::copy(job_src, job, fs::copy_options::recursive);
  for (const auto& [from, to] : extra) fs::copy_file(from, job / to);
  fs::path out = analysis_db_scratch() / (name + "-out");
  fs::path log = analysis_db_scratch() / (name + ".log");
  int rc = cs::test::run_command(
      std::string(CS_BINARY) + " cluster -q -m all -d " + job.string() + " -o " + out.string(),
      log.string());
  EXPECT_EQ(rc, 0) << cs::test::read_file(log);
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output/.cluster_analysis_db.tmp"));
  return out / "cluster_analysis_output/cluster_analysis.db";
}

}  // namespace

TEST(ClusterAnalysisDb, EqualsMsprofAnalyzeOnDbLevel1) {
  fs::path mine = run_all_on_copy("db_level1", kDataDir / "ascend-real/db_level1");
  ASSERT_TRUE(fs::exists(mine));
  expect_same_database(
      kDataDir / "ascend-real/msprof-analyze-ref/db_level1__all/cluster_analysis.db", mine, 7);
}

// The same job with a profiler_metadata.json per rank (written by hand in torch_npu's shape,
// tests/data/ascend-real/db_level1_metadata/): msprof-analyze then also writes ClusterBaseInfo —
// json.dumps of distributed_args without "rank" (a key written twice keeps its first place and last
// value, non-ASCII and the emoji as \u escapes, 1e+20, a 30-digit int exact) — and takes
// ClusterStepTraceTime's tp index from tensor_model_parallel_size. Reference: msprof-analyze's
// `cluster_analysis.py -d JOB -m all` on exactly this input
// (msprof-analyze-ref/db_level1_metadata__all/cluster_analysis.db).
TEST(ClusterAnalysisDb, ClusterBaseInfoEqualsMsprofAnalyze) {
  const fs::path meta = kDataDir / "ascend-real/db_level1_metadata";
  fs::path mine = run_all_on_copy(
      "db_level1_metadata", kDataDir / "ascend-real/db_level1",
      {{meta / "rank0_profiler_metadata.json", "rank0_ascend_pt/profiler_metadata.json"},
       {meta / "rank1_profiler_metadata.json", "rank1_ascend_pt/profiler_metadata.json"}});
  ASSERT_TRUE(fs::exists(mine));
  expect_same_database(
      kDataDir / "ascend-real/msprof-analyze-ref/db_level1_metadata__all/cluster_analysis.db", mine,
      8);
}

TEST(ClusterAnalysisDb, TextExportTypeWritesNoDatabase) {
  fs::path job = analysis_db_scratch() / "db_level1_text";
  fs::copy(kDataDir / "ascend-real/db_level1", job, fs::copy_options::recursive);
  fs::path out = analysis_db_scratch() / "out_text";
  int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " + job.string() +
                                     " -o " + out.string() + " --export-type text",
                                 (analysis_db_scratch() / "log2").string());
  ASSERT_EQ(rc, 0) << cs::test::read_file(analysis_db_scratch() / "log2");
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output/cluster_analysis.db"));
  EXPECT_TRUE(fs::exists(out / "cluster_analysis_output/cluster_communication.json"));
  // A text-only job writes no database by default either.
  fs::path out2 = analysis_db_scratch() / "out_textjob";
  rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " +
                                 (kDataDir / "ascend-real/text_level1").string() + " -o " +
                                 out2.string(),
                             (analysis_db_scratch() / "log3").string());
  // (tests/data holds rank 1 of this job without its communication files: exit 3.)
  ASSERT_TRUE(rc == 0 || rc == 3) << cs::test::read_file(analysis_db_scratch() / "log3");
  EXPECT_FALSE(fs::exists(out2 / "cluster_analysis_output/cluster_analysis.db"));
}

// Pipeline stages from DB inputs: a generated 8-rank job (tp 4, pp 2, 2 steps, DB export only)
// gives msprof-analyze's stage rows in ClusterStepTraceTime — the column-wise max over each
// stage's ranks per step, the index written "(0,1,2,3)" (no spaces, unlike the text export's
// tuple) — and its ClusterBaseInfo. Reference: msprof-analyze 8399c1cd's
// `cluster_analysis.py -d JOB -m all` on `generate JOB --ranks 8 --tp 4 --pp 2 --steps 2
// --export-type db`, its other tables dropped (tests/data/generated-db/tp4pp2_msprof_all/). The
// rows are compared as sets: msprof-analyze lists ranks in os.listdir() order (4, 1, 6, ... on
// the machine that made it), clusterscope by rank (docs/generated_db.md).
TEST(ClusterAnalysisDb, StageRowsAndBaseInfoFromGeneratedDbJob) {
  fs::path job = analysis_db_scratch() / "tp4pp2";
  fs::path log = analysis_db_scratch() / "tp4pp2.log";
  ASSERT_EQ(cs::test::run_command(std::string(CS_BINARY) + " generate " + job.string() +
                                      " --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db",
                                  log.string()),
            0)
      << cs::test::read_file(log);
  fs::path out = analysis_db_scratch() / "tp4pp2-out";
  ASSERT_EQ(cs::test::run_command(std::string(CS_BINARY) + " cluster -q -m all -d " + job.string() +
                                      " -o " + out.string(),
                                  log.string()),
            0)
      << cs::test::read_file(log);
  auto ref = dump(kDataDir / "generated-db/tp4pp2_msprof_all/cluster_analysis.db");
  auto mine = dump(out / "cluster_analysis_output/cluster_analysis.db");
  ASSERT_EQ(ref.size(), 2u);
  for (const Table& a : ref) {
    const Table* b = nullptr;
    for (const Table& t : mine)
      if (t.name == a.name) b = &t;
    ASSERT_NE(b, nullptr) << a.name;
    EXPECT_EQ(b->sql, a.sql) << a.name;
    EXPECT_EQ(b->columns, a.columns) << a.name;
    auto x = a.rows, y = b->rows;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    EXPECT_EQ(y, x) << a.name;
  }
  size_t stage_rows = 0;
  for (const Table& t : mine)
    if (t.name == "ClusterStepTraceTime")
      for (const auto& row : t.rows) stage_rows += row[1] == "text:stage";
  EXPECT_EQ(stage_rows, 4u);  // 2 steps x 2 stages
}

// `clusterscope generate --framework mindspore|msprof --export-type db`: the producers' layouts
// (docs/generated_db.md) hold the same simulated job as torch_npu's DB export of the same seed.
// - MindSpore: *_ascend_ms/ASCEND_PROFILER_OUTPUT/ascend_mindspore_profiler_{r}.db and
//   communication_analyzer.db, profiler_info_{r}.json, and a PROF_* directory with
//   device_{d}/info.json.{d}; CANN msprof: PROF_*/msprof_{14 digits}.db, analyze/
//   communication_analyzer.db, device_{d}/info.json.{d}.
// - The profiler database has the torch_npu database's msprof tables with the same rows, none of
//   the tables only torch_npu writes, and only the schema version in META_DATA.
// - communication_analyzer.db: CommAnalyzerTime and CommAnalyzerBandwidth are analysis.db's rows
//   without step and type; CommAnalyzerMatrix has one row per link of every op instance but the
//   receives, whose sizes add up to the same total as analysis.db's "-total" rows.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "support/sqlite_exec.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::sqlite_rows;

namespace {

const fs::path& producer_db_scratch() {
  static const cs::test::ScratchDir d("generate-producer-db");
  return d.path();
}

fs::path generate_framework_job(const std::string& name, const std::string& framework) {
  const fs::path out = producer_db_scratch() / name;
  const int rc = run_command(std::string(CS_BINARY) + " generate " + out.string() +
                                 " --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db"
                                 " --framework " +
                                 framework,
                             (producer_db_scratch() / (name + ".log")).string());
  EXPECT_EQ(rc, 0) << read_file(producer_db_scratch() / (name + ".log"));
  return out;
}

// The one entry of `dir` whose name matches `re`.
fs::path only(const fs::path& dir, const std::string& re) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (std::regex_match(e.path().filename().string(), std::regex(re))) found.push_back(e.path());
  EXPECT_EQ(found.size(), 1u) << dir << " " << re;
  return found.empty() ? dir / "missing" : found.front();
}

struct FrameworkJobs {
  fs::path pt, ms, prof;
};

const FrameworkJobs& framework_jobs() {
  static const FrameworkJobs j{generate_framework_job("pt", "pytorch"),
                               generate_framework_job("ms", "mindspore"),
                               generate_framework_job("prof", "msprof")};
  return j;
}

// Rank 3's databases in each layout.
struct RankFiles {
  fs::path profiler, analyzer;
};

RankFiles pt_rank3() {
  for (const auto& e : fs::directory_iterator(framework_jobs().pt))
    if (fs::exists(e.path() / "profiler_info_3.json"))
      return {e.path() / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_3.db",
              e.path() / "ASCEND_PROFILER_OUTPUT" / "analysis.db"};
  return {};
}

RankFiles ms_rank3() {
  for (const auto& e : fs::directory_iterator(framework_jobs().ms))
    if (fs::exists(e.path() / "profiler_info_3.json"))
      return {e.path() / "ASCEND_PROFILER_OUTPUT" / "ascend_mindspore_profiler_3.db",
              e.path() / "ASCEND_PROFILER_OUTPUT" / "communication_analyzer.db"};
  return {};
}

RankFiles prof_rank3() {
  const fs::path dir = only(framework_jobs().prof, "PROF_000003_[0-9]+_[A-Z]{16}");
  return {only(dir, "msprof_[0-9]{14}\\.db"), dir / "analyze" / "communication_analyzer.db"};
}

std::vector<std::string> table_names(const fs::path& db) {
  return sqlite_rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
}

TEST(GenerateProducerDb, LayoutsHoldTheProducersFiles) {
  int ms_dirs = 0;
  for (const auto& e : fs::directory_iterator(framework_jobs().ms)) {
    if (!e.is_directory()) continue;
    ++ms_dirs;
    EXPECT_TRUE(std::regex_match(e.path().filename().string(), std::regex(".*_ascend_ms")));
    const fs::path prof = only(e.path(), "PROF_[0-9]+_[0-9]+_[A-Z]+");
    EXPECT_EQ(std::distance(fs::directory_iterator(prof), fs::directory_iterator{}), 1);
  }
  EXPECT_EQ(ms_dirs, 8);
  const fs::path dir = only(framework_jobs().prof, "PROF_000005_[0-9]+_[A-Z]{16}");
  EXPECT_TRUE(fs::exists(dir / "device_5" / "info.json.5"));
  EXPECT_NE(read_file(dir / "device_5" / "info.json.5").find("\"rank_id\": 5"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "mindstudio_profiler_output"));  // db only
}

TEST(GenerateProducerDb, ProfilerDatabaseIsTorchNpusLessItsOwnTables) {
  const RankFiles pt = pt_rank3();
  for (const RankFiles& f : {ms_rank3(), prof_rank3()}) {
    std::vector<std::string> want;
    for (const auto& t : table_names(pt.profiler))
      if (t != "PYTORCH_API" && t != "CONNECTION_IDS" && t != "STEP_TIME" && t != "MEMORY_RECORD" &&
          t != "OP_MEMORY")
        want.push_back(t);
    EXPECT_EQ(table_names(f.profiler), want) << f.profiler;
    for (const char* t : {"TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_OP", "CANN_API", "STRING_IDS",
                          "MSTX_EVENTS"}) {
      const std::string sql = std::string("SELECT * FROM ") + t + " ORDER BY rowid";
      EXPECT_EQ(sqlite_rows(f.profiler, sql), sqlite_rows(pt.profiler, sql)) << t;
    }
    EXPECT_EQ(sqlite_rows(f.profiler, "SELECT name FROM META_DATA"),
              (std::vector<std::string>{"SCHEMA_VERSION_MICRO", "SCHEMA_VERSION_MINOR",
                                        "SCHEMA_VERSION_MAJOR", "SCHEMA_VERSION"}));
  }
}

TEST(GenerateProducerDb, AnalyzerTablesAreAnalysisDbsPerInstance) {
  const RankFiles pt = pt_rank3();
  for (const RankFiles& f : {ms_rank3(), prof_rank3()}) {
    EXPECT_EQ(table_names(f.analyzer),
              (std::vector<std::string>{"CommAnalyzerBandwidth", "CommAnalyzerMatrix",
                                        "CommAnalyzerTime"}));
    EXPECT_EQ(
        sqlite_rows(f.analyzer, "SELECT * FROM CommAnalyzerTime"),
        sqlite_rows(pt.analyzer,
                    "SELECT hccl_op_name, group_name, start_timestamp, elapse_time, transit_time, "
                    "wait_time, synchronization_time, idle_time FROM CommAnalyzerTime"));
    EXPECT_EQ(sqlite_rows(f.analyzer, "SELECT * FROM CommAnalyzerBandwidth"),
              sqlite_rows(pt.analyzer,
                          "SELECT hccl_op_name, group_name, transport_type, transit_size, "
                          "transit_time, bandwidth, large_packet_ratio, package_size, count, "
                          "total_duration FROM CommAnalyzerBandwidth"));
    // One row per link of each op instance: every instance name is a CommAnalyzerTime op but
    // no receive; per (group, link) the sizes add up to torch_npu's "-total" rows.
    EXPECT_TRUE(sqlite_rows(f.analyzer,
                            "SELECT hccl_op_name FROM CommAnalyzerMatrix WHERE hccl_op_name NOT IN "
                            "(SELECT hccl_op_name FROM CommAnalyzerTime) OR hccl_op_name LIKE "
                            "'hcom_receive%'")
                    .empty());
    const auto sums =
        sqlite_rows(f.analyzer,
                    "SELECT group_name, src_rank, dst_rank, ROUND(SUM(transit_size), 6) "
                    "FROM CommAnalyzerMatrix GROUP BY 1, 2, 3 ORDER BY 1, 2, 3");
    const auto totals =
        sqlite_rows(pt.analyzer,
                    "SELECT group_name, src_rank, dst_rank, ROUND(SUM(transit_size), 6) "
                    "FROM CommAnalyzerMatrix WHERE hccl_op_name LIKE '%-total%' "
                    "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3");
    EXPECT_FALSE(sums.empty());
    EXPECT_EQ(sums, totals);
  }
}

}  // namespace

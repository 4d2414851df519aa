// `clusterscope generate --export-type db|both`: the DB export of a simulated job has the real
// producer's schema (every table also in the real torch_npu samples has the same columns, types
// and keys), every string column resolves in STRING_IDS, and the same job read from its text
// export and from its DB export gives the same clusterscope tables.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "support/sqlite_exec.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::sqlite_rows;

namespace {

using cs::test::kDataDir;
const fs::path kRealRank0 =
    kDataDir / "ascend-real/db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT";

const fs::path& generate_db_scratch() {
  static const cs::test::ScratchDir d("generate-db");
  return d.path();
}

// "name type pk" of every column of a table, in order.
std::vector<std::string> columns(const fs::path& db, const std::string& table) {
  return sqlite_rows(
      db, "SELECT name || ' ' || upper(type) || ' ' || pk FROM pragma_table_info('" + table + "')");
}

std::set<std::string> table_set(const fs::path& db) {
  auto v = sqlite_rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  return {v.begin(), v.end()};
}

// Generates a job once per export type into generate_db_scratch()/name; returns the job directory.
fs::path generate_db_job(const std::string& name, const std::string& args) {
  fs::path job = generate_db_scratch() / name;
  if (fs::exists(job / "truth.json")) return job;
  int rc = run_command(std::string(CS_BINARY) + " generate " + job.string() + " " + args,
                       (generate_db_scratch() / (name + ".log")).string());
  EXPECT_EQ(rc, 0) << read_file(generate_db_scratch() / (name + ".log"));
  return job;
}

// The ASCEND_PROFILER_OUTPUT directory of global rank `rank` of a generated job.
fs::path rank_output(const fs::path& job, int rank) {
  for (const auto& e : fs::directory_iterator(job)) {
    if (!e.is_directory()) continue;
    if (fs::exists(e.path() / ("profiler_info_" + std::to_string(rank) + ".json")))
      return e.path() / "ASCEND_PROFILER_OUTPUT";
  }
  ADD_FAILURE() << "no rank " << rank << " in " << job;
  return {};
}

// Text-export CSV rows whose `size_col` is 0 dropped: the DB export, like torch_npu's, has no
// rows for transports that moved nothing (communication.json lists every transport).
std::string drop_idle_transports(const std::string& csv, size_t size_col) {
  std::string out;
  size_t pos = 0;
  while (pos < csv.size()) {
    size_t end = csv.find('\n', pos);
    if (end == std::string::npos) end = csv.size();
    std::string line = csv.substr(pos, end - pos);
    pos = end + 1;
    size_t b = 0;
    for (size_t c = 0; c < size_col && b != std::string::npos; ++c) b = line.find(',', b) + 1;
    if (b != std::string::npos && line.compare(b, 2, "0,") == 0) continue;
    out += line + "\n";
  }
  return out;
}

// Compares two JSON documents: numbers by value (SQLite's NUMERIC columns keep 0.0 as 0), and
// a transport block of "Communication Bandwidth Info" that moved nothing may be missing from
// `db`. Each difference is one failure naming its path.
void expect_same_json(simdjson::dom::element text, simdjson::dom::element db,
                      const std::string& path, int& failures) {
  if (failures > 20) return;
  auto fail = [&](const std::string& what) {
    ++failures;
    ADD_FAILURE() << path << ": " << what;
  };
  if (text.is_number() && db.is_number()) {
    if (double(text.get_double().value_unsafe()) != double(db.get_double().value_unsafe()))
      fail(simdjson::to_string(text) + " vs " + simdjson::to_string(db));
    return;
  }
  if (text.type() != db.type()) return fail("types differ");
  if (text.is_object()) {
    simdjson::dom::object a = text.get_object().value_unsafe(), b = db.get_object().value_unsafe();
    size_t matched = 0;
    for (auto [key, value] : a) {
      simdjson::dom::element other;
      if (b.at_key(key).get(other) == simdjson::SUCCESS) {
        ++matched;
        expect_same_json(value, other, path + "/" + std::string(key), failures);
      } else {
        double size = -1;
        if (!path.ends_with("Communication Bandwidth Info") ||
            value.at_key("Transit Size(MB)").get_double().get(size) != simdjson::SUCCESS ||
            size != 0)
          fail("key " + std::string(key) + " missing from the DB export's output");
      }
    }
    if (matched != b.size()) fail("the DB export's output has keys the text export's lacks");
    return;
  }
  if (text.is_array()) {
    simdjson::dom::array a = text.get_array().value_unsafe(), b = db.get_array().value_unsafe();
    if (a.size() != b.size()) return fail("array sizes differ");
    for (size_t i = 0; i < a.size(); ++i)
      expect_same_json(a.at(i).value_unsafe(), b.at(i).value_unsafe(),
                       path + "/" + std::to_string(i), failures);
    return;
  }
  if (simdjson::to_string(text) != simdjson::to_string(db))
    fail(simdjson::to_string(text) + " vs " + simdjson::to_string(db));
}

const char* const kDbArgs = "--ranks 8 --tp 4 --pp 2 --steps 2 --export-type db";
const char* const kBothArgs =
    "--ranks 16 --tp 2 --pp 2 --steps 2 --export-type both "
    "--slow-rank 5:1.5 --slow-link 0-1:4 --rank-jitter 0.02";

}  // namespace

TEST(GenerateDb, DbOnlyExportHasTheDatabasesAndNoTextFiles) {
  fs::path out = rank_output(generate_db_job("db", kDbArgs), 3);
  EXPECT_TRUE(fs::exists(out / "analysis.db"));
  EXPECT_TRUE(fs::exists(out / "ascend_pytorch_profiler_3.db"));
  for (const char* f : {"communication.json", "communication_matrix.json", "step_trace_time.csv",
                        "kernel_details.csv", "trace_view.json"})
    EXPECT_FALSE(fs::exists(out / f)) << f;
  std::string info = read_file(out.parent_path() / "profiler_info_3.json");
  EXPECT_NE(info.find("\"_export_type\": \"db\""), std::string::npos) << info;
  std::string both_info = read_file(
      rank_output(generate_db_job("both", kBothArgs), 0).parent_path() / "profiler_info_0.json");
  EXPECT_NE(both_info.find("\"_export_type\": [\"text\", \"db\"]"), std::string::npos);
}

TEST(GenerateDb, SchemaIsTheRealProducersSchema) {
  fs::path out = rank_output(generate_db_job("db", kDbArgs), 3);
  const fs::path ours[] = {out / "analysis.db", out / "ascend_pytorch_profiler_3.db"};
  const fs::path real[] = {kRealRank0 / "analysis.db", kRealRank0 / "ascend_pytorch_profiler_0.db"};
  const std::vector<std::vector<std::string>> wanted = {
      {"StepTraceTime", "CommAnalyzerTime", "CommAnalyzerBandwidth", "CommAnalyzerMatrix"},
      {"STRING_IDS",
       "TASK",
       "COMPUTE_TASK_INFO",
       "COMMUNICATION_OP",
       "COMMUNICATION_TASK_INFO",
       "CANN_API",
       "PYTORCH_API",
       "CONNECTION_IDS",
       "MSTX_EVENTS",
       "STEP_TIME",
       "META_DATA",
       "RANK_DEVICE_MAP",
       "HOST_INFO",
       "SESSION_TIME_INFO",
       "NPU_INFO",
       "ENUM_API_TYPE",
       "ENUM_HCCL_DATA_TYPE",
       "ENUM_HCCL_LINK_TYPE",
       "ENUM_HCCL_TRANSPORT_TYPE",
       "ENUM_HCCL_RDMA_TYPE",
       "ENUM_MSTX_EVENT_TYPE"}};
  for (int f = 0; f < 2; ++f) {
    std::set<std::string> have = table_set(ours[f]), real_tables = table_set(real[f]);
    for (const auto& t : wanted[static_cast<size_t>(f)]) {
      ASSERT_TRUE(have.count(t)) << ours[f] << " lacks " << t;
      if (real_tables.count(t)) {
        EXPECT_EQ(columns(ours[f], t), columns(real[f], t)) << t;
      }
      EXPECT_FALSE(sqlite_rows(ours[f], "SELECT count(*) FROM " + t + " WHERE rowid = 1").empty());
    }
    // Each ENUM_* table holds the real producer's rows.
    for (const auto& t : have) {
      if (t.starts_with("ENUM_") && real_tables.count(t)) {
        EXPECT_EQ(sqlite_rows(ours[f], "SELECT * FROM " + t),
                  sqlite_rows(real[f], "SELECT * FROM " + t))
            << t;
      }
    }
  }
  // MSTX_EVENTS is not in the samples: the columns torch_npu declares.
  EXPECT_EQ(columns(ours[1], "MSTX_EVENTS"),
            (std::vector<std::string>{"startNs INTEGER 0", "endNs INTEGER 0", "eventType INTEGER 0",
                                      "rangeId INTEGER 0", "category INTEGER 0",
                                      "message INTEGER 0", "globalTid INTEGER 0",
                                      "endGlobalTid INTEGER 0", "domainId INTEGER 0",
                                      "connectionId INTEGER 0", "depth INTEGER 0"}));
  // Times in ns; the step table and the ranks' metadata are there.
  auto steps = sqlite_rows(ours[1], "SELECT id, endNs - startNs > 1000000 FROM STEP_TIME");
  EXPECT_EQ(steps, (std::vector<std::string>{"1|1", "2|1"}));
  EXPECT_EQ(sqlite_rows(ours[1], "SELECT * FROM RANK_DEVICE_MAP"), std::vector<std::string>{"3|3"});
  auto meta = sqlite_rows(ours[1],
                          "SELECT name FROM META_DATA WHERE name IN ('distributed_args', "
                          "'parallel_group_info')");
  EXPECT_EQ(meta.size(), 2u);
}

TEST(GenerateDb, EveryStringColumnResolvesInStringIds) {
  fs::path db = rank_output(generate_db_job("db", kDbArgs), 5) / "ascend_pytorch_profiler_5.db";
  const std::vector<std::pair<std::string, std::vector<std::string>>> string_columns = {
      {"TASK", {"taskType"}},
      {"COMPUTE_TASK_INFO",
       {"name", "taskType", "opType", "inputFormats", "inputDataTypes", "inputShapes",
        "outputFormats", "outputDataTypes", "outputShapes", "attrInfo"}},
      {"COMMUNICATION_OP", {"opName", "groupName", "algType", "opType"}},
      {"COMMUNICATION_TASK_INFO", {"name", "taskType", "groupName"}},
      {"CANN_API", {"name"}},
      {"PYTORCH_API", {"name"}},
      {"MSTX_EVENTS", {"message"}}};
  for (const auto& [table, cols] : string_columns) {
    EXPECT_NE(sqlite_rows(db, "SELECT count(*) FROM " + table), std::vector<std::string>{"0"})
        << table;
    for (const auto& c : cols)
      EXPECT_EQ(
          sqlite_rows(db, "SELECT count(*) FROM " + table +
                              " t LEFT JOIN STRING_IDS s ON s.id = t." + c + " WHERE s.id IS NULL"),
          std::vector<std::string>{"0"})
          << table << "." << c;
  }
  // Each device task has its CANN launch, each launch its framework op.
  EXPECT_EQ(sqlite_rows(db,
                        "SELECT count(*) FROM TASK t LEFT JOIN CANN_API c ON c.connectionId = "
                        "t.connectionId WHERE c.connectionId IS NULL"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(
      sqlite_rows(db,
                  "SELECT count(*) FROM CANN_API c LEFT JOIN CONNECTION_IDS i ON "
                  "i.connectionId = c.connectionId LEFT JOIN PYTORCH_API p ON p.connectionId = "
                  "i.id WHERE p.connectionId IS NULL"),
      std::vector<std::string>{"0"});
}

// The same job read from its text export and from its DB export: the same tables, except the
// fields only the text export has.
TEST(GenerateDb, TextAndDbExportsGiveTheSameTables) {
  fs::path job = generate_db_job("both", kBothArgs);
  auto run = [&](const std::string& type) {
    fs::path out = generate_db_scratch() / ("both-" + type);
    fs::remove_all(out);
    int rc = run_command(
        std::string(CS_BINARY) + " cluster -d " + job.string() + " -o " + out.string() +
            " -q --format json,csv --op-tables csv --export_type text --data-type " + type,
        (generate_db_scratch() / ("both-" + type + ".log")).string());
    EXPECT_EQ(rc, 0) << read_file(generate_db_scratch() / ("both-" + type + ".log"));
    return out / "cluster_analysis_output";
  };
  fs::path text = run("text"), db = run("db");
  for (const char* f : {"cluster_step_trace_time.csv", "cluster_communication_matrix.json",
                        "communication_group.json", "step_trace.csv", "communication_ops.csv",
                        "communication_matrix.csv", "comm_rank_summary.csv", "slow_ranks.csv",
                        "slow_links.csv", "slow_transfers.csv", "operators_topn.csv"}) {
    std::string a = read_file(text / f), b = read_file(db / f);
    EXPECT_GT(a.size(), 200u) << f << " is (nearly) empty";
    EXPECT_EQ(a, b) << f << " differs between the text and the DB export";
  }
  // Transports that moved nothing are only in the text export.
  EXPECT_EQ(drop_idle_transports(read_file(text / "communication_bandwidth.csv"), 4),
            read_file(db / "communication_bandwidth.csv"));
  EXPECT_EQ(drop_idle_transports(read_file(text / "comm_transport_summary.csv"), 3),
            read_file(db / "comm_transport_summary.csv"));
  simdjson::dom::parser pa, pb;
  simdjson::dom::element a, b;
  ASSERT_EQ(pa.load((text / "cluster_communication.json").string()).get(a), simdjson::SUCCESS);
  ASSERT_EQ(pb.load((db / "cluster_communication.json").string()).get(b), simdjson::SUCCESS);
  int failures = 0;
  expect_same_json(a, b, "cluster_communication.json", failures);
  EXPECT_GT(a.get_object().value_unsafe().size(), 4u);
}

TEST(GenerateDb, BadExportTypeIsAUsageError) {
  fs::path log = generate_db_scratch() / "bad.log";
  EXPECT_EQ(
      run_command(std::string(CS_BINARY) + " generate " + (generate_db_scratch() / "bad").string() +
                      " --ranks 2 --export-type csv",
                  log.string()),
      2);
  EXPECT_NE(read_file(log).find("--export-type 'csv'"), std::string::npos) << read_file(log);
  EXPECT_EQ(
      run_command(std::string(CS_BINARY) + " generate " + (generate_db_scratch() / "bad").string() +
                      " --ranks 2 --framework kineto --export-type db",
                  log.string()),
      2);
  EXPECT_NE(read_file(log).find("--framework pytorch, mindspore and msprof only"),
            std::string::npos)
      << read_file(log);
}

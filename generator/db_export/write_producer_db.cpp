// The MindSpore and CANN msprof DB exports (generator/db_export/producer_db.h): torch_npu's
// databases of the rank, written by write_profiler_db / write_analysis_db, less what only torch_npu
// adds.
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "generator/db_export/producer_db.h"

#include "generator/db_export/db_writers.h"
#include "io/py_format.h"

namespace cs::generator {

namespace {

// Runs `sql` on the database file `path` (then closes it); false with an error diagnostic.
bool edit_database(const std::string& path, const std::string& sql, io::Diagnostics& diag) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  char* err = nullptr;
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string what = rc == SQLITE_OK ? "" : (err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  sqlite3_close(db);
  if (rc == SQLITE_OK) return true;
  diag.error(path, 0, "cannot write the database: " + what,
             "check that the output directory is writable and has free space");
  return false;
}

bool make_dirs(const std::string& path, io::Diagnostics& diag) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (!ec) return true;
  diag.error(path, 0, "cannot create directory: " + ec.message(),
             "check that the output path is writable");
  return false;
}

// msprof's communication_analyzer.db tables (CANN msprof's analysis/msconfig/tables_config.py,
// CommAnalyzer*Map; created as "CREATE TABLE IF NOT EXISTS name(col TYPE, ...)", which SQLite
// stores without IF NOT EXISTS). Time and bandwidth rows are torch_npu's without step and type;
// the matrix has one row per op instance and link (local ranks "src"/"dst" as text), not
// torch_npu's top1/middle/bottom/total summary.
constexpr const char* kAnalyzerSchema =
    "ALTER TABLE CommAnalyzerTime RENAME TO pt_time;"
    "ALTER TABLE CommAnalyzerBandwidth RENAME TO pt_band;"
    "DROP TABLE StepTraceTime; DROP TABLE CommAnalyzerMatrix;"
    "CREATE TABLE IF NOT EXISTS CommAnalyzerTime(hccl_op_name TEXT, group_name TEXT, "
    "start_timestamp NUMERIC, elapse_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, "
    "synchronization_time NUMERIC, idle_time NUMERIC);"
    "CREATE TABLE IF NOT EXISTS CommAnalyzerBandwidth(hccl_op_name TEXT, group_name TEXT, "
    "transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, "
    "large_packet_ratio NUMERIC, package_size NUMERIC, count NUMERIC, total_duration NUMERIC);"
    "CREATE TABLE IF NOT EXISTS CommAnalyzerMatrix(hccl_op_name TEXT, group_name TEXT, "
    "src_rank TEXT, dst_rank TEXT, transport_type TEXT, transit_size NUMERIC, transit_time "
    "NUMERIC, bandwidth NUMERIC);"
    "INSERT INTO CommAnalyzerTime SELECT hccl_op_name, group_name, start_timestamp, elapse_time, "
    "transit_time, wait_time, synchronization_time, idle_time FROM pt_time ORDER BY rowid;"
    "INSERT INTO CommAnalyzerBandwidth SELECT hccl_op_name, group_name, transport_type, "
    "transit_size, transit_time, bandwidth, large_packet_ratio, package_size, count, "
    "total_duration FROM pt_band ORDER BY rowid;"
    "DROP TABLE pt_time; DROP TABLE pt_band;";

}  // namespace

bool write_msprof_profiler_db(const std::string& path, const WriteContext& ctx, int rank,
                              const RankTimeline& tl, io::Diagnostics& diag) {
  if (!write_profiler_db(path, ctx, rank, tl, diag)) return false;
  std::string sql;
  for (const char* t : kTorchNpuOnlyTables) sql += std::string("DROP TABLE IF EXISTS ") + t + ";";
  // msprof's META_DATA holds only the schema version (torch_npu adds its profiler_metadata).
  sql += "DELETE FROM META_DATA WHERE name IN ('distributed_args', 'parallel_group_info');";
  sql += "VACUUM;";
  return edit_database(path, sql, diag);
}

bool write_communication_analyzer_db(const std::string& path, const WriteContext& ctx,
                                     const RankTimeline& tl, const RankDocuments& docs,
                                     io::Diagnostics& diag) {
  if (!write_analysis_db(path, docs, diag)) return false;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "BEGIN;", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, kAnalyzerSchema, nullptr, nullptr, nullptr);
  sqlite3_stmt* ins = nullptr;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db, "INSERT INTO CommAnalyzerMatrix VALUES (?,?,?,?,?,?,?,?)", -1, &ins,
                            nullptr);
  // One row per link of each op instance, as the flat communication_matrix.json lists them
  // (the sender reports a p2p link).
  for (const auto& c : tl.comms) {
    if (rc != SQLITE_OK) break;
    if (c.kind == CommKind::kReceive) continue;
    const std::string key = comm_op_key(ctx.topo, c);
    const size_t at = key.rfind('@');
    const std::string op = key.substr(0, at), group = key.substr(at + 1);
    for (const auto& l : c.links) {
      const std::string src = std::to_string(l.src_local), dst = std::to_string(l.dst_local);
      const double size = l.size_mb();
      sqlite3_bind_text(ins, 1, op.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 2, group.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 3, src.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 4, dst.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 5, transport_name(l.transport), -1, SQLITE_STATIC);
      sqlite3_bind_double(ins, 6, size);
      sqlite3_bind_double(ins, 7, l.time_ms);
      sqlite3_bind_double(ins, 8, l.time_ms > 0 ? io::py_round(size / l.time_ms, 4) : 0.0);
      rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
      sqlite3_reset(ins);
    }
  }
  sqlite3_finalize(ins);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT; VACUUM;", nullptr, nullptr, nullptr);
  const std::string what = rc == SQLITE_OK ? "" : sqlite3_errmsg(db);
  sqlite3_close(db);
  if (rc == SQLITE_OK) return true;
  diag.error(path, 0, "cannot write the database: " + what,
             "check that the output directory is writable and has free space");
  return false;
}

bool write_mindspore_db_files(const std::string& dir, const WriteContext& ctx, int rank,
                              const RankTimeline& tl, const RankDocuments& docs, const PutText& put,
                              const PutDb& put_db, io::Diagnostics& diag) {
  // MindSpore keeps msprof's PROF_ directory inside its own: device_{id}/info.json.{id} there
  // is where msprof-analyze takes a MindSpore rank's device id from.
  GeneratorOptions as_msprof = ctx.opts;
  as_msprof.framework = FrameworkKind::kMsprof;
  const std::string prof =
      dir + "/" + rank_dir_name(WriteContext{as_msprof, ctx.topo, ctx.base_us}, rank);
  const std::string device = std::to_string(rank % kDevicesPerNode);
  const std::string out = dir + "/ASCEND_PROFILER_OUTPUT";
  return make_dirs(prof + "/device_" + device, diag) &&
         put(prof + "/device_" + device + "/info.json." + device,
             render_msprof_info_json(ctx, rank)) &&
         put_db(out + "/communication_analyzer.db",
                [&](const std::string& p) {
                  return write_communication_analyzer_db(p, ctx, tl, docs, diag);
                }) &&
         put_db(out + "/ascend_mindspore_profiler_" + std::to_string(rank) + ".db",
                [&](const std::string& p) {
                  return write_msprof_profiler_db(p, ctx, rank, tl, diag);
                });
}

bool write_msprof_db_files(const std::string& dir, const WriteContext& ctx, int rank,
                           const RankTimeline& tl, bool with_info, const PutText& put,
                           const PutDb& put_db, io::Diagnostics& diag) {
  const std::string device = std::to_string(rank % kDevicesPerNode);
  // msprof_{14 digits}.db: the export's local time, as the text export's msprof_*.json has it.
  const std::string stamp = "20240101" + std::to_string(120000 + rank % 60);
  const RankDocuments docs{render_communication_json(ctx, rank, tl),
                           render_matrix_json(ctx, rank, tl), render_step_trace_csv(ctx, rank, tl)};
  if (!make_dirs(dir + "/analyze", diag)) return false;
  if (with_info && !(make_dirs(dir + "/device_" + device, diag) &&
                     put(dir + "/device_" + device + "/info.json." + device,
                         render_msprof_info_json(ctx, rank))))
    return false;
  return put_db(dir + "/analyze/communication_analyzer.db",
                [&](const std::string& p) {
                  return write_communication_analyzer_db(p, ctx, tl, docs, diag);
                }) &&
         put_db(dir + "/msprof_" + stamp + ".db", [&](const std::string& p) {
           return write_msprof_profiler_db(p, ctx, rank, tl, diag);
         });
}

}  // namespace cs::generator

// ASCEND_PROFILER_OUTPUT/analysis.db of one rank: the same communication, matrix and step-trace
// numbers as the rank's text documents, in torch_npu's tables (columns and types as the real
// producer declares them). The tables are filled from the rendered documents, so the two exports
// of a job can never disagree.
#include <array>
#include <utility>

#include "generator/db_export/db_writers.h"
#include "generator/db_export/sqlite_writer.h"
#include "generator/job/writers.h"
#include "readers/communication.h"
#include "readers/matrix.h"
#include "readers/step_trace.h"

namespace cs::generator {

namespace {

constexpr const char* kSchema =
    "CREATE TABLE StepTraceTime (step TEXT, computing NUMERIC, communication_not_overlapped "
    "NUMERIC, overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, bubble "
    "NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC);"
    "CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, transport_type TEXT, "
    "transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, "
    "package_size NUMERIC, count NUMERIC, total_duration NUMERIC, step TEXT, type TEXT);"
    "CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank "
    "TEXT, transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, "
    "step "
    "TEXT, type TEXT, op_name TEXT);"
    "CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, "
    "elapse_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, "
    "idle_time NUMERIC, step TEXT, type TEXT);";

// A number as the producer stores it: an integer when the document wrote an int.
SqlValue number(io::Num n) {
  if (n.is_int) return SqlValue(static_cast<int64_t>(n.v));
  return SqlValue(n.v);
}

void write_step_trace(SqliteFile& db, const readers::StepTraceFile& st) {
  Insert ins = db.insert("StepTraceTime", 10);
  // StepTraceTime's value columns are step_trace_time.csv's, in the same order.
  std::array<int, readers::kStepTraceColumns.size()> col{};
  for (size_t i = 0; i < col.size(); ++i)
    col[i] = st.column(std::string(readers::kStepTraceColumns[i]));
  auto v = [&](const readers::StepTraceRow& r, size_t i) {
    return col[i] < 0 ? SqlValue() : SqlValue(r.values[static_cast<size_t>(col[i])]);
  };
  for (const auto& r : st.rows)
    ins.row(
        {r.step, v(r, 0), v(r, 1), v(r, 2), v(r, 3), v(r, 4), v(r, 5), v(r, 6), v(r, 7), v(r, 8)});
}

// CommAnalyzerTime and CommAnalyzerBandwidth. As torch_npu does, the per-step "Total Op Info" is
// left out (the cluster analysis sums the ops itself) and so are transports that moved nothing; a
// transport without size buckets (SDMA, a sum of the others) is one row of zeros.
void write_communication(SqliteFile& db, const readers::CommunicationFile& comm) {
  Insert time = db.insert("CommAnalyzerTime", 10);
  Insert band = db.insert("CommAnalyzerBandwidth", 12);
  for (const auto& step : comm.steps) {
    for (int p2p = 0; p2p < 2; ++p2p) {
      const char* type = p2p ? "p2p" : "collective";
      for (const auto& op : p2p ? step.p2p : step.collective) {
        if (op.is_total()) continue;
        const std::string_view name = op.op_name(), group = op.group();
        const auto& t = op.time;
        time.row({name, group, number(t.num(readers::kStartTimestampUs)),
                  number(t.num(readers::kElapseTimeMs)), number(t.num(readers::kTransitTimeMs)),
                  number(t.num(readers::kWaitTimeMs)), number(t.num(readers::kSyncTimeMs)),
                  number(t.num(readers::kIdleTimeMs)), step.step, type});
        for (const auto& tr : op.transports) {
          if (tr.get(readers::kTrSizeMb) == 0) continue;
          const std::string tname(tr.name.view());
          auto row = [&](SqlValue size, SqlValue count, SqlValue dur) {
            band.row({name, group, tname, number(tr.num(readers::kTrSizeMb)),
                      number(tr.num(readers::kTrTimeMs)), number(tr.num(readers::kTrBandwidthGbps)),
                      number(tr.num(readers::kTrLargePacketRatio)), size, count, dur, step.step,
                      type});
          };
          auto buckets = op.size_distribution(tr);
          if (buckets.empty()) row(int64_t{0}, int64_t{0}, int64_t{0});
          for (const auto& b : buckets)
            row(std::stod(b.size_key), number(b.count), number(b.duration_ms));
        }
      }
    }
  }
}

void write_matrix(SqliteFile& db, const readers::MatrixFile& m) {
  Insert ins = db.insert("CommAnalyzerMatrix", 11);
  for (const auto& step : m.steps) {
    for (int p2p = 0; p2p < 2; ++p2p) {
      const char* type = p2p ? "p2p" : "collective";
      for (const auto& op : p2p ? step.p2p : step.collective) {
        for (const auto& l : op.links) {
          ins.row({op.op_part(), op.group(), std::to_string(l.src_local),
                   std::to_string(l.dst_local), std::string(l.transport.view()),
                   number(l.num(readers::kLinkSizeMb)), number(l.num(readers::kLinkTimeMs)),
                   number(l.num(readers::kLinkBandwidthGbps)), step.step, type,
                   l.has_op_name ? SqlValue(m.op_name(l)) : SqlValue()});
        }
      }
    }
  }
}

}  // namespace

bool write_analysis_db(const std::string& path, const RankDocuments& docs, io::Diagnostics& diag) {
  readers::CommunicationFile comm;
  readers::MatrixFile matrix;
  readers::StepTraceFile steps;
  if (!readers::parse_communication_json(docs.communication, path, comm, diag) ||
      !readers::parse_communication_matrix_json(docs.matrix, path, matrix, diag) ||
      !readers::parse_step_trace_csv(docs.step_trace, path, steps, diag))
    return false;
  SqliteFile db;
  if (!db.create(path, diag)) return false;
  db.exec(kSchema);
  write_step_trace(db, steps);
  write_communication(db, comm);
  write_matrix(db, matrix);
  return db.finish(diag);
}

}  // namespace cs::generator

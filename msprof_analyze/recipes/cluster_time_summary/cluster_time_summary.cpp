#include "msprof_analyze/recipes/cluster_time_summary/cluster_time_summary.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "io/py_format.h"
#include "msprof_analyze/recipes/cluster_time_summary/cluster_time_summary_scan.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/rank_db.h"

namespace cs::recipes::cluster_time_summary {

namespace {

constexpr int64_t kMemory = 4;

std::string comm_query(bool steps) {
  return std::string(
             "SELECT RANK_DEVICE_MAP.rankId AS rank, si_group.value AS groupName, "
             "si_op.value AS opName, "
             "(COMMUNICATION_OP.endNs - COMMUNICATION_OP.startNs) / 1000.0 AS "
             "communication_time, ") +
         (steps ? "step_time.id AS step " : "-1 AS step ") +
         "FROM COMMUNICATION_OP CROSS JOIN RANK_DEVICE_MAP "
         "JOIN STRING_IDS si_group ON COMMUNICATION_OP.groupName = si_group.id "
         "JOIN STRING_IDS si_op ON COMMUNICATION_OP.opName = si_op.id "
         "JOIN CANN_API ON CANN_API.connectionId = COMMUNICATION_OP.connectionId " +
         (steps ? "LEFT JOIN STEP_TIME step_time ON CANN_API.startNs >= step_time.startNs AND "
                  "CANN_API.startNs <= step_time.endNs "
                : "") +
         "WHERE CANN_API.startNs >= ? and CANN_API.startNs <= ?";
}

std::string memory_query(bool steps) {
  return std::string(
             "WITH computing AS (SELECT TASK.startNs, TASK.endNs, CANN_API.startNs as apiStartNs, "
             "0 AS type FROM COMPUTE_TASK_INFO JOIN TASK ON COMPUTE_TASK_INFO.globalTaskId = "
             "TASK.globalTaskId AND TASK.startNs != TASK.endNs JOIN CANN_API ON "
             "CANN_API.connectionId = TASK.connectionId), "
             "communication AS (SELECT COMMUNICATION_OP.startNs, COMMUNICATION_OP.endNs, "
             "CANN_API.startNs as apiStartNs, 1 AS type FROM COMMUNICATION_OP JOIN CANN_API ON "
             "CANN_API.connectionId = COMMUNICATION_OP.connectionId), "
             "memory AS (SELECT TASK.startNs, TASK.endNs, TASK.startNs as apiStartNs, 4 AS type "
             "FROM TASK WHERE taskType = (SELECT id FROM STRING_IDS WHERE value='MEMCPY_ASYNC')), "
             "overlap AS (SELECT startNs, endNs, apiStartNs, type FROM computing UNION ALL SELECT "
             "startNs, endNs, apiStartNs, type FROM communication UNION ALL SELECT startNs, endNs, "
             "apiStartNs, type FROM memory) "
             "SELECT overlap.startNs AS start, overlap.endNs AS end, overlap.type, ") +
         (steps ? "step_time.id AS step FROM overlap LEFT JOIN STEP_TIME step_time ON "
                  "overlap.apiStartNs >= step_time.startNs AND overlap.apiStartNs <= "
                  "step_time.endNs "
                : "-1 AS step FROM overlap ") +
         "WHERE overlap.apiStartNs >= ? and overlap.apiStartNs <= ? "
         "ORDER BY overlap.startNs, overlap.endNs";
}

const std::vector<int64_t> kRange = {0, std::numeric_limits<int64_t>::max()};

// Per step: summed memory-copy time and its not-overlapped part (us), steps sorted.
frame::Frame memory_frame(const frame::Frame& rows, int rank) {
  frame::Frame out;
  auto& r = out.add("rank");
  auto& step = out.add("step");
  auto& mem = out.add("memory");
  auto& not_ov = out.add("memoryNotOverlapComputationCommunication");
  const auto& s = frame::find_column(rows, "start")->cells;
  const auto& e = frame::find_column(rows, "end")->cells;
  const auto& t = frame::find_column(rows, "type")->cells;
  for (const auto& g : frame::group_rows(rows, {"step"}, true)) {
    std::vector<int64_t> gs, ge, gt;
    int64_t copies = 0;
    bool any = false;
    for (size_t i : g) {
      gs.push_back(s[i].i());
      ge.push_back(e[i].i());
      gt.push_back(t[i].i());
      if (t[i].i() == kMemory) {
        copies += e[i].i() - s[i].i();
        any = true;
      }
    }
    if (!any) continue;  // inner merge with the steps that have copies
    r.push_back(frame::Cell::integer(rank));
    step.push_back(frame::find_column(rows, "step")->cells[g.front()]);
    mem.push_back(frame::Cell::real(static_cast<double>(copies) / 1000.0));
    not_ov.push_back(frame::Cell::real(memory_not_overlapped_us(gs, ge, gt)));
  }
  return out;
}

frame::Cell minus(const frame::Cell& a, const frame::Cell& b) {
  if (a.is_null() || b.is_null()) return frame::Cell::null();
  if (a.kind == frame::Cell::Kind::kInt && b.kind == frame::Cell::Kind::kInt)
    return frame::Cell::integer(a.i() - b.i());
  return frame::Cell::real(a.num() - b.num());
}

frame::Cell plus(const frame::Cell& a, const frame::Cell& b) {
  if (a.is_null() || b.is_null()) return frame::Cell::null();
  if (a.kind == frame::Cell::Kind::kInt && b.kind == frame::Cell::Kind::kInt)
    return frame::Cell::integer(a.i() + b.i());
  return frame::Cell::real(a.num() + b.num());
}

// fillna(0) keeping pandas' dtype: a float column (numbers with NULLs or floats) becomes all
// floats.
void fill_zero(frame::FrameColumn& c) {
  const bool is_float = c.dtype() == frame::Dtype::kFloat64;
  for (auto& cell : c.cells) {
    if (cell.is_null()) cell = frame::Cell::integer(0);
    if (is_float) cell = frame::Cell::real(cell.num());
  }
}

std::string utc_stamp() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", std::gmtime(&t));
  return buf;
}

}  // namespace

std::string cluster_time_summary_communication_sql(bool steps) {
  return comm_query(steps);
}
std::string cluster_time_summary_overlap_sql(bool steps) {
  return memory_query(steps);
}

double memory_not_overlapped_us(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                const std::vector<int64_t>& type) {
  int64_t total = 0;
  int64_t cs = start[0], ce = start[0], ct = -1;
  for (size_t i = 0; i < start.size(); ++i) {
    if (ct == kMemory) {
      const int64_t te = start[i] > ce ? ce : start[i];
      if (cs < te) total += te - cs;
    }
    if (start[i] > ce) {
      ce = end[i];
      ct = type[i];
      cs = start[i];
    } else {
      ct = end[i] > ce ? type[i] : ct;
      cs = end[i] > ce ? ce : end[i];
      ce = end[i] > ce ? end[i] : ce;
    }
  }
  if (ct == kMemory) total += ce - cs;
  return static_cast<double>(total) / 1000.0;
}

bool ClusterTimeSummary::map(const RankDbPaths& paths, frame::FrameSet& out,
                             io::Diagnostics& diag) const {
  if (!communication_group_map::map_communication_groups(paths, out, diag)) return false;
  recipes::RankDb prof(paths.profiler_db, diag);
  recipes::RankDb ana(paths.analysis_db, diag);
  if (!prof.ok() || !ana.ok()) return false;
  const bool steps = prof.has_table("STEP_TIME");
  frame::Frame st;
  if (steps && !prof.query("SELECT id, startNs, endNs FROM STEP_TIME", {}, st, "STEP_TIME", diag))
    return false;
  frame::Frame step_time;
  auto& r = step_time.add("rank");
  auto& s = step_time.add("step");
  auto& t = step_time.add("stepTime");
  for (size_t i = 0; i < st.rows(); ++i) {
    r.push_back(frame::Cell::integer(paths.rank));
    s.push_back(st.columns[0].cells[i]);
    const frame::Cell d = minus(st.columns[2].cells[i], st.columns[1].cells[i]);
    t.push_back(d.is_null() ? d : frame::Cell::real(d.num() / 1000.0));
  }
  if (st.rows() == 0) {
    r.push_back(frame::Cell::integer(paths.rank));
    s.push_back(frame::Cell::integer(-1));
    t.push_back(frame::Cell::null());
  }
  out["step_time"] = std::move(step_time);
  if (ana.has_table("StepTraceTime")) {
    frame::Frame trace;
    if (!ana.query("SELECT step, computing, communication_not_overlapped, overlapped, "
                   "communication, free FROM StepTraceTime",
                   {}, trace, "StepTraceTime", diag))
      return false;
    for (auto& c : trace.columns[0].cells) {
      if (c.is_null()) c = frame::Cell::text("-1");
      if (c.kind == frame::Cell::Kind::kText) {
        char* endp = nullptr;
        const long long v = std::strtoll(c.str().c_str(), &endp, 10);
        if (c.str().empty() || *endp != '\0') {
          diag.error(paths.analysis_db, 0,
                     "table StepTraceTime: a step that is not a number (expected an integer)",
                     "msprof-analyze cannot summarise this job either");
          return false;
        }
        c = frame::Cell::integer(v);
      } else if (c.kind == frame::Cell::Kind::kReal) {
        // Truncated, as pandas' astype(int); infinite or beyond int64, pandas refuses it too
        // (and the conversion would be undefined).
        if (!(c.num() > -9.2e18 && c.num() < 9.2e18)) {
          diag.error(paths.analysis_db, 0,
                     "table StepTraceTime: step " + io::py_repr(c.num()) + " is not a step number",
                     "msprof-analyze cannot summarise this job either");
          return false;
        }
        c = frame::Cell::integer(static_cast<int64_t>(c.num()));
      }
    }
    trace.columns.push_front(frame::FrameColumn{"rank", {}, false});
    trace.columns.front().cells.assign(trace.columns[1].cells.size(),
                                       frame::Cell::integer(paths.rank));
    if (trace.rows() > 0) out["step_trace"] = std::move(trace);
  }
  for (const char* tbl : {"COMMUNICATION_OP", "RANK_DEVICE_MAP", "STRING_IDS", "CANN_API"})
    if (!prof.has_table(tbl)) return true;
  // The scans give the SQL's rows or decline, and then the SQL runs (and reports).
  TimeSummaryScan scan(prof.database());
  frame::Frame comm;
  const std::string comm_sql = comm_query(steps);
  if (!answer_query(
          "cluster_time_summary.communication",
          [&] { return scan.communication(comm_sql, kRange[0], kRange[1], comm); },
          [&] { return prof.query(comm_sql, kRange, comm, "COMMUNICATION_OP", diag); }))
    return false;
  if (comm.rows() > 0) out["communication"] = std::move(comm);
  if (!prof.has_table("TASK") || !prof.has_table("COMPUTE_TASK_INFO")) return true;
  frame::Frame mem;
  const std::string mem_sql = memory_query(steps);
  if (!answer_query(
          "cluster_time_summary.memory",
          [&] { return scan.overlap(mem_sql, kRange[0], kRange[1], mem); },
          [&] { return prof.query(mem_sql, kRange, mem, "TASK", diag); }))
    return false;
  if (mem.rows() > 0) out["memory"] = memory_frame(mem, paths.rank);
  return true;
}

bool ClusterTimeSummary::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                io::Diagnostics& diag) const {
  std::map<std::string, std::vector<const frame::Frame*>> by_kind;
  for (const auto& p : parts)
    if (p.used)
      for (const auto& [k, f] : p.frames)
        if (f.rows() > 0) by_kind[k].push_back(&f);
  auto all = [&](const char* k) {
    const auto& v = by_kind[k];
    return v.empty() ? frame::Frame{} : frame::concat_frames(v, frame::column_union(v));
  };
  const frame::Frame step_time = all("step_time"), trace = all("step_trace"),
                     comm = all("communication"), memory = all("memory");
  frame::Frame mapping;
  auto skip = [&](const std::string& why) {
    diag.warn(out.cluster_output_dir, 0, "cluster_time_summary: " + why, "nothing was written");
    return true;
  };
  if (step_time.rows() == 0 || trace.rows() == 0) return skip("no step time or step trace data");
  if (comm.rows() == 0 || !communication_group_map::build_group_mapping(parts, mapping))
    return skip("no communication data");
  // Transmit stage: the fastest instance of each (group, op, step); wait: the rest.
  const bool float_steps = frame::find_column(comm, "step")->dtype() == frame::Dtype::kFloat64;
  frame::Frame keyed = comm;
  for (auto& c : frame::find_column(keyed, "groupName")->cells)
    if (c.kind == frame::Cell::Kind::kText)
      c = frame::Cell::text(communication_group_map::double_hash_text(c.str()));
  const auto& ct = frame::find_column(keyed, "communication_time")->cells;
  std::vector<double> transmit(keyed.rows(), 0.0);
  std::vector<bool> kept(keyed.rows(), false);
  for (const auto& g : frame::group_rows(keyed, {"groupName", "opName", "step"}, false)) {
    double lo = std::numeric_limits<double>::infinity();
    for (size_t i : g)
      if (ct[i].is_number()) lo = std::min(lo, ct[i].num());
    for (size_t i : g) {
      transmit[i] = lo;
      kept[i] = true;
    }
  }
  frame::Frame stages;
  auto& tr = stages.add("rank");
  auto& ts = stages.add("step");
  auto& tw = stages.add("communicationWaitStageTime");
  auto& tt = stages.add("communicationTransmitStageTime");
  std::set<std::string> comm_ranks;
  for (const auto& g : frame::group_rows(keyed, {"rank", "step"}, true)) {
    std::vector<double> wait, trans;
    for (size_t i : g)
      if (kept[i]) {
        wait.push_back(ct[i].num() - transmit[i]);
        trans.push_back(transmit[i]);
      }
    if (wait.empty()) continue;
    tr.push_back(frame::find_column(keyed, "rank")->cells[g.front()]);
    const frame::Cell& st = frame::find_column(keyed, "step")->cells[g.front()];
    ts.push_back(float_steps ? frame::Cell::real(st.num()) : st);
    tw.push_back(frame::Cell::real(frame::kahan_sum(wait)));
    tt.push_back(frame::Cell::real(frame::kahan_sum(trans)));
  }
  for (const auto& c : frame::find_column(comm, "rank")->cells)
    comm_ranks.insert(frame::cell_key(c));
  if (stages.rows() == 0) return skip("no communication op in a step");
  // Outer merges on (rank, step), sorted by rank then step.
  const std::vector<const frame::Frame*> frames = {&step_time, &trace, &stages, &memory};
  std::map<std::pair<int64_t, std::string>, std::vector<std::pair<size_t, size_t>>> rows;
  std::map<std::pair<int64_t, std::string>, frame::Cell> step_cell;
  bool step_float = false;
  for (size_t f = 0; f < frames.size(); ++f) {
    const frame::Frame& fr = *frames[f];
    if (fr.rows() == 0) continue;
    const frame::FrameColumn* sc = frame::find_column(fr, "step");
    if (sc->dtype() == frame::Dtype::kFloat64) step_float = true;
    for (size_t i = 0; i < fr.rows(); ++i) {
      const auto key = std::make_pair(frame::find_column(fr, "rank")->cells[i].i(),
                                      frame::cell_key(sc->cells[i]));
      rows[key].emplace_back(f, i);
      step_cell.emplace(key, sc->cells[i]);
    }
  }
  std::vector<std::pair<int64_t, std::string>> keys;
  for (const auto& [k, _] : rows) keys.push_back(k);
  std::stable_sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return frame::compare_cells(step_cell[a], step_cell[b]) < 0;
  });
  const std::vector<std::pair<size_t, std::string>> value_cols = {
      {0, "stepTime"},
      {1, "computing"},
      {1, "communication_not_overlapped"},
      {1, "overlapped"},
      {1, "communication"},
      {1, "free"},
      {2, "communicationWaitStageTime"},
      {2, "communicationTransmitStageTime"},
      {3, "memory"},
      {3, "memoryNotOverlapComputationCommunication"}};
  frame::Frame res;
  auto& rank = res.add("rank");
  auto& step = res.add("step");
  for (const auto& [f, n] : value_cols) res.add(n);
  for (const auto& k : keys) {
    rank.push_back(frame::Cell::integer(k.first));
    const frame::Cell& sc = step_cell[k];
    step.push_back(step_float ? frame::Cell::real(sc.num()) : sc);
    for (size_t v = 0; v < value_cols.size(); ++v) {
      frame::Cell cell;
      for (const auto& [f, i] : rows[k])
        if (f == value_cols[v].first)
          if (const frame::FrameColumn* c = frame::find_column(*frames[f], value_cols[v].second))
            cell = c->cells[i];
      res.columns[2 + v].push_back(cell);
    }
  }
  for (size_t r = 0; r < res.rows(); ++r)
    if (res.columns[2].cells[r].is_null())
      res.columns[2].cells[r] =
          plus(plus(res.columns[3].cells[r], res.columns[4].cells[r]), res.columns[7].cells[r]);
  for (size_t c = 2; c < res.columns.size(); ++c) fill_zero(res.columns[c]);
  for (size_t r = 0; r < res.rows(); ++r)
    res.columns[7].cells[r] = minus(res.columns[7].cells[r], res.columns[11].cells[r]);
  if (comm_ranks.size() == 1)
    for (size_t c : {8, 9}) res.columns[c].cells.assign(res.rows(), frame::Cell::integer(0));
  if (out.export_type == ExportType::kDb) {
    const char* names[] = {"rank",
                           "step",
                           "stepTime",
                           "computation",
                           "communicationNotOverlapComputation",
                           "communicationOverlapComputation",
                           "communication",
                           "free",
                           "communicationWaitStageTime",
                           "communicationTransmitStageTime",
                           "memory",
                           "memoryNotOverlapComputationCommunication"};
    for (size_t c = 0; c < res.columns.size(); ++c) res.columns[c].name = names[c];
    return recipes::write_frame_sqlite(res, out.db_path(dir_name()), "ClusterTimeSummary", diag,
                                       out.threads);
  }
  const char* names[] = {"Rank",
                         "Step",
                         "Step Time(us)",
                         "Computation(us)",
                         "Communication Not Overlap Computation(us)",
                         "Communication Overlap Computation(us)",
                         "Communication(us)",
                         "Free(us)",
                         "Communication Wait Stage Time(us)",
                         "Communication Transmit Stage Time(us)",
                         "Memory(us)",
                         "Memory Not Overlap Computation Communication(us)"};
  for (size_t c = 0; c < res.columns.size(); ++c) res.columns[c].name = names[c];
  return recipes::write_frame_csv(
      res, out.dir(dir_name()) + "/cluster_time_summary_" + utc_stamp() + ".csv", diag);
}

}  // namespace cs::recipes::cluster_time_summary

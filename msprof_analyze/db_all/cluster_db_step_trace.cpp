#include "msprof_analyze/db_all/cluster_db_step_trace.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>

#include "db/database.h"
#include "db/string_ids.h"
#include "load/rank_parser.h"
#include "load/rank_spill.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "readers/profiler_info.h"
#include "readers/step_trace.h"
#include "runtime/task_runner.h"

namespace cs::db_all {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNoRow = "this rank has no row in ClusterStepTraceTime";

// msprof-analyze's query for the compute intervals, verbatim, so the rows come in its order.
constexpr const char* kComputeSql =
    "select TASK.startNs, TASK.endNs from COMPUTE_TASK_INFO JOIN TASK on TASK.globalTaskId = "
    "COMPUTE_TASK_INFO.globalTaskId";
constexpr const char* kCommSql = "select opName, startNs, endNs from COMMUNICATION_OP";

// Runs `sql` and hands each row's statement to `row`; false (with an error in diag) when SQLite
// fails or `row` refuses a row.
template <class F>
bool each_row(const db::Database& db, const char* sql, const char* table, io::Diagnostics& diag,
              F&& row) {
  auto st = db.prepare(sql, table, diag);
  if (!st) return false;
  for (;;) {
    const db::StepResult r = st->step(diag);
    if (r == db::StepResult::kDone) return true;
    if (r == db::StepResult::kError || !row(*st)) return false;
  }
}

// Both times of a row as integers (nanoseconds); false with an error naming the table otherwise.
bool times_at(const db::Statement& st, int first, const std::string& file, const char* table,
              io::Diagnostics& diag, documents::NsInterval& out) {
  const auto s = st.int64_at(first), e = st.int64_at(first + 1);
  if (!s || !e) {
    diag.error(file, 0,
               std::string(table) + " has a row whose startNs or endNs is NULL or not an integer",
               "check the profiler finished writing the database");
    return false;
  }
  // Beyond +-2^62 ns (146 years from 1970) no time is a profiler's, and differences of such
  // times would not fit in 64 bits.
  constexpr int64_t kLimit = int64_t{1} << 62;
  if (*s <= -kLimit || *s >= kLimit || *e <= -kLimit || *e >= kLimit) {
    diag.error(file, 0,
               std::string(table) + " has a row whose startNs or endNs is out of range (beyond " +
                   "2^62 ns from 1970)",
               "the database is damaged: re-export the rank's profile data");
    return false;
  }
  out.start = *s;
  out.end = *e;
  return true;
}

// An absent table the adapter reads: msprof-analyze stops with a TypeError there and writes no
// ClusterStepTraceTime at all; the profiler leaves out tables it has no rows for, so here the
// table counts as empty, said once per file.
void absent_table(const std::string& file, const char* table, io::Diagnostics& diag) {
  diag.warn(file, 0, std::string("no ") + table + " table; taken as empty",
            "msprof-analyze writes no ClusterStepTraceTime for this job (it fails on the missing "
            "table); clusterscope writes this rank's row without those intervals");
}

}  // namespace

std::string rank_db_file(const load::RankEntry& e, bool analysis) {
  for (const auto& rel : e.files) {
    std::string n = fs::path(rel).filename().string();
    bool is_analysis = n == "analysis.db" || n == "communication_analyzer.db";
    if (is_analysis == analysis && n.ends_with(".db")) return (fs::path(e.path) / rel).string();
  }
  return {};
}

bool has_whole_run_step_trace(const load::RankEntry& e) {
  return e.framework == load::Framework::kMindSpore || e.framework == load::Framework::kMsprof;
}

std::optional<documents::StepTraceTotals> read_whole_run_totals(const std::string& path,
                                                                io::Diagnostics& diag) {
  io::Diagnostics local;
  std::vector<documents::NsInterval> compute, comm;
  bool ok = false;
  if (auto db = db::Database::open(path, local)) {
    ok = true;
    if (!db->has_table("COMPUTE_TASK_INFO")) {
      absent_table(path, "COMPUTE_TASK_INFO", diag);
    } else {
      ok = each_row(*db, kComputeSql, "COMPUTE_TASK_INFO", local, [&](const db::Statement& st) {
        documents::NsInterval r;
        if (!times_at(st, 0, path, "TASK", local, r)) return false;
        compute.push_back(r);
        return true;
      });
    }
    if (ok && !db->has_table("COMMUNICATION_OP")) {
      absent_table(path, "COMMUNICATION_OP", diag);
    } else if (ok) {
      db::StringIds names;
      bool have_names = false;
      ok = each_row(*db, kCommSql, "COMMUNICATION_OP", local, [&](const db::Statement& st) {
        documents::NsInterval r;
        if (!times_at(st, 1, path, "COMMUNICATION_OP", local, r)) return false;
        if (!have_names) {  // msprof-analyze needs STRING_IDS once there is an op to name
          if (!names.load(*db, local)) return false;
          have_names = true;
        }
        const auto id = st.int64_at(0);
        r.receive = id && names.get_or_empty(*id).starts_with("hcom_receive");
        comm.push_back(r);
        return true;
      });
    }
  }
  if (!ok) {
    for (auto d : local.items()) {
      d.severity = io::Severity::kWarning;
      d.hint = d.hint.empty() ? kNoRow : d.hint + "; " + kNoRow;
      diag.add(std::move(d));
    }
    return std::nullopt;
  }
  return documents::whole_run_totals(std::move(compute), std::move(comm));
}

documents::ClusterStepTrace cluster_db_step_trace(const std::vector<load::RankEntry>& ranks,
                                                  documents::BuiltStepTrace* built, int threads,
                                                  io::Diagnostics& diag) {
  std::vector<const load::RankEntry*> by_rank;
  bool whole_run = false;
  for (const auto& e : ranks) {
    by_rank.push_back(&e);
    whole_run = whole_run || has_whole_run_step_trace(e);
  }
  std::stable_sort(by_rank.begin(), by_rank.end(),
                   [](const auto* a, const auto* b) { return a->rank < b->rank; });

  // The main run's rows when it read these ranks' DB exports (all steps); else read again.
  bool use_built = false;
  if (built && built->from_db_exports && !built->one_step) {
    std::vector<std::string> dirs, read = built->rank_dirs;
    for (const auto& e : ranks) dirs.push_back(e.path);
    std::sort(dirs.begin(), dirs.end());
    std::sort(read.begin(), read.end());
    use_built = dirs == read;
  }
  if (use_built && !whole_run) {
    try {
      return built->trace.take();
    } catch (const std::exception& e) {  // its spill file failed: the ranks are read again
      diag.warn("", 0,
                std::string("the main run's step trace could not be read back from its spill "
                            "file (") +
                    e.what() + "): the ranks are read again for ClusterStepTraceTime",
                "free space under $TMPDIR (or point TMPDIR elsewhere)");
      use_built = false;
    }
  }

  io::Diagnostics scratch;  // the main run reported what these readers find
  std::vector<load::RankData> data(by_rank.size());
  std::vector<io::Diagnostics> rank_diag(by_rank.size());
  load::ParseOptions parse;
  parse.kernels = false;
  // Each rank's parts wait on disk once it is read (held parsed, every rank's ops and matrix took
  // the root to 1.4 GB at 16,384 ranks); the groups and the rows read them back rank by rank.
  load::RankSpill spill;
  spill.open();
  const auto read_rank = [&](size_t i) {
    const load::RankEntry& e = *by_rank[i];
    if (!has_whole_run_step_trace(e) || !use_built) data[i] = load::parse_rank_db(e, parse);
    if (!has_whole_run_step_trace(e)) return;
    // msprof-analyze reads distributed_args only from the rank directory's profiler_metadata.json.
    load::RankData& d = data[i];
    d.entry = e;
    d.has_metadata = false;
    d.metadata = {};
    d.has_step_trace = false;
    d.step_trace = {};
    const fs::path meta = fs::path(e.path) / load::kMetadataJson;
    std::error_code ec;
    io::Diagnostics reported;  // by the main run, which reads the same file
    if (fs::is_regular_file(meta, ec))
      d.has_metadata = readers::read_profiler_metadata(meta.string(), d.metadata, reported);
    const auto totals = read_whole_run_totals(rank_db_file(e, false), rank_diag[i]);
    if (!totals) return;
    d.has_step_trace = true;
    readers::StepTraceFile& st = d.step_trace.edit();
    for (auto c : readers::kStepTraceColumns) st.columns.emplace_back(c);
    readers::StepTraceRow row;
    row.no_step = true;
    for (double v : documents::totals_in_us(*totals)) row.values.push_back(v);
    st.rows.push_back(std::move(row));
  };
  runtime::parallel_for(by_rank.size(), std::max(threads, 1), [&](size_t i) {
    read_rank(i);
    spill.park(data[i]);
  });
  for (const auto& d : rank_diag) diag.append(d);
  if (const std::string why = spill.problem(); !why.empty())
    diag.warn("", 0,
              "the ranks' data read for ClusterStepTraceTime could not be parked on disk (" + why +
                  "): it is held packed in memory instead",
              "free space under $TMPDIR (or point TMPDIR elsewhere) for less memory");

  std::vector<documents::PyIntSet> stages;
  if (use_built) {
    stages = built->trace.stages();
  } else {
    const documents::CommGroups groups = documents::build_comm_groups(data, {}, scratch);
    stages = documents::infer_stages(groups);
  }
  // msprof-analyze takes the stages from CommunicationGroupMapping, whose pg names come only from
  // the profiler databases' META_DATA: MindSpore's and msprof's hold no parallel_group_info, so
  // such a job has no stage rows, whatever profiler_metadata.json says.
  if (whole_run && std::none_of(by_rank.begin(), by_rank.end(), [](const load::RankEntry* e) {
        return recipes::communication_group_map::has_parallel_group_info(rank_db_file(*e, false));
      }))
    stages.clear();
  return documents::build_cluster_step_trace_staged(data, stages, scratch);
}

}  // namespace cs::db_all

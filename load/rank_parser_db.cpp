// parse_rank_db: one rank directory's DB export into RankData (see rank_parser.h).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "db/analysis_db.h"
#include "db/database.h"
#include "db/profiler_db.h"
#include "db/string_ids.h"
#include "load/rank_parser.h"
#include "memory/memory_db.h"
#include "readers/profiler_info.h"

namespace cs::load {

namespace fs = std::filesystem;

namespace {

bool is_profiler_db_name(std::string_view n) {
  return n.starts_with("ascend_pytorch_profiler") || n.starts_with("ascend_mindspore_profiler") ||
         n.starts_with("msprof_");
}

// The first error recorded after `before` errors, as a short text for the manifest.
std::string first_error(const io::Diagnostics& diag, size_t before) {
  size_t seen = 0;
  for (const auto& d : diag.items()) {
    if (d.severity != io::Severity::kError) continue;
    if (seen++ >= before) return d.what;
  }
  return "see diagnostics";
}

// One database file of the rank, opened on first use.
class DbFile {
 public:
  DbFile(RankData& d, std::string path) : d_(d), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string name() const { return fs::path(path_).filename().string(); }
  bool exists() const { return !path_.empty(); }

  // The database when an earlier get() opened it, else nullptr (never opens it).
  const db::Database* opened() const { return db_ ? &*db_ : nullptr; }

  // The open database, or nullptr (the failure recorded once as a problem).
  const db::Database* get() {
    if (tried_) return db_ ? &*db_ : nullptr;
    tried_ = true;
    if (path_.empty()) return nullptr;
    size_t before = d_.diagnostics.error_count();
    db_ = db::Database::open(path_, d_.diagnostics);
    if (!db_) {
      d_.entry.problems.push_back(name() + ": unreadable (" + first_error(d_.diagnostics, before) +
                                  ")");
      return nullptr;
    }
    ++d_.files_read;
    std::error_code ec;
    auto size = fs::file_size(path_, ec);
    if (!ec) d_.bytes_read += size;
    return &*db_;
  }

 private:
  RankData& d_;
  std::string path_;
  std::optional<db::Database> db_;
  bool tried_ = false;
};

// The rank's profiler level from its profiler_info_{N}.json ("" when unknown).
std::string profiler_level_of(const RankEntry& entry) {
  for (const auto& rel : entry.files) {
    if (!readers::rank_from_profiler_info_name(fs::path(rel).filename().string())) continue;
    readers::ProfilerInfo info;
    io::Diagnostics scratch;  // already read (and reported) by discovery
    if (readers::read_profiler_info((fs::path(entry.path) / rel).string(), info, scratch))
      return info.profiler_level;
  }
  return {};
}

// True when analysis.db opened but holds neither communication table: the profile was taken
// without communication analysis (Level0), which is the producer's choice, not damage. One
// problem and one warning say so, worded the same for every rank so they are printed once.
bool no_communication_analysis(DbFile& analysis, RankData& d) {
  if (!analysis.exists()) return false;
  const db::Database* db = analysis.get();
  if (!db || db->has_table("CommAnalyzerTime") || db->has_table("CommAnalyzerMatrix")) return false;
  const std::string level = profiler_level_of(d.entry);
  const std::string why = level.empty() ? std::string("the profile was taken without it")
                                        : "profiler_info says _profiler_level " + level;
  d.entry.problems.push_back("analysis.db: no communication analysis (" + why + ")");
  d.diagnostics.warn("", 0,
                     "analysis.db holds no communication analysis (CommAnalyzerTime and "
                     "CommAnalyzerMatrix are absent; " +
                         why + ")",
                     "communication outputs stay empty for these ranks; profile with "
                     "profiler_level Level1 or Level2 to analyse communication");
  return true;
}

}  // namespace

RankData parse_rank_db(const RankEntry& entry, const ParseOptions& opts) {
  RankData d;
  d.entry = entry;
  const size_t discovery_problems = d.entry.problems.size();
  std::string analysis_path, profiler_path;
  for (const auto& rel : entry.files) {
    std::string n = fs::path(rel).filename().string();
    std::string full = (fs::path(entry.path) / rel).string();
    if (n == "analysis.db" || n == "communication_analyzer.db") {
      if (analysis_path.empty()) analysis_path = full;
    } else if (is_profiler_db_name(n) && n.ends_with(".db") && profiler_path.empty()) {
      profiler_path = full;
    }
  }
  DbFile analysis(d, analysis_path);
  DbFile profiler(d, profiler_path);
  int wanted = 0, usable = 0;

  // Runs one table reader on `file`; records a missing file or a failed read as a problem.
  auto part = [&](DbFile& file, const char* file_label, const char* what_for, auto&& read) {
    ++wanted;
    if (!file.exists()) {
      d.entry.problems.push_back(std::string(file_label) + ": missing (needed for " + what_for +
                                 ")");
      return false;
    }
    const db::Database* db = file.get();
    if (!db) return false;
    size_t before = d.diagnostics.error_count();
    bool ok = read(*db);
    size_t new_errors = d.diagnostics.error_count() - before;
    if (!ok) {
      d.entry.problems.push_back(file.name() + ": " + first_error(d.diagnostics, before) +
                                 " (needed for " + what_for + ")");
    } else if (new_errors > 0) {
      d.entry.problems.push_back(file.name() + ": " + std::to_string(new_errors) +
                                 " problem(s), partly read (" + first_error(d.diagnostics, before) +
                                 ")");
    }
    usable += ok;
    return ok;
  };

  // Metadata: profiler_metadata.json when the producer wrote it, else META_DATA (optional).
  const fs::path meta_json = fs::path(entry.path) / kMetadataJson;
  std::error_code ec;
  if (fs::is_regular_file(meta_json, ec)) {
    d.has_metadata = readers::read_profiler_metadata(meta_json.string(), d.metadata, d.diagnostics);
    if (d.has_metadata) {
      ++d.files_read;
      d.bytes_read += fs::file_size(meta_json, ec);
    }
  } else if (profiler.exists()) {
    if (const db::Database* db = profiler.get()) {
      d.has_metadata = db::read_meta_data(*db, d.metadata, d.diagnostics);
    }
  }

  const std::string step_name = opts.step ? "step" + std::to_string(*opts.step) : std::string();
  const bool no_comm =
      (opts.communication || opts.matrix) && no_communication_analysis(analysis, d);
  if (opts.communication && !no_comm) {
    d.has_communication =
        part(analysis, "analysis.db", "communication analysis", [&](const db::Database& db) {
          bool ok = db::read_communication_db(db, d.communication.edit(), d.diagnostics);
          if (ok && opts.step) {
            std::erase_if(d.communication.edit().steps,
                          [&](const readers::CommStep& s) { return s.step != step_name; });
          }
          return ok;
        });
  }
  if (opts.matrix && !no_comm) {
    d.has_matrix =
        part(analysis, "analysis.db", "the communication matrix", [&](const db::Database& db) {
          bool ok = db::read_matrix_db(db, d.matrix.edit(), d.diagnostics);
          if (ok && opts.step) {
            std::erase_if(d.matrix.edit().steps,
                          [&](const readers::MatrixStep& s) { return s.step != step_name; });
          }
          return ok;
        });
  }
  // MindSpore's and CANN msprof's communication_analyzer.db has no StepTraceTime: their step
  // trace is the whole-run row -m all computes from the profiler database
  // (msprof_analyze/db_all/cluster_db_step_trace), as msprof-analyze does.
  const bool analyzer_without_steps =
      (entry.framework == Framework::kMindSpore || entry.framework == Framework::kMsprof) &&
      analysis.exists() && analysis.get() && !analysis.get()->has_table("StepTraceTime");
  if (opts.step_trace && !analyzer_without_steps) {
    d.has_step_trace =
        part(analysis, "analysis.db", "step trace analysis", [&](const db::Database& db) {
          readers::StepTraceFile& st = d.step_trace.edit();
          bool ok = db::read_step_trace_db(db, st, d.diagnostics);
          if (ok && opts.step) {
            const std::string want = std::to_string(*opts.step);
            std::erase_if(st.rows, [&](const readers::StepTraceRow& r) {
              return !r.step.empty() && r.step != want;
            });
          }
          return ok;
        });
  }
  // The profiler database's STRING_IDS, once loaded without a diagnostic (shared with the host
  // side).
  std::optional<db::StringIds> profiler_strings;
  if (opts.kernels) {
    const char* label = "ascend_pytorch_profiler_{N}.db";
    d.has_kernels = part(profiler, label, "operator statistics", [&](const db::Database& db) {
      const size_t diag_before = d.diagnostics.items().size() + d.diagnostics.error_count() +
                                 d.diagnostics.warning_count();
      db::StringIds strings;
      if (!strings.load(db, d.diagnostics)) return false;
      const bool clean = d.diagnostics.items().size() + d.diagnostics.error_count() +
                             d.diagnostics.warning_count() ==
                         diag_before;
      const int rank = entry.rank;
      if (!db::read_compute_kernels(
              db, strings,
              [&](const readers::KernelRecord& k) {
                if (opts.step && k.step_id >= 0 && k.step_id != *opts.step) return;
                d.operators.edit().add(operator_key(k, opts.group_by), k.duration_us, rank);
              },
              d.diagnostics))
        return false;
      // The collectives (COMMUNICATION_OP): kernel_details.csv lists them as hcom_* rows, so
      // the text export counts them among the operators too.
      std::vector<db::StepTime> steps;
      if (opts.step && !db::read_step_time(db, steps, d.diagnostics)) steps.clear();
      const bool ok = db::read_communication_ops(
          db, strings,
          [&](const db::CommunicationOp& op) {
            if (opts.step && !steps.empty()) {
              const double start_ns = op.start_us * 1000.0;
              for (const auto& st : steps) {
                if (start_ns < static_cast<double>(st.start_ns) ||
                    start_ns > static_cast<double>(st.end_ns))
                  continue;
                if (st.id != *opts.step) return;
                break;
              }
            }
            readers::KernelRecord k;
            k.name = op.name;
            k.type = op.type;
            k.start_us = op.start_us;
            k.duration_us = op.duration_us;
            d.operators.edit().add(operator_key(k, opts.group_by), k.duration_us, rank);
          },
          d.diagnostics);
      if (clean) profiler_strings = std::move(strings);
      return ok;
    });
  }
  // The host side reads the same profiler database: the one already open is shared.
  if (opts.host)
    parse_rank_host(d, opts, profiler.opened(), profiler.path(),
                    profiler_strings ? &*profiler_strings : nullptr);

  if (opts.memory && profiler.exists()) {  // optional: MEMORY_RECORD, NPU_MEM, OP_MEMORY
    if (const db::Database* db = profiler.get()) {
      std::vector<db::StepTime> st;
      std::vector<memory::StepRange> ranges;
      if (db::read_step_time(*db, st, d.diagnostics))
        for (const auto& s : st) ranges.push_back({s.id, s.start_ns, s.end_ns});
      d.memory = memory::read_memory_db(*db, ranges, d.diagnostics);
    }
  }

  if (wanted > 0 && usable == 0) {
    d.entry.status = RankStatus::kSkipped;
  } else if (d.entry.problems.size() > discovery_problems) {
    d.entry.status = RankStatus::kPartial;
  } else {
    d.entry.status = RankStatus::kOk;
  }
  return d;
}

}  // namespace cs::load

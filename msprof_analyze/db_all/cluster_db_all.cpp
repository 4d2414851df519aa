#include "msprof_analyze/db_all/cluster_db_all.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "db/analysis_db.h"
#include "db/database.h"
#include "db/profiler_db.h"
#include "io/diagnostics_print.h"
#include "io/output_file.h"
#include "io/output_ledger.h"
#include "io/sqlite/table_reader.h"
#include "load/discovery.h"
#include "load/rank_parser.h"
#include "msprof_analyze/db_all/cluster_db_step_trace.h"
#include "msprof_analyze/documents/cluster_step_trace.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/recipes/communication_sums_map.h"
#include "msprof_analyze/recipes/recipe_run.h"
#include "readers/distributed_args_json.h"
#include "runtime/cpu_cores.h"
#include "runtime/exit_status.h"
#include "runtime/task_runner.h"

namespace cs::db_all {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDbName = "cluster_analysis.db";

// msprof-analyze's DDL for the tables written here (its tables_config), verbatim.
constexpr const char* kHostInfoDdl = "CREATE TABLE HostInfo(hostUid TEXT,hostName TEXT)";
constexpr const char* kRankDeviceMapDdl =
    "CREATE TABLE RankDeviceMap(rankId INTEGER,deviceId INTEGER,hostUid TEXT,profilePath TEXT)";
constexpr const char* kStepTraceDdl =
    "CREATE TABLE ClusterStepTraceTime(step TEXT,type TEXT,\"index\" TEXT,computing NUMERIC,"
    "communication_not_overlapped NUMERIC,overlapped NUMERIC,communication NUMERIC,free NUMERIC,"
    "stage NUMERIC,bubble NUMERIC,communication_not_overlapped_and_exclude_receive NUMERIC,"
    "preparing NUMERIC,dp_index INTEGER,pp_index INTEGER,tp_index INTEGER)";
constexpr int kStepTraceColumns = 15;
constexpr const char* kBaseInfoDdl = "CREATE TABLE ClusterBaseInfo(key TEXT,value TEXT)";

// The rank directories below the input directory, as the recipes discover them.
load::DiscoveryResult discover(const ClusterDbOptions& opts) {
  load::DiscoveryOptions d;
  d.rank_filter = opts.rank_filter;
  d.data_type = load::DataType::kAuto;
  return load::discover_ranks(opts.input_dir, d);
}

// The rank directories whose DB export is read (as discovery chooses with DB first).
std::vector<load::RankEntry> db_ranks(const load::DiscoveryResult& found) {
  std::vector<load::RankEntry> out;
  for (const auto& e : found.ranks)
    if (e.export_type == load::ExportType::kDb) out.push_back(e);
  return out;
}

// True when every rank directory found is read as a DB export (db_ranks would copy them all).
bool all_db(const load::DiscoveryResult& found) {
  for (const auto& e : found.ranks)
    if (e.export_type != load::ExportType::kDb) return false;
  return true;
}

// True when some rank's analysis.db has the communication time table (then the two
// communication recipes run): the first such rank answers.
bool any_communication_table(const std::vector<load::RankEntry>& ranks) {
  for (const auto& e : ranks) {
    io::Diagnostics diag;
    std::string path = rank_db_file(e, true);
    if (path.empty()) continue;
    auto db = db::Database::open(path, diag);
    if (db && db->has_table(db::kCommTimeTable)) return true;
  }
  return false;
}

// One statement run to completion with bound values; false on any SQLite error.
class Writer {
 public:
  explicit Writer(sqlite3* db) : db_(db) {}
  bool exec(const char* sql) {
    return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  bool prepare(const char* sql) {
    sqlite3_finalize(st_);
    st_ = nullptr;
    return sqlite3_prepare_v2(db_, sql, -1, &st_, nullptr) == SQLITE_OK;
  }
  void text(int i, std::string_view s) {
    // An empty view may have no data: "" keeps it the empty text, not NULL.
    sqlite3_bind_text(st_, i, s.empty() ? "" : s.data(), static_cast<int>(s.size()),
                      SQLITE_TRANSIENT);
  }
  void integer(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void num(int i, io::Num n) {
    if (n.is_int) {
      sqlite3_bind_int64(st_, i, static_cast<int64_t>(n.v));
    } else {
      sqlite3_bind_double(st_, i, n.v);
    }
  }
  bool row() {
    bool ok = sqlite3_step(st_) == SQLITE_DONE;
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
    return ok;
  }
  ~Writer() { sqlite3_finalize(st_); }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// One rank's HOST_INFO row and RANK_DEVICE_MAP; empty when it has not both (left out, as
// msprof-analyze does).
struct RankHost {
  std::string uid, name, path;
  std::vector<std::pair<int64_t, int64_t>> map;  // (rank, device)
};

// A value as db::Statement::text_at gives it (NULL as empty, an integer in decimal); false for a
// real or a blob, whose text SQLite formats itself.
bool text_like_sqlite(const io::sqlite::StoredValue& v, std::string& out) {
  using Kind = io::sqlite::StoredValue::Kind;
  if (v.kind == Kind::kText)
    out.assign(v.bytes);
  else if (v.kind == Kind::kNull)
    out.clear();
  else if (v.kind == Kind::kInt)
    out = std::to_string(v.i);
  else
    return false;
  return true;
}

// A value as db::Statement::int64_at gives it.
std::optional<int64_t> int64_like_sqlite(const io::sqlite::StoredValue& v) {
  using Kind = io::sqlite::StoredValue::Kind;
  if (v.kind == Kind::kInt) return v.i;
  if (v.kind == Kind::kReal) return db::int64_of_real(v.r);
  if (v.kind == Kind::kText) return db::int64_of_text(v.bytes);
  return std::nullopt;
}

// read_rank_host's two queries answered from the file's pages (io/sqlite/table_reader), without
// SQLite parsing the profiler database's whole schema; false when the reader declines.
bool read_rank_host_direct(const std::string& path, std::string& uid, std::string& name,
                           std::vector<std::pair<int64_t, int64_t>>& map) {
  std::vector<std::string> columns;
  bool ok = true, row = false;
  const auto host = io::sqlite::read_table(
      path, "HOST_INFO", columns, [&](const std::vector<io::sqlite::StoredValue>& v) {
        const int u = io::sqlite::column_index(columns, "hostUid"),
                  n = io::sqlite::column_index(columns, "hostName");
        ok = u >= 0 && n >= 0 && text_like_sqlite(v[static_cast<size_t>(u)], uid) &&
             text_like_sqlite(v[static_cast<size_t>(n)], name);
        row = true;
        return false;  // LIMIT 1
      });
  if (host == io::sqlite::TableRead::kNoTable) return true;  // no row: left out
  if (host != io::sqlite::TableRead::kRead || !ok) return false;
  if (!row) return true;
  const auto ranks = io::sqlite::read_table(
      path, "RANK_DEVICE_MAP", columns, [&](const std::vector<io::sqlite::StoredValue>& v) {
        const int r = io::sqlite::column_index(columns, "rankId"),
                  d = io::sqlite::column_index(columns, "deviceId");
        if (r < 0 || d < 0) return false;  // SQLite's query fails: no map, as here
        const auto rank = int64_like_sqlite(v[static_cast<size_t>(r)]);
        const auto device = int64_like_sqlite(v[static_cast<size_t>(d)]);
        if (rank && device) map.emplace_back(*rank, *device);
        return true;
      });
  if (ranks == io::sqlite::TableRead::kDeclined) return false;
  if (io::sqlite::column_index(columns, "rankId") < 0 ||
      io::sqlite::column_index(columns, "deviceId") < 0)
    map.clear();
  return true;
}

// read_rank_host's two queries through SQLite.
void read_rank_host_sqlite(const std::string& path, std::string& uid, std::string& name,
                           std::vector<std::pair<int64_t, int64_t>>& map) {
  io::Diagnostics diag;  // a rank without the tables is left out, as msprof-analyze does
  auto db = db::Database::open(path, diag);
  if (!db || !db->has_table("HOST_INFO")) return;
  auto st = db->prepare("SELECT hostUid, hostName FROM HOST_INFO LIMIT 1", "HOST_INFO", diag);
  if (!st || st->step(diag) != db::StepResult::kRow) return;
  uid = st->text_at(0);
  name = st->text_at(1);
  map = db::read_rank_device_map(*db, diag);
}

RankHost read_rank_host(const load::RankEntry& e) {
  RankHost h;
  std::string path = rank_db_file(e, false);
  if (path.empty()) return h;
  std::string uid, name;
  std::vector<std::pair<int64_t, int64_t>> map;
  if (!read_rank_host_direct(path, uid, name, map)) {
    uid.clear(), name.clear(), map.clear();
    read_rank_host_sqlite(path, uid, name, map);
  }
  if (uid.empty() || name.empty() || map.empty()) return h;
  h.uid = std::move(uid);
  h.name = std::move(name);
  h.map = std::move(map);
  h.path = fs::absolute(e.path).lexically_normal().string();
  while (h.path.size() > 1 && h.path.back() == '/') h.path.pop_back();
  return h;
}

// HostInfo and RankDeviceMap; the ranks' databases are read on `threads` threads.
bool write_host_tables(Writer& w, const std::vector<load::RankEntry>& ranks, int threads) {
  std::vector<RankHost> read(ranks.size());
  runtime::parallel_for(ranks.size(), std::max(threads, 1),
                        [&](size_t i) { read[i] = read_rank_host(ranks[i]); });
  std::vector<std::pair<std::string, std::string>> hosts;  // first-seen order, unique uid
  struct Row {
    int64_t rank, device;
    std::string uid, path;
  };
  std::vector<Row> rows;
  for (const RankHost& h : read) {
    if (h.map.empty()) continue;
    bool seen = false;
    for (auto& known : hosts) {
      if (known.first == h.uid) {
        known.second = h.name;
        seen = true;
      }
    }
    if (!seen) hosts.emplace_back(h.uid, h.name);
    for (auto [r, d] : h.map) rows.push_back({r, d, h.uid, h.path});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.rank, a.device, a.uid, a.path) < std::tie(b.rank, b.device, b.uid, b.path);
  });
  if (!hosts.empty()) {
    if (!w.exec(kHostInfoDdl) || !w.prepare("INSERT INTO HostInfo VALUES (?,?)")) return false;
    for (const auto& [uid, name] : hosts) {
      w.text(1, uid);
      w.text(2, name);
      if (!w.row()) return false;
    }
  }
  if (!rows.empty()) {
    if (!w.exec(kRankDeviceMapDdl) || !w.prepare("INSERT INTO RankDeviceMap VALUES (?,?,?,?)"))
      return false;
    for (const auto& r : rows) {
      w.integer(1, r.rank);
      w.integer(2, r.device);
      w.text(3, r.uid);
      w.text(4, r.path);
      if (!w.row()) return false;
    }
  }
  return true;
}

// A stage row's index as msprof-analyze writes it into the database, "(" + ",".join(ranks) + ")",
// from the text export's str(tuple): "(0, 1, 2, 3)" -> "(0,1,2,3)", "(5,)" -> "(5)".
std::string db_stage_index(std::string_view tuple_str) {
  std::string out;
  for (char c : tuple_str)
    if (c != ' ') out += c;
  if (out.size() >= 2 && out[out.size() - 2] == ',') out.erase(out.size() - 2, 1);
  return out;
}

bool write_step_trace(Writer& w, const documents::ClusterStepTrace& t) {
  if (t.empty()) return true;
  if (!w.exec(kStepTraceDdl) ||
      !w.prepare("INSERT INTO ClusterStepTraceTime VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"))
    return false;
  for (size_t r = 0; r < t.row_count(); ++r) {
    const documents::ClusterStepTrace::Row row = t.row(r);
    const bool stage =
        row.size() > 1 && row[1].kind == documents::StepCell::kString && row[1].s == "stage";
    int i = 1;
    for (size_t k = 0; k < row.size(); ++k) {
      const documents::StepCell c = row[k];
      if (i > kStepTraceColumns) break;
      if (stage && i == 3) {
        w.text(i, db_stage_index(c.s));
      } else if (c.kind == documents::StepCell::kNull) {
        // None: left unbound, NULL
      } else if (c.kind == documents::StepCell::kString) {
        w.text(i, c.s);
      } else {
        w.num(i, c.n);
      }
      ++i;
    }
    for (; i <= kStepTraceColumns; ++i) w.integer(i, 0);  // msprof-analyze pads with 0
    if (!w.row()) return false;
  }
  return true;
}

// ClusterBaseInfo: one row ("distributed_args", json.dumps of the first rank's distributed_args
// without "rank"), as msprof-analyze writes it for DB input. msprof-analyze takes the first
// profiler_metadata.json its directory walk meets that has distributed_args (file-system order);
// here the lowest rank's, so the choice does not depend on the file system. Without any, no table.
bool write_base_info(Writer& w, const std::vector<load::RankEntry>& ranks) {
  std::vector<const load::RankEntry*> by_rank;
  for (const auto& e : ranks) by_rank.push_back(&e);
  std::sort(by_rank.begin(), by_rank.end(),
            [](const auto* a, const auto* b) { return a->rank < b->rank; });
  for (const auto* e : by_rank) {
    io::Diagnostics diag;  // an unreadable metadata file is reported by the main run
    auto args = readers::distributed_args_python_json(
        (fs::path(e->path) / load::kMetadataJson).string(), diag);
    if (!args) continue;
    if (*args == "{}") return true;  // only "rank": msprof-analyze stops here and writes no row
    if (!w.exec(kBaseInfoDdl) || !w.prepare("INSERT INTO ClusterBaseInfo VALUES (?,?)"))
      return false;
    w.text(1, "distributed_args");
    w.text(2, *args);
    return w.row();
  }
  return true;
}

}  // namespace

bool job_has_db_export(const mpi::MpiSession& mpi, ClusterDbOptions& opts) {
  bool any = false;
  {
    mpi::MpiSession::RootAlone alone(mpi, "db-discover", "looked for the ranks' databases");
    if (mpi.is_root()) {
      auto found = std::make_shared<load::DiscoveryResult>(discover(opts));
      any = std::any_of(found->ranks.begin(), found->ranks.end(), [](const load::RankEntry& e) {
        return e.export_type == load::ExportType::kDb;
      });
      opts.discovered = std::move(found);
    }
  }
  return mpi.any(any);
}

int write_cluster_analysis_db(const mpi::MpiSession& mpi, const ClusterDbOptions& opts) {
  const fs::path out_dir = fs::path(opts.output_dir) / "cluster_analysis_output";
  const fs::path tmp = out_dir / ".cluster_analysis_db.tmp";
  // The root's listing, handed to the recipes too: the one the caller made (shared, not copied)
  // or the job walked here.
  std::shared_ptr<const load::DiscoveryResult> found;
  // The rank directories whose DB export is read: found's own listing when every rank is one
  // (no copy), else those ranks copied into `filtered`.
  std::vector<load::RankEntry> filtered;
  const std::vector<load::RankEntry>* db_only = &filtered;
  // Lists the job (or takes the caller's listing) and picks the DB ranks from it.
  const auto list_job = [&] {
    found =
        opts.discovered ? opts.discovered : std::make_shared<load::DiscoveryResult>(discover(opts));
    if (all_db(*found)) {
      db_only = &found->ranks;
    } else {
      filtered = db_ranks(*found);
      db_only = &filtered;
    }
  };
  bool has_comm = false;
  bool recipes_write_failed = false;  // a communication table could not be written (root)
  std::optional<mpi::MpiSession::RootAlone> alone;  // the root works alone, watched
  alone.emplace(mpi, "db-discover", "looked for the ranks' databases");
  if (mpi.is_root()) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    list_job();
    has_comm = any_communication_table(*db_only);
  }
  alone.reset();
  if (mpi.any(has_comm)) {
    recipes::RecipeRunOptions r;
    r.input_dir = opts.input_dir;
    r.output_dir = tmp.string();
    r.rank_filter = opts.rank_filter;
    r.export_type = recipes::ExportType::kDb;
    r.quiet = true;
    r.threads = opts.threads;
    r.in_temporary_dir = true;
    r.discovered = mpi.is_root() ? found.get() : nullptr;
    r.write_failed = &recipes_write_failed;
    // A listing walked here is not held through the recipes' reduce (at 16,384 ranks about
    // 11 MB at the root's peak): it is walked again for the tables below (about 1 s).
    r.listing_read = [&] {
      if (opts.discovered) return;
      std::vector<load::RankEntry>().swap(filtered);
      found.reset();
      db_only = nullptr;
    };
    // Each rank read once for both recipes; their problems are printed by them, recipe after
    // recipe; the other tables are still written.
    recipes::run_recipes_jointly(mpi, r, recipes::kCommunicationSums,
                                 recipes::map_communication_sums);
  }
  int code = runtime::kExitOk;
  alone.emplace(mpi, "db-write", "wrote cluster_analysis.db");
  if (mpi.is_root()) {
    if (!db_only) list_job();  // (released once the recipes had read it)
    const std::vector<load::RankEntry>& ranks = *db_only;
    std::error_code ec;
    const fs::path tmp_db = tmp / "cluster_analysis_output" / kDbName;
    fs::create_directories(tmp_db.parent_path(), ec);
    io::Diagnostics publish_diag;
    const std::string final_db = (out_dir / kDbName).string();
    io::OutputLedger::instance().started(final_db);
    sqlite3* db = nullptr;
    // A communication table that could not be written (its reason printed by the recipe) leaves
    // the database incomplete: nothing is published.
    bool ok = !recipes_write_failed && !ec && sqlite3_open(tmp_db.c_str(), &db) == SQLITE_OK;
    if (ok) {
      Writer w(db);
      io::Diagnostics step_diag;
      const documents::ClusterStepTrace trace = cluster_db_step_trace(
          ranks, opts.step_trace, runtime::threads_per_process(opts.threads, 1), step_diag);
      io::print_diagnostics_grouped(step_diag, opts.quiet);
      ok = w.exec("BEGIN") &&
           write_host_tables(w, ranks, runtime::threads_per_process(opts.threads, 1)) &&
           write_base_info(w, ranks) && write_step_trace(w, trace) && w.exec("COMMIT");
    }
    if (db) sqlite3_close(db);
    if (ok) {
      ok = io::publish_output(tmp_db.string(), final_db, publish_diag);
    } else {
      io::OutputLedger::instance().failed(final_db);
    }
    if (!ok) {
      std::fprintf(stderr,
                   "clusterscope: %s: cannot write %s \u2014 check the output directory is "
                   "writable and has space\n",
                   (out_dir / kDbName).c_str(), kDbName);
      code = runtime::kExitFatal;
    } else if (!opts.quiet) {
      std::printf("cluster_analysis.db: %s\n", (out_dir / kDbName).c_str());
    }
    fs::remove_all(tmp, ec);
  }
  alone.reset();
  return static_cast<int>(mpi.max(code));
}

}  // namespace cs::db_all

#include "msprof_analyze/recipes/p2p_pairing/p2p_pairing.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>

#include "frame/frame_ops.h"
#include "io/output_file.h"
#include "io/output_ledger.h"
#include "msprof_analyze/recipes/p2p_pairing/p2p_scan.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace fs = std::filesystem;

namespace cs::recipes::p2p_pairing {

namespace {

// Each task of a communication op with the op's name, start, group and the rank's local ranks
// (the tasks of ops launched in the step range; no step range: every op).
constexpr const char* kQuery = R"(
SELECT co.opName, op_name.value, co.startNs, cti.srcRank, cti.dstRank, task_type.value,
       co_group.value, cti_group.value
FROM COMMUNICATION_TASK_INFO cti
     LEFT JOIN COMMUNICATION_OP co ON cti.opId = co.opId
     CROSS JOIN RANK_DEVICE_MAP rdm
     JOIN STRING_IDS cti_group ON cti.groupName = cti_group.id
     JOIN STRING_IDS co_group ON co.groupName = co_group.id
     JOIN STRING_IDS op_name ON co.opName = op_name.id
     JOIN STRING_IDS task_type ON cti.taskType = task_type.id
     JOIN CANN_API ON CANN_API.connectionId = co.connectionId
WHERE CANN_API.startNs >= ? AND CANN_API.startNs <= ?)";

enum Col { kNameId, kName, kStart, kSrc, kDst, kTaskType, kCoGroup, kCtiGroup };

constexpr int64_t kInvalidRank = 4294967295;  // msprof-analyze's stand-in for "no peer"

// "<digits>_<digits>_<digits>" to the end of `s` from `at`.
bool three_numbers(std::string_view s, size_t at) {
  for (int k = 0; k < 3; ++k) {
    const size_t from = at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') ++at;
    if (at == from) return false;
    if (k < 2 && (at == s.size() || s[at++] != '_')) return false;
  }
  return at == s.size();
}

// msprof-analyze's ^hcom_([Ss]end|[Rr](ecv|eceive))__\d+_\d+_\d+$ (without regex: every task
// row is tested).
bool is_p2p_name(std::string_view s) {
  if (!s.starts_with("hcom_")) return false;
  s.remove_prefix(5);
  for (std::string_view kind : {"Send__", "send__", "Recv__", "recv__", "Receive__", "receive__"})
    if (s.starts_with(kind)) return three_numbers(s, kind.size());
  return false;
}

// msprof-analyze's [Rr]ecv|[Rr]eceive.
bool is_receive(std::string_view s) {
  for (std::string_view w : {"Recv", "recv", "Receive", "receive"})
    if (s.find(w) != std::string_view::npos) return true;
  return false;
}

void skip(const RankDbPaths& paths, const std::string& why, io::Diagnostics& diag) {
  diag.warn(paths.profiler_db, 0, why, "this rank gets no opConnectionId (it has no p2p pairs)");
}

// The ops of this rank's rows as msprof-analyze's fine filtering leaves them, sorted by name and
// name id (its groupby); empty with a warning when nothing is left.
std::vector<P2POp> p2p_ops(const frame::Frame& rows, const RankDbPaths& paths,
                           io::Diagnostics& diag) {
  const auto& c = rows.columns;
  auto cell = [&](size_t r, Col k) -> const frame::Cell& { return c[k].cells[r]; };
  // 1. Send/receive ops whose tasks belong to the op's group; 2. their notify tasks.
  std::vector<size_t> keep;
  size_t mismatched = 0;
  for (size_t r = 0; r < rows.rows(); ++r) {
    if (!is_p2p_name(cell(r, kName).str())) continue;
    if (!(cell(r, kCoGroup) == cell(r, kCtiGroup))) {
      ++mismatched;
      continue;
    }
    keep.push_back(r);
  }
  if (mismatched > 0)
    diag.warn(paths.profiler_db, 0,
              std::to_string(mismatched) +
                  " task(s) of send/receive ops name another group than their op",
              "they are left out (check COMMUNICATION_TASK_INFO of this database)");
  if (keep.empty()) {
    skip(paths, "no send or receive op", diag);
    return {};
  }
  std::vector<size_t> notify;
  for (size_t r : keep) {
    const std::string& t = cell(r, kTaskType).str();
    if (t == "Notify_Record" || t == "Notify_Wait") notify.push_back(r);
  }
  if (notify.empty()) {
    skip(paths, "no Notify_Record / Notify_Wait task of a send or receive", diag);
    return {};
  }
  // 3. Per op name: one source and one peer rank (pandas nunique: NULLs do not count); the peer
  // is the first task's (NULL: msprof-analyze's invalid rank).
  struct Ranks {
    std::set<int64_t> src, dst;
    frame::Cell first_dst;
    bool seen = false;
  };
  std::map<std::string, Ranks> by_name;
  for (size_t r : notify) {
    Ranks& k = by_name[cell(r, kName).str()];
    if (!k.seen) k.first_dst = cell(r, kDst), k.seen = true;
    if (!cell(r, kSrc).is_null()) k.src.insert(cell(r, kSrc).i());
    if (!cell(r, kDst).is_null()) k.dst.insert(cell(r, kDst).i());
  }
  bool ambiguous = false;
  // 4. One op per (name, name id): the first start and source rank of its tasks.
  std::map<std::pair<std::string, int64_t>, P2POp> ops;
  for (size_t r : notify) {
    const std::string& name = cell(r, kName).str();
    const Ranks& k = by_name[name];
    if (k.src.size() != 1 || k.dst.size() != 1) {
      ambiguous = true;
      continue;
    }
    auto [it, added] = ops.try_emplace({name, cell(r, kNameId).i()});
    P2POp& op = it->second;
    if (added) {
      op.name = name;
      op.name_id = cell(r, kNameId).i();
      op.start_ns = std::numeric_limits<int64_t>::min();
      op.src = *k.src.begin();
      op.dst = k.first_dst.is_null() ? kInvalidRank : k.first_dst.i();
    }
    if (op.start_ns == std::numeric_limits<int64_t>::min() && !cell(r, kStart).is_null())
      op.start_ns = cell(r, kStart).i();
  }
  if (ambiguous)
    diag.warn(paths.profiler_db, 0, "send/receive ops whose tasks name several peer ranks",
              "they are left out (check COMMUNICATION_TASK_INFO of this database)");
  if (ops.empty()) {
    skip(paths, "no send or receive op with one peer rank", diag);
    return {};
  }
  std::vector<P2POp> out;
  out.reserve(ops.size());
  for (auto& [_, op] : ops) {
    // A receive names itself first: the pair is (sender, receiver) on both sides.
    if (is_receive(op.name)) std::swap(op.src, op.dst);
    out.push_back(std::move(op));
  }
  return out;
}

bool exec(sqlite3* db, const std::string& sql, const std::string& path, io::Diagnostics& diag) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return true;
  diag.error(path, 0, std::string("cannot add opConnectionId: ") + (err ? err : "SQLite error"),
             "check that the output directory is writable and has free space");
  sqlite3_free(err);
  return false;
}

// True when the database file's header says WAL mode (bytes 18 and 19 are 2).
bool wal_mode(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  unsigned char h[20] = {};
  const bool read = f && std::fread(h, 1, sizeof h, f) == sizeof h;
  if (f) std::fclose(f);
  return read && h[18] == 2 && h[19] == 2;
}

bool to_rollback_journal(const std::string& path, const std::string& shown, io::Diagnostics& diag) {
  sqlite3* db = nullptr;
  const bool ok =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
      sqlite3_exec(db, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  if (!ok)
    diag.error(shown, 0, "cannot fold the rank database's WAL into the copy",
               "check that the input's -wal file is readable and the output has free space");
  return ok;
}

}  // namespace

std::vector<std::string> connection_ids(const std::vector<P2POp>& ops) {
  std::vector<size_t> order(ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ops[a].start_ns < ops[b].start_ns; });
  std::map<std::pair<int64_t, int64_t>, int64_t> seen;
  std::vector<std::string> ids(ops.size());
  static const std::regex domain(R"(__(\d+)_\d+_\d+)");
  for (size_t i : order) {
    const P2POp& op = ops[i];
    std::smatch m;
    const std::string d = std::regex_search(op.name, m, domain) ? m[1].str() : "nan";
    ids[i] = d + "_" + std::to_string(op.src) + "_" + std::to_string(op.dst) + "_" +
             std::to_string(seen[{op.src, op.dst}]++);
  }
  return ids;
}

bool add_connection_ids(const std::string& db_copy, const frame::Frame& pairs,
                        const std::string& shown, io::Diagnostics& diag) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_copy.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    diag.error(shown, 0, "cannot open the copy of the rank's database",
               "check that the output directory is writable");
    return false;
  }
  // A .tmp copy renamed when complete: no need to sync each change, nor a journal file created and
  // deleted per transaction (a failed copy is removed whole).
  sqlite3_exec(db, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr);
  sqlite3_exec(db, "PRAGMA journal_mode = MEMORY", nullptr, nullptr, nullptr);
  bool has_column = false;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('COMMUNICATION_OP')", -1, &st,
                     nullptr);
  while (st && sqlite3_step(st) == SQLITE_ROW)
    has_column =
        has_column ||
        std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "opConnectionId";
  sqlite3_finalize(st);
  bool ok = (has_column || exec(db, "ALTER TABLE COMMUNICATION_OP ADD COLUMN opConnectionId TEXT",
                                shown, diag)) &&
            exec(db, "BEGIN; UPDATE COMMUNICATION_OP SET opConnectionId = NULL", shown, diag);
  st = nullptr;
  if (ok &&
      sqlite3_prepare_v2(db, "UPDATE COMMUNICATION_OP SET opConnectionId = ? WHERE opName = ?", -1,
                         &st, nullptr) != SQLITE_OK) {
    diag.error(shown, 0, "COMMUNICATION_OP has no opName column",
               "check that the database is a profiler export");
    ok = false;
  }
  for (size_t r = 0; ok && r < pairs.rows(); ++r) {
    const std::string& id = pairs.columns[1].cells[r].str();
    sqlite3_bind_text(st, 1, id.data(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, pairs.columns[0].cells[r].i());
    ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_reset(st);
    if (!ok) diag.error(shown, 0, "cannot write opConnectionId", "check the free disk space");
  }
  sqlite3_finalize(st);
  ok = ok && exec(db, "COMMIT", shown, diag);
  sqlite3_close(db);
  return ok;
}

bool pair_rank(const RankDbPaths& paths, frame::Frame& pairs, io::Diagnostics& diag) {
  RankDb db(paths.profiler_db, diag);
  return db.ok() && pair_rank(db, paths, pairs, diag);
}

bool pair_rank(RankDb& db, const RankDbPaths& paths, frame::Frame& pairs, io::Diagnostics& diag) {
  for (const char* t : {"COMMUNICATION_OP", "COMMUNICATION_TASK_INFO"})
    if (!db.has_table(t)) {
      skip(paths, std::string("no table ") + t + " (profile at level1 or above)", diag);
      return false;
    }
  for (const char* t : {"STRING_IDS", "RANK_DEVICE_MAP", "CANN_API"})
    if (!db.has_table(t)) {
      skip(paths, std::string("no table ") + t, diag);
      return false;
    }
  // Answered by its scan (p2p_scan.h) or by SQLite (answer_query).
  frame::Frame rows;
  const int64_t lo = 0, hi = std::numeric_limits<int64_t>::max();
  if (!answer_query(
          "p2p_pairing.tasks", [&] { return scan_p2p_tasks(db.database(), kQuery, lo, hi, rows); },
          [&] {
            return db.query(kQuery, {lo, hi}, rows, "COMMUNICATION_TASK_INFO", diag);
          }))
    return false;
  const std::vector<P2POp> ops = p2p_ops(rows, paths, diag);
  if (ops.empty()) return false;
  const std::vector<std::string> ids = connection_ids(ops);
  auto& name = pairs.add("opName");
  auto& id = pairs.add("opConnectionId");
  for (size_t i = 0; i < ops.size(); ++i) {
    name.push_back(frame::Cell::integer(ops[i].name_id));
    id.push_back(frame::Cell::text(ids[i]));
  }
  return true;
}

bool write_rank_copy(
    const RecipeOutput& out, const std::string& dir_name, const std::string& source,
    const std::function<bool(const std::string& tmp, const std::string& shown)>& edit,
    io::Diagnostics& diag) {
  std::error_code ec;
  const fs::path job = fs::weakly_canonical(fs::absolute(out.input_dir), ec);
  const fs::path src = fs::weakly_canonical(fs::absolute(source), ec);
  fs::path rel = src.lexically_relative(job);
  if (rel.empty() || *rel.begin() == "..") rel = src.filename();
  const std::string dst = (fs::path(out.cluster_output_dir) / dir_name / rel).string();
  const std::string tmp = io::temporary_name(dst);
  ec.clear();
  fs::create_directories(fs::path(dst).parent_path(), ec);
  io::OutputLedger::instance().started(dst);
  // A database in WAL mode may hold its latest pages in "-wal": copied along, and the copy turned
  // into a rollback-journal database (SQLite folds the WAL in), which the writers expect.
  const fs::path wal = src.string() + "-wal";
  std::error_code wal_ec;
  const bool has_wal = fs::exists(wal, wal_ec) && fs::file_size(wal, wal_ec) > 0 && !wal_ec;
  if (ec || !fs::copy_file(src, tmp, fs::copy_options::overwrite_existing, ec) ||
      (has_wal && !fs::copy_file(wal, tmp + "-wal", fs::copy_options::overwrite_existing, ec))) {
    diag.error(dst, 0, "cannot copy the rank's database here",
               "check that the output directory is writable and has free space");
    std::remove(tmp.c_str());
    io::OutputLedger::instance().failed(dst);
    return false;
  }
  const bool edited =
      (!has_wal && !wal_mode(tmp)) || to_rollback_journal(tmp, dst, diag) ? edit(tmp, dst) : false;
  std::remove((tmp + "-wal").c_str());  // (only left when something failed)
  std::remove((tmp + "-shm").c_str());
  if (!edited || !io::publish_output(tmp, dst, diag)) {
    std::remove(tmp.c_str());
    io::OutputLedger::instance().failed(dst);
    return false;
  }
  return true;
}

bool P2PPairing::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  frame::Frame pairs;
  if (!pair_rank(paths, pairs, diag)) return false;
  frame::Frame source;
  source.add("path").push_back(frame::Cell::text(paths.profiler_db));
  out["pairs"] = std::move(pairs);
  out["source"] = std::move(source);
  return true;
}

bool P2PPairing::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                        io::Diagnostics& diag) const {
  bool ok = true;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const frame::Frame& pairs = p.frames.at("pairs");
    ok = write_rank_copy(
             out, dir_name(), p.frames.at("source").columns[0].cells[0].str(),
             [&](const std::string& tmp, const std::string& shown) {
               return add_connection_ids(tmp, pairs, shown, diag);
             },
             diag) &&
         ok;
  }
  return ok;
}

}  // namespace cs::recipes::p2p_pairing

#pragma once
// Helpers for the recipes that write copies of the rank databases (p2p_pairing, pp_chart): one
// table as text, and the rank database of a job or an output tree.

#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"

namespace cs::test {

// Appends every row of a prepared statement: i:INT, r:REAL (17 digits), t:TEXT or NULL, cells
// by '|', one line per row.
inline void append_rows(sqlite3_stmt* st, std::string& out) {
  const int n = sqlite3_column_count(st);
  while (sqlite3_step(st) == SQLITE_ROW)
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER:
          out += "i:" + std::to_string(sqlite3_column_int64(st, c));
          break;
        case SQLITE_NULL:
          out += "NULL";
          break;
        case SQLITE_FLOAT: {
          char buf[64];
          std::snprintf(buf, sizeof buf, "r:%.17g", sqlite3_column_double(st, c));
          out += buf;
          break;
        }
        default:
          out += "t:" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)));
      }
      out += c + 1 < n ? "|" : "\n";
    }
}

// One table of a database: its CREATE statement, "== <table>" and its rows in dump_sqlite's
// notation ("(no table)" when it is missing).
inline std::string dump_table(const std::filesystem::path& db, const std::string& table) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    return "cannot open " + db.string();
  }
  std::string out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
                     nullptr);
  sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) == SQLITE_ROW)
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) + std::string("\n");
  sqlite3_finalize(st);
  if (out.empty()) {
    sqlite3_close(h);
    return "(no table)\n";
  }
  out += "== " + table + "\n";
  sqlite3_prepare_v2(h, ("SELECT * FROM \"" + table + "\"").c_str(), -1, &st, nullptr);
  append_rows(st, out);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// The rows of `sql` on a database in dump_sqlite's notation, one line per row.
inline std::string dump_query(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    const std::string err = "cannot query " + db.string() + ": " + sqlite3_errmsg(h) + "\n";
    sqlite3_close(h);
    return err;
  }
  std::string out;
  append_rows(st, out);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// COMMUNICATION_OP as tests/data/generated-db/mc_mstx2commop/dump.py writes it: schema and index,
// opId 0..n-1, the rows with every id resolved to its text, STRING_IDS' ids unique and its texts.
inline std::string commop_dump(const std::filesystem::path& db) {
  std::string out;
  for (const char* q :
       {"SELECT sql FROM sqlite_master WHERE tbl_name = 'COMMUNICATION_OP' ORDER BY type DESC, "
        "name",
        "SELECT count(DISTINCT opId) = count(*), min(opId), max(opId) + 1 = count(*) FROM "
        "COMMUNICATION_OP",
        "SELECT n.value, c.startNs, c.endNs, c.connectionId, g.value, c.relay, c.retry, "
        "c.dataType, c.algType, c.count, t.value FROM COMMUNICATION_OP c LEFT JOIN STRING_IDS n "
        "ON n.id = c.opName LEFT JOIN STRING_IDS g ON g.id = c.groupName LEFT JOIN STRING_IDS t "
        "ON t.id = c.opType ORDER BY c.rowid",
        "SELECT count(DISTINCT id) = count(*) FROM STRING_IDS",
        "SELECT value FROM STRING_IDS ORDER BY value"})
    out += dump_query(db, q);
  return out;
}

// The ascend_pytorch_profiler_<r>.db below `dir` (empty when there is none).
inline std::filesystem::path rank_db(const std::filesystem::path& dir, int r) {
  if (!std::filesystem::exists(dir)) return {};
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().filename() == "ascend_pytorch_profiler_" + std::to_string(r) + ".db")
      return e.path();
  return {};
}

}  // namespace cs::test

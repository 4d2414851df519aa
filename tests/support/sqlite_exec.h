#pragma once
// Runs SQL on a database file with SQLite (created when missing), for tests that build their
// inputs, or reads a query's rows; a failure is a test failure naming SQLite's message.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cs::test {

inline void sqlite_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// Rows of a query, each row's cells joined by '|' (NULL as "NULL"). Immutable: the file is never
// written, not even a -shm or -wal file beside it.
inline std::vector<std::string> sqlite_rows(const std::filesystem::path& db,
                                            const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* h = nullptr;
  const std::string uri = "file:" + db.string() + "?mode=ro&immutable=1";
  if (sqlite3_open_v2(uri.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
      SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db;
    sqlite3_close(h);
    return rows;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << db << ": " << sqlite3_errmsg(h) << " in " << sql;
  } else {
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        if (i) row += '|';
        const unsigned char* t = sqlite3_column_text(st, i);
        row += t ? reinterpret_cast<const char*>(t) : "NULL";
      }
      rows.push_back(row);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rows;
}

}  // namespace cs::test

#pragma once
// Runs SQL on a database file with SQLite (created when missing), for tests that build their
// inputs; a failure is a test failure naming SQLite's message.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace cs::test {

inline void sqlite_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace cs::test

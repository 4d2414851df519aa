// SQLite's own cost of writing a result database: every table of DB (as a tool wrote it) is read
// into memory, then written to a new database OUT with the same CREATE statements, one prepared
// INSERT per table, in one transaction. Prints the CPU seconds of the writing alone: no tool that
// writes these rows through SQLite can use less (bench/db_floor.sh).
//   sqlite_write_floor DB OUT
#include <sqlite3.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

namespace {

struct Value {
  int type = SQLITE_NULL;
  sqlite3_int64 i = 0;
  double d = 0;
  std::string s;
};

struct Table {
  std::string name, ddl;
  std::vector<std::vector<Value>> rows;
};

std::vector<Table> read_all(sqlite3* db) {
  std::vector<Table> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table'", -1, &st,
                     nullptr);
  while (sqlite3_step(st) == SQLITE_ROW)
    tables.push_back({reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                      reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
                      {}});
  sqlite3_finalize(st);
  for (auto& t : tables) {
    sqlite3_prepare_v2(db, ("SELECT * FROM \"" + t.name + "\"").c_str(), -1, &st, nullptr);
    const int n = sqlite3_column_count(st);
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::vector<Value> row(n);
      for (int i = 0; i < n; ++i) {
        Value& v = row[i];
        v.type = sqlite3_column_type(st, i);
        if (v.type == SQLITE_INTEGER) v.i = sqlite3_column_int64(st, i);
        if (v.type == SQLITE_FLOAT) v.d = sqlite3_column_double(st, i);
        if (v.type == SQLITE_TEXT) v.s = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      }
      t.rows.push_back(std::move(row));
    }
    sqlite3_finalize(st);
  }
  return tables;
}

void write_table(sqlite3* out, const Table& t) {
  sqlite3_exec(out, t.ddl.c_str(), nullptr, nullptr, nullptr);
  if (t.rows.empty()) return;
  std::string sql = "INSERT INTO \"" + t.name + "\" VALUES (";
  for (size_t i = 0; i < t.rows[0].size(); ++i) sql += i ? ",?" : "?";
  sql += ")";
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(out, sql.c_str(), -1, &st, nullptr);
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      const int p = static_cast<int>(i) + 1;
      const Value& v = row[i];
      if (v.type == SQLITE_INTEGER)
        sqlite3_bind_int64(st, p, v.i);
      else if (v.type == SQLITE_FLOAT)
        sqlite3_bind_double(st, p, v.d);
      else if (v.type == SQLITE_TEXT)
        sqlite3_bind_text(st, p, v.s.data(), static_cast<int>(v.s.size()), SQLITE_STATIC);
      else
        sqlite3_bind_null(st, p);
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: sqlite_write_floor DB OUT\n");
    return 2;
  }
  sqlite3* in = nullptr;
  if (sqlite3_open_v2(argv[1], &in, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite_write_floor: %s: cannot open\n", argv[1]);
    return 1;
  }
  const std::vector<Table> tables = read_all(in);
  sqlite3_close(in);
  std::remove(argv[2]);
  long rows = 0;
  const std::clock_t start = std::clock();
  sqlite3* out = nullptr;
  if (sqlite3_open(argv[2], &out) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite_write_floor: %s: cannot create\n", argv[2]);
    return 1;
  }
  sqlite3_exec(out, "PRAGMA journal_mode=MEMORY; BEGIN", nullptr, nullptr, nullptr);
  for (const auto& t : tables) {
    write_table(out, t);
    rows += static_cast<long>(t.rows.size());
  }
  sqlite3_exec(out, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(out);
  const double cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  std::printf("%zu tables %ld rows write cpu %.3f s\n", tables.size(), rows, cpu);
  return 0;
}

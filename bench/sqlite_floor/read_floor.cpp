// SQLite's own cost of reading a job's databases: every database path on stdin is opened as
// clusterscope opens it (read-only, immutable), and every row of each table named on the command
// line is stepped with every column read. Prints the CPU seconds: no tool that reads these tables
// through SQLite can use less (bench/db_floor.sh).
//   find JOB -name analysis.db | sqlite_read_floor CommAnalyzerTime CommAnalyzerMatrix
#include <sqlite3.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::vector<std::string> tables(argv + 1, argv + argc);
  long files = 0, rows = 0;
  double checksum = 0;  // keeps the reads from being optimised away
  const std::clock_t start = std::clock();
  std::string path;
  while (std::getline(std::cin, path)) {
    sqlite3* db = nullptr;
    const std::string uri = "file:" + path + "?mode=ro&immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
        SQLITE_OK) {
      std::fprintf(stderr, "sqlite_read_floor: %s: cannot open\n", path.c_str());
      sqlite3_close(db);
      return 1;
    }
    ++files;
    for (const auto& table : tables) {
      sqlite3_stmt* st = nullptr;
      const std::string sql = "SELECT * FROM \"" + table + "\"";
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        sqlite3_finalize(st);  // a table this database lacks
        continue;
      }
      const int n = sqlite3_column_count(st);
      while (sqlite3_step(st) == SQLITE_ROW) {
        ++rows;
        for (int i = 0; i < n; ++i) {
          switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER:
              checksum += static_cast<double>(sqlite3_column_int64(st, i));
              break;
            case SQLITE_FLOAT:
              checksum += sqlite3_column_double(st, i);
              break;
            case SQLITE_TEXT:
              checksum += sqlite3_column_bytes(st, i);
              break;
            default:
              break;
          }
        }
      }
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
  }
  const double cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  std::printf("%ld files %ld rows cpu %.3f s (checksum %g)\n", files, rows, cpu, checksum);
  return 0;
}

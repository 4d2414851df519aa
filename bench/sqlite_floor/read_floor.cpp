// SQLite's own cost of reading a job's databases: every database path on stdin is opened as
// clusterscope opens it (read-only, immutable), and for each TABLE:COLUMNS argument every row of
// the table is stepped with those columns read (COLUMNS a comma list; none means every column).
// Prints the CPU seconds: a tool that needs those columns through SQLite cannot use less
// (bench/db_floor.sh).
//   find JOB -name analysis.db | sqlite_read_floor CommAnalyzerTime:hccl_op_name,group_name
#include <sqlite3.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> statements;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const size_t colon = arg.find(':');
    const std::string table = arg.substr(0, colon);
    const std::string columns = colon == std::string::npos ? "" : arg.substr(colon + 1);
    statements.push_back("SELECT " + (columns.empty() ? std::string("*") : columns) + " FROM \"" +
                         table + "\"");
  }
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
    for (const auto& sql : statements) {
      sqlite3_stmt* st = nullptr;
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

// Harness: io/sqlite's DatabaseFileAppender on any bytes as an existing database file: it reads
// the header and the schema page (every cell, record and name), and when it takes the file,
// appends a small table, as the recipes' writer does with its temporary file.
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "io/sqlite/database_file_appender.h"
#include "io/sqlite/sqlite_record.h"

namespace cs::fuzz {

int sqlite_appender(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("appender.db", data, size);
  io::sqlite::DatabaseFileAppender db(path);
  const std::string sql = "CREATE TABLE \"F\" (\n\"a\" INTEGER,\n  \"b\" TEXT\n)";
  if (db.read_errno() || !db.unsupported().empty() || db.has_table("F") ||
      !db.schema_has_room("F", sql))
    return 0;
  io::sqlite::TableBtreeBuilder t = db.new_table();
  io::sqlite::RecordEncoder r;
  for (int64_t i = 0; i < 40; ++i) {
    r.integer(i * 977);
    r.text(std::string(static_cast<size_t>(i) * 37, 'x'));
    t.add_row(r.finish());
  }
  db.append("F", sql, t);
  return 0;
}

}  // namespace cs::fuzz

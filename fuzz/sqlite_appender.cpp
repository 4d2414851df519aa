// Harness: io/sqlite on any bytes as a database file: the page reader (schema, every table's
// CREATE TABLE, b-trees, overflow chains, records, decoded whole and in part), the table reader
// on two tables, then the DatabaseFileAppender (the header and the
// schema page) appending a small table when it takes the file, which is read back.
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "io/sqlite/database_file_appender.h"
#include "io/sqlite/sqlite_record.h"
#include "io/sqlite/table_reader.h"

namespace cs::fuzz {

int sqlite_appender(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("appender.db", data, size);
  // The reader first: the seeds' tables A and B, every value decoded.
  std::vector<std::string> columns;
  size_t values = 0;
  auto count = [&](const std::vector<io::sqlite::StoredValue>& row) {
    values += row.size();
    return true;
  };
  {
    const io::sqlite::PagedDatabase pages(path);
    std::vector<io::sqlite::StoredValue> row;
    for (const auto& name : pages.ok() ? pages.table_names() : std::vector<std::string>{}) {
      const io::sqlite::PagedTable* t = pages.table(name);
      if (!t) continue;
      t->index_may_cover(t->columns);
      if (auto rows = pages.rows(*t))
        for (size_t r = 0; r < rows->size(); ++r) {
          rows->decode(r, row, r % 3);
          values += row.size() + static_cast<size_t>(rows->rowid(r) & 1);
        }
    }
  }
  io::sqlite::read_table(path, "A", columns, count);
  io::sqlite::read_table(path, "b", columns, count);
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
  if (db.append("F", sql, t)) io::sqlite::read_table(path, "F", columns, count);
  return 0;
}

}  // namespace cs::fuzz

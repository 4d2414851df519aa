#pragma once
// Adds tables to an SQLite database file without the SQLite library, in SQLite's file format
// (https://www.sqlite.org/fileformat2.html): the new table's b-tree pages go after the file's
// pages and its row goes into the schema on page 1. Only the plain layout SQLite and pandas
// produce is handled (rollback journal mode, UTF-8, schema format 4, no auto-vacuum, the schema
// on page 1 alone); for any other file unsupported() says why, and the caller writes with SQLite.
//
//   DatabaseFileAppender db(path);
//   if (db.read_errno()) ...;                 // the file exists but cannot be read
//   if (db.unsupported().empty() && !db.has_table(name) && db.schema_has_room(name, sql)) {
//     TableBtreeBuilder t = db.new_table(); ... t.add_row(record) ...
//     if (!db.append(name, sql, t)) ...;      // errno says why
//   }
// The file is written in place, not atomically: meant for a run's own temporary file.

#include <cstdint>
#include <string>
#include <string_view>

#include "io/sqlite/table_btree.h"

namespace cs::io::sqlite {

class DatabaseFileAppender {
 public:
  // Reads `path`'s header and schema page; a missing or empty file is a new database (pages of
  // 4096 bytes, as SQLite's default).
  explicit DatabaseFileAppender(std::string path);
  ~DatabaseFileAppender();
  DatabaseFileAppender(const DatabaseFileAppender&) = delete;
  DatabaseFileAppender& operator=(const DatabaseFileAppender&) = delete;

  // errno of a failed read of an existing file (0: read, or missing).
  int read_errno() const { return read_errno_; }
  // Why tables cannot be appended to this file here (empty when they can).
  const std::string& unsupported() const { return unsupported_; }
  // True when the schema has a table or other object named `name` (exact bytes).
  bool has_table(std::string_view name) const;
  // True when the schema row of table `name` created by `sql` fits on page 1.
  bool schema_has_room(std::string_view name, std::string_view sql) const;
  // A builder numbering its pages after the file's.
  TableBtreeBuilder new_table() const;
  // The same, writing its complete pages to the file as rows are added (past the file's
  // recorded size: the file is unchanged for SQLite until append() succeeds); append() then
  // writes the rest. The builder must not outlive this appender.
  TableBtreeBuilder new_streamed_table();
  // Writes `table` (finished here) as table `name` created by `sql` (CREATE TABLE ...).
  // False with errno set when the file cannot be written.
  bool append(std::string_view name, std::string_view sql, TableBtreeBuilder& table);

 private:
  void parse_existing(uint64_t file_size);
  void start_new();
  std::string schema_record(std::string_view name, std::string_view sql, uint32_t root) const;
  size_t gap() const;  // unallocated bytes of page 1 between its cell pointers and cells

  // The file opened for writing (-1: not yet), and the errno of a failed open.
  int write_fd();
  int fd_ = -1;

  std::string path_;
  std::string page1_;
  uint32_t page_size_ = 4096, usable_ = 4096, pages_ = 0;
  int64_t max_rowid_ = 0;
  std::vector<std::string> names_;
  int read_errno_ = 0;
  std::string unsupported_;
};

}  // namespace cs::io::sqlite

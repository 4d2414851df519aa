#include "msprof_analyze/recipes/frame_writers.h"

#include <sqlite3.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "io/output_file.h"
#include "msprof_analyze/recipes/frame_sqlite_direct.h"
#include "runtime/interrupt.h"

namespace cs::recipes {

namespace {

// Python's csv module, QUOTE_MINIMAL: quote a field holding the delimiter, the quote character
// or a line break; double the quotes inside.
void append_csv_field(std::string& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string sql_quote_name(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// pandas' SQLite type for a column: from the dtype, or for object columns from the values
// (lib.infer_dtype: all text "string", all float "floating", all int "integer"; else TEXT).
const char* sql_type(const frame::FrameColumn& c) {
  const frame::Dtype t = c.dtype();
  if (t == frame::Dtype::kInt64) return "INTEGER";
  if (t == frame::Dtype::kFloat64) return "REAL";
  bool any_text = false, any_real = false, any_int = false;
  for (const auto& cell : c.cells) {
    if (cell.kind == frame::Cell::Kind::kText) any_text = true;
    if (cell.kind == frame::Cell::Kind::kReal) any_real = true;
    if (cell.kind == frame::Cell::Kind::kInt) any_int = true;
  }
  if (!any_text && any_real && !any_int) return "REAL";
  if (!any_text && any_int && !any_real) return "INTEGER";
  return "TEXT";
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};

// The whole of file `path` in memory SQLite may own (sqlite3_malloc64), for sqlite3_deserialize;
// `size` 0 and nullptr for a missing or empty file. False with errno set when it cannot be read.
bool read_image(const std::string& path, unsigned char*& data, sqlite3_int64& size) {
  data = nullptr;
  size = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  const off_t end = ::lseek(fd, 0, SEEK_END);
  bool ok = end >= 0 && ::lseek(fd, 0, SEEK_SET) == 0;
  if (ok && end > 0) {
    data = static_cast<unsigned char*>(sqlite3_malloc64(static_cast<sqlite3_uint64>(end)));
    ok = data != nullptr;
    if (!ok) errno = ENOMEM;
    for (off_t got = 0; ok && got < end;) {
      const ssize_t n = ::read(fd, data + got, static_cast<size_t>(end - got));
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) errno = EIO;  // the file shrank under us
        ok = false;
      } else {
        got += n;
      }
    }
    if (ok) size = end;
  }
  const int err = errno;
  ::close(fd);
  errno = err;
  if (!ok) sqlite3_free(data), data = nullptr;
  return ok;
}

// Replaces file `path`'s bytes with `size` bytes at `data`. False with errno set on failure.
bool write_image(const std::string& path, const unsigned char* data, sqlite3_int64 size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  bool ok = true;
  for (sqlite3_int64 put = 0; ok && put < size;) {
    const ssize_t n = ::write(fd, data + put, static_cast<size_t>(size - put));
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) put += n;
  }
  const int err = errno;
  if (::close(fd) != 0 && ok) return false;
  errno = err;
  return ok;
}

}  // namespace

bool write_frame_csv(const frame::Frame& f, const std::string& path, io::Diagnostics& diag) {
  runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
  std::string out;
  for (size_t c = 0; c < f.columns.size(); ++c) {
    if (c) out += ',';
    append_csv_field(out, f.columns[c].name);
  }
  out += '\n';
  std::vector<frame::Dtype> types;
  for (const auto& col : f.columns) types.push_back(col.dtype());
  const size_t n = f.rows();
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < f.columns.size(); ++c) {
      if (c) out += ',';
      append_csv_field(out, frame::csv_cell(f.columns[c].cells[r], types[c]));
    }
    out += '\n';
  }
  return io::write_output_text(path, out, diag);
}

namespace {

// The SQL of one table: its quoted name, CREATE TABLE and INSERT statements, and each column's
// SQLite type.
struct TableSql {
  std::string qname, create, insert;
  std::vector<const char*> types;
};

TableSql table_sql(const frame::Frame& f, const std::string& table) {
  TableSql t;
  t.qname = sql_quote_name(table);
  t.create = "CREATE TABLE " + t.qname + " (\n";
  t.insert = "INSERT INTO " + t.qname + " VALUES (";
  for (size_t c = 0; c < f.columns.size(); ++c) {
    if (c) {
      t.create += ",\n  ";
      t.insert += ',';
    }
    t.types.push_back(sql_type(f.columns[c]));
    t.create += sql_quote_name(f.columns[c].name) + " " + t.types.back();
    t.insert += '?';
  }
  t.create += "\n)";
  t.insert += ')';
  return t;
}

// Messages name the file the user asked for, not this run's .tmp copy of it.
std::string shown_name(const std::string& db_path) {
  const std::string tmp_suffix = io::temporary_name("");
  return db_path.ends_with(tmp_suffix) ? db_path.substr(0, db_path.size() - tmp_suffix.size())
                                       : db_path;
}

// A database file in memory (SQLite's memdb: the file's image, the existing tables first), tables
// added through SQLite one transaction each, and the image written back in one piece by save():
// the same tables as SQLite writing the file page by page, without a write per page, and for
// many tables one read and one write of the file instead of one per table.
class MemoryDatabase {
 public:
  MemoryDatabase(const std::string& db_path, io::Diagnostics& diag)
      : path_(db_path), shown_(shown_name(db_path)), diag_(diag) {
    unsigned char* image = nullptr;
    sqlite3_int64 image_size = 0;
    if (!read_image(db_path, image, image_size)) {
      const int err = errno;
      diag.error(shown_, 0,
                 std::string("cannot read the database to add tables: ") + std::strerror(err),
                 io::output_errno_hint(err));
      return;
    }
    sqlite3* raw = nullptr;
    // One thread uses the connection: no mutex around every bind and step (NOMUTEX). A memdb
    // name without a leading '/' is private to this connection.
    const int open_rc = sqlite3_open_v2(
        "file:cs-frame-writer?vfs=memdb", &raw,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
        nullptr);
    db_.reset(raw);
    if (open_rc != SQLITE_OK ||
        (image_size > 0 && sqlite3_deserialize(raw, "main", image, image_size, image_size,
                                               SQLITE_DESERIALIZE_FREEONCLOSE |
                                                   SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)) {
      if (open_rc != SQLITE_OK || !raw) sqlite3_free(image);  // else the connection owns it
      diag.error(shown_, 0,
                 std::string("cannot open the database for writing: ") +
                     (raw ? sqlite3_errmsg(raw) : "out of memory"),
                 "check the file is a complete SQLite database, or remove it");
      db_.reset();
      return;
    }
    // The file is this run's own .tmp copy (msprof_analyze/recipes/recipe_run.h): no rollback
    // journal.
    exec("PRAGMA journal_mode=MEMORY");
  }

  bool ok() const { return db_ != nullptr; }

  // Replaces table `table` with `f`, in one transaction.
  bool add(const frame::Frame& f, const std::string& table, const TableSql& sql) {
    runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
    auto fail = [&](const std::string& what) {
      diag_.error(shown_, 0, "table " + table + ": " + what + ": " + sqlite3_errmsg(db_.get()),
                  "check the free space and permissions of the output directory");
      return false;
    };
    if (!exec("BEGIN") || !exec("DROP TABLE IF EXISTS " + sql.qname) || !exec(sql.create))
      return fail("cannot create the table");
    if (f.index_columns > 0) {
      std::string names, list;
      for (size_t c = 0; c < f.index_columns; ++c) {
        names += (c ? "_" : "") + f.columns[c].name;
        list += (c ? "," : "") + sql_quote_name(f.columns[c].name);
      }
      if (!exec("CREATE INDEX " + sql_quote_name("ix_" + table + "_" + names) + "ON " + sql.qname +
                " (" + list + ")"))
        return fail("cannot create the index");
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.insert.c_str(), -1, &st, nullptr) != SQLITE_OK)
      return fail("cannot prepare the insert");
    if (!insert_rows(f, st)) {
      sqlite3_finalize(st);
      return fail("cannot insert a row");
    }
    sqlite3_finalize(st);
    if (!exec("COMMIT")) return fail("cannot commit");
    return true;
  }

  // Writes the image over the file.
  bool save() {
    sqlite3_int64 size = 0;
    const unsigned char* bytes =
        sqlite3_serialize(db_.get(), "main", &size, SQLITE_SERIALIZE_NOCOPY);
    if (!bytes || !write_image(path_, bytes, size)) {
      const int err = bytes ? errno : ENOMEM;
      diag_.error(shown_, 0, std::string("cannot write the database: ") + std::strerror(err),
                  io::output_errno_hint(err));
      return false;
    }
    return true;
  }

 private:
  bool exec(const std::string& sql) {
    return sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  }

  static bool insert_rows(const frame::Frame& f, sqlite3_stmt* st) {
    std::vector<frame::Dtype> types;
    for (const auto& col : f.columns) types.push_back(col.dtype());
    const size_t n = f.rows();
    for (size_t r = 0; r < n; ++r) {
      for (size_t c = 0; c < f.columns.size(); ++c) {
        const frame::Cell& cell = f.columns[c].cells[r];
        const int i = static_cast<int>(c) + 1;
        switch (cell.kind) {
          case frame::Cell::Kind::kNull:
            sqlite3_bind_null(st, i);
            break;
          case frame::Cell::Kind::kText:
            // Interned texts live until exit (frame/text_pool.h): SQLite need not copy.
            sqlite3_bind_text(st, i, cell.str().data(), static_cast<int>(cell.str().size()),
                              SQLITE_STATIC);
            break;
          case frame::Cell::Kind::kInt:
            if (types[c] == frame::Dtype::kFloat64)
              sqlite3_bind_double(st, i, static_cast<double>(cell.i()));
            else
              sqlite3_bind_int64(st, i, cell.i());
            break;
          case frame::Cell::Kind::kReal:
            if (std::isnan(cell.num()))
              sqlite3_bind_null(st, i);
            else
              sqlite3_bind_double(st, i, cell.num());
            break;
        }
      }
      if (sqlite3_step(st) != SQLITE_DONE) return false;
      sqlite3_reset(st);
    }
    return true;
  }

  std::string path_, shown_;
  io::Diagnostics& diag_;
  std::unique_ptr<sqlite3, DbCloser> db_;
};

}  // namespace

bool write_frame_sqlite(const frame::Frame& f, const std::string& db_path, const std::string& table,
                        io::Diagnostics& diag, int threads) {
  return write_frames_sqlite({{table, &f}}, db_path, diag, threads);
}

bool write_frames_sqlite(const std::vector<std::pair<std::string, const frame::Frame*>>& tables,
                         const std::string& db_path, io::Diagnostics& diag, int threads) {
  const std::string shown = shown_name(db_path);
  size_t i = 0;
  // New tables SQLite would store unchanged go straight into the file's pages, while they can.
  for (; i < tables.size(); ++i) {
    runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
    const auto& [table, f] = tables[i];
    const TableSql sql = table_sql(*f, table);
    const DirectWrite d =
        write_frame_sqlite_direct(*f, sql.types, db_path, table, sql.create, shown, diag, threads);
    if (d == DirectWrite::kFailed) return false;
    if (d == DirectWrite::kNotApplicable) break;
  }
  if (i == tables.size()) return true;
  // The others through SQLite, in memory, the file read and written once.
  MemoryDatabase db(db_path, diag);
  if (!db.ok()) return false;
  for (; i < tables.size(); ++i)
    if (!db.add(*tables[i].second, tables[i].first, table_sql(*tables[i].second, tables[i].first)))
      return false;
  return db.save();
}

}  // namespace cs::recipes

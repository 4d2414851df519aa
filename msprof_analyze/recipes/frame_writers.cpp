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

// pandas' SQLite type for a column of cells of `kinds`: from the dtype, or for object columns
// from the values (lib.infer_dtype: all text "string", all float "floating", all int "integer";
// else TEXT).
const char* sql_type_of(uint8_t kinds, bool force_object) {
  using K = frame::Cell::Kind;
  const frame::Dtype t = frame::dtype_of_kinds(kinds, force_object);
  if (t == frame::Dtype::kInt64) return "INTEGER";
  if (t == frame::Dtype::kFloat64) return "REAL";
  const bool any_text = kinds & frame::kind_bit(K::kText);
  const bool any_real = kinds & frame::kind_bit(K::kReal);
  const bool any_int = kinds & frame::kind_bit(K::kInt);
  if (!any_text && any_real && !any_int) return "REAL";
  if (!any_text && any_int && !any_real) return "INTEGER";
  return "TEXT";
}

const char* sql_type(const frame::FrameColumn& c) {
  return sql_type_of(frame::cell_kinds(c), c.force_object);
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

TableSql table_sql(const std::vector<std::string>& names, std::vector<const char*> types,
                   const std::string& table) {
  TableSql t;
  t.qname = sql_quote_name(table);
  t.create = "CREATE TABLE " + t.qname + " (\n";
  t.insert = "INSERT INTO " + t.qname + " VALUES (";
  for (size_t c = 0; c < names.size(); ++c) {
    if (c) {
      t.create += ",\n  ";
      t.insert += ',';
    }
    t.create += sql_quote_name(names[c]) + " " + types[c];
    t.insert += '?';
  }
  t.create += "\n)";
  t.insert += ')';
  t.types = std::move(types);
  return t;
}

TableSql table_sql(const frame::Frame& f, const std::string& table) {
  std::vector<std::string> names;
  std::vector<const char*> types;
  for (const auto& c : f.columns) {
    names.push_back(c.name);
    types.push_back(sql_type(c));
  }
  return table_sql(names, std::move(types), table);
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
    std::vector<frame::Dtype> types;
    for (const auto& col : f.columns) types.push_back(col.dtype());
    return begin(table, sql, f) && insert(f, types) && commit();
  }

  // add() in parts: the table created (with the index of `f`'s index columns), then rows
  // inserted a frame at a time (`types`: the whole table's column dtypes), then committed.
  bool begin(const std::string& table, const TableSql& sql, const frame::Frame& f) {
    runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
    table_ = table;
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
    st_.reset(st);
    return true;
  }
  bool insert(const frame::Frame& f, const std::vector<frame::Dtype>& types) {
    if (!insert_rows(f, types, st_.get())) {
      st_.reset();
      return fail("cannot insert a row");
    }
    return true;
  }
  bool commit() {
    st_.reset();
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

  bool fail(const std::string& what) {
    diag_.error(shown_, 0, "table " + table_ + ": " + what + ": " + sqlite3_errmsg(db_.get()),
                "check the free space and permissions of the output directory");
    return false;
  }

  static bool insert_rows(const frame::Frame& f, const std::vector<frame::Dtype>& types,
                          sqlite3_stmt* st) {
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

  struct StmtFinalizer {
    void operator()(sqlite3_stmt* st) const { sqlite3_finalize(st); }
  };
  std::string path_, shown_, table_;
  io::Diagnostics& diag_;
  std::unique_ptr<sqlite3, DbCloser> db_;
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> st_;  // declared after db_: finalized first
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

struct FrameTableStream::Sqlite {
  Sqlite(const std::string& db_path, io::Diagnostics& diag) : db(db_path, diag) {}
  MemoryDatabase db;
};

FrameTableStream::FrameTableStream(const std::string& db_path, const std::string& table,
                                   const std::vector<ColumnKinds>& columns, io::Diagnostics& diag)
    : db_path_(db_path), table_(table), diag_(diag) {
  runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
  std::vector<std::string> names;
  std::vector<const char*> types;
  std::vector<uint8_t> kinds;
  for (const ColumnKinds& c : columns) {
    names.push_back(*c.name);
    types.push_back(sql_type_of(c.kinds, c.force_object));
    kinds.push_back(c.kinds);
    dtypes_.push_back(frame::dtype_of_kinds(c.kinds, c.force_object));
  }
  const TableSql sql = table_sql(names, types, table);
  const DirectWrite d =
      direct_.open(kinds, sql.types, db_path, table, sql.create, shown_name(db_path), diag);
  if (d == DirectWrite::kFailed) {
    ok_ = false;
  } else if (d == DirectWrite::kNotApplicable) {
    direct_on_ = false;
    sqlite_ = std::make_unique<Sqlite>(db_path, diag);
    frame::Frame shape;  // (no index columns)
    ok_ = sqlite_->db.ok() && sqlite_->db.begin(table, sql, shape);
  }
}

FrameTableStream::~FrameTableStream() = default;

bool FrameTableStream::add(const frame::Frame& rows) {
  if (!ok_) return false;
  if (direct_on_) {
    direct_.add(rows);
  } else {
    ok_ = sqlite_->db.insert(rows, dtypes_);
  }
  return ok_;
}

bool FrameTableStream::finish() {
  if (!ok_) return false;
  ok_ = direct_on_ ? direct_.finish(diag_) : sqlite_->db.commit() && sqlite_->db.save();
  sqlite_.reset();
  return ok_;
}

}  // namespace cs::recipes

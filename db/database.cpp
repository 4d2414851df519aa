#include "db/database.h"

#include "db/simple_select.h"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

namespace cs::db {

namespace {

// The platform's VFS with one change: an absolute path is its own full path name. SQLite's
// own xFullPathname lstat()s every component of the path to resolve links (six system calls
// per file for a profiler's database); the name only identifies the file, which is opened
// read-only and immutable (no journal, no locks are looked up by name). Relative paths are
// resolved by the platform's VFS as before.
sqlite3_vfs* platform_vfs = nullptr;  // the VFS direct_path_vfs() copies

int direct_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  const size_t len = std::strlen(name);
  if (name[0] != '/' || len + 1 > static_cast<size_t>(n))
    return platform_vfs->xFullPathname(platform_vfs, name, n, out);
  std::memcpy(out, name, len + 1);
  return SQLITE_OK;
}

sqlite3_vfs* direct_path_vfs() {
  static sqlite3_vfs vfs{};
  static const bool registered = [] {
    // Before SQLite initializes (sqlite3_vfs_find does): no memory statistics, which SQLite
    // otherwise keeps under one global mutex taken on every allocation and free of every
    // connection, so the threads reading ranks wait for each other. Nothing here reads them
    // (sqlite3_memory_used, soft heap limits). Refused harmlessly when SQLite already started.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    platform_vfs = sqlite3_vfs_find(nullptr);
    if (!platform_vfs) return false;
    vfs = *platform_vfs;  // pAppData too: the unix VFS finds its I/O methods through it
    vfs.zName = "cs-direct-path";
    vfs.xFullPathname = direct_full_pathname;
    return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK;
  }();
  return registered ? &vfs : nullptr;
}

// `file:` URI for a path: '%', '?' and '#' are escaped, and a run of leading slashes becomes one
// (a URI "file://x" would name host x).
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  size_t start = 0;
  while (start + 1 < path.size() && path[start] == '/' && path[start + 1] == '/') ++start;
  for (size_t i = start; i < path.size(); ++i) {
    char c = path[i];
    if (c == '%') {
      uri += "%25";
    } else if (c == '?') {
      uri += "%3f";
    } else if (c == '#') {
      uri += "%23";
    } else {
      uri += c;
    }
  }
  uri += "?mode=ro&immutable=1";
  return uri;
}

std::string where(std::string_view table) {
  if (table.empty()) return {};
  return "table " + std::string(table) + ": ";
}

// Identifiers from our own code are plain names, but quote them anyway for PRAGMA arguments.
std::string quoted(std::string_view name) {
  std::string q = "\"";
  for (char c : name) {
    if (c == '"') q += '"';
    q += c;
  }
  q += '"';
  return q;
}

// `v` bound to `SELECT ?1` on a private in-memory connection: the statement, stepped to its row,
// for SQLite's own conversions of the value; nullptr when that fails.
sqlite3_stmt* as_sqlite_value(const io::sqlite::StoredValue& v) {
  struct Conn {
    sqlite3* db = nullptr;
    sqlite3_stmt* st = nullptr;
    Conn() {
      if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK)
        sqlite3_prepare_v2(db, "SELECT ?1", -1, &st, nullptr);
    }
    ~Conn() {
      sqlite3_finalize(st);
      sqlite3_close_v2(db);
    }
  };
  thread_local Conn c;
  if (!c.st) return nullptr;
  sqlite3_reset(c.st);
  using K = io::sqlite::StoredValue::Kind;
  switch (v.kind) {
    case K::kInt:
      sqlite3_bind_int64(c.st, 1, v.i);
      break;
    case K::kReal:
      sqlite3_bind_double(c.st, 1, v.r);
      break;
    case K::kText:
      sqlite3_bind_text(c.st, 1, v.bytes.data(), static_cast<int>(v.bytes.size()),
                        SQLITE_TRANSIENT);
      break;
    case K::kBlob:
      sqlite3_bind_blob(c.st, 1, v.bytes.data(), static_cast<int>(v.bytes.size()),
                        SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_bind_null(c.st, 1);
  }
  return sqlite3_step(c.st) == SQLITE_ROW ? c.st : nullptr;
}

}  // namespace

struct Database::Paged {
  explicit Paged(std::string p) : path(std::move(p)) {}
  std::optional<PageScan> scan(std::string_view sql, bool rowid);
  // The file's pages, read on first use; nullptr when the page reader declines the file.
  // Called with `mutex` held.
  const std::shared_ptr<io::sqlite::PagedDatabase>& pages() {
    if (!tried) {
      tried = true;
      auto d = std::make_shared<io::sqlite::PagedDatabase>(path);
      if (d->ok()) db = std::move(d);
    }
    return db;
  }

  std::string path;
  std::mutex mutex;  // the pages are read under it (PagedDatabase is not for concurrent use)
  bool tried = false;
  std::shared_ptr<io::sqlite::PagedDatabase> db;
};

std::optional<PageScan> Database::Paged::scan(std::string_view sql, bool rowid) {
  const auto q = parse_simple_select(sql);
  if (!q) return std::nullopt;
  std::lock_guard lock(mutex);
  if (!pages()) return std::nullopt;
  const io::sqlite::PagedTable* t = db->table(q->table);
  if (!t) return std::nullopt;
  auto pick = page_answerable(*q, *t, rowid);
  if (!pick) return std::nullopt;
  auto rows = db->rows(*t);
  if (!rows) return std::nullopt;
  PageScan out{db, std::move(*rows), std::move(*pick), {}, 0};
  for (const int c : out.pick) {
    out.names.push_back(c >= 0 ? t->columns[static_cast<size_t>(c)] : std::string("rowid"));
    out.decode = std::max(out.decode, static_cast<size_t>(c + 1));
  }
  return out;
}

std::optional<PageScan> Database::page_scan(std::string_view sql, bool rowid) const {
  return paged_ ? paged_->scan(sql, rowid) : std::nullopt;
}

// A paged statement's rows and its current row.
struct Statement::PagedRows {
  PageScan scan;
  size_t next = 0;
  std::vector<io::sqlite::StoredValue> all, current;
  mutable std::vector<std::string> rendered;  // numbers as text_at renders them
};

std::string sqlite_hint(int code) {
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      return "the file is not an SQLite database; re-export the rank's profile data or remove it";
    case SQLITE_CORRUPT:
      return "the database is corrupt or truncated (an interrupted copy?); copy or re-export the "
             "rank's profile data again";
    case SQLITE_CANTOPEN:
      return "check the file exists and is readable";
    case SQLITE_IOERR:
      return "the file could not be read; check the disk or file system and copy it again";
    case SQLITE_NOMEM:
      return "out of memory; run with fewer threads or on a node with more memory";
    default:
      return "check the file is a complete profiler database; re-export it if it is not";
  }
}

Database::Database(Database&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)),
      open_error_(std::move(o.open_error_)),
      path_(std::move(o.path_)),
      sqlite_path_(std::move(o.sqlite_path_)),
      tables_(std::move(o.tables_)),
      paged_(std::move(o.paged_)) {}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    close();
    db_ = std::exchange(o.db_, nullptr);
    open_error_ = std::move(o.open_error_);
    path_ = std::move(o.path_);
    sqlite_path_ = std::move(o.sqlite_path_);
    tables_ = std::move(o.tables_);
    paged_ = std::move(o.paged_);
  }
  return *this;
}

Database::~Database() {
  close();
}

void Database::close() {
  if (!db_) return;
  sqlite3_close_v2(db_);
  db_ = nullptr;
}

int Database::open_sqlite() const {
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  sqlite3_vfs* vfs = direct_path_vfs();
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(file_uri(sqlite_path_).c_str(), &db, flags, vfs ? vfs->zName : nullptr);
  if (rc != SQLITE_OK) {
    open_error_ = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return rc;
  }
  sqlite3_extended_result_codes(db, 1);
  db_ = db;
  return SQLITE_OK;
}

sqlite3* Database::handle() const {
  if (!db_ && open_error_.empty()) open_sqlite();
  return db_;
}

std::optional<Database> Database::open(const std::string& path, io::Diagnostics& diag) {
  direct_path_vfs();  // SQLite configured before anything starts it (see there)
  Database d;
  d.path_ = path;
  // SQLite may open the file later: a relative path is taken against today's working directory
  // (as SQLite itself would take it now).
  d.sqlite_path_ = path;
  if (!path.empty() && path.front() != '/') {
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    if (!ec) d.sqlite_path_ = (cwd / path).string();
  }
  d.paged_ = std::make_unique<Paged>(path);
  // The tables' names from the file's pages when the page reader reads it: SQLite then opens
  // the file, and parses the schema's CREATE statements, only if a query needs SQLite.
  {
    std::lock_guard lock(d.paged_->mutex);
    if (const auto& pages = d.paged_->pages()) {
      d.tables_ = pages->table_names();
      std::sort(d.tables_.begin(), d.tables_.end());
      return d;
    }
  }
  // Otherwise SQLite reads it now: a missing file, a non-database or a truncated header fails
  // here, in SQLite's words.
  if (const int rc = d.open_sqlite(); rc != SQLITE_OK) {
    diag.error(path, 0, "cannot open database: " + d.open_error_, sqlite_hint(rc));
    return std::nullopt;
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(
      d.db_, "SELECT name FROM sqlite_master WHERE type IN ('table','view')", -1, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    diag.error(path, 0, std::string("cannot read database schema: ") + sqlite3_errmsg(d.db_),
               sqlite_hint(rc));
    sqlite3_finalize(stmt);
    return std::nullopt;
  }
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(stmt, 0);
    if (t) d.tables_.emplace_back(reinterpret_cast<const char*>(t));
  }
  if (rc != SQLITE_DONE) {
    diag.error(path, 0, std::string("cannot read database schema: ") + sqlite3_errmsg(d.db_),
               sqlite_hint(rc));
    sqlite3_finalize(stmt);
    return std::nullopt;
  }
  sqlite3_finalize(stmt);
  std::sort(d.tables_.begin(), d.tables_.end());
  return d;
}

bool Database::has_table(std::string_view table) const {
  return std::binary_search(tables_.begin(), tables_.end(), table);
}

std::vector<std::string> Database::tables() const {
  return tables_;
}

std::vector<std::string> Database::columns(std::string_view table) const {
  std::vector<std::string> out;
  if (!has_table(table)) return out;
  if (paged_) {  // a table the page reader reads: its columns as PRAGMA table_info names them
    std::lock_guard lock(paged_->mutex);
    if (const auto& pages = paged_->pages())
      if (const io::sqlite::PagedTable* t = pages->table(table); t && t->readable)
        return t->columns;
  }
  std::string sql = "PRAGMA table_info(" + quoted(table) + ")";
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(handle(), sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return out;
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* name = sqlite3_column_text(stmt, 1);
    if (name) out.emplace_back(reinterpret_cast<const char*>(name));
  }
  sqlite3_finalize(stmt);
  return out;
}

bool Database::has_column(std::string_view table, std::string_view column) const {
  auto cols = columns(table);
  return std::find(cols.begin(), cols.end(), column) != cols.end();
}

bool Database::require(std::string_view table, const std::vector<std::string>& columns,
                       io::Diagnostics& diag) const {
  if (!has_table(table)) {
    diag.error(path_, 0, "table " + std::string(table) + " is missing",
               "the profiler did not export it or the file is incomplete; re-export the rank's "
               "profile data with export type db");
    return false;
  }
  auto have = this->columns(table);
  std::string missing;
  for (const auto& c : columns) {
    if (std::find(have.begin(), have.end(), c) == have.end()) {
      if (!missing.empty()) missing += ", ";
      missing += c;
    }
  }
  if (missing.empty()) return true;
  diag.error(path_, 0, where(table) + "missing column(s) " + missing,
             "the file comes from a profiler version clusterscope does not know; re-export it "
             "with a current torch_npu/CANN or report the version");
  return false;
}

std::optional<Statement> Database::prepare(std::string_view sql, std::string_view table,
                                           io::Diagnostics& diag) const {
  if (auto rows = page_scan(sql)) return Statement(std::move(*rows), path_, std::string(table));
  sqlite3* db = handle();
  if (!db) {
    diag.error(path_, 0, where(table) + "cannot open database: " + open_error_,
               "check the file exists and is readable");
    return std::nullopt;
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK || stmt == nullptr) {
    diag.error(path_, 0, where(table) + "cannot query: " + sqlite3_errmsg(db), sqlite_hint(rc));
    sqlite3_finalize(stmt);
    return std::nullopt;
  }
  return Statement(stmt, path_, std::string(table));
}

Statement::Statement(sqlite3_stmt* stmt, std::string file, std::string table)
    : stmt_(stmt), file_(std::move(file)), table_(std::move(table)) {}

Statement::Statement(PageScan rows, std::string file, std::string table)
    : rows_(std::make_unique<PagedRows>()), file_(std::move(file)), table_(std::move(table)) {
  rows_->scan = std::move(rows);
  rows_->rendered.resize(rows_->scan.pick.size());
}

Statement::Statement(Statement&& o) noexcept
    : stmt_(std::exchange(o.stmt_, nullptr)),
      rows_(std::move(o.rows_)),
      file_(std::move(o.file_)),
      table_(std::move(o.table_)),
      finished_(o.finished_) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(o.stmt_, nullptr);
    rows_ = std::move(o.rows_);
    file_ = std::move(o.file_);
    table_ = std::move(o.table_);
    finished_ = o.finished_;
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

StepResult Statement::step(io::Diagnostics& diag) {
  if (finished_) return StepResult::kDone;
  if (rows_) {
    PagedRows& r = *rows_;
    if (r.next == r.scan.rows.size()) {
      finished_ = true;
      return StepResult::kDone;
    }
    const size_t row = r.next++;
    r.scan.rows.decode(row, r.all, r.scan.decode);
    r.current.resize(r.scan.pick.size());
    for (size_t c = 0; c < r.scan.pick.size(); ++c) {
      const int from = r.scan.pick[c];
      if (from >= 0) {
        r.current[c] = r.all[static_cast<size_t>(from)];
      } else {
        r.current[c] = io::sqlite::StoredValue{};
        r.current[c].kind = io::sqlite::StoredValue::Kind::kInt;
        r.current[c].i = r.scan.rows.rowid(row);
      }
    }
    return StepResult::kRow;
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return StepResult::kRow;
  finished_ = true;
  if (rc == SQLITE_DONE) return StepResult::kDone;
  diag.error(file_, 0, where(table_) + "read failed: " + sqlite3_errmsg(sqlite3_db_handle(stmt_)),
             sqlite_hint(rc));
  return StepResult::kError;
}

bool Statement::bind(int index, int64_t value) {
  if (rows_) return false;  // a plain query has no parameter
  sqlite3_reset(stmt_);
  finished_ = false;
  return sqlite3_bind_int64(stmt_, index, value) == SQLITE_OK;
}

int Statement::column_count() const {
  if (rows_) return static_cast<int>(rows_->scan.pick.size());
  return sqlite3_column_count(stmt_);
}

std::string Statement::column_name(int i) const {
  if (rows_)
    return i >= 0 && static_cast<size_t>(i) < rows_->scan.names.size()
               ? rows_->scan.names[static_cast<size_t>(i)]
               : "";
  const char* n = sqlite3_column_name(stmt_, i);
  return n ? n : "";
}

const std::vector<io::sqlite::StoredValue>& Statement::paged_row() const {
  static const std::vector<io::sqlite::StoredValue> kNone;
  return rows_ ? rows_->current : kNone;
}

Statement::Value Statement::value_at(int i) const {
  if (rows_) {
    const auto& cur = rows_->current;
    if (i < 0 || static_cast<size_t>(i) >= cur.size()) return Value(SQLITE_NULL);
    const io::sqlite::StoredValue& v = cur[static_cast<size_t>(i)];
    switch (v.kind) {
      case io::sqlite::StoredValue::Kind::kInt:
        return Value(SQLITE_INTEGER, v.i);
      case io::sqlite::StoredValue::Kind::kReal:
        return Value(SQLITE_FLOAT, 0, v.r);
      case io::sqlite::StoredValue::Kind::kText:
        return Value(SQLITE_TEXT, 0, 0, v.bytes);
      case io::sqlite::StoredValue::Kind::kBlob:
        return Value(SQLITE_BLOB, 0, 0, v.bytes);
      default:
        return Value(SQLITE_NULL);
    }
  }
  const int type = sqlite3_column_type(stmt_, i);
  switch (type) {
    case SQLITE_INTEGER:
      return Value(type, sqlite3_column_int64(stmt_, i));
    case SQLITE_FLOAT:
      return Value(type, 0, sqlite3_column_double(stmt_, i));
    case SQLITE_TEXT:
      return Value(type, 0, 0, text_at(i));
    default:
      return Value(type);
  }
}

bool Statement::is_null(int i) const {
  return storage_class(i) == SQLITE_NULL;
}

int Statement::storage_class(int i) const {
  if (rows_) return value_at(i).type;
  return sqlite3_column_type(stmt_, i);
}

std::optional<int64_t> Statement::int64_at(int i) const {
  const Value v = value_at(i);
  switch (v.type) {
    case SQLITE_INTEGER:
      return v.i;
    case SQLITE_FLOAT:
      return int64_of_real(v.r);
    case SQLITE_TEXT:
      return int64_of_text(v.text);
    default:
      return std::nullopt;
  }
}

std::optional<double> Statement::double_at(int i) const {
  const Value v = value_at(i);
  switch (v.type) {
    case SQLITE_INTEGER:
      return static_cast<double>(v.i);
    case SQLITE_FLOAT:
      return v.r;
    case SQLITE_TEXT: {
      std::string s(v.text);
      if (s.empty()) return std::nullopt;
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size()) return std::nullopt;
      return v;
    }
    default:
      return std::nullopt;
  }
}

std::optional<io::Num> Statement::num_at(int i) const {
  const Value v = value_at(i);
  switch (v.type) {
    case SQLITE_INTEGER:
      return io::Num::integer(v.i);
    case SQLITE_FLOAT:
      return io::Num::real(v.r);
    case SQLITE_TEXT: {
      if (auto n = int64_at(i)) return io::Num::integer(*n);
      if (auto d = double_at(i)) return io::Num::real(*d);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::string_view Statement::text_at(int i) const {
  if (rows_) {
    const Value v = value_at(i);
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) return v.text;
    if (v.type == SQLITE_NULL) return {};
    std::string& out = rows_->rendered[static_cast<size_t>(i)];
    out = sqlite_text_of(rows_->current[static_cast<size_t>(i)]);
    return out;
  }
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  if (!t) return {};
  return {reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, i))};
}

int64_t sqlite_int64_of(const io::sqlite::StoredValue& v) {
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kInt) return v.i;
  if (v.kind == K::kNull) return 0;
  sqlite3_stmt* st = as_sqlite_value(v);
  return st ? sqlite3_column_int64(st, 0) : 0;
}

double sqlite_double_of(const io::sqlite::StoredValue& v) {
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kReal) return v.r;
  if (v.kind == K::kInt) return static_cast<double>(v.i);
  if (v.kind == K::kNull) return 0;
  sqlite3_stmt* st = as_sqlite_value(v);
  return st ? sqlite3_column_double(st, 0) : 0;
}

std::string sqlite_text_of(const io::sqlite::StoredValue& v) {
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kText || v.kind == K::kBlob) return std::string(v.bytes);
  if (v.kind == K::kInt) return std::to_string(v.i);
  if (v.kind == K::kNull) return {};
  sqlite3_stmt* st = as_sqlite_value(v);
  const unsigned char* t = st ? sqlite3_column_text(st, 0) : nullptr;
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(st, 0)))
           : std::string();
}

std::optional<int64_t> int64_of_real(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18)
    return static_cast<int64_t>(v);
  return std::nullopt;
}

std::optional<int64_t> int64_of_text(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace cs::db

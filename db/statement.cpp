#include "db/statement.h"

#include <sqlite3.h>

#include <cstdlib>
#include <utility>

#include "db/sqlite_messages.h"
#include "db/sqlite_values.h"

namespace cs::db {

// A paged statement's rows and its current row.
struct Statement::PagedRows {
  PageScan scan;
  size_t next = 0;
  std::vector<io::sqlite::StoredValue> current;
  mutable std::vector<std::string> rendered;  // numbers as text_at renders them
};

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
    r.scan.rows.decode_picked(r.next++, r.scan.pick, r.current);
    return StepResult::kRow;
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return StepResult::kRow;
  finished_ = true;
  if (rc == SQLITE_DONE) return StepResult::kDone;
  diag.error(file_, 0,
             table_where(table_) + "read failed: " + sqlite3_errmsg(sqlite3_db_handle(stmt_)),
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

}  // namespace cs::db

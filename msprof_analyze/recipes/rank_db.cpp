#include "msprof_analyze/recipes/rank_db.h"

#include <sqlite3.h>

#include <string_view>

namespace cs::recipes {

RankDb::RankDb(const std::string& path, io::Diagnostics& diag)
    : path_(path), db_(db::Database::open(path, diag)) {}

std::vector<std::string> RankDb::columns(const std::string& table) const {
  return db_ ? db_->columns(table) : std::vector<std::string>{};
}

bool RankDb::query(const std::string& sql, const std::vector<int64_t>& params, frame::Frame& out,
                   const std::string& table, io::Diagnostics& diag) {
  if (!db_) return false;
  auto st = db_->prepare(sql, table, diag);
  if (!st) return false;
  for (size_t i = 0; i < params.size(); ++i) st->bind(static_cast<int>(i) + 1, params[i]);
  const int ncols = st->column_count();
  out = frame::Frame{};
  for (int c = 0; c < ncols; ++c) out.add(st->column_name(c));
  // Per column, the previous row's text (a column often repeats it on consecutive rows: one
  // comparison) and a cache of its texts (a text seen before: a hash and a comparison, no lock).
  std::vector<const std::string*> last(static_cast<size_t>(ncols), nullptr);
  std::vector<frame::TextCache> caches(static_cast<size_t>(ncols));
  // The rows go to a per-thread buffer first (its memory is reused from query to query), then to
  // columns of their exact size: no column grows cell by cell.
  thread_local std::vector<frame::Cell> rows;
  rows.clear();
  auto add_text = [&](int c, std::string_view text) {
    const std::string*& prev = last[static_cast<size_t>(c)];
    if (!prev || *prev != text) prev = caches[static_cast<size_t>(c)].intern(text);
    rows.push_back(frame::Cell::interned(prev));
  };
  db::StepResult rc;
  if (st->paged()) {  // the rows from the file's pages: the same values, no SQLite calls
    const auto& row = st->paged_row();
    while ((rc = st->step(diag)) == db::StepResult::kRow) {
      for (int c = 0; c < ncols; ++c) {
        const io::sqlite::StoredValue& v = row[static_cast<size_t>(c)];
        switch (v.kind) {
          case io::sqlite::StoredValue::Kind::kInt:
            rows.push_back(frame::Cell::integer(v.i));
            break;
          case io::sqlite::StoredValue::Kind::kReal:
            rows.push_back(frame::Cell::real(v.r));
            break;
          case io::sqlite::StoredValue::Kind::kNull:
            rows.push_back(frame::Cell::null());
            break;
          default:
            add_text(c, v.bytes);
        }
      }
    }
  } else {
    sqlite3_stmt* raw = st->handle();
    while ((rc = st->step(diag)) == db::StepResult::kRow) {
      for (int c = 0; c < ncols; ++c) {
        // The column's value read once: its type, number or text without the per-call checks
        // of sqlite3_column_*() (the connection has no mutex to take: NOMUTEX).
        sqlite3_value* v = sqlite3_column_value(raw, c);
        switch (sqlite3_value_type(v)) {
          case SQLITE_INTEGER:
            rows.push_back(frame::Cell::integer(sqlite3_value_int64(v)));
            break;
          case SQLITE_FLOAT:
            rows.push_back(frame::Cell::real(sqlite3_value_double(v)));
            break;
          case SQLITE_NULL:
            rows.push_back(frame::Cell::null());
            break;
          default: {
            const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
            add_text(c, p ? std::string_view(p, static_cast<size_t>(sqlite3_value_bytes(v)))
                          : std::string_view());
          }
        }
      }
    }
  }
  const size_t width = static_cast<size_t>(ncols);
  const size_t n = width ? rows.size() / width : 0;
  for (size_t c = 0; c < width; ++c) {
    auto& cells = out.columns[c].cells;
    cells.resize(n);
    for (size_t r = 0; r < n; ++r) cells[r] = rows[r * width + c];
  }
  // A huge result's buffer is not kept for the rest of the run.
  if (rows.capacity() > (size_t{64} << 20) / sizeof(frame::Cell))
    std::vector<frame::Cell>().swap(rows);
  return rc == db::StepResult::kDone;
}

}  // namespace cs::recipes

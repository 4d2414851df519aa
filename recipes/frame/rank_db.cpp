#include "recipes/frame/rank_db.h"

#include <sqlite3.h>

#include <string_view>
#include <unordered_map>

namespace cs::recipes {

RankDb::RankDb(const std::string& path, io::Diagnostics& diag)
    : path_(path), db_(db::Database::open(path, diag)) {}

std::vector<std::string> RankDb::columns(const std::string& table) const {
  return db_ ? db_->columns(table) : std::vector<std::string>{};
}

bool RankDb::query(const std::string& sql, const std::vector<int64_t>& params, Frame& out,
                   const std::string& table, io::Diagnostics& diag) {
  if (!db_) return false;
  auto st = db_->prepare(sql, table, diag);
  if (!st) return false;
  for (size_t i = 0; i < params.size(); ++i) st->bind(static_cast<int>(i) + 1, params[i]);
  const int ncols = st->column_count();
  out = Frame{};
  for (int c = 0; c < ncols; ++c) out.add(st->column_name(c));
  // Per column, the texts seen so far (a column repeats a few texts on every row): one pool
  // lookup per distinct text.
  std::vector<std::unordered_map<std::string_view, const std::string*>> texts(
      static_cast<size_t>(ncols));
  db::StepResult rc;
  while ((rc = st->step(diag)) == db::StepResult::kRow) {
    for (int c = 0; c < ncols; ++c) {
      auto& cells = out.columns[static_cast<size_t>(c)].cells;
      switch (st->storage_class(c)) {
        case SQLITE_INTEGER:
          cells.push_back(Cell::integer(*st->int64_at(c)));
          break;
        case SQLITE_FLOAT:
          cells.push_back(Cell::real(*st->double_at(c)));
          break;
        case SQLITE_NULL:
          cells.push_back(Cell::null());
          break;
        default: {
          auto& seen = texts[static_cast<size_t>(c)];
          const std::string_view v = st->text_at(c);
          auto it = seen.find(v);
          if (it == seen.end()) {
            const std::string* s = intern_text(v);
            it = seen.emplace(std::string_view(*s), s).first;
          }
          cells.push_back(Cell::interned(it->second));
        }
      }
    }
  }
  return rc == db::StepResult::kDone;
}

}  // namespace cs::recipes

#include "recipes/frame/rank_db.h"

#include <sqlite3.h>

#include <memory>
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
  std::vector<std::unordered_map<std::string_view, std::shared_ptr<const std::string>>> texts(
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
          // Equal texts of a column share one string (group and op names repeat on every row).
          auto& seen = texts[static_cast<size_t>(c)];
          const std::string_view v = st->text_at(c);
          auto it = seen.find(v);
          if (it == seen.end()) {
            auto shared = std::make_shared<const std::string>(v);
            it = seen.emplace(std::string_view(*shared), std::move(shared)).first;
          }
          cells.push_back(Cell::text(it->second));
        }
      }
    }
  }
  return rc == db::StepResult::kDone;
}

}  // namespace cs::recipes

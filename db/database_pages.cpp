#include "db/database_pages.h"

#include <algorithm>

#include "db/simple_select.h"

namespace cs::db {

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

}  // namespace cs::db

#include "msprof_analyze/recipes/table_scan.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace cs::recipes {

bool scans_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("CS_RECIPE_SCANS");
    return !(v && std::strcmp(v, "off") == 0);
  }();
  return enabled;
}

int TableScan::next_page_row() {
  if (row_ == pages_->rows.size()) return 0;
  const size_t r = row_++;
  pages_->rows.decode(r, all_, pages_->decode);
  for (size_t c = 0; c < current_.size(); ++c) {
    const int from = pages_->pick[c];
    io::sqlite::StoredValue& v = current_[c];
    if (from >= 0) {
      v = all_[static_cast<size_t>(from)];
    } else {
      v = io::sqlite::StoredValue{};
      v.kind = io::sqlite::StoredValue::Kind::kInt;
      v.i = pages_->rows.rowid(r);
    }
    using K = io::sqlite::StoredValue::Kind;
    types_[c] = v.kind == K::kInt    ? SQLITE_INTEGER
                : v.kind == K::kReal ? SQLITE_FLOAT
                : v.kind == K::kText ? SQLITE_TEXT
                : v.kind == K::kBlob ? SQLITE_BLOB
                                     : SQLITE_NULL;
  }
  return 1;
}

int64_t TableScan::page_integer(int c) const {
  const io::sqlite::StoredValue& v = current_[static_cast<size_t>(c)];
  return v.kind == io::sqlite::StoredValue::Kind::kInt ? v.i : db::sqlite_int64_of(v);
}

double TableScan::page_real(int c) const {
  const io::sqlite::StoredValue& v = current_[static_cast<size_t>(c)];
  return v.kind == io::sqlite::StoredValue::Kind::kReal ? v.r : db::sqlite_double_of(v);
}

std::string_view TableScan::page_text(int c) const {
  const io::sqlite::StoredValue& v = current_[static_cast<size_t>(c)];
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kText || v.kind == K::kBlob) return v.bytes;
  if (v.kind == K::kNull) return {};
  rendered_.resize(current_.size());
  return rendered_[static_cast<size_t>(c)] = db::sqlite_text_of(v);
}

bool StringCells::load(const db::Database& db, const std::vector<int64_t>* wanted) {
  values_.clear();
  TableScan s(db, "SELECT id, value FROM STRING_IDS");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int(0)) return false;
    if (!wanted || std::binary_search(wanted->begin(), wanted->end(), s.integer(0)))
      values_.emplace_back(s.integer(0), s.cell(1));
  }
  std::stable_sort(values_.begin(), values_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return rc == 0;
}

bool CannStarts::load(const db::Database& db) {
  starts_.clear();
  TableScan s(db, "SELECT connectionId, startNs FROM CANN_API");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int(0) || !s.is_int_or_null(1)) return false;
    starts_.emplace_back(s.integer(0),
                         s.is_int(1) ? std::optional<int64_t>(s.integer(1)) : std::nullopt);
  }
  sort_by_key(starts_);
  return rc == 0;
}

bool CannStarts::in_range(int64_t connection, int64_t lo, int64_t hi) const {
  const std::optional<int64_t>* start = find_key(starts_, connection);
  return start && *start && **start >= lo && **start <= hi;
}

bool load_connections(const db::Database& db, std::vector<ConnectionRow>& out,
                      const std::function<void(const ConnectionRow&)>& on_null) {
  if (!scan_rows(db, "SELECT rowid, id, connectionId FROM CONNECTION_IDS", [&](const TableScan& s) {
        if (!s.is_int(0) || !s.is_int_or_null(1) || !s.is_int_or_null(2)) return false;
        const ConnectionRow c{s.is_int(2) ? s.integer(2) : 0, s.is_int(1),
                              s.is_int(1) ? s.integer(1) : 0, s.integer(0)};
        if (s.is_int(2)) {
          out.push_back(c);
        } else if (on_null) {
          on_null(c);
        }
        return true;
      }))
    return false;
  std::sort(out.begin(), out.end());
  return true;
}

std::span<const ConnectionRow> connection_matches(const std::vector<ConnectionRow>& rows,
                                                  int64_t conn) {
  auto lo = std::lower_bound(rows.begin(), rows.end(), conn,
                             [](const ConnectionRow& r, int64_t k) { return r.conn < k; });
  auto hi = lo;
  while (hi != rows.end() && hi->conn == conn) ++hi;
  return {lo, hi};
}

bool StringCells::load_ids(const db::Database& db, std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return load(db, &ids);
}

frame::Cell StringCells::find(int64_t id) const {
  const frame::Cell* c = lookup(id);
  return c ? *c : frame::Cell::null();
}

const frame::Cell* StringCells::lookup(int64_t id) const {
  auto it = std::lower_bound(values_.begin(), values_.end(), id,
                             [](const auto& p, int64_t k) { return p.first < k; });
  return it != values_.end() && it->first == id ? &it->second : nullptr;
}

}  // namespace cs::recipes

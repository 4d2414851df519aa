#include "db/string_ids.h"

#include <algorithm>

namespace cs::db {

bool StringIds::load(const Database& db, io::Diagnostics& diag) {
  dense_.clear();
  present_.clear();
  sparse_.clear();
  count_ = 0;
  if (!db.require("STRING_IDS", {"id", "value"}, diag)) return false;
  auto stmt = db.prepare("SELECT id, value FROM STRING_IDS", "STRING_IDS", diag);
  if (!stmt) return false;
  size_t bad = 0;
  StepResult r;
  while ((r = stmt->step(diag)) == StepResult::kRow) {
    auto id = stmt->int64_at(0);
    if (!id || *id < 0) {
      ++bad;
      continue;
    }
    std::string value(stmt->text_at(1));
    if (*id < static_cast<int64_t>(2 * count_ + 4096)) {
      size_t i = static_cast<size_t>(*id);
      if (i >= dense_.size()) {
        dense_.resize(std::max(i + 1, dense_.size() * 2));
        present_.resize(dense_.size(), 0);
      }
      if (!present_[i]) ++count_;
      dense_[i] = std::move(value);
      present_[i] = 1;
    } else {
      sparse_.emplace_back(*id, std::move(value));
      ++count_;
    }
  }
  if (r == StepResult::kError) return false;
  std::stable_sort(sparse_.begin(), sparse_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (bad > 0) {
    diag.warn(db.path(), 0,
              "table STRING_IDS: " + std::to_string(bad) + " row(s) with a NULL or negative id",
              "they were skipped; strings that refer to them will be reported as missing");
  }
  return true;
}

std::optional<std::string_view> StringIds::find(int64_t id) const {
  if (id >= 0 && id < static_cast<int64_t>(dense_.size())) {
    size_t i = static_cast<size_t>(id);
    if (present_[i]) return std::string_view(dense_[i]);
  }
  if (sparse_.empty()) return std::nullopt;
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), id,
                             [](const auto& e, int64_t v) { return e.first < v; });
  if (it != sparse_.end() && it->first == id) return std::string_view(it->second);
  return std::nullopt;
}

std::string_view StringIds::get_or_empty(int64_t id) const {
  auto s = find(id);
  return s ? *s : std::string_view();
}

}  // namespace cs::db

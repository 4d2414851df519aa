#pragma once
// STRING_IDS (id INTEGER, value TEXT): in the profiler databases every string column is an id into
// this table. Loaded once per file into a dense id -> string map.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.h"
#include "io/diagnostics.h"

namespace cs::db {

class StringIds {
 public:
  // Loads STRING_IDS from `db`. Returns false with one error (file, table, what to do) when the
  // table is missing, lacks its columns or cannot be read; rows with a NULL or negative id are
  // skipped with one warning.
  bool load(const Database& db, io::Diagnostics& diag);

  // The string of `id`; nullopt when the table has no such id.
  std::optional<std::string_view> find(int64_t id) const;
  // The string of `id`, or "" when absent.
  std::string_view get_or_empty(int64_t id) const;
  // Number of ids loaded.
  size_t size() const { return count_; }

 private:
  // Ids are dense from 0 in every file seen; an id far above the rows read so far (a damaged or
  // unusual file) goes to a sorted vector instead, so memory stays proportional to the rows.
  std::vector<std::string> dense_;
  std::vector<uint8_t> present_;
  std::vector<std::pair<int64_t, std::string>> sparse_;  // sorted by id
  size_t count_ = 0;
};

}  // namespace cs::db

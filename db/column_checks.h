#pragma once
// Counts the cells of a table that were NULL or not numbers where numbers belong, per column, and
// reports them as one diagnostic for the table (a 10-million-row table with a NULL column must
// not give 10 million diagnostics).

#include <cstdint>
#include <map>
#include <string>

#include "io/diagnostics.h"

namespace cs::db {

class BadCells {
 public:
  BadCells(std::string file, std::string table)
      : file_(std::move(file)), table_(std::move(table)) {}

  // Counts one bad cell of `column`.
  void add(const std::string& column) { ++counts_[column]; }
  // Counts one row left out (no usable key, e.g. a NULL op name).
  void skip_row() { ++skipped_rows_; }
  bool empty() const { return counts_.empty() && skipped_rows_ == 0; }

  // Adds one error naming the file, the table, the columns and counts; nothing when all was well.
  void report(io::Diagnostics& diag) const;

 private:
  std::string file_;
  std::string table_;
  std::map<std::string, int64_t> counts_;
  int64_t skipped_rows_ = 0;
};

}  // namespace cs::db

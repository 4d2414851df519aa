#pragma once
// Typed access to the cells of a CsvReader's rows, reporting unusable numbers once per column:
// the first few with their line and byte offset, the rest in one summary at the end, so a file with
// a million bad cells yields a handful of useful diagnostics, not a million.
//
//   CsvCells cells(reader, diag);
//   double wait = cells.number(row, wait_col);  // NaN (+ a warning) for "1e999", "NaN", "abc"
//   ...
//   cells.finish();

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/csv/csv_reader.h"
#include "io/diagnostics.h"

namespace cs::io {

class CsvCells {
 public:
  CsvCells(const CsvReader& reader, Diagnostics& diag);

  // The number in column `col` of `row`; NaN when the column is absent (col < 0) or the cell is
  // empty / N/A (silently), or when it is NaN, out of range or not a number (with a warning that
  // says it was treated as missing). Example: cell " 12.5\t" -> 12.5.
  double number(const CsvRow& row, int col);
  // Like number(), but returns the status and leaves reporting to the caller (`out` set on kOk).
  NumberStatus status(const CsvRow& row, int col, double& out) const;
  // Reports an unusable cell (counted against the per-column limit) with the caller's hint.
  void report(const CsvRow& row, int col, NumberStatus s, std::string_view hint);
  // Emits the per-column summaries of cells that were not reported one by one.
  void finish();

  static constexpr int64_t kReportedPerColumn = 3;

 private:
  const CsvReader& reader_;
  Diagnostics& diag_;
  std::vector<int64_t> bad_;  // per column
};

// A text cell: spaces, TABs and CR trimmed, then any quotes around the whole value removed
// (the CSV layer already unquoted it once): "\"81920,4096;8192,512\"" -> "81920,4096;8192,512".
std::string_view strip_quotes(std::string_view cell);

}  // namespace cs::io

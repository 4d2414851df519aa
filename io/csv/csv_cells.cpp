#include "io/csv/csv_cells.h"

#include <cmath>
#include <limits>

namespace cs::io {

CsvCells::CsvCells(const CsvReader& reader, Diagnostics& diag)
    : reader_(reader), diag_(diag), bad_(reader.header().size(), 0) {}

NumberStatus CsvCells::status(const CsvRow& row, int col, double& out) const {
  if (col < 0) return NumberStatus::kMissing;
  return parse_number_status(row[col], out);
}

double CsvCells::number(const CsvRow& row, int col) {
  double v = 0;
  NumberStatus s = status(row, col, v);
  if (s == NumberStatus::kOk) return v;
  if (s != NumberStatus::kMissing) report(row, col, s, "treated as missing (NaN)");
  return std::numeric_limits<double>::quiet_NaN();
}

void CsvCells::report(const CsvRow& row, int col, NumberStatus s, std::string_view hint) {
  if (col < 0 || static_cast<size_t>(col) >= bad_.size()) return;
  if (++bad_[static_cast<size_t>(col)] > kReportedPerColumn) return;
  // The cell's text is not repeated (a file linked in by mistake may hold secrets).
  diag_.warn(reader_.path(), row.line,
             "column \"" + reader_.header()[static_cast<size_t>(col)] + "\" (field " +
                 std::to_string(col + 1) + "): expected a number, the cell is " +
                 number_status_text(s),
             std::string(hint), row.offset);
}

void CsvCells::finish() {
  for (size_t c = 0; c < bad_.size(); ++c) {
    if (bad_[c] <= kReportedPerColumn) continue;
    diag_.warn(reader_.path(), 0,
               std::to_string(bad_[c] - kReportedPerColumn) + " more unusable cells in column \"" +
                   reader_.header()[c] + "\" (the first " + std::to_string(kReportedPerColumn) +
                   " are reported above)",
               "they were treated the same way");
    bad_[c] = 0;
  }
}

std::string_view strip_quotes(std::string_view cell) {
  std::string_view s = trim(cell);
  while (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = trim(s.substr(1, s.size() - 2));
  return s;
}

}  // namespace cs::io

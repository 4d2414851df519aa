#pragma once
// A table of differences for the compare report: chosen columns of an io::Table, rows ordered by
// |diff| (largest first) and capped, each with a diverging bar of its diff.

#include <string>
#include <vector>

#include "io/table.h"
#include "report/html_out.h"

namespace cs::report {

enum class CellKind { kText, kCount, kUs, kMs, kRatio, kPercent };

struct DiffColumn {
  std::string header;
  std::string column;  // name in the table
  CellKind kind = CellKind::kText;
};

struct DiffTableSpec {
  std::vector<DiffColumn> columns;
  std::string diff_column;  // e.g. "diff_us"; drives order, colour and bar
  size_t max_rows = 20;
  bool sort_by_abs_diff = true;  // false: keep the table's order
};

// Writes the table; returns the number of rows left out by the cap.
size_t diff_table(HtmlOut& h, const io::Table& t, const DiffTableSpec& spec);

}  // namespace cs::report

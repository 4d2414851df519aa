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
  bool skip_zero = true;         // leave out rows whose diff shows as 0 (no difference)
};

// Text cells longer than this are shortened in the middle ("Cutlass…Kernel"), the full text on
// hover (title) and kept for search and sort (data-full).
constexpr size_t kMaxNameChars = 60;

// `text` shortened in the middle to at most `max` characters (UTF-8 aware), or as is.
std::string middle_ellipsis(const std::string& text, size_t max = kMaxNameChars);

// Writes the table; returns the number of rows left out by the cap or for showing no difference.
size_t diff_table(HtmlOut& h, const io::Table& t, const DiffTableSpec& spec);

}  // namespace cs::report

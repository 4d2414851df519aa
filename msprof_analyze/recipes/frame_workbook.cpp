#include "msprof_analyze/recipes/frame_workbook.h"

#include <cmath>

#include "io/xlsx/xlsx_writer.h"

namespace cs::recipes {

namespace {

// One cell as XlsxWriter's write() stores the pandas value: None and NaN blank (XlsxWriter
// refuses NaN; msprof-analyze's frames hold None there), numbers as numbers, text as write()
// stores a str.
void put(io::XlsxSheet& sheet, int row, int col, const frame::Cell& v, int format) {
  if (v.is_null() || (v.is_number() && !std::isfinite(v.num())))
    sheet.blank(row, col, format);
  else if (v.is_number())
    sheet.number(row, col, v.num(), format);
  else
    sheet.write(row, col, v.str(), format);
}

// Python's == between two cells of a column (ints and reals compare by value).
bool same(const frame::Cell& a, const frame::Cell& b) {
  if (a.is_number() && b.is_number()) return a.num() == b.num();
  return a == b;
}

// ExcelUtils.merge_duplicate_cells on one column: every run of more than one equal value
// becomes one merged cell holding it; runs of None (and NaN, never equal) are not merged.
void merge_runs(io::XlsxSheet& sheet, const frame::FrameColumn& column, int col, int format) {
  const auto& cells = column.cells;
  const size_t n = cells.size();
  size_t start = 0;
  for (size_t i = 1; i <= n; ++i) {
    if (i < n && same(cells[i], cells[start])) continue;
    if (i - start > 1 && !cells[start].is_null()) {
      const int first = static_cast<int>(start) + 1;
      put(sheet, first, col, cells[start], format);
      sheet.merge(first, col, static_cast<int>(i), col, format);
    }
    start = i;
  }
}

}  // namespace

bool write_frame_workbook(const frame::Frame& rows, const WorkbookLayout& layout,
                          const std::string& path, io::Diagnostics& diag) {
  io::XlsxSheet sheet("Sheet1");
  const int header = sheet.add_format({.font_name = "Times New Roman",
                                       .bold = true,
                                       .fill_rgb = "AFEEEE",
                                       .border = true,
                                       .vcenter = true});
  const int body = sheet.add_format({.font_name = "Times New Roman",
                                     .bold = false,
                                     .fill_rgb = "",
                                     .border = true,
                                     .vcenter = true});
  const size_t columns = rows.columns.size();
  for (size_t c = 0; c < columns; ++c)
    sheet.write(0, static_cast<int>(c),
                c < layout.header.size() ? layout.header[c] : rows.columns[c].name, header);
  // Row by row, as ExcelUtils' iterrows() loop writes them: XlsxWriter numbers the shared
  // strings in the order they are written.
  const size_t n = rows.rows();
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < columns; ++c)
      put(sheet, static_cast<int>(r) + 1, static_cast<int>(c), rows.columns[c].cells[r], body);
  for (size_t c : layout.merge_columns)
    if (c < columns) merge_runs(sheet, rows.columns[c], static_cast<int>(c), body);
  for (size_t c = 0; c < layout.widths.size(); ++c)
    sheet.column_width(static_cast<int>(c), layout.widths[c]);
  if (layout.header_height > 0) sheet.row_height(0, layout.header_height);
  return sheet.save(path, diag);
}

}  // namespace cs::recipes

#include "msprof_analyze/recipes/module_statistic/module_workbook.h"

#include "io/xlsx/xlsx_writer.h"

namespace cs::recipes::module_statistic {

namespace {

constexpr int kColumns = 7;
constexpr const char* kHeader[kColumns] = {
    "Parent Module",           "Module",  "Op Name", "Kernel List", "Total Kernel Duration(ns)",
    "Avg Kernel Duration(ns)", "Op Count"};
constexpr double kWidth[kColumns] = {40, 40, 40, 50, 10, 10, 10};

// As msprof-analyze's merge_duplicate_cells: each run of more than one equal value in column
// `col` (data rows 1..n) becomes one merged cell holding the value.
void merge_runs(io::XlsxSheet& sheet, const frame::FrameColumn& column, int col, int format) {
  const auto& cells = column.cells;
  const int n = static_cast<int>(cells.size());
  int start = 0;
  for (int i = 1; i <= n; ++i) {
    if (i < n && cells[static_cast<size_t>(i)].str() == cells[static_cast<size_t>(start)].str())
      continue;
    if (i - start > 1) {
      sheet.write(start + 1, col, cells[static_cast<size_t>(start)].str(), format);
      sheet.merge(start + 1, col, i, col, format);
    }
    start = i;
  }
}

}  // namespace

bool write_module_workbook(const frame::Frame& rows, const std::string& path,
                           io::Diagnostics& diag) {
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
  for (int c = 0; c < kColumns; ++c) sheet.write(0, c, kHeader[c], header);
  const size_t n = rows.rows();
  for (size_t r = 0; r < n; ++r) {
    const int row = static_cast<int>(r) + 1;
    for (int c = 0; c < 4; ++c)
      sheet.write(row, c, rows.columns[static_cast<size_t>(c)].cells[r].str(), body);
    for (int c = 4; c < kColumns; ++c)
      sheet.number(row, c, rows.columns[static_cast<size_t>(c)].cells[r].num(), body);
  }
  merge_runs(sheet, rows.columns[0], 0, body);
  merge_runs(sheet, rows.columns[1], 1, body);
  for (int c = 0; c < kColumns; ++c) sheet.column_width(c, kWidth[c]);
  sheet.row_height(0, 27);
  return sheet.save(path, diag);
}

}  // namespace cs::recipes::module_statistic

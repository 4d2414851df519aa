#pragma once
// A frame written as msprof-analyze's ExcelUtils writes a DataFrame (XlsxWriter, one sheet
// "Sheet1"): a header row (Times New Roman, bold, pale turquoise, thin borders, vertically
// centred), one row per frame row (Times New Roman, thin borders, vertically centred; NULL cells
// blank, numbers as numbers, text as XlsxWriter's write() stores it), runs of equal values of
// chosen columns merged into one cell, column widths, and the header row's height. Used by the
// recipes whose text export is a formatted workbook (operator_mfu, calibrate_npu_gpu,
// module_statistic).

#include <string>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"

namespace cs::recipes {

struct WorkbookLayout {
  // Column titles in frame order; empty: the frame's column names.
  std::vector<std::string> header;
  // Columns (frame positions) whose runs of more than one equal non-NULL value are merged, as
  // ExcelUtils.merge_duplicate_cells merges them.
  std::vector<size_t> merge_columns;
  // Widths of columns 0, 1, ... in characters. ExcelUtils.set_column_width gives the i-th entry
  // of its {name: width} map to column i whatever the frame's column order, so callers pass the
  // map's widths in its order.
  std::vector<double> widths;
  // The header row's height in points; 0 leaves it at Excel's default.
  double header_height = 0;
};

// Writes `rows` to the workbook `path` as laid out by `layout`. False with an error naming the
// file when it cannot be written.
bool write_frame_workbook(const frame::Frame& rows, const WorkbookLayout& layout,
                          const std::string& path, io::Diagnostics& diag);

}  // namespace cs::recipes

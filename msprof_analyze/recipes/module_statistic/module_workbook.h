#pragma once
// module_statistic's text export: one workbook per rank, module_statistic_{rank}.xlsx, as
// msprof-analyze's ExcelUtils writes it with XlsxWriter: sheet "Sheet1", a header row (Parent
// Module, Module, Op Name, Kernel List, Total Kernel Duration(ns), Avg Kernel Duration(ns), Op
// Count; bold, pale turquoise, 27 points high) and one row per statistic (Times New Roman, thin
// borders, vertically centred), runs of equal Parent Module and of equal Module merged into one
// cell, columns 40/40/40/50/10/10/10 characters wide.

#include <string>

#include "frame/frame.h"
#include "io/diagnostics.h"

namespace cs::recipes::module_statistic {

// Writes `rows` (the recipe's frame: parentModule, module, opName, kernelList,
// totalKernelDuration(ns), avgKernelDuration(ns), opCount[, rankID]) to the workbook `path`.
bool write_module_workbook(const frame::Frame& rows, const std::string& path,
                           io::Diagnostics& diag);

}  // namespace cs::recipes::module_statistic

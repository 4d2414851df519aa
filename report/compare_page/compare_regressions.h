#pragma once
// The compare report's first answer (internal to report/): what regressed, by how much and where
// (rank, step, operator), from the run-vs-run tables.

#include "report/compare_page/compare_report.h"
#include "report/html_out.h"

namespace cs::report {

// <li> findings for the top significant regressions of `in.regressions` (none when it is null or
// has no significant row: then one "no significant regression" finding). Returns how many.
size_t regression_findings(HtmlOut& h, const CompareReportInput& in, size_t max_items = 5);

}  // namespace cs::report

#pragma once
// report.html of `clusterscope compare`: the overall-metrics table with diff bars and the largest
// kernel, operator and communication differences, from the comparison tables only (interface.md,
// "Files written by compare"). Any table may be null: its section says "not computed".
//
//   CompareReportInput in;
//   in.overall_metrics = &overall; in.kernel_compare = &kernels; ...
//   write_compare_report_html(in, out_dir + "/report.html", diag);

#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::report {

struct CompareReportInput {
  const io::Table* overall_metrics = nullptr;        // metric,base_ms,...,diff_ms,diff_ratio
  const io::Table* kernel_compare = nullptr;         // key,base_total_us,...,diff_us,diff_ratio
  const io::Table* operator_compare = nullptr;       // order,base_op,comparison_op,...,diff_us
  const io::Table* communication_compare = nullptr;  // op_type,base_calls,...,diff_us,diff_ratio
  const io::Table* regressions = nullptr;            // run vs run: what,key,...,significant,where
  const io::Table* rank_diff = nullptr;              // run vs run: rank,step,metric,...,diff_us
  std::string scope_text;             // what was compared ("all 16 ranks of both runs ...")
  std::vector<std::string> warnings;  // shown first, loudly (runs of different shape or steps)
  std::string base_path;
  std::string comparison_path;
  double seconds = 0;        // wall time of the comparison
  std::string summary_text;  // shown as is
};

// The page as a string; never throws on odd tables.
std::string render_compare_report_html(const CompareReportInput& in);

// Renders and writes `path` (temporary file + rename); false with an error in `diag` on failure.
bool write_compare_report_html(const CompareReportInput& in, const std::string& path,
                               io::Diagnostics& diag);

}  // namespace cs::report

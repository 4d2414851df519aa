#pragma once
// The whole comparison of two profiles as tables, and writing them to OUT/comparison_output/
// (interface.md "Files written by compare"): overall_metrics.csv, kernel_compare.csv,
// operator_compare.csv, communication_compare.csv and the same tables in comparison.h5.
//
//   ComparisonTables t = compare_profiles(base, comparison, opts);
//   write_comparison(t, "out/comparison_output", meta, diag);

#include <string>
#include <vector>

#include "compare/operator_compare.h"
#include "compare/profile.h"
#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::compare {

struct CompareOptions {
  OperatorCompareOptions operators;  // name map, input shapes, drill-down
};

struct ComparisonTables {
  io::Table overall;        // overall_metrics
  io::Table kernels;        // kernel_compare
  io::Table operators;      // operator_compare
  io::Table communication;  // communication_compare
};

// Pure: every table of the comparison of `base` with `comparison`.
ComparisonTables compare_profiles(const Profile& base, const Profile& comparison,
                                  const CompareOptions& opt);

// What the report says about the comparison beyond its tables (run vs run).
struct WriteContext {
  std::string scope;                  // what was compared
  std::vector<std::string> warnings;  // shown first, loudly
};

// Writes the four CSV files, comparison.h5 and report.html into `out_dir` (created when missing),
// plus the `extra` tables (run vs run: rank_diff, regressions) as CSV and in the same HDF5 file.
// Tables without columns (a side with no timeline) are skipped. The paths go to the HDF5 /meta
// attributes. False with errors in `diag` when a file cannot be written.
bool write_comparison(const ComparisonTables& t, const std::string& out_dir,
                      const std::string& base_path, const std::string& comparison_path,
                      io::Diagnostics& diag, const std::vector<const io::Table*>& extra = {},
                      const WriteContext& context = {});

}  // namespace cs::compare

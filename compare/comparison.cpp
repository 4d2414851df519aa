#include "compare/comparison.h"

#include "report/compare_page/compare_report.h"

#include <filesystem>
#include <system_error>

#include "compare/communication_compare.h"
#include "compare/kernel_compare.h"
#include "compare/overall_metrics.h"
#include "io/csv/csv_writer.h"
#include "io/hdf5/hdf5_meta.h"
#include "io/hdf5/hdf5_writer.h"

namespace cs::compare {

ComparisonTables compare_profiles(const Profile& base, const Profile& comparison,
                                  const CompareOptions& opt) {
  ComparisonTables t;
  t.overall = overall_metrics_table(overall_metrics(base), overall_metrics(comparison));
  t.kernels = kernel_compare_table(base, comparison, opt.operators.use_input_shape);
  t.operators = operator_compare_table(base, comparison, opt.operators);
  t.communication = communication_compare_table(base, comparison);
  return t;
}

bool write_comparison(const ComparisonTables& t, const std::string& out_dir,
                      const std::string& base_path, const std::string& comparison_path,
                      io::Diagnostics& diag, const std::vector<const io::Table*>& extra,
                      const WriteContext& context) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    diag.error(out_dir, 0, "cannot create the output directory: " + ec.message(),
               "choose another -o directory or fix its permissions");
    return false;
  }
  bool ok = true;
  std::vector<const io::Table*> tables;
  for (const auto* table : {&t.overall, &t.kernels, &t.operators, &t.communication})
    if (!table->columns.empty()) tables.push_back(table);
  for (const auto* table : extra)
    if (table && !table->columns.empty()) tables.push_back(table);
  for (const auto* table : tables)
    ok = io::write_table_csv(*table, out_dir + "/" + table->name + ".csv", diag) && ok;
  auto h5 = io::Hdf5File::create(out_dir + "/comparison.h5", diag);
  if (!h5) return false;
  for (const auto* table : tables) ok = h5->write_table(*table, diag) && ok;
  io::Hdf5Meta meta;
  meta.input_path = base_path;
  meta.ranks = 1;
  meta.extra.emplace_back("base", base_path);
  meta.extra.emplace_back("comparison", comparison_path);
  ok = io::write_hdf5_meta(*h5, meta, diag) && ok;
  ok = h5->finish(diag) && ok;

  // The same tables as one self-contained page.
  report::CompareReportInput in;
  auto non_empty = [](const io::Table& x) { return x.columns.empty() ? nullptr : &x; };
  in.overall_metrics = non_empty(t.overall);
  in.kernel_compare = non_empty(t.kernels);
  in.operator_compare = non_empty(t.operators);
  in.communication_compare = non_empty(t.communication);
  for (const auto* table : extra)
    if (table && !table->columns.empty()) {
      if (table->name == "regressions") in.regressions = table;
      if (table->name == "rank_diff") in.rank_diff = table;
    }
  in.scope_text = context.scope;
  in.warnings = context.warnings;
  in.base_path = base_path;
  in.comparison_path = comparison_path;
  return report::write_compare_report_html(in, out_dir + "/report.html", diag) && ok;
}

}  // namespace cs::compare

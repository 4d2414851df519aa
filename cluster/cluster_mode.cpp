#include "cluster/cluster_mode.h"

#include <algorithm>

namespace cs::cluster {

std::string_view mode_name(Mode mode) {
  return runtime::enum_to_name(kModeNames, mode);
}

bool is_op_table(std::string_view table_name) {
  return table_name == "communication_ops" || table_name == "communication_matrix";
}

bool parse_output_formats(std::string_view text, OutputFormats& out, std::string& error) {
  out.clear();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty() && comma == text.size()) break;  // "json," or "": nothing after the comma
    const auto f = runtime::enum_from_name(kOutputFormatNames, item);
    if (!f) {
      error = runtime::unknown_value("format", item, runtime::enum_names(kOutputFormatNames));
      return false;
    }
    if (*f == OutputFormat::kAll)
      out.insert(
          {OutputFormat::kJson, OutputFormat::kCsv, OutputFormat::kHdf5, OutputFormat::kHtml});
    else
      out.insert(*f);
  }
  if (out.empty())
    error = "no format given \u2014 valid: " + runtime::enum_names(kOutputFormatNames);
  return !out.empty();
}

load::ParseOptions parse_options_for_mode(Mode mode, load::ParseOptions base) {
  // Communication groups (needed for every msprof-compatible output, and for pipeline stages in
  // the step trace) come from both communication files.
  const bool comm = mode != Mode::kOperators;
  const bool all_or_diag = mode == Mode::kAll || mode == Mode::kDiagnosis;
  base.communication = comm;
  base.matrix = comm;
  base.step_trace = all_or_diag || mode == Mode::kStepTrace;
  base.kernels = all_or_diag || mode == Mode::kOperators;
  base.memory = all_or_diag;  // the memory files (memory/), when the rank has them
  base.host = all_or_diag;
  return base;
}

}  // namespace cs::cluster

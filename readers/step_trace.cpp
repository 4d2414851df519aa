// step_trace_time.csv reader (formats.md §4): every column but Device_id and Step is a value
// column, kept in file order, so older files without Preparing (or newer ones with more columns)
// read the same way.

#include "readers/step_trace.h"

#include <limits>
#include <utility>

#include "io/csv_cells.h"
#include "io/csv_reader.h"

namespace cs::io {

namespace {

bool stream_step_trace(CsvReader& r, StepTraceFile& out, Diagnostics& diag) {
  out.columns.clear();
  out.rows.clear();
  const int c_step = r.column("Step");
  std::vector<int> value_cols;
  for (size_t i = 0; i < r.header().size(); ++i) {
    const std::string& h = r.header()[i];
    if (h == "Device_id" || h == "Step") continue;
    out.columns.push_back(h);
    value_cols.push_back(static_cast<int>(i));
  }
  if (value_cols.empty()) {
    diag.error(r.path(), 1, "no value columns in the header (expected Computing, ...)",
               "this does not look like a step_trace_time.csv; check the file", 0);
    return false;
  }
  CsvCells cells(r, diag);
  CsvRow row;
  while (r.next(row)) {
    StepTraceRow s;
    s.step = std::string(trim(row[c_step]));
    s.values.reserve(value_cols.size());
    for (int c : value_cols) s.values.push_back(cells.number(row, c));
    out.rows.push_back(std::move(s));
  }
  cells.finish();
  return true;
}

}  // namespace

int StepTraceFile::column(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

double StepTraceFile::get(const StepTraceRow& row, const std::string& name) const {
  int c = column(name);
  if (c < 0 || static_cast<size_t>(c) >= row.values.size()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return row.values[static_cast<size_t>(c)];
}

bool read_step_trace_csv(const std::string& path, StepTraceFile& out, Diagnostics& diag) {
  CsvReader r(path, diag);
  if (!r.open()) return false;
  return stream_step_trace(r, out, diag);
}

bool parse_step_trace_csv(std::string_view text, const std::string& source, StepTraceFile& out,
                          Diagnostics& diag) {
  CsvReader r(source, diag);
  if (!r.open_text(text, source)) return false;
  return stream_step_trace(r, out, diag);
}

}  // namespace cs::io

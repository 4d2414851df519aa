// step_trace_time.csv reader (docs/formats.md §4): every column but Device_id and Step is a value
// column, kept in file order, so older files without Preparing (or newer ones with more columns)
// read the same way. Header names lose any byte-order marks left in front (a file written twice
// with a BOM); rows identical to an earlier one are dropped with one warning.

#include "readers/step_trace.h"

#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_set>
#include <utility>

#include "io/csv/csv_cells.h"
#include "io/csv/csv_reader.h"

namespace cs::readers {

namespace {

// A header name without the UTF-8 byte-order marks in front of it (the reader drops one).
std::string_view without_boms(std::string_view h) {
  while (h.size() >= 3 && h.substr(0, 3) == "\xEF\xBB\xBF") h.remove_prefix(3);
  return io::trim(h);
}

// The row's identity for spotting exact repeats: the step, then the values' bits.
std::string row_key(const StepTraceRow& s) {
  std::string k = s.step;
  k.push_back('\0');
  const size_t at = k.size();
  k.resize(at + s.values.size() * sizeof(double));
  if (!s.values.empty())
    std::memcpy(k.data() + at, s.values.data(), s.values.size() * sizeof(double));
  return k;
}

bool stream_step_trace(io::CsvReader& r, StepTraceFile& out, io::Diagnostics& diag) {
  out.columns.clear();
  out.rows.clear();
  std::vector<std::string> columns;
  int c_step = -1;
  std::vector<int> value_cols;
  bool known = false;
  for (size_t i = 0; i < r.header().size(); ++i) {
    const std::string_view h = without_boms(r.header()[i]);
    if (h == "Device_id") continue;
    if (h == "Step") {
      if (c_step < 0) c_step = static_cast<int>(i);
      continue;
    }
    known = known || is_step_trace_column(h);
    columns.emplace_back(h);
    value_cols.push_back(static_cast<int>(i));
  }
  out.columns = std::move(columns);
  if (!known) {
    diag.error(r.path(), 1,
               "the header has none of the profiler's step columns (Computing, Free, Stage, ...)",
               "this does not look like a step_trace_time.csv; check the file", 0);
    return false;
  }
  io::CsvCells cells(r, diag);
  io::CsvRow row;
  std::unordered_set<std::string> seen;
  int64_t repeats = 0, first_repeat_line = 0, first_repeat_offset = -1;
  while (r.next(row)) {
    StepTraceRow s;
    s.step = std::string(io::trim(row[c_step]));
    s.values.reserve(value_cols.size());
    for (int c : value_cols) s.values.push_back(cells.number(row, c));
    if (!seen.insert(row_key(s)).second) {
      if (repeats++ == 0) first_repeat_line = row.line, first_repeat_offset = row.offset;
      continue;
    }
    out.rows.push_back(std::move(s));
  }
  out.rows.shrink_to_fit();
  cells.finish();
  if (repeats > 0)
    diag.warn(r.path(), first_repeat_line,
              std::to_string(repeats) + " row(s) repeat an earlier row exactly (the first here)",
              "each repeated row was counted once; check how the file was written",
              first_repeat_offset);
  return true;
}

// The pool of column lists: each distinct list once, for the life of the process. A process
// reading many different headers (a fuzzer) stops adding at kPoolLists: later lists are their own.
constexpr size_t kPoolLists = 256;
std::shared_ptr<const std::vector<std::string>> interned(std::vector<std::string> names) {
  static std::mutex mu;
  static std::vector<std::shared_ptr<const std::vector<std::string>>> pool;
  names.shrink_to_fit();
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& p : pool)
    if (*p == names) return p;
  auto list = std::make_shared<const std::vector<std::string>>(std::move(names));
  if (pool.size() < kPoolLists) pool.push_back(list);
  return list;
}

}  // namespace

StepTraceColumns::StepTraceColumns(std::vector<std::string> names) {
  if (!names.empty()) list_ = interned(std::move(names));
}

const std::vector<std::string>& StepTraceColumns::names() const {
  static const std::vector<std::string> kNone;
  return list_ ? *list_ : kNone;
}

void StepTraceColumns::emplace_back(std::string_view name) {
  std::vector<std::string> names = this->names();
  names.emplace_back(name);
  list_ = interned(std::move(names));
}

bool is_step_trace_column(std::string_view name) {
  for (std::string_view k : kStepTraceColumns)
    if (k == name) return true;
  return false;
}

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

bool read_step_trace_csv(const std::string& path, StepTraceFile& out, io::Diagnostics& diag) {
  io::CsvReader r(path, diag);
  if (!r.open()) return false;
  return stream_step_trace(r, out, diag);
}

bool parse_step_trace_csv(std::string_view text, const std::string& source, StepTraceFile& out,
                          io::Diagnostics& diag) {
  io::CsvReader r(source, diag);
  if (!r.open_text(text, source)) return false;
  return stream_step_trace(r, out, diag);
}

}  // namespace cs::readers

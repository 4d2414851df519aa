#pragma once
// step_trace_time.csv (per rank): Device_id,Step,Computing,Communication(Not Overlapped),
// Overlapped,Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive)
// [,Preparing]. Microseconds. See formats.md §4.

#include <array>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"

namespace cs::readers {

// The value columns the profilers write, in their order (Preparing only in newer files).
inline constexpr std::array<std::string_view, 9> kStepTraceColumns = {
    "Computing",  "Communication(Not Overlapped)",
    "Overlapped", "Communication",
    "Free",       "Stage",
    "Bubble",     "Communication(Not Overlapped and Exclude Receive)",
    "Preparing"};

// True for a name in kStepTraceColumns: is_step_trace_column("Free") == true.
bool is_step_trace_column(std::string_view name);

// The value column names of one file, read like a const std::vector<std::string>. Every rank of a
// job has the same header, so equal lists are one list shared by every file that has it (interned
// in a process-wide pool of the lists seen, a handful); a change copies the list first.
//   StepTraceColumns c = {"Computing", "Free"};  c.emplace_back("Stage");  c[2] == "Stage"
class StepTraceColumns {
 public:
  StepTraceColumns() = default;
  StepTraceColumns(std::vector<std::string> names);  // NOLINT: a list of names converts
  StepTraceColumns(std::initializer_list<std::string> names)
      : StepTraceColumns(std::vector<std::string>(names)) {}

  // The names as a vector (empty when there are none).
  const std::vector<std::string>& names() const;
  operator const std::vector<std::string>&() const { return names(); }  // NOLINT
  size_t size() const { return names().size(); }
  bool empty() const { return names().empty(); }
  const std::string& operator[](size_t i) const { return names()[i]; }
  const std::string& front() const { return names().front(); }
  const std::string& back() const { return names().back(); }
  std::vector<std::string>::const_iterator begin() const { return names().begin(); }
  std::vector<std::string>::const_iterator end() const { return names().end(); }

  void clear() { list_.reset(); }
  void emplace_back(std::string_view name);
  void push_back(std::string_view name) { emplace_back(name); }
  template <class It>
  void assign(It first, It last) {
    *this = StepTraceColumns(std::vector<std::string>(first, last));
  }

  friend bool operator==(const StepTraceColumns& a, const StepTraceColumns& b) {
    return a.list_ == b.list_ || a.names() == b.names();
  }
  friend bool operator==(const StepTraceColumns& a, const std::vector<std::string>& b) {
    return a.names() == b;
  }

 private:
  std::shared_ptr<const std::vector<std::string>> list_;  // from the pool; null when empty
};

struct StepTraceRow {
  std::string step;            // as written ("" when the producer left it empty)
  std::vector<double> values;  // one per StepTraceFile::columns; NaN when the cell was N/A or empty
  bool no_step = false;        // a whole-run row: the step is None (msprof-analyze's DB adapters)
};

struct StepTraceFile {
  // Value column names in file order, without Device_id and Step (e.g. "Computing", ...,
  // "Preparing"). msprof-analyze's cluster header is "Step,Type,Index," + these.
  StepTraceColumns columns;
  std::vector<StepTraceRow> rows;

  // Index of a value column by name, -1 when absent.
  int column(const std::string& name) const;
  // Value of a named column in a row, NaN when the column is absent.
  double get(const StepTraceRow& row, const std::string& name) const;
};

// Reads the file (parse_* reads text already in memory; `source` names it in diagnostics).
// Returns false (with an error) only when the file cannot be used at all (no known column in the
// header); bad rows and cells become diagnostics naming file and line, and are skipped; rows
// repeating an earlier row exactly are dropped with one warning (count, first line).
bool read_step_trace_csv(const std::string& path, StepTraceFile& out, io::Diagnostics& diag);
bool parse_step_trace_csv(std::string_view text, const std::string& source, StepTraceFile& out,
                          io::Diagnostics& diag);

}  // namespace cs::readers

#pragma once
// Test helper: loads a CSV file into an io::Table of string columns (the report reads numbers
// from text), so report tests can use small checked-in result tables.

#include <string>

#include "io/csv/csv_reader.h"
#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::report::test {

// tests/data/report/: the small result tables the report tests load (ends with '/').
inline const std::string kReportData = std::string(CS_TEST_DATA) + "/report/";

inline io::Table load_csv_table(const std::string& path, const std::string& name) {
  io::Diagnostics diag;
  io::CsvReader r(path, diag);
  io::Table t(name);
  if (!r.open()) return t;
  for (const auto& h : r.header()) t.add_string(h);
  io::CsvRow row;
  while (r.next(row)) {
    int i = 0;
    for (auto& c : t.columns) c.strings.emplace_back(row[i++]);
  }
  return t;
}

}  // namespace cs::report::test

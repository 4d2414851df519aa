// read_operator_details: operator_details.csv summed per operator name.

#include "host/operator_details.h"

#include <array>

#include "io/csv/csv_reader.h"

namespace cs::host {

bool read_operator_details(const std::string& path, std::map<std::string, OperatorDetailsSum>& out,
                           io::Diagnostics& diag) {
  io::CsvReader r(path, diag);
  if (!r.open()) return false;
  const int name = r.column("Name");
  const std::array<int, 4> cols = {
      r.column("Host Self Duration(us)"), r.column("Host Total Duration(us)"),
      r.column("Device Self Duration(us)"), r.column("Device Total Duration(us)")};
  if (name < 0 || cols[0] < 0 || cols[1] < 0 || cols[2] < 0 || cols[3] < 0) {
    diag.error(path, 0, "not an operator_details.csv: a needed column is missing",
               "expected Name and the Host/Device Self/Total Duration(us) columns");
    return false;
  }
  io::CsvRow row;
  int64_t bad = 0;
  while (r.next(row)) {
    std::array<double, 4> v{};
    bool good = true;
    for (size_t i = 0; i < cols.size(); ++i) good = good && io::parse_number(row[cols[i]], v[i]);
    if (!good) {
      ++bad;
      continue;
    }
    OperatorDetailsSum& s = out[std::string(row[name])];
    s.calls += 1;
    s.host_self_us += v[0];
    s.host_total_us += v[1];
    s.device_self_us += v[2];
    s.device_total_us += v[3];
  }
  if (bad > 0)
    diag.warn(path, 0, std::to_string(bad) + " row(s) with a duration that is not a number",
              "those rows were left out of the per-operator sums");
  return true;
}

}  // namespace cs::host

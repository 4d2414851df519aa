#include "db/column_checks.h"

namespace cs::db {

void BadCells::report(io::Diagnostics& diag) const {
  if (empty()) return;
  std::string what = "table " + table_ + ": ";
  if (!counts_.empty()) {
    what += "NULL, non-numeric or out-of-range values where numbers belong (";
    bool first = true;
    for (const auto& [col, n] : counts_) {
      if (!first) what += ", ";
      first = false;
      what += col + ": " + std::to_string(n);
    }
    what += ")";
  }
  if (skipped_rows_ > 0) {
    if (!counts_.empty()) what += "; ";
    what += std::to_string(skipped_rows_) + " row(s) without a usable key";
  }
  diag.error(file_, 0, what,
             "those values were left out of the analysis; re-export the rank's profile data if "
             "the database was damaged");
}

}  // namespace cs::db

#pragma once
// Read access to an io::Table column by name, whatever its stored type, for the report writers:
// a rank may be stored as int or double, a number as text in a table read back from CSV. A missing
// table or column reads as absent (NaN / ""), so a report section degrades instead of failing.
//
//   ColumnRef bw(matrix, "bandwidth_gbps");
//   if (bw) for (size_t r = 0; r < rows(matrix); ++r) sum += bw.num(r);

#include <cstddef>
#include <string>
#include <string_view>

#include "io/table.h"

namespace cs::report {

class ColumnRef {
 public:
  ColumnRef() = default;
  // Looks `name` up in `table` (which may be null).
  ColumnRef(const io::Table* table, std::string_view name);

  explicit operator bool() const { return col_ != nullptr; }
  // The cell as a number: ints and doubles as is, strings parsed ("12.5" -> 12.5); NaN when the
  // column is absent, the row is out of range or the text is not a number.
  double num(size_t row) const;
  // The cell as an integer (num() truncated); `fallback` when not a finite number.
  long long integer(size_t row, long long fallback = -1) const;
  // The cell as text: strings as is, numbers in shortest form ("3", "0.25"); "" when absent.
  std::string str(size_t row) const;
  // The cell of a string column without a copy; "" for other columns, an absent column or row.
  std::string_view text(size_t row) const;

 private:
  const io::Column* col_ = nullptr;
};

// Rows of a table that may be null (0 for null).
inline size_t rows(const io::Table* t) {
  return t ? t->rows() : 0;
}

}  // namespace cs::report

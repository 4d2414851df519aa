#include "report/table_view.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "io/py_format.h"

namespace cs::report {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

ColumnRef::ColumnRef(const io::Table* table, std::string_view name) {
  if (!table) return;
  for (const auto& c : table->columns)
    if (c.name == name) {
      col_ = &c;
      return;
    }
}

double ColumnRef::num(size_t row) const {
  if (!col_ || row >= col_->size()) return kNaN;
  switch (col_->type) {
    case io::ColumnType::kInt:
      return static_cast<double>(col_->ints[row]);
    case io::ColumnType::kDouble:
      return col_->doubles[row];
    case io::ColumnType::kString: {
      const std::string s(col_->str(row));
      if (s.empty()) return kNaN;
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      while (end && (*end == ' ' || *end == '\t')) ++end;
      return (end && *end == '\0') ? v : kNaN;
    }
  }
  return kNaN;
}

long long ColumnRef::integer(size_t row, long long fallback) const {
  const double v = num(row);
  if (!std::isfinite(v)) return fallback;
  return static_cast<long long>(v);
}

std::string ColumnRef::str(size_t row) const {
  if (!col_ || row >= col_->size()) return {};
  switch (col_->type) {
    case io::ColumnType::kString:
      return std::string(col_->str(row));
    case io::ColumnType::kInt:
      return std::to_string(col_->ints[row]);
    case io::ColumnType::kDouble:
      return io::shortest(col_->doubles[row]);
  }
  return {};
}

std::string_view ColumnRef::text(size_t row) const {
  if (!col_ || col_->type != io::ColumnType::kString || row >= col_->size()) return {};
  return col_->str(row);
}

}  // namespace cs::report

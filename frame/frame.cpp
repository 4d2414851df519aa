#include "frame/frame.h"

#include <cmath>

#include "io/py_format.h"

namespace cs::frame {

const std::string& Cell::empty_text() {
  static const std::string empty;
  return empty;
}

Dtype FrameColumn::dtype() const {
  if (force_object) return Dtype::kObject;
  bool any_real = false, any_null = false, any_number = false;
  for (const auto& c : cells) {
    switch (c.kind) {
      case Cell::Kind::kText:
        return Dtype::kObject;
      case Cell::Kind::kNull:
        any_null = true;
        break;
      case Cell::Kind::kReal:
        any_real = true;
        any_number = true;
        break;
      case Cell::Kind::kInt:
        any_number = true;
        break;
    }
  }
  if (!any_number) return Dtype::kObject;  // all None
  if (any_real || any_null) return Dtype::kFloat64;
  return Dtype::kInt64;
}

uint8_t cell_kinds(const FrameColumn& c) {
  uint8_t kinds = 0;
  for (const auto& cell : c.cells) kinds |= kind_bit(cell.kind);
  return kinds;
}

Dtype dtype_of_kinds(uint8_t kinds, bool force_object) {
  if (force_object || (kinds & kind_bit(Cell::Kind::kText))) return Dtype::kObject;
  const bool any_real = kinds & kind_bit(Cell::Kind::kReal);
  if (!any_real && !(kinds & kind_bit(Cell::Kind::kInt))) return Dtype::kObject;  // all None
  if (any_real || (kinds & kind_bit(Cell::Kind::kNull))) return Dtype::kFloat64;
  return Dtype::kInt64;
}

std::string csv_cell(const Cell& c, Dtype t) {
  switch (c.kind) {
    case Cell::Kind::kNull:
      return {};
    case Cell::Kind::kText:
      return c.str();
    case Cell::Kind::kInt:
      if (t == Dtype::kFloat64) return io::py_repr(static_cast<double>(c.i()));
      return std::to_string(c.i());
    case Cell::Kind::kReal:
      if (std::isnan(c.num())) return {};
      if (std::isinf(c.num())) return c.num() > 0 ? "inf" : "-inf";
      return io::py_repr(c.num());
  }
  return {};
}

}  // namespace cs::frame

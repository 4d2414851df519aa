#pragma once
// A result table of a recipe with pandas' typing, so it can be written exactly as msprof-analyze
// writes a DataFrame (to_csv, to_sql). Each cell remembers what it is (NULL, int, float, text);
// a column's pandas dtype follows from its cells:
//   every cell an int                 -> int64    (CSV "12", SQL INTEGER)
//   numbers (and NULLs), some float   -> float64  (CSV repr "12.0" / "" for NaN, SQL REAL)
//   a column marked `object`          -> object   (each cell as str(): ints "12", floats repr)
//   text cells                        -> object   (SQL TEXT)
// A cell is 16 trivially copyable bytes: the kind and an int64, a double or a pointer to the
// run's one copy of its text (frame/text_pool.h), so columns copy like plain arrays.
//
//   Frame f;
//   auto& c = f.add("rank_id"); c.push_back(Cell::integer(0));

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "frame/text_pool.h"

namespace cs::frame {

struct Cell {
  enum class Kind : uint8_t { kNull, kInt, kReal, kText };
  Kind kind = Kind::kNull;

  static Cell null() { return {}; }
  static Cell integer(int64_t v) {
    Cell c(Kind::kInt);
    c.v_.i = v;
    return c;
  }
  static Cell real(double v) {
    Cell c(Kind::kReal);
    c.v_.d = v;
    return c;
  }
  // A text cell; its text is the run's one copy of `v` (frame/text_pool.h).
  static Cell text(std::string_view v) { return interned(intern_text(v)); }
  // A text cell of a text intern_text() returned (no lookup).
  static Cell interned(const std::string* v) {
    Cell c(Kind::kText);
    c.v_.t = v;
    return c;
  }

  Cell() = default;
  // The text of a text cell; empty for the others.
  const std::string& str() const { return kind == Kind::kText ? *v_.t : empty_text(); }
  // The interned text of a text cell (equal texts, equal pointers); nullptr for the others.
  const std::string* text_ptr() const { return kind == Kind::kText ? v_.t : nullptr; }
  bool is_null() const { return kind == Kind::kNull; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kReal; }
  // The value of an int cell; 0 for the others.
  int64_t i() const { return kind == Kind::kInt ? v_.i : 0; }
  // The value as a double (ints converted; NULL and text give 0).
  double num() const {
    return kind == Kind::kInt ? static_cast<double>(v_.i) : (kind == Kind::kReal ? v_.d : 0.0);
  }
  friend bool operator==(const Cell& a, const Cell& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Kind::kNull:
        return true;
      case Kind::kInt:
        return a.v_.i == b.v_.i;
      case Kind::kReal:
        return a.v_.d == b.v_.d;
      case Kind::kText:
        return a.v_.t == b.v_.t;  // interned: equal texts are one string
    }
    return false;
  }

 private:
  explicit Cell(Kind k) : kind(k) {}
  static const std::string& empty_text();
  union Value {
    int64_t i;
    double d;
    const std::string* t;
  };
  Value v_{0};
};
static_assert(sizeof(Cell) == 16 && std::is_trivially_copyable_v<Cell>);

enum class Dtype { kInt64, kFloat64, kObject };

struct FrameColumn {
  std::string name;
  std::vector<Cell> cells;
  bool force_object = false;  // pandas kept the column as object (e.g. astype("object"))
  // The pandas dtype its cells give (see the file comment).
  Dtype dtype() const;
  void push_back(Cell c) { cells.push_back(std::move(c)); }
};

struct Frame {
  std::deque<FrameColumn> columns;
  // Index columns written first by to_csv/to_sql (index=True); their names are those of the
  // index levels.
  size_t index_columns = 0;

  FrameColumn& add(std::string name) {
    columns.push_back(FrameColumn{std::move(name), {}, false});
    return columns.back();
  }
  size_t rows() const { return columns.empty() ? 0 : columns.front().cells.size(); }
};

// The kinds of cells a column holds, one bit per Cell::Kind (kind_bit): what decides its dtype
// and its SQL type, kept beside a column whose cells are elsewhere (a frame parked on disk).
constexpr uint8_t kind_bit(Cell::Kind k) {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(k));
}
uint8_t cell_kinds(const FrameColumn& c);
// FrameColumn::dtype of a column whose cells are of `kinds` (cell_kinds bits).
Dtype dtype_of_kinds(uint8_t kinds, bool force_object);

// A cell formatted as pandas' to_csv writes it in a column of dtype `t` (no quoting).
std::string csv_cell(const Cell& c, Dtype t);

}  // namespace cs::frame

#pragma once
// A result table of a recipe with pandas' typing, so it can be written exactly as msprof-analyze
// writes a DataFrame (to_csv, to_sql). Each cell remembers what it is (NULL, int, float, text);
// a column's pandas dtype follows from its cells:
//   every cell an int                 -> int64    (CSV "12", SQL INTEGER)
//   numbers (and NULLs), some float   -> float64  (CSV repr "12.0" / "" for NaN, SQL REAL)
//   a column marked `object`          -> object   (each cell as str(): ints "12", floats repr)
//   text cells                        -> object   (SQL TEXT)
//
//   Frame f;
//   auto& c = f.add("rank_id"); c.push_back(Cell::integer(0));

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace cs::recipes {

struct Cell {
  enum class Kind : uint8_t { kNull, kInt, kReal, kText };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double d = 0.0;
  std::string s;

  static Cell null() { return {}; }
  static Cell integer(int64_t v) { return {Kind::kInt, v, static_cast<double>(v), {}}; }
  static Cell real(double v) { return {Kind::kReal, 0, v, {}}; }
  static Cell text(std::string v) { return {Kind::kText, 0, 0.0, std::move(v)}; }

  bool is_null() const { return kind == Kind::kNull; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kReal; }
  // The value as a double (ints converted; NULL and text give 0).
  double num() const { return kind == Kind::kInt ? static_cast<double>(i) : d; }
  friend bool operator==(const Cell& a, const Cell& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Kind::kNull:
        return true;
      case Kind::kInt:
        return a.i == b.i;
      case Kind::kReal:
        return a.d == b.d;
      case Kind::kText:
        return a.s == b.s;
    }
    return false;
  }
};

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

// A cell formatted as pandas' to_csv writes it in a column of dtype `t` (no quoting).
std::string csv_cell(const Cell& c, Dtype t);

}  // namespace cs::recipes

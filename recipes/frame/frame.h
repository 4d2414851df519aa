#pragma once
// A result table of a recipe with pandas' typing, so it can be written exactly as msprof-analyze
// writes a DataFrame (to_csv, to_sql). Each cell remembers what it is (NULL, int, float, text);
// a column's pandas dtype follows from its cells:
//   every cell an int                 -> int64    (CSV "12", SQL INTEGER)
//   numbers (and NULLs), some float   -> float64  (CSV repr "12.0" / "" for NaN, SQL REAL)
//   a column marked `object`          -> object   (each cell as str(): ints "12", floats repr)
//   text cells                        -> object   (SQL TEXT)
// Text cells share their string: copying a cell copies a pointer, and the texts a query reads
// (recipes/rank_db.h) are one string per distinct value of a column.
//
//   Frame f;
//   auto& c = f.add("rank_id"); c.push_back(Cell::integer(0));

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace cs::recipes {

struct Cell {
  enum class Kind : uint8_t { kNull, kInt, kReal, kText };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double d = 0.0;

  static Cell null() { return {}; }
  static Cell integer(int64_t v) { return Cell(Kind::kInt, v, static_cast<double>(v)); }
  static Cell real(double v) { return Cell(Kind::kReal, 0, v); }
  static Cell text(std::string v) {
    return text(std::make_shared<const std::string>(std::move(v)));
  }
  // A text cell sharing `v` (copies of a text cell share its string; nothing is copied).
  static Cell text(std::shared_ptr<const std::string> v) {
    Cell c(Kind::kText, 0, 0.0);
    c.text_ = std::move(v);
    return c;
  }

  Cell() = default;
  // The text of a text cell; empty for the others.
  const std::string& str() const { return text_ ? *text_ : empty_text(); }
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
        return a.text_ == b.text_ || a.str() == b.str();
    }
    return false;
  }

 private:
  Cell(Kind k, int64_t iv, double dv) : kind(k), i(iv), d(dv) {}
  static const std::string& empty_text();
  std::shared_ptr<const std::string> text_;
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

#pragma once
// A column-oriented table: what every clusterscope analysis produces and every generic writer
// (CSV, HDF5, HTML) consumes. Columns are typed (string, int64, double) and carry a unit.
//
//   Table t("slow_ranks");
//   auto& rank = t.add_int("rank"); auto& score = t.add_double("score", "votes");
//   rank.ints.push_back(3); score.doubles.push_back(7.5);

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

namespace cs::io {

enum class ColumnType { kString, kInt, kDouble };

struct Column {
  std::string name;
  std::string unit;  // "us", "ms", "MB", "GB/s", "ratio", "" ...
  ColumnType type = ColumnType::kDouble;
  std::vector<std::string> strings;
  std::vector<int64_t> ints;
  std::vector<double> doubles;

  size_t size() const {
    switch (type) {
      case ColumnType::kString:
        return strings.size();
      case ColumnType::kInt:
        return ints.size();
      case ColumnType::kDouble:
        return doubles.size();
    }
    return 0;
  }
};

struct Table {
  std::string name;            // file stem / HDF5 group name, e.g. "communication_ops"
  std::deque<Column> columns;  // deque: references from add_*() stay valid

  Table() = default;
  explicit Table(std::string n) : name(std::move(n)) {}
  // noexcept moves, so std::vector<Table> moves tables when it grows instead of copying them
  // (std::deque's own move constructor is not noexcept; it only allocates a small map).
  Table(Table&&) noexcept = default;
  Table& operator=(Table&&) noexcept = default;
  Table(const Table&) = default;
  Table& operator=(const Table&) = default;

  Column& add_string(std::string col, std::string unit = {}) {
    return add(std::move(col), std::move(unit), ColumnType::kString);
  }
  Column& add_int(std::string col, std::string unit = {}) {
    return add(std::move(col), std::move(unit), ColumnType::kInt);
  }
  Column& add_double(std::string col, std::string unit = {}) {
    return add(std::move(col), std::move(unit), ColumnType::kDouble);
  }
  // Number of rows (all columns must have the same length; see validate()).
  size_t rows() const { return columns.empty() ? 0 : columns.front().size(); }
  // Throws std::logic_error when columns differ in length (a programming error).
  void validate() const {
    for (const auto& c : columns)
      if (c.size() != rows())
        throw std::logic_error("table " + name + ": column " + c.name + " has " +
                               std::to_string(c.size()) + " rows, expected " +
                               std::to_string(rows()));
  }
  const Column* find(const std::string& col) const {
    for (const auto& c : columns)
      if (c.name == col) return &c;
    return nullptr;
  }

 private:
  Column& add(std::string col, std::string unit, ColumnType type) {
    columns.push_back(Column{std::move(col), std::move(unit), type, {}, {}, {}});
    return columns.back();
  }
};

}  // namespace cs::io

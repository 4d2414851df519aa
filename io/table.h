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
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/text_hash.h"

namespace cs::io {

enum class ColumnType { kString, kInt, kDouble };

struct Column {
  std::string name;
  std::string unit;  // "us", "ms", "MB", "GB/s", "ratio", "" ...
  ColumnType type = ColumnType::kDouble;
  std::vector<std::string> strings;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  // A string column may be dictionary-encoded instead (Table::add_encoded_string): row i is
  // dict[codes[i]] and `strings` stays empty. For columns of few distinct values in many rows
  // (the 700k-row communication_matrix holds a few hundred group names): 4 bytes a cell.
  bool encoded = false;
  std::vector<uint32_t> codes;
  std::vector<std::string> dict;

  // Row i of a string column, plain or encoded. Example: col.str(0) == "step1".
  std::string_view str(size_t i) const { return encoded ? dict[codes[i]] : strings[i]; }

  size_t size() const {
    switch (type) {
      case ColumnType::kString:
        return encoded ? codes.size() : strings.size();
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
  // A dictionary-encoded string column (Column::encoded); fill codes and dict, e.g. through
  // io::DictionaryEncoder. Written exactly like a plain string column.
  Column& add_encoded_string(std::string col, std::string unit = {}) {
    Column& c = add(std::move(col), std::move(unit), ColumnType::kString);
    c.encoded = true;
    return c;
  }
  Column& add_int(std::string col, std::string unit = {}) {
    return add(std::move(col), std::move(unit), ColumnType::kInt);
  }
  Column& add_double(std::string col, std::string unit = {}) {
    return add(std::move(col), std::move(unit), ColumnType::kDouble);
  }
  // Room for `n` rows in every column (the cells' vectors; a string's own bytes aside), so a
  // table filled row by row in a known count allocates each column once instead of growing it
  // by doubling (which leaves a freed block behind at every step).
  void reserve_rows(size_t n) {
    for (Column& c : columns) {
      if (c.encoded) {
        c.codes.reserve(n);
      } else if (c.type == ColumnType::kString) {
        c.strings.reserve(n);
      } else if (c.type == ColumnType::kInt) {
        c.ints.reserve(n);
      } else {
        c.doubles.reserve(n);
      }
    }
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
    Column& c = columns.emplace_back();
    c.name = std::move(col);
    c.unit = std::move(unit);
    c.type = type;
    return c;
  }
};

// Appends rows to a dictionary-encoded column (Table::add_encoded_string), adding each distinct
// value to its dict once. Example: DictionaryEncoder e(col); e.push("step1"); e.push("step1");
// -> col.codes == {0, 0}, col.dict == {"step1"}.
class DictionaryEncoder {
 public:
  explicit DictionaryEncoder(Column& c) : c_(c) {}
  void push(std::string_view s) {
    if (!c_.codes.empty() && s == c_.dict[last_]) {  // sorted tables repeat the previous value
      c_.codes.push_back(last_);
      return;
    }
    auto it = index_.find(s);
    if (it == index_.end()) {
      it = index_.emplace(std::string(s), static_cast<uint32_t>(c_.dict.size())).first;
      c_.dict.emplace_back(s);
    }
    last_ = it->second;
    c_.codes.push_back(last_);
  }

 private:
  Column& c_;
  std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>> index_;
  uint32_t last_ = 0;
};

}  // namespace cs::io

#pragma once
// The rows of cluster_step_trace_time.csv (and of cluster_analysis.db's ClusterStepTraceTime),
// held compactly: every row has the same number of cells, and the cells of all rows are one flat
// array of a number and a kind byte each (9 bytes a cell); a string cell holds the index of its
// text in a pool of the distinct strings (the steps, "rank", "stage", the stage keys, "NA").
// 16,384 ranks of two steps hold about 4 MB this way (44 MB as a vector of cell vectors).
//   ClusterStepTrace t;
//   t.add_row({StepCell::str("1"), StepCell::str("rank"), StepCell::num(io::Num::integer(0))});
//   t.row(0)[1].s == "rank";  t.cell(0, 2).n.v == 0;  t.width() == 3

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/py_format.h"
#include "msprof_analyze/documents/py_int_set.h"

namespace cs::documents {

// One output cell: a string, a Python number, or None (the step of a whole-run row: an empty CSV
// field, NULL in cluster_analysis.db). A cell read from a ClusterStepTrace views the trace's
// string pool: its `s` is valid while the trace lives and takes no new string.
struct StepCell {
  enum Kind : uint8_t { kString, kNumber, kNull } kind = kString;
  std::string_view s;
  io::Num n;

  static StepCell str(std::string_view v) { return {kString, v, {}}; }
  static StepCell num(io::Num v) { return {kNumber, {}, v}; }
  static StepCell null() { return {kNull, {}, {}}; }
};

class ClusterStepTrace {
 public:
  std::vector<std::string> header;  // empty when there is no row (then no file)
  std::vector<PyIntSet> stages;     // the pipeline stages the stage rows came from

  // One row, read like a vector of cells: row[i] is a StepCell, row.size() the row's width.
  class Row {
   public:
    Row(const ClusterStepTrace& t, size_t r) : t_(&t), r_(r) {}
    StepCell operator[](size_t c) const { return t_->cell(r_, c); }
    size_t size() const { return t_->width(); }

   private:
    const ClusterStepTrace* t_;
    size_t r_;
  };

  size_t row_count() const { return width_ == 0 ? 0 : kinds_.size() / width_; }
  bool empty() const { return kinds_.empty(); }
  size_t width() const { return width_; }  // cells per row (0 before the first row)
  StepCell cell(size_t row, size_t col) const;
  Row row(size_t r) const { return Row(*this, r); }

  // Starts an empty trace whose rows have `width` cells, room made for `rows` of them.
  void reset(size_t width, size_t rows = 0);
  // Appends a cell to the row being built: rows are filled cell by cell, width() cells each.
  void push(const StepCell& c);
  // Appends a whole row; the first row sets the width (when reset() did not), and a row of another
  // width is refused (std::invalid_argument).
  void add_row(std::span<const StepCell> cells);
  void add_row(std::initializer_list<StepCell> cells) {
    add_row(std::span(cells.begin(), cells.size()));
  }

  // The flat cell arrays (a number and a kind byte per cell), moved out so that they can wait
  // elsewhere (on disk: msprof_analyze/documents/parked_step_trace.h) and be put back; in between
  // the trace keeps its header, stages, width and texts, and has no rows.
  struct Cells {
    std::vector<double> values;
    std::vector<uint8_t> kinds;
  };
  Cells take_cells();
  // Puts back what take_cells() gave: std::invalid_argument when the two arrays differ in length
  // or are not whole rows.
  void put_cells(Cells cells);

  // Cell by cell equal: kind, text, number and whether it is an int.
  friend bool operator==(const ClusterStepTrace& a, const ClusterStepTrace& b);

 private:
  enum Stored : uint8_t { kText, kInt, kReal, kNone };
  uint32_t intern(std::string_view s);

  size_t width_ = 0;
  std::vector<double> values_;  // a number, or a kText cell's index in strings_
  std::vector<uint8_t> kinds_;  // Stored, one per cell
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> string_ids_;
};

}  // namespace cs::documents

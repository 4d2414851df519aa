#include "frame/duration_stats.h"

#include <algorithm>
#include <cmath>

#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "frame/pandas_sort.h"

namespace cs::frame {

std::vector<Cell> duration_stats(std::vector<double> values) {
  std::vector<double> v;
  v.reserve(values.size());
  for (double x : values)
    if (!std::isnan(x)) v.push_back(x);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const double nan = std::nan("");
  return {Cell::integer(static_cast<int64_t>(v.size())),
          Cell::real(group_mean(v)),
          Cell::real(group_std(v)),
          Cell::real(sorted.empty() ? nan : sorted.front()),
          Cell::real(quantile_linear(sorted, 0.25)),
          Cell::real(quantile_linear(sorted, 0.5)),
          Cell::real(quantile_linear(sorted, 0.75)),
          Cell::real(sorted.empty() ? nan : sorted.back()),
          Cell::real(kahan_sum(v))};
}

Frame describe_duration(const Frame& rows, const std::vector<std::string>& keys,
                        const std::string& value_column) {
  static const char* kStats[] = {"Count",    "MeanNs", "StdNs", "MinNs", "Q1Ns",
                                 "MedianNs", "Q3Ns",   "MaxNs", "SumNs"};
  Frame out;
  for (const auto& k : keys) out.add(k);
  for (const char* s : kStats) out.add(s);
  out.index_columns = keys.size();
  const FrameColumn* value = find_column(rows, value_column);
  for (const auto& group : group_rows(rows, keys, true)) {
    for (size_t k = 0; k < keys.size(); ++k)
      out.columns[k].push_back(find_column(rows, keys[k])->cells[group.front()]);
    std::vector<double> v;
    v.reserve(group.size());
    for (size_t r : group) {
      const Cell& c = value->cells[r];
      v.push_back(c.is_number() ? c.num() : std::nan(""));
    }
    const auto stats = duration_stats(std::move(v));
    for (size_t s = 0; s < stats.size(); ++s) out.columns[keys.size() + s].push_back(stats[s]);
  }
  return out;
}

Frame convert_unit(const Frame& f, const std::string& unit, double factor) {
  Frame out = f;
  for (size_t c = f.index_columns; c < out.columns.size(); ++c) {
    auto& col = out.columns[c];
    const std::string& n = col.name;
    if (n.size() >= 2 && n.compare(n.size() - 2, 2, "Ns") == 0)
      for (auto& cell : col.cells)
        if (cell.is_number()) cell = Cell::real(cell.num() / factor);
    std::string renamed;
    for (size_t i = 0; i < n.size(); ++i) {
      if (n.compare(i, 2, "Ns") == 0) {
        renamed += "(" + unit + ")";
        ++i;
      } else {
        renamed += n[i];
      }
    }
    col.name = renamed;
  }
  return out;
}

Frame to_microseconds(const Frame& f) {
  return convert_unit(f, "Us", 1000.0);
}

Frame take(const Frame& f, const std::vector<size_t>& order) {
  Frame out;
  out.index_columns = f.index_columns;
  for (const auto& c : f.columns) {
    auto& d = out.add(c.name);
    d.force_object = c.force_object;
    d.cells.reserve(order.size());
    for (size_t r : order) d.cells.push_back(c.cells[r]);
  }
  return out;
}

Frame sort_by(const Frame& f, const std::string& column, bool ascending) {
  const FrameColumn* c = find_column(f, column);
  const auto order = pandas_sort_order(
      f.rows(), [&](size_t a, size_t b) { return compare_cells(c->cells[a], c->cells[b]) < 0; },
      ascending);
  return take(f, order);
}

void assign(Frame& f, const std::string& name, const Cell& value) {
  const size_t n = f.rows();
  auto& c = f.add(name);
  c.cells.assign(n, value);
}

}  // namespace cs::frame

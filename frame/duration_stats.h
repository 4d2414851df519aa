#pragma once
// msprof-analyze's describe_duration: per group of rows (groupby over key columns, sorted keys,
// NULL keys dropped) the Count, MeanNs, StdNs, MinNs, Q1Ns, MedianNs, Q3Ns, MaxNs and SumNs of a
// duration column, computed as pandas 1.5 computes them; and the text export's unit change
// (every column ending in "Ns" divided by 1000 and renamed "(Us)").

#include <string>
#include <vector>

#include "frame/frame.h"

namespace cs::frame {

// A frame with the key columns as its index (index_columns = keys.size()) followed by the nine
// statistics, one row per group in sorted key order.
Frame describe_duration(const Frame& rows, const std::vector<std::string>& keys,
                        const std::string& value_column);

// The statistics of the values (NaN skipped) as the nine cells of a describe_duration row.
std::vector<Cell> duration_stats(std::vector<double> values);

// msprof-analyze's convert_unit(df, "Ns", unit, factor) for the text export: every non-index
// column whose name ends in "Ns" divided by `factor`, "Ns" in the names replaced by "(unit)".
Frame convert_unit(const Frame& f, const std::string& unit, double factor);
// convert_unit(f, "Us", 1000.0), the unit of most recipes' text export.
Frame to_microseconds(const Frame& f);

// Rows of `f` in the order `order`.
Frame take(const Frame& f, const std::vector<size_t>& order);

// Rows of `f` sorted as sort_values(by=column, ascending) sorts them (numpy's quicksort).
Frame sort_by(const Frame& f, const std::string& column, bool ascending);

// A column of `n` copies of `value` appended to `f` (DataFrame.assign).
void assign(Frame& f, const std::string& name, const Cell& value);

}  // namespace cs::frame

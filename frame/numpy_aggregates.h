#pragma once
// The SQL aggregate functions msprof-analyze registers on its connection before running the
// cann_api_sum export (median, lower_quartile, upper_quartile, stdev: numpy 1.24's median,
// quantile(0.25/0.75, linear) and std(ddof=0) of the collected values), computed as numpy does.

#include <vector>

struct sqlite3;

namespace cs::frame {

// np.median(values).
double numpy_median(std::vector<double> values);
// np.quantile(values, q) with the default linear method.
double numpy_quantile(std::vector<double> values, double q);
// np.std(values); `integers`: the values were ints (numpy sums them through an 8192-value cast
// buffer).
double numpy_std(const std::vector<double>& values, bool integers);

// Registers median, lower_quartile, upper_quartile and stdev on `db`. False on failure.
bool register_numpy_aggregates(sqlite3* db);

}  // namespace cs::frame

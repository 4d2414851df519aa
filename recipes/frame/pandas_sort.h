#pragma once
// The orders pandas 1.5 gives rows when msprof-analyze sorts with sort_values/sort_index: numpy
// 1.24's default argsort (kind="quicksort": an introsort, not stable, so rows with equal keys
// come out in the order its partitions leave them) and pandas' nargsort, which sorts a
// descending key by reversing it, sorting ascending and reversing the result.

#include <cstddef>
#include <functional>
#include <vector>

namespace cs::recipes {

// numpy's argsort(kind="quicksort") of n items under `less(a, b)` (indices into the items).
std::vector<size_t> numpy_argsort(size_t n, const std::function<bool(size_t, size_t)>& less);

// pandas' nargsort: the row order of sort_values(ascending) on a key without missing values.
std::vector<size_t> pandas_sort_order(size_t n, const std::function<bool(size_t, size_t)>& less,
                                      bool ascending);

}  // namespace cs::recipes

#pragma once
// Time columns as msprof-analyze's ensure_numeric_columns reads them:
// pandas.to_numeric(errors="coerce").fillna(0).astype(int64) over the whole column. While every
// value is an integer (stored as one, or text of one: torch_npu keeps PYTORCH_API's times as
// text) they stay exact; once one is not (NULL, a real, text that is no integer), pandas made the
// whole column float64 first: each integer rounded to a double (texts parsed as pandas'
// precise_xstrtod parses them: 17 significant digits, then a power of ten), NaN as 0.

#include <cstdint>
#include <vector>

#include "frame/frame.h"

namespace cs::recipes::operator_mfu {

// Column `col` of `frames` concatenated (one DataFrame in msprof-analyze), as int64.
std::vector<int64_t> pandas_times(const std::vector<const frame::Frame*>& frames, size_t col);

// pandas' precise_xstrtod of a whole text (spaces around allowed); NaN when it is no number.
double pandas_xstrtod(const std::string& text);

}  // namespace cs::recipes::operator_mfu

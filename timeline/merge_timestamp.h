#pragma once
// Exact decimal arithmetic on Chrome-trace timestamps for `clusterscope merge`.
//
// A `ts` is microseconds, written as a JSON number or, in NPU trace_view.json, as a string
// ("1704161511420306.491"). At today's epoch values a double has no room for the nanosecond
// fraction, so shifts are done on the decimal text: digits are kept, the shift is added exactly.

#include <cstdint>
#include <string>
#include <string_view>

namespace cs::timeline {

// Writes the JSON number of timestamp `raw` (a number token or a quoted string, as in the file)
// moved by `shift_ns` nanoseconds to `out` (appended). The fraction keeps its number of digits
// when the shift fits in it, else it grows just enough to hold the shift exactly. Returns false
// (out unchanged) when `raw` is not a plain decimal number; exponent forms are shifted through long
// double. Examples: ("\"1704161511420306.491\"", 0) -> 1704161511420306.491;
//           ("100.5", 1500) -> 102.0;  ("7", -2) -> 6.998.
bool shift_timestamp(std::string_view raw, int64_t shift_ns, std::string& out);

}  // namespace cs::timeline

#pragma once
// Numbers as a person reads them in a report: grouped digits, sensible units. Not for data files
// (those use io/py_format.h, which round-trips).

#include <cstdint>
#include <string>

namespace cs::report {

// Fixed decimals with thousands grouped by commas; "–" for NaN/inf.
// Example: fmt_num(1234567.891, 1) == "1,234,567.9"; fmt_num(-0.5, 2) == "-0.50".
std::string fmt_num(double x, int decimals);
// A duration given in microseconds in the best unit: 812.3 -> "812.3 µs", 12345 -> "12.35 ms",
// 3.2e6 -> "3.20 s".
std::string fmt_us(double us);
// A byte count in decimal units: 1500 -> "1.5 kB", 2.5e9 -> "2.50 GB", 12 -> "12 B".
std::string fmt_bytes(double bytes);
// A ratio as a percentage: 0.1234 -> "12.3%".
std::string fmt_pct(double ratio);

}  // namespace cs::report

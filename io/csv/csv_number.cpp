// Numeric cells of profiler CSV files: trimming, the producers' "missing" markers, and
// std::from_chars (fast_float in libstdc++ >= 12) for the numbers themselves.

#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

#include "io/csv/csv_reader.h"

namespace cs::io {

static bool is_missing_marker(std::string_view s) {
  switch (s.size()) {
    case 1:
      return s[0] == '-';
    case 2:
      return s == "NA";
    case 3:
      return s == "N/A" || s == "n/a";
    case 4:
      return s == "null" || s == "None" || s == "NULL";
    default:
      return false;
  }
}

NumberStatus parse_number_status(std::string_view cell, double& out) {
  std::string_view s = trim(cell);
  if (s.empty()) return NumberStatus::kMissing;
  const char* first = s.data();
  const char* last = first + s.size();
  if (*first == '+') ++first;  // from_chars rejects a leading '+'
  double v = 0;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && ptr == last) {
    if (!std::isfinite(v)) return NumberStatus::kNotFinite;  // "nan", "inf", "infinity"
    out = v;
    return NumberStatus::kOk;
  }
  if (ec == std::errc::result_out_of_range && ptr == last) return NumberStatus::kOutOfRange;
  if (is_missing_marker(s)) return NumberStatus::kMissing;
  return NumberStatus::kInvalid;
}

bool parse_number(std::string_view cell, double& out) {
  return parse_number_status(cell, out) == NumberStatus::kOk;
}

const char* number_status_text(NumberStatus s) {
  switch (s) {
    case NumberStatus::kOk:
      return "a number";
    case NumberStatus::kMissing:
      return "missing";
    case NumberStatus::kNotFinite:
      return "NaN or infinite";
    case NumberStatus::kOutOfRange:
      return "out of the range of a double";
    case NumberStatus::kInvalid:
      return "not a number";
  }
  return "not a number";
}

bool parse_int(std::string_view cell, int64_t& out) {
  std::string_view s = trim(cell);
  if (s.empty()) return false;
  const char* first = s.data();
  const char* last = first + s.size();
  if (*first == '+') ++first;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && ptr == last) {
    out = v;
    return true;
  }
  // "19.0": an integer written as a float.
  double d = 0;
  if (parse_number(s, d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

}  // namespace cs::io

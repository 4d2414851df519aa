#pragma once
// Numbers read from files turned into integers only when they fit: a double beyond int64's range
// (1e300, NaN) or an int64 beyond int's (a rank of 2147483648) is refused, never converted with
// undefined behaviour or cut to 32 bits.
//
//   int64_t ts; if (!double_to_int64(1.5e19, ts)) ...  // refused
//   int rank;   if (!int64_to_int(int64_t{1} << 31, rank)) ...  // refused

#include <cstdint>
#include <limits>

namespace cs::io {

// d truncated toward zero into out when -2^63 <= d < 2^63 (NaN refused). Example: 3.9 -> 3.
inline bool double_to_int64(double d, int64_t& out) {
  constexpr double kLimit = 9223372036854775808.0;  // 2^63, exact in a double
  if (!(d >= -kLimit && d < kLimit)) return false;
  out = static_cast<int64_t>(d);
  return true;
}

// v into out when it fits an int. Example: -1 -> -1; 2^31 refused.
inline bool int64_to_int(int64_t v, int& out) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
  out = static_cast<int>(v);
  return true;
}

// d truncated toward zero into out when it fits an int (NaN refused). Example: 7.0 -> 7.
inline bool double_to_int(double d, int& out) {
  int64_t v = 0;
  return double_to_int64(d, v) && int64_to_int(v, out);
}

}  // namespace cs::io

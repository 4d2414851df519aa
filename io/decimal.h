#pragma once
// Exact decimal numbers of the trace readers (readers/kineto_trace.h): integers and microsecond
// timestamps read straight from the JSON text, 8 digits at a time (SWAR) where the buffer allows.
//
//   uint64_t v = 0;
//   const char* after = read_digits(p, end, readable_end, v);  // "4037," -> v = 4037
//   int64_t ns; parse_us_to_ns_in("1704161511420306.491", end_of_buffer, ns);

#include <cstdint>
#include <cstring>
#include <string_view>

namespace cs::io {

// True for '0'..'9'.
inline bool is_digit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// The leading decimal digits of the 8 bytes at p (at most 8): their count, and their value in
// `value`. Example: "4037, \"t" -> 4 and 4037.
inline unsigned eight_digits(const char* p, uint64_t& value) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  const uint64_t x = w ^ 0x3030303030303030ull;  // a digit byte becomes 0..9
  // High bit of a byte set when it is not a digit: x >= 10 (no carry: x & 0x7f plus 0x76 < 256).
  const uint64_t bad =
      (((x & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
  const unsigned n = bad == 0 ? 8 : static_cast<unsigned>(__builtin_ctzll(bad)) / 8;
  if (n == 0) {
    value = 0;
    return 0;
  }
  // The n digits as the low end of an 8-digit number with leading zeros (little endian: the
  // first digit is the lowest byte), then the multiply-add reduction of 8 digits.
  uint64_t d = x << (64 - 8 * n);
  d = d * 10 + (d >> 8);
  d = ((d & 0x000000ff000000ffull) * 0x000f424000000064ull +
       ((d >> 16) & 0x000000ff000000ffull) * 0x0000271000000001ull) >>
      32;
  value = d;
  return n;
}

// Reads the decimal digits from p, stopping at `end` or the first non-digit, into
// v = v * 10^k + digits; returns the position after them. Bytes up to `readable` (>= end) may be
// read: with 8 bytes to spare the digits are taken 8 at a time. Counts of more than 19 digits
// wrap around (the callers check the count).
inline const char* read_digits(const char* p, const char* end, const char* readable, uint64_t& v) {
  static constexpr uint64_t kPow10[9] = {1,      10,      100,      1000,     10000,
                                         100000, 1000000, 10000000, 100000000};
  while (p < end && readable - p >= 8) {
    uint64_t chunk;
    unsigned n = eight_digits(p, chunk);
    if (static_cast<size_t>(end - p) < n) {  // digits past the end are not ours
      n = static_cast<unsigned>(end - p);
      chunk = 0;
      for (unsigned k = 0; k < n; ++k) chunk = chunk * 10 + static_cast<uint64_t>(p[k] - '0');
    }
    v = v * kPow10[n] + chunk;
    p += n;
    if (n < 8) return p;
  }
  while (p < end && is_digit(*p)) v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  return p;
}

// parse_us_to_ns (readers/kineto_trace.h) for text inside a buffer readable up to `readable`
// (>= the end of `text`; simdjson's padding allows reading past the JSON).
bool parse_us_to_ns_in(std::string_view text, const char* readable, int64_t& ns);

}  // namespace cs::io

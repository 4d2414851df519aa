#include "io/decimal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace cs::io {

namespace {

// The general form of parse_us_to_ns: exponents, long digit runs, signs.
bool parse_us_to_ns_slow(std::string_view t, int64_t& ns) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' ||
                        t.back() == '\t' || t.back() == ','))
    t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '"')) t.remove_prefix(1);
  if (!t.empty() && t.back() == '"') t.remove_suffix(1);
  if (t.empty()) return false;
  // One pass for an exponent ('e' or 'E': c | 0x20 == 'e'); find_first_of("eE") costs a
  // memchr per character, a tenth of the whole parse.
  bool has_exponent = false;
  for (char c : t) {
    if ((c | 0x20) == 'e') {
      has_exponent = true;
      break;
    }
  }
  if (has_exponent) {
    double d = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(d)) return false;
    if (std::fabs(d) > 9.2e15) return false;
    ns = std::llround(d * 1000.0);
    return true;
  }
  size_t i = 0;
  bool neg = false;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    i = 1;
  }
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
    if (whole > (INT64_MAX / 1000 - 9) / 10) return false;  // ns would overflow
    whole = whole * 10 + (t[i] - '0');
  }
  int64_t frac = 0;
  int fdigits = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    ++i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
      if (fdigits < 3) {
        frac = frac * 10 + (t[i] - '0');
        ++fdigits;
      } else if (fdigits == 3) {
        round_up = t[i] >= '5';
        ++fdigits;
      }
    }
  }
  if (i != t.size() || digits == 0) return false;
  for (int k = std::min(fdigits, 3); k < 3; ++k) frac *= 10;
  int64_t v = whole * 1000 + frac + (round_up ? 1 : 0);
  ns = neg ? -v : v;
  return true;
}

}  // namespace

bool parse_us_to_ns_in(std::string_view t, const char* readable, int64_t& ns) {
  // Fast path for what profilers write ("1704161511420306.491", "-3", ".5"): one pass over the
  // digits. Anything else (exponents, a '+', more than 16 integer digits) takes the slow path,
  // which gives the same answer for what the fast path accepts.
  const char* p = t.data();
  const char* end = p + t.size();
  while (end > p && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r' || end[-1] == '\t' ||
                     end[-1] == ','))
    --end;
  while (p < end && (*p == ' ' || *p == '"')) ++p;
  if (end > p && end[-1] == '"') --end;
  const bool neg = p < end && *p == '-';
  if (neg) ++p;
  const char* digits_start = p;
  uint64_t whole = 0;
  p = read_digits(p, end, readable, whole);
  const size_t whole_digits = static_cast<size_t>(p - digits_start);
  // 16 digits cannot overflow uint64; the bound is the slow path's "ns would overflow" test.
  if (whole_digits > 16 || whole > 9223372036854769u) return parse_us_to_ns_slow(t, ns);
  uint64_t frac = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (p < end && *p == '.') {
    ++p;
    const char* f = p;
    uint64_t ignored = 0;
    p = read_digits(p, end, readable, ignored);
    frac_digits = static_cast<size_t>(p - f);
    for (size_t k = 0; k < 3; ++k) frac = frac * 10 + (k < frac_digits ? uint64_t(f[k] - '0') : 0);
    round_up = frac_digits > 3 && f[3] >= '5';
  }
  if (p != end) return parse_us_to_ns_slow(t, ns);
  if (whole_digits + frac_digits == 0) return false;
  const auto v = static_cast<int64_t>(whole * 1000 + frac + (round_up ? 1 : 0));
  ns = neg ? -v : v;
  return true;
}

}  // namespace cs::io

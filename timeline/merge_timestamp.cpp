#include "timeline/merge_timestamp.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace cs::timeline {

namespace {

using Int = __int128;

std::string_view trim(std::string_view t) {
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

void append_int(std::string& out, Int v) {
  char buf[48];
  int n = 0;
  if (v == 0) buf[n++] = '0';
  while (v > 0) {
    buf[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  while (n > 0) out += buf[--n];
}

bool shift_exponent_form(std::string_view t, int64_t shift_ns, std::string& out) {
  std::string s(t);
  char* end = nullptr;
  long double v = std::strtold(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  v += static_cast<long double>(shift_ns) / 1000.0L;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3Lf", v);
  out += buf;
  return true;
}

}  // namespace

bool shift_timestamp(std::string_view raw, int64_t shift_ns, std::string& out) {
  std::string_view t = trim(raw);
  if (t.empty()) return false;
  if (shift_ns == 0) {
    // Same digits, as a number: validate, then copy.
    double probe = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), probe);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
    out += t;
    return true;
  }
  if (t.find_first_of("eE") != std::string_view::npos) return shift_exponent_form(t, shift_ns, out);
  size_t i = 0;
  bool neg = false;
  if (t[0] == '-') {
    neg = true;
    i = 1;
  }
  Int mant = 0;  // |value| * 10^frac_digits
  int int_digits = 0, frac_digits = 0;
  // At most 36 digits in all, checked before each one is added, so mant cannot overflow.
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++int_digits) {
    if (int_digits == 36) return false;
    mant = mant * 10 + (t[i] - '0');
  }
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++frac_digits) {
      if (int_digits + frac_digits == 36) return false;
      mant = mant * 10 + (t[i] - '0');
    }
    if (frac_digits == 0) return false;
  }
  if (i != t.size() || int_digits == 0) return false;
  if (neg) mant = -mant;
  // Scale so the shift (ns = 1e-3 µs) is representable: at least 3 fraction digits, unless the
  // shift is a multiple of a coarser unit.
  int need = 3;
  for (int64_t s = shift_ns; need > 0 && s % 10 == 0; s /= 10) --need;
  int scale = frac_digits;
  while (scale < need) {
    mant *= 10;
    ++scale;
  }
  Int shift = shift_ns;
  if (scale >= 3) {
    for (int k = 3; k < scale; ++k) shift *= 10;
  } else {
    for (int k = scale; k < 3; ++k) shift /= 10;  // exact: checked above
  }
  mant += shift;
  if (mant < 0) {
    out += '-';
    mant = -mant;
  }
  Int pow10 = 1;
  for (int k = 0; k < scale; ++k) pow10 *= 10;
  append_int(out, mant / pow10);
  if (scale > 0) {
    out += '.';
    std::string frac;
    append_int(frac, mant % pow10);
    out.append(static_cast<size_t>(scale) - frac.size(), '0');
    out += frac;
  }
  return true;
}

}  // namespace cs::timeline

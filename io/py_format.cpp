#include "io/py_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cs::io {

namespace {

// The last reprs made on this thread, by the double's bits (1,024 slots, one value each): the
// documents repeat many values (the same op's sizes and times on every rank of a group), and a
// hit costs a copy instead of the shortest-digits search.
struct ReprCache {
  struct Entry {
    uint64_t bits;
    uint8_t size;  // 0: empty
    char text[31];
  };
  static constexpr size_t kSlots = 1024;
  Entry slots[kSlots];
  static size_t slot(uint64_t bits) { return (bits * 0x9E3779B97F4A7C15ull) >> 54; }
};
thread_local ReprCache repr_cache;

}  // namespace

void append_py_repr(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "NaN";
    return;
  }
  if (std::isinf(x)) {
    out += x > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (x == 0.0) {
    out += std::signbit(x) ? "-0.0" : "0.0";
    return;
  }
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  ReprCache::Entry& cached = repr_cache.slots[ReprCache::slot(bits)];
  if (cached.size != 0 && cached.bits == bits) {
    out.append(cached.text, cached.size);
    return;
  }
  // Shortest round-trip digits in scientific form: "-d.ddde+XX", rewritten into `text` and
  // appended once.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const char* p = buf;
  const char* end = res.ptr;
  char text[64];
  char* t = text;
  if (*p == '-') {
    *t++ = '-';
    ++p;
  }
  char digits[40];
  int n = 0;
  for (; p < end && *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  // The exponent: 'e', a sign, two or three digits.
  const bool negative = p + 1 < end && p[1] == '-';
  int exp = 0;
  for (const char* q = p + 2; q < end; ++q) exp = exp * 10 + (*q - '0');
  if (negative) exp = -exp;
  auto copy = [&t](const char* from, int count) {
    std::memcpy(t, from, static_cast<size_t>(count));
    t += count;
  };
  if (exp < -4 || exp >= 16) {
    *t++ = digits[0];
    if (n > 1) {
      *t++ = '.';
      copy(digits + 1, n - 1);
    }
    *t++ = 'e';
    *t++ = exp < 0 ? '-' : '+';
    const int a = exp < 0 ? -exp : exp;
    if (a < 10) *t++ = '0';
    t = std::to_chars(t, text + sizeof text, a).ptr;
  } else if (exp < 0) {
    *t++ = '0';
    *t++ = '.';
    for (int i = 0; i < -exp - 1; ++i) *t++ = '0';
    copy(digits, n);
  } else if (const int int_digits = exp + 1; n <= int_digits) {
    // 0 <= exp <= 15: the integer part has exp + 1 digits.
    copy(digits, n);
    for (int i = n; i < int_digits; ++i) *t++ = '0';
    *t++ = '.';
    *t++ = '0';
  } else {
    copy(digits, int_digits);
    *t++ = '.';
    copy(digits + int_digits, n - int_digits);
  }
  const size_t size = static_cast<size_t>(t - text);
  if (size <= sizeof cached.text) {
    cached.bits = bits;
    cached.size = static_cast<uint8_t>(size);
    std::memcpy(cached.text, text, size);
  }
  out.append(text, size);
}

std::string py_repr(double x) {
  std::string s;
  append_py_repr(s, x);
  return s;
}

void append_py_num(std::string& out, Num n) {
  if (n.is_int && std::isfinite(n.v) && std::fabs(n.v) < 9.2e18) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(n.v));
    out.append(buf, res.ptr);
  } else {
    append_py_repr(out, n.v);
  }
}

// round(x, -k) for k > 0: the exact value rounded half-even to a multiple of 10^k.
static double py_round_tens(double x, int k) {
  const double zero = std::copysign(0.0, x);
  if (k > 308) return zero;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17e", x);
  const char* e = std::strchr(buf, 'e');
  const int exp10 = e ? std::atoi(e + 1) : 0;  // x = d.ddd * 10^exp10
  const int precision = exp10 - k;             // digits after the point in %e
  if (precision >= 0) {
    int len = std::snprintf(buf, sizeof buf, "%.*e", precision, x);
    double r = 0.0;
    std::from_chars(buf, buf + len, r);
    return r;
  }
  // |x| < 10^k: the result is 0 or +-10^k; exactly half (5*10^(k-1)) goes to the even 0.
  const double unit = std::pow(10.0, k);
  if (precision == -1 && std::fabs(x) > unit / 2) return std::copysign(unit, x);
  return zero;
}

// round(x, n) for 0 <= n <= 22 without formatting, when that is exact: y = x * 10^n is the
// exact product rounded once (10^n is exact up to 10^22), so it is within half an ulp of it;
// when y is further than one ulp from a half-integer, the exact product rounds (half-even) to
// the same integer k as y. k (an integer below 2^52) and 10^n are exact, so k / 10^n is the
// double nearest to the decimal k * 10^-n, which is what Python's round() parses back. False
// (nothing decided) near a tie or for large |y|: the caller formats then.
static bool py_round_fast(double x, int ndigits, double& out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (ndigits > 22) return false;
  const double p = kPow10[ndigits];
  const double y = x * p;
  const double a = std::fabs(y);
  if (!(a < 0x1p51)) return false;
  const double frac = a - std::floor(a);  // exact below 2^52
  const double ulp = std::nextafter(a, INFINITY) - a;
  if (std::fabs(frac - 0.5) <= ulp) return false;
  out = std::nearbyint(y) / p;
  return true;
}

double py_round(double x, int ndigits) {
  if (!std::isfinite(x) || x == 0.0) return x;
  if (ndigits < 0) return py_round_tens(x, -ndigits);
  if (double r; py_round_fast(x, ndigits, r)) return r;
  // Python formats the exact value with ndigits decimals (correct rounding, half-even on the
  // exact binary value) and parses it back. std::to_chars with a precision is printf("%.*f")
  // exactly (the standard says so), without printf's locale and format parsing.
  char buf[512];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, ndigits);
  if (res.ec != std::errc()) return x;
  double r = 0.0;
  std::from_chars(buf, res.ptr, r);
  return r;
}

void append_shortest(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "nan";
    return;
  }
  if (std::isinf(x)) {
    out += x > 0 ? "inf" : "-inf";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, res.ptr);
}

std::string shortest(double x) {
  std::string s;
  append_shortest(s, x);
  return s;
}

}  // namespace cs::io

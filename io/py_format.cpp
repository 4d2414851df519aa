#include "io/py_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cs::io {

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
  // Shortest round-trip digits in scientific form: "-d.ddde+XX".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const char* p = buf;
  const char* end = res.ptr;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  char digits[40];
  int n = 0;
  for (; p < end && *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  int exp = 0;
  std::from_chars(p + 1 + (p[1] == '+'), end, exp);
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (n > 1) {
      out += '.';
      out.append(digits + 1, static_cast<size_t>(n - 1));
    }
    out += 'e';
    out += exp < 0 ? '-' : '+';
    int a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
    return;
  }
  if (exp < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out.append(digits, static_cast<size_t>(n));
    return;
  }
  // 0 <= exp <= 15: integer part has exp+1 digits.
  const int int_digits = exp + 1;
  if (n <= int_digits) {
    out.append(digits, static_cast<size_t>(n));
    out.append(static_cast<size_t>(int_digits - n), '0');
    out += ".0";
  } else {
    out.append(digits, static_cast<size_t>(int_digits));
    out += '.';
    out.append(digits + int_digits, static_cast<size_t>(n - int_digits));
  }
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

double py_round(double x, int ndigits) {
  if (!std::isfinite(x) || x == 0.0) return x;
  if (ndigits < 0) return py_round_tens(x, -ndigits);
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

#include "io/json/json_validate.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "io/utf8.h"

namespace cs::io {

namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Reads 4 hex digits at s[i..i+4) into cp.
bool hex4(std::string_view s, size_t i, unsigned& cp) {
  if (i + 4 > s.size()) return false;
  cp = 0;
  for (size_t k = i; k < i + 4; ++k) {
    if (!is_hex(s[k])) return false;
    const char c = s[k];
    cp = cp * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return true;
}

// Scans string contents from s[i] up to the closing quote; i ends after the quote. With
// `whole` the contents run to the end of s (no closing quote expected).
bool scan_string(std::string_view s, size_t& i, bool whole) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  while (i < s.size()) {
    const unsigned char c = p[i];
    if (c == '"') {
      if (whole) return false;
      ++i;
      return true;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const size_t len = utf8_length(p + i, s.size() - i);
      if (len == 0) return false;
      i += len;
      continue;
    }
    if (c != '\\') {
      ++i;
      continue;
    }
    if (i + 1 >= s.size()) return false;
    const char e = s[i + 1];
    if (e == 'u') {
      unsigned cp = 0;
      if (!hex4(s, i + 2, cp)) return false;
      i += 6;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
      if (cp >= 0xD800 && cp <= 0xDBFF) {              // must be followed by a low one
        unsigned lo = 0;
        if (i + 1 >= s.size() || s[i] != '\\' || s[i + 1] != 'u' || !hex4(s, i + 2, lo) ||
            lo < 0xDC00 || lo > 0xDFFF)
          return false;
        i += 6;
      }
      continue;
    }
    if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
        e != 't')
      return false;
    i += 2;
  }
  return whole;
}

// A number at s[i]; i ends after it.
bool scan_number(std::string_view s, size_t& i) {
  const size_t start = i;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size() || !is_digit(s[i])) return false;
  if (s[i] == '0') {
    ++i;
  } else {
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  bool integer = true;
  if (i < s.size() && s[i] == '.') {
    integer = false;
    ++i;
    if (i >= s.size() || !is_digit(s[i])) return false;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    integer = false;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !is_digit(s[i])) return false;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  const std::string_view num = s.substr(start, i - start);
  if (integer) {
    // Any length Python reads (msprof / Kineto traces are read by Python tools): json.loads
    // accepts integers beyond 64 bits up to its int_max_str_digits limit; the digits are copied
    // exactly.
    const size_t digits = num.size() - (num[0] == '-' ? 1 : 0);
    return digits <= kMaxJsonIntegerDigits;
  }
  double d;  // beyond double range (1e999): Python reads inf, strict parsers refuse it
  auto r = std::from_chars(num.data(), num.data() + num.size(), d);
  return r.ec == std::errc() && r.ptr == num.data() + num.size() && std::isfinite(d);
}

bool scan_literal(std::string_view s, size_t& i, std::string_view word) {
  if (s.substr(i, word.size()) != word) return false;
  i += word.size();
  return true;
}

void skip_ws(std::string_view s, size_t& i) {
  while (i < s.size() && is_ws(s[i])) ++i;
}

// An object member's `"key" :` and the blanks after it, from i; false when it is not one.
bool scan_key(std::string_view s, size_t& i) {
  skip_ws(s, i);
  if (i >= s.size() || s[i] != '"') return false;
  ++i;
  if (!scan_string(s, i, false)) return false;
  skip_ws(s, i);
  if (i >= s.size() || s[i] != ':') return false;
  ++i;
  skip_ws(s, i);
  return true;
}

}  // namespace

bool is_valid_json_string_contents(std::string_view contents) {
  size_t i = 0;
  return scan_string(contents, i, true);
}

bool is_valid_json_value(std::string_view s, int max_depth) {
  // Iterative: `open` holds the containers entered ('{' or '['); after a value, what may follow
  // depends on the innermost one.
  std::string open;  // short: no allocation below 16 levels
  size_t i = 0;
  skip_ws(s, i);
  for (;;) {
    // A value at s[i].
    if (i >= s.size()) return false;
    const char c = s[i];
    bool scalar_ok = true;
    if (c == '{' || c == '[') {
      if (static_cast<int>(open.size()) >= max_depth) return false;
      open.push_back(c);
      ++i;
      skip_ws(s, i);
      if (i < s.size() && s[i] == (c == '{' ? '}' : ']')) {
        open.pop_back();
        ++i;
      } else if (c == '{') {
        if (!scan_key(s, i)) return false;  // the first key
        continue;                           // its value
      } else {
        continue;  // the first element
      }
    } else if (c == '"') {
      ++i;
      scalar_ok = scan_string(s, i, false);
    } else if (c == 't') {
      scalar_ok = scan_literal(s, i, "true");
    } else if (c == 'f') {
      scalar_ok = scan_literal(s, i, "false");
    } else if (c == 'n') {
      scalar_ok = scan_literal(s, i, "null");
    } else {
      scalar_ok = scan_number(s, i);
    }
    if (!scalar_ok) return false;
    // After a complete value: close containers or go on to the next member/element.
    for (;;) {
      skip_ws(s, i);
      if (open.empty()) return i == s.size();
      if (i >= s.size()) return false;
      const char close = open.back() == '{' ? '}' : ']';
      if (s[i] == close) {
        open.pop_back();
        ++i;
        continue;
      }
      if (s[i] != ',') return false;
      ++i;
      skip_ws(s, i);
      if (open.back() == '{' && !scan_key(s, i)) return false;
      break;  // the next value
    }
  }
}

}  // namespace cs::io

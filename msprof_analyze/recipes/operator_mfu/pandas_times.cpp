#include "msprof_analyze/recipes/operator_mfu/pandas_times.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "msprof_analyze/recipes/operator_mfu/text_trim.h"

namespace cs::recipes::operator_mfu {

namespace {

// A text pandas keeps as an integer: [+-]digits fitting int64, spaces around.
std::optional<int64_t> int_text(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// astype(int64) of a double on x86: truncation; NaN and out of range give INT64_MIN.
int64_t to_int64(double d) {
  if (std::isnan(d)) return 0;  // fillna(0) came first
  if (!(d > -9.2233720368547758e18 && d < 9.2233720368547758e18))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

}  // namespace

double pandas_xstrtod(const std::string& text) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::string_view s = trim(text);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  double number = 0;
  int digits = 0, exponent = 0;
  constexpr int kMaxDigits = 17;
  auto digit = [&](size_t at) { return at < s.size() && s[at] >= '0' && s[at] <= '9'; };
  for (; digit(i); ++i) {
    if (digits < kMaxDigits) {
      number = number * 10. + (s[i] - '0');
      ++digits;
    } else {
      ++exponent;
    }
  }
  if (i < s.size() && s[i] == '.') {
    for (++i; digit(i); ++i)
      if (digits < kMaxDigits) {
        number = number * 10. + (s[i] - '0');
        ++digits;
        --exponent;
      }
  }
  if (digits == 0) return nan;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    bool neg_exp = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) neg_exp = s[j++] == '-';
    if (!digit(j)) return nan;
    int n = 0;
    for (; digit(j); ++j) n = n < 100000 ? n * 10 + (s[j] - '0') : n;
    exponent += neg_exp ? -n : n;
    i = j;
  }
  if (i != s.size()) return nan;
  if (exponent > 308) {
    number = number == 0 ? 0 : std::numeric_limits<double>::infinity();
  } else if (exponent > 0) {
    number *= std::pow(10.0, exponent);
  } else if (exponent < -308) {
    number = (number / 1e308) / std::pow(10.0, -exponent - 308);
  } else if (exponent < 0) {
    number /= std::pow(10.0, -exponent);
  }
  return negative ? -number : number;
}

std::vector<int64_t> pandas_times(const std::vector<const frame::Frame*>& frames, size_t col) {
  std::vector<int64_t> out;
  bool exact = true;
  for (const frame::Frame* f : frames)
    for (const frame::Cell& c : f->columns[col].cells) {
      if (c.kind == frame::Cell::Kind::kInt) {
        out.push_back(c.i());
      } else if (const auto v =
                     c.kind == frame::Cell::Kind::kText ? int_text(c.str()) : std::nullopt) {
        out.push_back(*v);
      } else {
        exact = false;
      }
    }
  if (exact) return out;
  out.clear();
  for (const frame::Frame* f : frames)
    for (const frame::Cell& c : f->columns[col].cells) {
      switch (c.kind) {
        case frame::Cell::Kind::kNull:
          out.push_back(0);
          break;
        case frame::Cell::Kind::kInt:
        case frame::Cell::Kind::kReal:
          out.push_back(to_int64(c.num()));
          break;
        case frame::Cell::Kind::kText:
          out.push_back(to_int64(pandas_xstrtod(c.str())));
          break;
      }
    }
  return out;
}

}  // namespace cs::recipes::operator_mfu

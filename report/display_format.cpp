#include "report/display_format.h"

#include <cmath>
#include <cstdio>

namespace cs::report {

std::string fmt_num(double x, int decimals) {
  if (!std::isfinite(x)) return std::isnan(x) ? "\u2013" : (x > 0 ? "\u221e" : "-\u221e");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals, std::fabs(x));
  std::string digits = buf;
  const size_t dot = digits.find('.');
  std::string ip = digits.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : digits.substr(dot);
  std::string grouped;
  for (size_t i = 0; i < ip.size(); ++i) {
    if (i > 0 && (ip.size() - i) % 3 == 0) grouped += ',';
    grouped += ip[i];
  }
  bool zero = true;
  for (char c : digits)
    if (c >= '1' && c <= '9') zero = false;
  return (x < 0 && !zero ? "-" : "") + grouped + frac;
}

std::string fmt_us(double us) {
  if (!std::isfinite(us)) return fmt_num(us, 0);
  if (us == 0) return "0";  // beside "20.00 ms" ticks, "0.0 µs" reads as a unit change
  const double a = std::fabs(us);
  if (a < 1000) return fmt_num(us, 1) + " \u00b5s";
  if (a < 1e6) return fmt_num(us / 1e3, 2) + " ms";
  return fmt_num(us / 1e6, 2) + " s";
}

std::string fmt_bytes(double bytes) {
  if (!std::isfinite(bytes)) return fmt_num(bytes, 0);
  const double a = std::fabs(bytes);
  if (a < 1e3) return fmt_num(bytes, 0) + " B";
  if (a < 1e6) return fmt_num(bytes / 1e3, 1) + " kB";
  if (a < 1e9) return fmt_num(bytes / 1e6, 1) + " MB";
  if (a < 1e12) return fmt_num(bytes / 1e9, 2) + " GB";
  return fmt_num(bytes / 1e12, 2) + " TB";
}

std::string fmt_pct(double ratio) {
  return fmt_num(ratio * 100.0, 1) + "%";
}

}  // namespace cs::report

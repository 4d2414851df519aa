#pragma once
// A number as text through a printf format, for the findings' evidence.

#include <cstdio>
#include <string>

namespace cs::analysis {

// `v` printed with printf format `f` (one double conversion, at most 63 characters).
inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace cs::analysis

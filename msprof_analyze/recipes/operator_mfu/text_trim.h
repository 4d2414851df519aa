#pragma once
// Whitespace as Python's str.strip() sees it in ASCII, for the operator_mfu readers.

#include <string_view>

namespace cs::recipes::operator_mfu {

// ' ', '\t', '\n', '\r', '\f' or '\v'.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// `s` without the whitespace at either end.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace cs::recipes::operator_mfu

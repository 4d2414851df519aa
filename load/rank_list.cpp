#include "load/rank_list.h"

namespace cs::load {

std::string format_rank_set(const std::set<int>& ranks) {
  std::string out;
  for (auto it = ranks.begin(); it != ranks.end();) {
    int a = *it, b = a;
    for (++it; it != ranks.end() && *it == b + 1; ++it) b = *it;
    out += (out.empty() ? "" : ",") + std::to_string(a) + (b > a ? "-" + std::to_string(b) : "");
  }
  return out;
}

bool parse_rank_list(std::string_view text, std::set<int>& out, std::string& error) {
  out.clear();
  auto parse_int = [](std::string_view s, int& v) {
    if (s.empty() || s.size() > 9) return false;
    v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    return true;
  };
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  if (trim(text).empty()) {
    error = "the rank list is empty";
    return false;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item =
        trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    size_t dash = item.find('-');
    int a = 0, b = 0;
    bool ok;
    if (dash == std::string_view::npos) {
      ok = parse_int(item, a);
      b = a;
    } else {
      ok = parse_int(trim(item.substr(0, dash)), a) && parse_int(trim(item.substr(dash + 1)), b);
    }
    if (!ok) {
      error = "'" + std::string(item) + "' is not a rank or a range A-B";
      out.clear();
      return false;
    }
    if (b < a) {
      error = "range '" + std::string(item) + "' ends before it starts";
      out.clear();
      return false;
    }
    for (int r = a; r <= b; ++r) out.insert(r);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

}  // namespace cs::load

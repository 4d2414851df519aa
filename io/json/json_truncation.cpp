// Reading what can be read of a JSON text cut short, and finding bytes that are not UTF-8.

#include "io/json/json_truncation.h"

namespace cs::io {

TruncationInfo analyze_truncation(std::string_view text, int keep_depth) {
  TruncationInfo t;
  std::string stack;
  std::string cut_stack;
  const size_t keep = keep_depth < 0 ? 0 : static_cast<size_t>(keep_depth);
  bool in_str = false;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (in_str) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_str = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_str = true;
        break;
      case '{':
      case '[':
        stack.push_back(c);
        if (stack.size() <= keep) {
          t.cut = static_cast<int64_t>(i + 1);
          cut_stack = stack;
        }
        break;
      case '}':
      case ']':
        if (!stack.empty()) stack.pop_back();
        if (stack.size() <= keep) {
          t.cut = static_cast<int64_t>(i + 1);
          cut_stack = stack;
        }
        break;
      default:
        break;
    }
  }
  t.in_string = in_str;
  t.open_brackets = static_cast<int>(stack.size());
  t.truncated = in_str || !stack.empty();
  for (auto it = cut_stack.rbegin(); it != cut_stack.rend(); ++it)
    t.closers += *it == '{' ? '}' : ']';
  return t;
}

simdjson::padded_string repair_truncated(std::string_view text, const TruncationInfo& t) {
  std::string s;
  s.reserve(static_cast<size_t>(t.cut) + t.closers.size());
  s.append(text.substr(0, static_cast<size_t>(t.cut)));
  s += t.closers;
  return simdjson::padded_string(s);
}

int64_t first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return static_cast<int64_t>(i);
    }
    if (i + len > n) return static_cast<int64_t>(i);
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return static_cast<int64_t>(i);
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return static_cast<int64_t>(i);
    }
    i += len;
  }
  return -1;
}

}  // namespace cs::io

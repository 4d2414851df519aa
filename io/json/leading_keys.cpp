#include "io/json/leading_keys.h"

namespace cs::io {

namespace {

void skip_space(std::string_view t, size_t& i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
}

}  // namespace

std::vector<std::string_view> leading_keys(std::string_view text, size_t depth) {
  std::vector<std::string_view> keys;
  size_t i = 0;
  if (text.starts_with("\xEF\xBB\xBF")) i = 3;  // a UTF-8 byte order mark
  while (keys.size() < depth) {
    skip_space(text, i);
    if (i >= text.size() || text[i] != '{') break;
    ++i;
    skip_space(text, i);
    if (i >= text.size() || text[i] != '"') break;  // empty object or not JSON
    const size_t start = ++i;
    while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    if (i >= text.size()) break;
    const std::string_view key = text.substr(start, i - start);
    ++i;
    skip_space(text, i);
    if (i >= text.size() || text[i] != ':') break;
    ++i;
    keys.push_back(key);
  }
  return keys;
}

}  // namespace cs::io

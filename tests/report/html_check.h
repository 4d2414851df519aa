#pragma once
// Test helper: a strict-enough HTML well-formedness check for the reports — every non-void tag
// closed in order, no stray '<' or '>' in text, attributes quoted, raw-text elements (style,
// title, script) skipped to their end tag. Returns "" when well formed, else what is wrong.

#include <string>
#include <string_view>
#include <vector>

namespace cs::report::test {

inline bool is_void_tag(std::string_view t) {
  return t == "meta" || t == "link" || t == "br" || t == "hr" || t == "img" || t == "input";
}

inline std::string check_html(std::string_view s) {
  std::vector<std::string> stack;
  size_t i = 0;
  const auto where = [&](size_t p) { return " at byte " + std::to_string(p); };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '>') return "stray '>' in text" + where(i);
    if (c != '<') {
      ++i;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const size_t e = s.find("-->", i);
      if (e == std::string_view::npos) return "unclosed comment" + where(i);
      i = e + 3;
      continue;
    }
    if (s.compare(i, 2, "<!") == 0) {
      const size_t e = s.find('>', i);
      if (e == std::string_view::npos) return "unclosed declaration" + where(i);
      i = e + 1;
      continue;
    }
    const bool closing = i + 1 < s.size() && s[i + 1] == '/';
    size_t p = i + (closing ? 2 : 1);
    const size_t name_begin = p;
    while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '-')) ++p;
    if (p == name_begin) return "'<' not starting a tag" + where(i);
    const std::string name(s.substr(name_begin, p - name_begin));
    // Attributes: name="value" pairs; quotes must balance.
    bool self_closing = false;
    while (true) {
      if (p >= s.size()) return "unterminated tag <" + name + where(i);
      const char d = s[p];
      if (d == '"' || d == '\'') {
        const size_t e = s.find(d, p + 1);
        if (e == std::string_view::npos) return "unterminated attribute value" + where(p);
        const std::string_view v = s.substr(p + 1, e - p - 1);
        if (v.find('<') != std::string_view::npos) return "'<' inside attribute" + where(p);
        p = e + 1;
        continue;
      }
      if (d == '<') return "'<' inside tag <" + name + where(p);
      if (d == '/' && p + 1 < s.size() && s[p + 1] == '>') {
        self_closing = true;
        p += 2;
        break;
      }
      if (d == '>') {
        ++p;
        break;
      }
      ++p;
    }
    if (closing) {
      if (stack.empty()) return "</" + name + "> with nothing open" + where(i);
      if (stack.back() != name) return "</" + name + "> closes <" + stack.back() + ">" + where(i);
      stack.pop_back();
    } else if (!self_closing && !is_void_tag(name)) {
      if (name == "style" || name == "title" || name == "script") {
        const std::string end = "</" + name + ">";
        const size_t e = s.find(end, p);
        if (e == std::string_view::npos) return "unclosed <" + name + ">" + where(i);
        const std::string_view body = s.substr(p, e - p);
        if (name == "title" && body.find('<') != std::string_view::npos)
          return "'<' in title" + where(p);
        p = e + end.size();
      } else {
        stack.push_back(name);
      }
    }
    i = p;
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  return {};
}

}  // namespace cs::report::test

#include "io/markup_escape.h"

namespace cs::io {

void append_markup_escaped(std::string& out, std::string_view s, MarkupEscape how) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        if (how.quote) {
          out += "&quot;";
        } else {
          out.push_back(ch);
        }
        break;
      case '\'':
        if (how.apostrophe) {
          out += "&#39;";
        } else {
          out.push_back(ch);
        }
        break;
      default:
        if (how.drop_controls && ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)) {
          break;
        }
        out.push_back(ch);
    }
  }
}

}  // namespace cs::io

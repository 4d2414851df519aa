#include "io/text_escape.h"

#include "io/utf8.h"

namespace cs::io {

namespace {

void append_hex_byte(std::string& out, unsigned char c) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

// Length of the sequence at p that may be copied as it is (1 for printable ASCII, 2..4 for a
// valid UTF-8 sequence outside the C1 range), or 0 when the byte must be escaped.
size_t printable_length(const unsigned char* p, size_t n) {
  if (p[0] < 0x80) return p[0] >= 0x20 && p[0] != 0x7f ? 1 : 0;
  const size_t len = utf8_length(p, n);
  if (len == 2 && p[0] == 0xC2 && p[1] < 0xA0) return 0;  // U+0080..U+009F (C1 controls)
  return len;
}

}  // namespace

void append_escaped_text(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const size_t len = printable_length(p + i, s.size() - i);
    if (len > 0) {
      out.append(s.data() + i, len);
      i += len;
      continue;
    }
    switch (p[i]) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        append_hex_byte(out, p[i]);
    }
    ++i;
  }
}

std::string escape_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_escaped_text(out, s);
  return out;
}

bool is_printable_text(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const size_t len = printable_length(p + i, s.size() - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace cs::io

#pragma once
// UTF-8 checks for what goes into output files: a name read from a damaged or hostile input may
// hold bytes that are not UTF-8 or NUL bytes, which must not reach a CSV or JSON file as they are.
//
//   utf8_length("\xC3\xA9x", 3) == 2   // "é" is one valid 2-byte sequence
//   append_utf8_sanitized(out, "a\xFF" "b")  -> out == "a\uFFFDb" (as UTF-8: EF BF BD)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cs::io {

// Length (2..4) of the valid multi-byte UTF-8 sequence at s[0, n) (s[0] >= 0x80), else 0 (a
// stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or cut short).
inline size_t utf8_length(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07u;
  } else {
    return 0;
  }
  if (len > n) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[k] & 0x3Fu);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return len;
}

// True when s is valid UTF-8 without NUL bytes (then it can be written as it is).
inline bool is_clean_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0;
  // ASCII without NUL, 8 bytes a step (most names).
  constexpr uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, p + i, 8);
    if (((x - k01) & ~x & k80) | (x & k80)) break;
  }
  while (i < s.size()) {
    if (p[i] != 0 && p[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = p[i] == 0 ? 0 : utf8_length(p + i, s.size() - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// Appends s with every NUL byte and every byte that starts no valid UTF-8 sequence replaced by
// U+FFFD (the replacement character), as Python's decode(errors="replace") does byte by byte.
inline void append_utf8_sanitized(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    if (p[i] != 0 && p[i] < 0x80) {
      out += static_cast<char>(p[i++]);
      continue;
    }
    const size_t len = p[i] == 0 ? 0 : utf8_length(p + i, s.size() - i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
}

}  // namespace cs::io

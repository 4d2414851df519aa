#include "io/json/json_writer.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "io/utf8.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace cs::io {

namespace {
const char* kHex = "0123456789abcdef";

void append_u(std::string& out, unsigned cp) {
  out += "\\u";
  out += kHex[(cp >> 12) & 0xF];
  out += kHex[(cp >> 8) & 0xF];
  out += kHex[(cp >> 4) & 0xF];
  out += kHex[cp & 0xF];
}

// True for a byte append_json_string copies as is.
constexpr bool plain_byte(unsigned char c, bool ensure_ascii) {
  return c >= 0x20 && c != '"' && c != '\\' && (c < 0x7f || (c == 0x7f && !ensure_ascii));
}

// plain_byte() of every byte value, for ensure_ascii false and true.
struct PlainTable {
  bool plain[2][256];
  constexpr PlainTable() : plain{} {
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 256; ++c) plain[a][c] = plain_byte(static_cast<unsigned char>(c), a);
  }
};
constexpr PlainTable kPlainTable;

// The end of the run of plain bytes of s starting at i: 16 bytes a step (SSE2) while a block
// holds none of the bytes to escape (control bytes, '"', '\\', and with ensure_ascii DEL; any
// non-ASCII byte also ends the run: it is checked as UTF-8, or escaped, one sequence at a time),
// then byte by byte through a table.
size_t plain_run_end(std::string_view s, size_t i, bool ensure_ascii) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
  while (i + 16 <= s.size()) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    // Signed compare: below 0x20, or 0x80 and above (negative as signed bytes).
    __m128i bad =
        _mm_or_si128(_mm_cmplt_epi8(v, space),
                     _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (ensure_ascii) bad = _mm_or_si128(bad, _mm_cmpeq_epi8(v, del));
    const int mask = _mm_movemask_epi8(bad);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  const bool* plain = kPlainTable.plain[ensure_ascii ? 1 : 0];
  while (i < s.size() && plain[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}
}  // namespace

void append_json_string(std::string& out, std::string_view s, bool ensure_ascii) {
  if (plain_run_end(s, 0, ensure_ascii) == s.size()) {  // nothing to escape (most keys, names)
    // Appended, not resized and overwritten: a resize first zero-fills the new bytes.
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    // Fast path: copy the run of bytes that need no escaping in one append.
    const size_t run = plain_run_end(s, i, ensure_ascii);
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      if (i == s.size()) break;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    if (c < 0x20 || (c == 0x7f && ensure_ascii)) {  // Python escapes DEL too
      append_u(out, c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (!ensure_ascii) {
      // Valid UTF-8 as it is; a byte that starts no valid sequence (a damaged or hostile name)
      // becomes U+FFFD, so the file stays valid JSON text.
      const size_t len =
          utf8_length(reinterpret_cast<const unsigned char*>(s.data()) + i, s.size() - i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";
      } else {
        out.append(s.data() + i, len);
        i += len - 1;
      }
    } else {
      // Decode one UTF-8 sequence; invalid bytes become U+FFFD as Python's decoder would with
      // errors="replace".
      unsigned cp = 0xFFFD;
      size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      if (len > 1 && i + len <= s.size()) {
        cp = c & (0xFF >> (len + 1));
        bool valid = true;
        for (size_t k = 1; k < len; ++k) {
          unsigned char cc = static_cast<unsigned char>(s[i + k]);
          if ((cc & 0xC0) != 0x80) valid = false;
          cp = (cp << 6) | (cc & 0x3F);
        }
        if (valid) {
          i += len - 1;
        } else {
          cp = 0xFFFD;
        }
      }
      if (cp >= 0x10000) {
        cp -= 0x10000;
        append_u(out, 0xD800 + (cp >> 10));
        append_u(out, 0xDC00 + (cp & 0x3FF));
      } else {
        append_u(out, cp);
      }
    }
  }
  out += '"';
}

JsonWriter::JsonWriter(std::string* out, JsonStyle style) : str_(out), style_(std::move(style)) {}
JsonWriter::JsonWriter(std::FILE* out, JsonStyle style) : file_(out), style_(std::move(style)) {
  buf_.reserve(kFlushAt + 4096);
}
JsonWriter::~JsonWriter() {
  flush();
}

void JsonWriter::flush() {
  if (file_ && !buf_.empty()) {
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) ok_ = false;
    buf_.clear();
  }
}

void JsonWriter::newline_indent() {
  if (style_.indent < 0) return;
  put('\n');
  size_t n = stack_.size() * static_cast<size_t>(style_.indent);
  for (size_t i = 0; i < n; ++i) put(' ');
}

void JsonWriter::before_value() {
  if (stack_.empty()) return;
  Level& top = stack_.back();
  if (top.is_object) {
    top.after_key = false;  // the key already wrote separators
    return;
  }
  if (!top.empty)
    put(style_.indent >= 0 ? std::string_view(",") : std::string_view(style_.item_sep));
  top.empty = false;
  newline_indent();
}

void JsonWriter::begin_member() {
  Level& top = stack_.back();
  if (!top.empty)
    put(style_.indent >= 0 ? std::string_view(",") : std::string_view(style_.item_sep));
  top.empty = false;
  top.after_key = true;
  newline_indent();
}

void JsonWriter::key(std::string_view k) {
  begin_member();
  string(k);
  put(style_.key_sep);
}

void JsonWriter::key_plain(std::string_view k) {
  begin_member();
  std::string& out = str_ ? *str_ : buf_;
  out.push_back('"');  // appended: a resize would zero-fill the bytes first
  out.append(k);
  out.push_back('"');
  out.append(style_.key_sep);
  if (!str_ && buf_.size() >= kFlushAt) flush();
}

void JsonWriter::string(std::string_view s) {
  if (str_) {
    append_json_string(*str_, s, style_.ensure_ascii);
    return;
  }
  append_json_string(buf_, s, style_.ensure_ascii);
  if (buf_.size() >= kFlushAt) flush();
}

void JsonWriter::begin_object() {
  before_value();
  put('{');
  stack_.push_back({true});
}

void JsonWriter::end_object() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline_indent();
  put('}');
}

void JsonWriter::begin_array() {
  before_value();
  put('[');
  stack_.push_back({false});
}

void JsonWriter::end_array() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline_indent();
  put(']');
}

void JsonWriter::value(std::string_view s) {
  before_value();
  string(s);
}

void JsonWriter::value(Num n) {
  before_value();
  if (!std::isfinite(n.v)) {
    ++nonfinite_;
    put("null");
    return;
  }
  if (str_) {
    append_py_num(*str_, n);
    return;
  }
  append_py_num(buf_, n);
  if (buf_.size() >= kFlushAt) flush();
}

void JsonWriter::value(bool b) {
  before_value();
  put(b ? "true" : "false");
}

void JsonWriter::null() {
  before_value();
  put("null");
}

void JsonWriter::raw_value(std::string_view json, size_t nonfinite) {
  before_value();
  nonfinite_ += nonfinite;
  if (file_ && json.size() >= kFlushAt / 16) {
    // A large part rendered elsewhere (a group of an msprof-analyze document, rendered on
    // another thread) goes to the file as it is, not copied through the buffer first.
    flush();
    if (std::fwrite(json.data(), 1, json.size(), file_) != json.size()) ok_ = false;
    return;
  }
  put(json);
}

}  // namespace cs::io

#pragma once
// A streaming JSON writer that prints like Python's json.dump, so output can match files that
// msprof-analyze writes byte for byte, and so writing a large document never builds it in memory.
//
//   JsonWriter w(out, JsonStyle::msprof());
//   w.begin_object(); w.key("step1"); w.value(Num::real(0.5)); w.end_object();   // {"step1": 0.5}

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "io/py_format.h"

namespace cs::io {

struct JsonStyle {
  std::string item_sep = ", ";  // Python's default separators=(', ', ': ')
  std::string key_sep = ": ";
  int indent = -1;           // >= 0: newline + indent spaces per level (Python indent=N)
  bool ensure_ascii = true;  // Python's default: non-ASCII as \uXXXX

  static JsonStyle python() { return {}; }
  // json.dump(..., separators=(',', ': ')) — what msprof-analyze's cluster files use.
  static JsonStyle msprof() { return {",", ": ", -1, true}; }
  static JsonStyle indented(int n) { return {",", ": ", n, true}; }
};

// Output sink: buffers and flushes to a FILE* (owned or not), or collects into a string.
class JsonWriter {
 public:
  explicit JsonWriter(std::string* out, JsonStyle style = {});
  explicit JsonWriter(std::FILE* out, JsonStyle style = {});
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view k);
  // key() for a key the caller knows needs no escaping (printable ASCII without '"' or '\\':
  // the documents' fixed field names, a rank's digits): written without being scanned.
  void key_plain(std::string_view k);
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  // A number as Python prints it; a NaN or an infinity (a sum of finite values beyond 1.8e308)
  // is written as null, which every JSON parser reads, and counted (nonfinite_count()).
  void value(Num n);
  void value(double d) { value(Num::real(d)); }
  void value(int64_t i) { value(Num::integer(i)); }
  void value(int i) { value(Num::integer(i)); }
  void value(bool b);
  void null();
  // Inserts already-formatted JSON text as a value (e.g. a sub-document rendered by another
  // writer, whose nonfinite_count() is passed on as `nonfinite`).
  void raw_value(std::string_view json, size_t nonfinite = 0);

  void flush();
  // True when every write to the FILE* succeeded.
  bool ok() const { return ok_; }
  const JsonStyle& style() const { return style_; }
  // How many NaN / infinite numbers were written as null (see value(Num)).
  size_t nonfinite_count() const { return nonfinite_; }

 private:
  void before_value();
  void newline_indent();
  // A member's start: the separator after the previous one, the line break, the key expected.
  void begin_member();
  static constexpr size_t kFlushAt = size_t{1} << 20;  // buffered bytes written at once
  // Inline: the documents write millions of short tokens.
  void put(std::string_view s) {
    if (str_) {
      str_->append(s);
      return;
    }
    buf_.append(s);
    if (buf_.size() >= kFlushAt) flush();
  }
  void put(char c) {
    if (str_) {
      str_->push_back(c);
      return;
    }
    buf_.push_back(c);
    if (buf_.size() >= kFlushAt) flush();
  }
  void string(std::string_view s);

  std::string* str_ = nullptr;
  std::FILE* file_ = nullptr;
  std::string buf_;
  JsonStyle style_;
  struct Level {
    bool is_object;
    bool empty = true;
    bool after_key = false;
  };
  std::vector<Level> stack_;
  bool ok_ = true;
  size_t nonfinite_ = 0;
};

// Appends s as a JSON string literal (quotes included) the way Python's json module escapes it.
void append_json_string(std::string& out, std::string_view s, bool ensure_ascii = true);

}  // namespace cs::io

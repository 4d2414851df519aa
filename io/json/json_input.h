#pragma once
// Shared plumbing of the JSON readers (simdjson on-demand): loading a file into a padded buffer
// (io/json/json_file.h) and recovering a cut file (io/json/json_truncation.h), included from here;
// one reused parser per thread, turning simdjson errors into Diagnostics with byte offset AND line,
// reading numbers the way Python's json module sees them (int vs float), and recovering the
// readable part of a file that was cut short.
//
//   simdjson::padded_string text;
//   if (!load_json_file(path, text, diag)) return false;
//   JsonWalkStatus st = walk_json_document(text, path, diag, /*keep_depth=*/3,
//       [&](simdjson::ondemand::document& doc, JsonContext& ctx) { ... return simdjson::SUCCESS;
//       });

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "io/diagnostics.h"
#include "io/json/json_file.h"
#include "io/json/json_truncation.h"
#include "io/py_format.h"

namespace cs::io {

// 1-based line of byte `offset` in `text`. Counts newlines from the last answer when the offsets
// asked for grow, so many look-ups in one pass over a big file stay linear.
// Example: TextLocator("a\nb").line_of(2) == 2.
class TextLocator {
 public:
  explicit TextLocator(std::string_view text) : text_(text) {}
  int64_t line_of(int64_t offset);

 private:
  std::string_view text_;
  int64_t last_offset_ = 0;
  int64_t last_line_ = 1;
};

// A short explanation of a simdjson error for users ("the JSON structure is broken: a comma,
// brace or key is missing or extra") and what to do about it.
std::string json_error_what(simdjson::error_code err);
std::string json_error_hint(simdjson::error_code err);

// Where the readers report to: the text being parsed, its name, and the diagnostics.
// Positions are pointers into the parsed buffer (a truncated file's repaired copy has the same
// offsets as the original, so they stay right).
class JsonContext {
 public:
  JsonContext(std::string_view text, std::string source, Diagnostics& diag)
      : text_(text), source_(std::move(source)), diag_(diag), locator_(text) {}

  // Byte offset of `p` in the text, -1 when p is not inside it.
  int64_t offset_of(const char* p) const;
  // Adds a warning / error at pointer `at` (nullptr = unknown position) with offset and line.
  void warn_at(const char* at, std::string what, std::string hint);
  void error_at(const char* at, std::string what, std::string hint);
  void warn_at_offset(int64_t offset, std::string what, std::string hint);
  void error_at_offset(int64_t offset, std::string what, std::string hint);

  const std::string& source() const { return source_; }
  std::string_view text() const { return text_; }
  Diagnostics& diag() { return diag_; }

  // Set by a walker before it returns a fatal error, to say what it was reading
  // ("op 'hcom_allReduce_1' of step 'step1'"); the driver adds it to the error.
  std::string where;
  // Set by a walker when it has stored anything in its output (so a damaged file still counts).
  bool got_data = false;
  // Set by a walker that added its own error for the problem it returns (the driver adds none).
  bool reported = false;

 private:
  std::string_view text_;
  std::string source_;
  Diagnostics& diag_;
  TextLocator locator_;
};

// The key of a field as written in the file, without quotes and not unescaped: compare it with
// plain names ("Elapse Time(ms)") without copying. For keys that may contain escapes (names
// chosen by users), use field.unescaped_key() instead.
// Example: for {"Elapse Time(ms)": 1}, raw_key(field) == "Elapse Time(ms)". Inline: it runs
// once per key in every reader's hot loop.
simdjson_inline std::string_view raw_key(const simdjson::ondemand::field& f) {
  // The key is a closed string (stage 1 checked), so this scan ends at its closing quote.
  const char* p = f.key().raw();
  size_t n = 0;
  while (p[n] != '"') n += p[n] == '\\' ? 2 : 1;
  return {p, n};
}

// Index of f's key in `names` (-1 when absent), trying `expected` first: producers write keys in
// a fixed order, so the expected name is compared in place, without measuring the key first.
// Sets `key` to the key's text (for warnings). Example: with names {"a", "b"} and expected 1,
// a field "b" gives 1, a field "a" gives 0 (found by the scan), "c" gives -1.
template <size_t N>
simdjson_inline int match_key(const simdjson::ondemand::field& f,
                              const std::array<std::string_view, N>& names, int expected,
                              std::string_view& key) {
  if (expected >= 0 && expected < static_cast<int>(N)) {
    // The document is padded (simdjson), so reading a name's length past a shorter key is safe;
    // the closing quote right after the name makes it the whole key.
    const char* p = f.key().raw();
    const std::string_view name = names[expected];
    if (std::memcmp(p, name.data(), name.size()) == 0 && p[name.size()] == '"') {
      key = name;
      return expected;
    }
  }
  key = raw_key(f);
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// The key of `f` as text: the raw bytes when it has no escapes (no copy through simdjson's
// string buffer), else the unescaped key. Example: "step1" -> "step1", "a\\u0041" -> "aA".
simdjson_inline simdjson::error_code key_text(simdjson::ondemand::field& f, std::string_view& out) {
  std::string_view raw = raw_key(f);
  if (simdjson_likely(raw.find('\\') == std::string_view::npos)) {
    out = raw;
    return simdjson::SUCCESS;
  }
  return f.unescaped_key().get(out);
}

// Reads a JSON number the way Python's json module loads it: `0` is an int, `0.0` and `1e5` are
// floats. Integers beyond 64 bits are kept (as a double) and marked int.
enum class NumRead {
  kOk,
  kWrongType,  // a string, object, array, bool or null where a number goes
  kNotFinite,  // NaN, Infinity, -Infinity or a number out of double range (1e999)
};
NumRead read_num_slow(simdjson::ondemand::value& v, Num& out);
// A float token of more than 19 significant digits, parsed exactly with std::from_chars.
NumRead read_long_float(std::string_view token, Num& out);
simdjson_inline NumRead read_num(simdjson::ondemand::value& v, Num& out) {
  // simdjson 3.0.1 (Debian 12) returns 0.0 from get_number() (and wrong values from
  // get_double()) for floats with more than 19 significant digits, e.g. 40.05491940625000001:
  // such tokens, recognised by their length, are parsed from the raw text instead.
  const std::string_view token = v.raw_json_token();
  simdjson::ondemand::number n;
  if (simdjson_likely(v.get_number().get(n) == simdjson::SUCCESS)) {
    if (n.is_int64()) {
      out = {static_cast<double>(n.get_int64()), true};
    } else if (n.is_double()) {
      if (simdjson_unlikely(token.size() > 19)) return read_long_float(token, out);
      out = {n.get_double(), false};
    } else {
      out = {static_cast<double>(n.get_uint64()), true};
    }
    return NumRead::kOk;
  }
  return read_num_slow(v, out);
}

// Adds the warning for a number read_num could not take: "<where>: "<key>" is <what was
// found>" with the hint "the value was treated as missing".
void warn_bad_number(simdjson::ondemand::value& v, NumRead r, JsonContext& ctx,
                     const std::string& where, std::string_view key);

// Reads a number; on a wrong type or non-finite value adds a warning (see warn_bad_number) and
// returns false. `where()` builds the "op 'x' of step 'y'" text only on that path.
// Example: read_num_or_warn(v, n, ctx, [&] { return "op '" + name + "'"; }, "Elapse Time(ms)").
template <class Where>
inline bool read_num_or_warn(simdjson::ondemand::value& v, Num& out, JsonContext& ctx,
                             Where&& where, std::string_view key) {
  NumRead r = read_num(v, out);
  if (simdjson_likely(r == NumRead::kOk)) return true;
  warn_bad_number(v, r, ctx, where(), key);
  return false;
}

// Adds the warning for a value that should be an object (or array) and is not:
// "<where>: "<key>" is a string ("x"), expected an object" ("it was skipped"); with an empty
// key: "<where> is a string ("x"), expected an object".
void warn_wrong_container(simdjson::ondemand::value& v, JsonContext& ctx, const std::string& where,
                          std::string_view key, bool want_object);

// v as an object (array). On a value of another type adds warn_wrong_container's warning and
// returns simdjson::INCORRECT_TYPE (skip the value and go on); other errors are fatal (return
// them). Example: if (auto e = get_object_or_warn(v, obj, ctx, where, key)) { ... }
template <class Where>
inline simdjson::error_code get_object_or_warn(simdjson::ondemand::value& v,
                                               simdjson::ondemand::object& out, JsonContext& ctx,
                                               Where&& where, std::string_view key) {
  simdjson::error_code e = v.get_object().get(out);
  if (simdjson_unlikely(e == simdjson::INCORRECT_TYPE))
    warn_wrong_container(v, ctx, where(), key, true);
  return e;
}
template <class Where>
inline simdjson::error_code get_array_or_warn(simdjson::ondemand::value& v,
                                              simdjson::ondemand::array& out, JsonContext& ctx,
                                              Where&& where, std::string_view key) {
  simdjson::error_code e = v.get_array().get(out);
  if (simdjson_unlikely(e == simdjson::INCORRECT_TYPE))
    warn_wrong_container(v, ctx, where(), key, false);
  return e;
}

// What the token at `v` is, for diagnostics: `a string ("abc")`, `NaN`, `an object`, `null`.
std::string describe_token(simdjson::ondemand::value& v);

enum class JsonWalkStatus {
  kOk,       // the whole document was read
  kDamaged,  // part of it was read (ctx.got_data says whether anything was stored); errors added
  kFailed,   // nothing could be read; an error was added
};

// Parses `text` with this thread's parser and calls `walk` on the document. The walk returns
// simdjson::SUCCESS, or the error that stopped it (after setting ctx.where); the driver then adds
// one error with byte offset, line and hint. A text that ends early is repaired with
// analyze_truncation(keep_depth) and walked once: the walk sees only complete parts.
// Example: keep_depth = 3 for communication.json (whole ops are kept).
using JsonWalk = std::function<simdjson::error_code(simdjson::ondemand::document&, JsonContext&)>;
JsonWalkStatus walk_json_document(simdjson::padded_string_view text, const std::string& source,
                                  Diagnostics& diag, int keep_depth, const JsonWalk& walk,
                                  bool* got_data = nullptr);

// For a text a DOM parser refused with `err`: one error naming where it is broken (line, byte
// offset, what, hint — walk_json_document's wording, a cut file "ends early"), found by reading
// every value of the document on demand. When that finds nothing, the error is `err`'s.
void report_json_error(const simdjson::padded_string& json, const std::string& source,
                       simdjson::error_code err, Diagnostics& diag);

}  // namespace cs::io

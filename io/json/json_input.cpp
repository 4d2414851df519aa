#include "io/json/json_input.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

namespace cs::io {

namespace {

bool is_json_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::string at_text(int64_t offset, int64_t line) {
  std::string s = "at byte " + std::to_string(offset);
  if (line > 0) s += " (line " + std::to_string(line) + ")";
  return s;
}

}  // namespace

int64_t TextLocator::line_of(int64_t offset) {
  offset = std::clamp<int64_t>(offset, 0, static_cast<int64_t>(text_.size()));
  if (offset < last_offset_) {
    last_offset_ = 0;
    last_line_ = 1;
  }
  const char* p = text_.data() + last_offset_;
  const char* end = text_.data() + offset;
  int64_t lines = 0;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) break;
    ++lines;
    p = static_cast<const char*>(nl) + 1;
  }
  last_line_ += lines;
  last_offset_ = offset;
  return last_line_;
}

std::string json_error_what(simdjson::error_code err) {
  switch (err) {
    case simdjson::TAPE_ERROR:
      return "the JSON structure is broken (a comma, colon, brace or key is missing or extra)";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "an object or array is not closed";
    case simdjson::UNCLOSED_STRING:
      return "a string is not closed";
    case simdjson::UTF8_ERROR:
      return "the text is not valid UTF-8";
    case simdjson::NUMBER_ERROR:
      return "a number is malformed";
    case simdjson::INCORRECT_TYPE:
      return "a value has the wrong type";
    case simdjson::STRING_ERROR:
      return "a string has a bad escape sequence";
    case simdjson::UNESCAPED_CHARS:
      return "a string contains an unescaped control character";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "a literal (true, false, null) is misspelled";
    case simdjson::DEPTH_ERROR:
      return "objects and arrays are nested too deeply";
    case simdjson::CAPACITY:
      return "the file is larger than the JSON parser takes (4 GB)";
    case simdjson::MEMALLOC:
      return "out of memory while parsing";
    case simdjson::EMPTY:
      return "the file contains no JSON value";
    default:
      return simdjson::error_message(err);
  }
}

std::string json_error_hint(simdjson::error_code err) {
  switch (err) {
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::UNCLOSED_STRING:
      return "the file ends early \u2014 was the profiler stopped before it finished writing?";
    case simdjson::UTF8_ERROR:
      return "is this a binary or corrupted file? Regenerate it with the profiler's parse step";
    case simdjson::CAPACITY:
      return "split the profiling run into shorter captures";
    case simdjson::MEMALLOC:
      return "run with fewer ranks per process or on a machine with more memory";
    default:
      return "check whether the file was edited by hand or written by two processes at once";
  }
}

int64_t JsonContext::offset_of(const char* p) const {
  if (!p || p < text_.data() || p > text_.data() + text_.size()) return -1;
  return p - text_.data();
}

void JsonContext::warn_at(const char* at, std::string what, std::string hint) {
  warn_at_offset(offset_of(at), std::move(what), std::move(hint));
}

void JsonContext::error_at(const char* at, std::string what, std::string hint) {
  error_at_offset(offset_of(at), std::move(what), std::move(hint));
}

void JsonContext::warn_at_offset(int64_t offset, std::string what, std::string hint) {
  int64_t line = offset >= 0 ? locator_.line_of(offset) : 0;
  diag_.warn(source_, line, std::move(what), std::move(hint), offset);
}

void JsonContext::error_at_offset(int64_t offset, std::string what, std::string hint) {
  int64_t line = offset >= 0 ? locator_.line_of(offset) : 0;
  diag_.error(source_, line, std::move(what), std::move(hint), offset);
}

NumRead read_long_float(std::string_view token, Num& out) {
  while (!token.empty() && is_json_space(token.back())) token.remove_suffix(1);
  double d = 0;
  auto r = std::from_chars(token.data(), token.data() + token.size(), d);
  if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc() && !std::isfinite(d)))
    return NumRead::kNotFinite;
  if (r.ec != std::errc() || r.ptr != token.data() + token.size()) return NumRead::kWrongType;
  out = {d, false};
  return NumRead::kOk;
}

NumRead read_num_slow(simdjson::ondemand::value& v, Num& out) {
  simdjson::ondemand::number_type nt;
  if (v.get_number_type().get(nt) == simdjson::SUCCESS) {
    // Only integers beyond 64 bits and out-of-range floats get here. simdjson's get_double() is
    // not exact on long tokens, so the text is parsed with from_chars.
    std::string_view tok = v.raw_json_token();
    while (!tok.empty() && is_json_space(tok.back())) tok.remove_suffix(1);
    double d = 0;
    auto r = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if (r.ec == std::errc() && std::isfinite(d)) {
      out = {d, nt != simdjson::ondemand::number_type::floating_point_number};
      return NumRead::kOk;
    }
    return NumRead::kNotFinite;  // 1e999: valid syntax, out of double range
  }
  std::string_view tok = v.raw_json_token();
  if (!tok.empty() && (tok[0] == '-' || tok[0] == '+')) tok.remove_prefix(1);
  if (tok.starts_with("NaN") || tok.starts_with("Infinity") || tok.starts_with("nan") ||
      tok.starts_with("inf")) {
    return NumRead::kNotFinite;
  }
  return NumRead::kWrongType;
}

std::string describe_token(simdjson::ondemand::value& v) {
  std::string_view tok = v.raw_json_token();
  while (!tok.empty() && is_json_space(tok.back())) tok.remove_suffix(1);
  if (tok.empty()) return "empty";
  switch (tok[0]) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    case 't':
    case 'f':
      if (tok == "true" || tok == "false") return "a boolean";
      break;
    case 'n':
      if (tok == "null") return "null";
      break;
    default:
      break;
  }
  // Words, not the token: NaN and infinities by name, any other number as one.
  std::string_view t = tok;
  if (t[0] == '-' || t[0] == '+') t.remove_prefix(1);
  if (t.starts_with("NaN") || t.starts_with("nan")) return "NaN";
  if (t.starts_with("Infinity") || t.starts_with("inf")) return "infinite";
  if (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9')) return "a number";
  return "not a JSON value of a known kind";
}

void warn_bad_number(simdjson::ondemand::value& v, NumRead r, JsonContext& ctx,
                     const std::string& where, std::string_view key) {
  std::string_view tok = v.raw_json_token();
  std::string what = where;
  if (!what.empty()) what += ": ";
  what += '"';
  what += key;
  what += "\" is ";
  what += describe_token(v);
  if (r == NumRead::kNotFinite) {
    what += ", not a finite number (beyond the range of a double, or NaN)";
  } else {
    what += ", expected a number";
  }
  ctx.warn_at(tok.data(), std::move(what), "the value was treated as missing");
}

void warn_wrong_container(simdjson::ondemand::value& v, JsonContext& ctx, const std::string& where,
                          std::string_view key, bool want_object) {
  std::string_view tok = v.raw_json_token();
  std::string what = where;
  if (key.empty()) {
    what += " is ";
  } else {
    if (!what.empty()) what += ": ";
    what += '"';
    what += key;
    what += "\" is ";
  }
  what += describe_token(v);
  what += want_object ? ", expected an object" : ", expected an array";
  ctx.warn_at(tok.data(), std::move(what), "it was skipped");
}

namespace {

// Adds the error for a document whose parse or walk stopped with `err` at `offset`
// (`end`: offset of the end of the text without trailing spaces).
void report_stop(JsonContext& ctx, simdjson::error_code err, int64_t offset, int64_t end) {
  std::string what;
  std::string hint;
  if (offset >= end && end > 0) {
    what = "the file ends early " + at_text(offset, 0);
    hint = json_error_hint(simdjson::INCOMPLETE_ARRAY_OR_OBJECT);
  } else {
    what = "invalid JSON " + (offset >= 0 ? at_text(offset, 0) : std::string("(position unknown)"));
    hint = json_error_hint(err);
  }
  if (!ctx.where.empty()) what += " while reading " + ctx.where;
  what += ": " + json_error_what(err);
  hint += ctx.got_data ? "; what came before was kept, the rest was skipped"
                       : "; nothing could be read";
  ctx.error_at_offset(offset, std::move(what), std::move(hint));
}

// Reports text that is not UTF-8 (a binary file). `limit`: bytes to check. True if reported.
bool report_if_not_utf8(JsonContext& ctx, std::string_view text, size_t limit) {
  int64_t bad = first_invalid_utf8(text.substr(0, limit));
  if (bad < 0) return false;
  static const char* hex = "0123456789abcdef";
  unsigned char c = static_cast<unsigned char>(text[static_cast<size_t>(bad)]);
  std::string what = "not valid UTF-8 text " + at_text(bad, 0) + " (byte 0x";
  what += hex[c >> 4];
  what += hex[c & 15];
  what += "): this is not a JSON file";
  ctx.error_at_offset(bad, std::move(what), json_error_hint(simdjson::UTF8_ERROR));
  return true;
}

struct WalkStop {
  simdjson::error_code err = simdjson::SUCCESS;
  int64_t offset = -1;  // where it stopped, -1 = unknown
};

// Parses `text` and walks it. Adds no error itself (only the walker's own diagnostics and a
// warning for text after the document); the caller reports the returned stop.
WalkStop walk_text(simdjson::padded_string_view text, JsonContext& ctx, const JsonWalk& walk) {
  auto& parser = thread_json_parser();
  simdjson::ondemand::document doc;
  WalkStop stop;
  stop.err = parser.iterate(text).get(doc);
  if (stop.err) return stop;
  stop.err = walk(doc, ctx);
  const char* loc = nullptr;
  if (!stop.err) {
    // Anything after the document (a second document, garbage) is reported, not fatal.
    if (doc.current_location().get(loc) == simdjson::SUCCESS) {
      ctx.warn_at(loc,
                  "extra text after the end of the JSON document " +
                      at_text(ctx.offset_of(loc), 0) + " was ignored",
                  "check whether two files were concatenated");
    }
    return stop;
  }
  stop.offset = static_cast<int64_t>(text.length());
  if (doc.current_location().get(loc) == simdjson::SUCCESS) stop.offset = ctx.offset_of(loc);
  return stop;
}

JsonWalkStatus finish(const JsonContext& ctx, bool* got_data, bool ok) {
  if (got_data) *got_data = ctx.got_data;
  if (ok) return JsonWalkStatus::kOk;
  return ctx.got_data ? JsonWalkStatus::kDamaged : JsonWalkStatus::kFailed;
}

}  // namespace

JsonWalkStatus walk_json_document(simdjson::padded_string_view text, const std::string& source,
                                  Diagnostics& diag, int keep_depth, const JsonWalk& walk,
                                  bool* got_data) {
  std::string_view sv(text.data(), text.length());
  size_t end = sv.size();
  while (end > 0 && is_json_space(sv[end - 1])) --end;
  JsonContext ctx(sv, source, diag);
  if (end == 0) {
    ctx.error_at_offset(-1, "the file is empty (no JSON value)",
                        "the profiler may have been stopped before it wrote this file; re-run the "
                        "profiler's parse step to regenerate it");
    return finish(ctx, got_data, false);
  }
  const int64_t iend = static_cast<int64_t>(end);
  const char last = sv[end - 1];
  // A complete object or array ends with its closing bracket: walk it directly (the fast path).
  bool walked = false;
  WalkStop first;
  if (last == '}' || last == ']') {
    walked = true;
    first = walk_text(text, ctx, walk);
    if (!first.err) return finish(ctx, got_data, true);
    if (ctx.reported) return finish(ctx, got_data, false);
    if (first.offset < 0 && report_if_not_utf8(ctx, sv, sv.size())) {
      return finish(ctx, got_data, false);
    }
    // Data was read, or the damage is inside the text: report it where it is. Otherwise (refused
    // at the root, stopped at the end) the file may have been cut right after a closing bracket.
    if (ctx.got_data || (first.offset >= 0 && first.offset < iend &&
                         first.err != simdjson::INCOMPLETE_ARRAY_OR_OBJECT)) {
      report_stop(ctx, first.err, first.offset, iend);
      return finish(ctx, got_data, false);
    }
  }
  // Not UTF-8 (a cut file may end inside a character, so its last bytes are not checked).
  if (report_if_not_utf8(ctx, sv, end > 3 ? end - 3 : 0)) return finish(ctx, got_data, false);
  TruncationInfo t = analyze_truncation(sv, keep_depth);
  if (!t.truncated) {
    if (!walked) first = walk_text(text, ctx, walk);
    if (!first.err) return finish(ctx, got_data, true);
    if (!ctx.reported) report_stop(ctx, first.err, first.offset, iend);
    return finish(ctx, got_data, false);
  }
  std::string what =
      "the file ends early " + at_text(iend, 0) +
      (t.in_string ? ", inside a string"
                   : ", with " + std::to_string(t.open_brackets) + " objects or arrays still open");
  std::string hint = json_error_hint(simdjson::INCOMPLETE_ARRAY_OR_OBJECT) +
                     " The complete part before byte " + std::to_string(t.cut) +
                     " was read; re-run the profiler's parse step to get the rest";
  ctx.error_at_offset(iend, std::move(what), std::move(hint));
  simdjson::padded_string fixed = repair_truncated(sv, t);
  JsonContext fixed_ctx(std::string_view(fixed.data(), fixed.size()), source, diag);
  WalkStop stop = walk_text(fixed, fixed_ctx, walk);
  if (stop.err && !fixed_ctx.reported) {
    report_stop(fixed_ctx, stop.err, stop.offset, static_cast<int64_t>(fixed.size()) + 1);
  }
  // The file is damaged even when its complete part read cleanly.
  return finish(fixed_ctx, got_data, false);
}

namespace {

// Reads every value under `v` so that a damaged one stops the walk where it is.
simdjson::error_code visit_all(simdjson::ondemand::value v, int depth) {
  namespace od = simdjson::ondemand;
  if (depth > 1024) return simdjson::DEPTH_ERROR;
  od::json_type type;
  if (auto err = v.type().get(type)) return err;
  switch (type) {
    case od::json_type::object: {
      od::object o;
      if (auto err = v.get_object().get(o)) return err;
      for (auto field : o) {
        od::value child;
        if (auto err = field.value().get(child)) return err;
        if (auto err = visit_all(child, depth + 1)) return err;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array a;
      if (auto err = v.get_array().get(a)) return err;
      for (auto item : a) {
        od::value child;
        if (auto err = item.get(child)) return err;
        if (auto err = visit_all(child, depth + 1)) return err;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::number:
      return v.get_number().error();
    case od::json_type::string:
      return v.get_string().error();
    case od::json_type::boolean:
      return v.get_bool().error();
    default:
      return v.is_null().error();
  }
}

}  // namespace

void report_json_error(const simdjson::padded_string& json, const std::string& source,
                       simdjson::error_code err, Diagnostics& diag) {
  // Cut short: said here, as nothing of it is read (walk_json_document would say the complete
  // part was).
  const std::string_view text(json.data(), json.size());
  size_t end = text.size();
  while (end > 0 && is_json_space(text[end - 1])) --end;
  const TruncationInfo t = analyze_truncation(text, 1);
  if (end > 0 && t.truncated) {
    const int64_t line =
        1 + std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(end), '\n');
    diag.error(source, line,
               "the file ends early " + at_text(static_cast<int64_t>(end), line) +
                   (t.in_string ? ", inside a string"
                                : ", with " + std::to_string(t.open_brackets) +
                                      " objects or arrays still open"),
               "was the profiler stopped before it finished writing? Nothing of it was read; "
               "profile again",
               static_cast<int64_t>(end));
    return;
  }
  Diagnostics found;
  walk_json_document(json, source, found, 1,
                     [](simdjson::ondemand::document& doc, JsonContext&) -> simdjson::error_code {
                       simdjson::ondemand::value root;
                       if (auto e = doc.get_value().get(root)) return e;
                       return visit_all(root, 0);
                     });
  if (found.error_count() == 0) {
    diag.error(source, 0, "not valid JSON: " + json_error_what(err), json_error_hint(err));
    return;
  }
  for (Diagnostic d : found.items()) {
    // Python's json.dump writes NaN and Infinity for non-finite floats; JSON has neither.
    const std::string_view at =
        d.offset >= 0 && static_cast<size_t>(d.offset) < text.size() ? text.substr(d.offset) : "";
    for (std::string_view word : {"NaN", "Infinity", "-Infinity"}) {
      if (!at.starts_with(word)) continue;
      d.what = "invalid JSON " + at_text(d.offset, d.line) + ": " + std::string(word) +
               " is not a JSON number (Python writes it for a non-finite float)";
      d.hint = "replace it with null or a number; nothing could be read";
    }
    diag.add(std::move(d));
  }
}

}  // namespace cs::io

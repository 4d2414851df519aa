#pragma once
// Kineto/Chrome trace parsing helpers shared by the event parser (readers/kineto_event_parser.h):
// keys compared in place, strings and plain integers read without copies, and the per-event
// scratch the parser fills. Internal to readers/kineto_trace.cpp.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "readers/kineto_trace.h"

namespace cs::readers::kineto {

namespace od = simdjson::ondemand;

inline uint64_t load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// A key of an on-demand field compared without unescaping: raw points just after the quote.
// Compared 8 bytes at a time (the literal's words are constants): a key in the JSON buffer is
// followed by more JSON or simdjson's padding, so reading as many bytes as the literal is safe.
template <size_t N>
simdjson_inline bool key_is(const char* raw, const char (&lit)[N]) {
  constexpr size_t n = N - 1;
  if constexpr (n < 8) {
    return std::memcmp(raw, lit, n) == 0 && raw[n] == '"';
  } else {
    for (size_t i = 0; i + 8 <= n; i += 8)
      if (load8(raw + i) != load8(lit + i)) return false;
    if constexpr (n % 8 != 0)
      if (load8(raw + n - 8) != load8(lit + n - 8)) return false;
    return raw[n] == '"';
  }
}

inline bool is_json_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// True when the n bytes at p (in the padded JSON buffer: up to 7 bytes past them may be read)
// hold a backslash. Up to 8 bytes ("X", "cpu_op") in one word, longer ones with memchr.
simdjson_inline bool has_backslash(const char* p, size_t n) {
  if (n > 8) return std::memchr(p, '\\', n) != nullptr;
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  uint64_t w = load8(p) ^ (kOnes * '\\');   // a backslash byte becomes 0
  if (n < 8) w |= ~uint64_t{0} << (8 * n);  // bytes past the string: not 0
  return ((w - kOnes) & ~w & kHigh) != 0;
}

// The text of a string value: the bytes between its quotes, without a copy, when it has no
// escape; else simdjson's unescaped copy. A value of another type gives INCORRECT_TYPE.
simdjson_inline simdjson::error_code string_of(od::value& v, std::string_view& out) {
  const std::string_view tok = v.raw_json_token();  // up to the next structural character
  size_t n = tok.size();
  while (n > 0 && is_json_space(tok[n - 1])) --n;
  if (n >= 2 && tok[0] == '"' && tok[n - 1] == '"' && !has_backslash(tok.data() + 1, n - 2)) {
    out = std::string_view(tok.data() + 1, n - 2);
    return simdjson::SUCCESS;
  }
  return v.get_string().get(out);
}

// A number token that is a plain integer of at most 18 digits ("4037", "-1") -> its value,
// without simdjson's number parser. False for anything else (the caller takes the general path).
// Bytes up to `readable` may be read (see read_digits).
simdjson_inline bool plain_int(std::string_view tok, const char* readable, int64_t& out) {
  const char* p = tok.data();
  const char* end = p + tok.size();
  const bool neg = p < end && *p == '-';
  if (neg) ++p;
  const char* start = p;
  uint64_t v = 0;
  p = io::read_digits(p, end, readable, v);
  const auto n = static_cast<size_t>(p - start);
  if (n == 0 || n > 18 || (n > 1 && *start == '0')) return false;
  while (p < end && is_json_space(*p)) ++p;
  if (p != end) return false;
  out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

// The fields few events have (string pids, NCCL args, metadata names): kept apart so that the
// per-event reset of Scratch stays a few stores.
struct RareFields {
  std::string_view pid_s, tid_s, id_s;  // string pid / tid / flow id
  std::string_view task_type, arg_name, arg_labels;
  int64_t stream_id = -1;  // NPU HCCL task arg "stream id"
  CollectiveArgs coll;
  std::string_view coll_name, dtype, pg_name, pg_ranks;
  bool has_coll = false;
};

// Everything one event may carry; filled in file order, interpreted at the end.
struct Scratch {
  std::string_view cat, name, ts_raw, input_dims;
  int64_t pid = 0, tid = 0;
  uint64_t id = 0;
  double dur = 0;
  int64_t correlation = -1, external_id = -1;  // args
  char ph = '\0';                              // first byte of "ph"; '\0' when absent or ""
  bool bp_enclosing = false;                   // "bp": "e"
  bool has_pid_i = false, has_tid_i = false, has_id_i = false, has_dur = false;

  explicit Scratch(RareFields& rare_storage) : rare_storage_(rare_storage) {}
  // The rare fields, reset on first use in this event.
  RareFields& rare() {
    if (!rare_used_) {
      rare_storage_ = RareFields{};
      rare_used_ = true;
    }
    return rare_storage_;
  }
  // The rare fields when used, else all absent.
  const RareFields& rare_or_empty() const {
    static const RareFields kEmpty;
    return rare_used_ ? rare_storage_ : kEmpty;
  }

 private:
  RareFields& rare_storage_;  // the parser's, reused from event to event
  bool rare_used_ = false;
};

}  // namespace cs::readers::kineto

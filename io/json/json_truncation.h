#pragma once
// Reading what can be read of a JSON text cut short (an interrupted write), and finding the first
// byte that is not UTF-8 (a binary file).

#include <cstdint>
#include <string>
#include <string_view>

#include <simdjson.h>

namespace cs::io {

// How a text cut short can still be read: the longest prefix that ends right after an opening
// bracket or a complete value at nesting depth <= keep_depth, with the brackets still open there
// closed. keep_depth = 3 keeps whole ops of {"step": {"collective": {op: {...}}}}.
struct TruncationInfo {
  bool truncated = false;  // the text ends inside a string or with brackets still open
  bool in_string = false;  // ... inside a string
  int open_brackets = 0;   // brackets open at the end of the text
  int64_t cut = 0;         // bytes of the text kept
  std::string closers;     // appended after the kept bytes, e.g. "}}}"
};
TruncationInfo analyze_truncation(std::string_view text, int keep_depth);
// text[0, cut) + closers, padded.
simdjson::padded_string repair_truncated(std::string_view text, const TruncationInfo& t);

// Offset of the first byte that is not valid UTF-8, or -1 when all of `text` is valid.
int64_t first_invalid_utf8(std::string_view text);

}  // namespace cs::io

#pragma once
// Strict checks of JSON text copied from an input into an output (`clusterscope merge` copies
// event fields as raw text): whatever passes is read by every parser — simdjson, Python's
// json.load, browsers — so a damaged input can never make an unparseable output.
//
//   is_valid_json_value("{\"a\": [1, 2.5e3, \"x\"]}") == true
//   is_valid_json_value("NaN") == false          // Python writes it, strict parsers refuse it
//   is_valid_json_value("\"tab\there\"") == false  // raw control character in a string

#include <cstddef>
#include <string_view>

namespace cs::io {

// Nesting deeper than this is refused by is_valid_json_value (Python's json module gives up
// near 1000 levels; no trace field nests more than a few).
constexpr int kMaxJsonCopyDepth = 64;

// Longest integer (in digits, without the sign) is_valid_json_value accepts: Python's default
// int_max_str_digits, beyond which json.loads raises ValueError.
constexpr size_t kMaxJsonIntegerDigits = 4300;

// True when `text` is exactly one JSON value (RFC 8259), optionally surrounded by whitespace,
// with: strings of valid UTF-8 without raw control characters, only the defined escapes and
// \u escapes with paired surrogates; numbers in JSON's grammar that are finite doubles (integers
// without fraction or exponent of any size up to kMaxJsonIntegerDigits digits, as Python reads
// them); no NaN/Infinity; at most max_depth levels.
bool is_valid_json_value(std::string_view text, int max_depth = kMaxJsonCopyDepth);

// True when `contents` is valid between the quotes of a JSON string (as a raw key or a raw string
// value without its quotes).
bool is_valid_json_string_contents(std::string_view contents);

}  // namespace cs::io

#pragma once
// Loading a JSON input that may be gzip-compressed (PyTorch profiler traces are often *.json.gz)
// into a simdjson::padded_string, ready for on-demand parsing.
//
//   simdjson::padded_string text;
//   Diagnostics diag;
//   if (!load_json_maybe_gzip("rank-0.json.gz", text, diag)) { /* diag says why */ }

#include <cstdint>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "io/diagnostics.h"

namespace cs::io {

// True when `data` starts with the gzip magic bytes 0x1f 0x8b.
bool looks_gzip(std::string_view data);

// Inflates gzip (or zlib) data; concatenated gzip members are joined. `source` names the input in
// diagnostics. Returns false with an error (byte offset in the compressed input, what to do) on a
// corrupt or truncated stream. Example: inflate_gzip(gz_bytes, "a.json.gz", out, diag) -> out
// holds the uncompressed JSON text.
bool inflate_gzip(std::string_view data, const std::string& source, simdjson::padded_string& out,
                  Diagnostics& diag);

// Reads `path`; inflates it when it is gzip (detected by content, not by the name). Returns false
// with an error diagnostic when the file is missing, unreadable, empty or corrupt.
bool load_json_maybe_gzip(const std::string& path, simdjson::padded_string& out, Diagnostics& diag);

}  // namespace cs::io

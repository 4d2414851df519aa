#pragma once
// Opening an input file before reading it whole: what kind of file it is (a FIFO, a device or a
// directory is refused without blocking on it), how large it may be for its kind, and messages
// from the real errno ("permission denied", "a symlink loop") rather than "missing".
//
//   uint64_t size = 0;
//   int fd = open_input_file("rank0/communication.json", diag, size);
//   if (fd < 0) return false;  // one error added, naming the file

#include <cstdint>
#include <string>
#include <string_view>

#include "io/diagnostics.h"

namespace cs::io {

// A short phrase for an errno value as users read it: ENOENT -> "file not found", EACCES ->
// "permission denied", ELOOP -> "a symlink loop (too many levels of symbolic links)"; others
// strerror's text.
std::string errno_text(int err);

// What to do about an open() that failed with `err` ("check the path ...", "check the file's
// permissions ...").
std::string errno_hint(int err);

// The largest size accepted for a file of this kind, chosen by its name, and the kind's name
// for messages: communication.json and communication_matrix.json 8 GB, profiler_info*.json and
// profiler_metadata.json 64 MB, CSV files none (they are streamed), any other file (JSON
// timelines) 32 GB (decimal units).
struct InputLimit {
  std::string kind;  // "communication.json", "JSON file"
  uint64_t max_bytes = 0;
};
InputLimit input_limit_for(std::string_view path);

// "2.1 GB", "64 MB", "512 bytes": a size in decimal units with one decimal when under 10.
std::string size_text(uint64_t bytes);

// Opens `path` read-only for a whole-file read: a regular file, not empty, at most
// input_limit_for(path).max_bytes (empty allowed when `allow_empty`: the caller says it). Returns
// the descriptor (size in `size`), or -1 with one error naming the file, what it is ("is a FIFO,
// not a regular file", "too large for a communication.json (9.1 GB; limit 8 GB)") and what to do.
int open_input_file(const std::string& path, Diagnostics& diag, uint64_t& size,
                    bool allow_empty = false);

// The first bytes of a file opened with open_input_file look like JSON: after an optional UTF-8
// byte-order mark and white space, '{' or '[' (or gzip's magic bytes: io/json/gzip_input inflates
// it). Otherwise adds one error naming the file and the
// offset of the first byte that is not (never the bytes themselves) and returns false.
bool sniff_json_head(int fd, const std::string& path, Diagnostics& diag);

}  // namespace cs::io

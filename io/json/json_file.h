#pragma once
// JSON files loaded whole into simdjson's padded buffers, after io/input_file's checks (a regular
// file, not empty, within its kind's size limit, beginning like JSON), and the per-thread
// reusable buffer and on-demand parser the readers share.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "io/diagnostics.h"

namespace cs::io {

// Reads the whole file at `path` into `out` (with simdjson's padding) in one read. Returns false
// and adds one error naming the file when it is missing, unreadable (the errno's own words), not
// a regular file (a directory, FIFO, device), empty, over its kind's size limit
// (io/input_file.h) or does not begin with '{' or '[' (checked before anything is read whole).
// Example: load_json_file("rank0/communication.json", text, diag).
bool load_json_file(const std::string& path, simdjson::padded_string& out, Diagnostics& diag);

// A reusable read buffer with simdjson's padding: loading a file into it again reuses its memory
// (no page faults, no zeroing), which matters at GB/s. Holds the largest file loaded into it.
class JsonFileBuffer {
 public:
  simdjson::padded_string_view view() const {
    return simdjson::padded_string_view(data_.get(), size_, capacity_);
  }
  size_t size() const { return size_; }
  // Makes room for n bytes (+ padding, zeroed) and sets the size to n; returns the data.
  char* resize(size_t n);
  // Frees the memory.
  void release();

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;  // bytes usable including padding
};

// Same as above, into a reusable buffer. Example:
//   JsonFileBuffer& buf = thread_json_buffer(); load_json_file(path, buf, diag);
bool load_json_file(const std::string& path, JsonFileBuffer& out, Diagnostics& diag);

// This thread's reusable buffer for the readers in io/ (one document at a time per thread: a
// reader must not call another reader while it walks).
JsonFileBuffer& thread_json_buffer();

// Copies `json` into a padded buffer (for text that came without simdjson's padding).
simdjson::padded_string to_padded(std::string_view json);

// This thread's on-demand parser, created on first use and reused: its buffers grow to the
// largest document parsed on this thread. A document must be finished before the next iterate().
simdjson::ondemand::parser& thread_json_parser();

}  // namespace cs::io

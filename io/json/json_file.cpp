// Loading JSON files whole into padded buffers (simdjson), after the input checks, and the
// per-thread reusable buffer and parser.

#include "io/json/json_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/input_file.h"

namespace cs::io {

namespace {

// Reads the file at `path` into memory given by `alloc(size)` after open_input_file's checks
// (kind, size limit) and a sniff of its head. Adds the diagnostics.
template <class Alloc>
bool load_file(const std::string& path, Diagnostics& diag, Alloc&& alloc) {
  uint64_t size64 = 0;
  const int fd = open_input_file(path, diag, size64);
  if (fd < 0) return false;
  if (!sniff_json_head(fd, path, diag)) {
    ::close(fd);
    return false;
  }
  const size_t size = static_cast<size_t>(size64);
  char* buf = alloc(size);
  if (!buf) {
    ::close(fd);
    diag.error(path, 0, "out of memory reading " + size_text(size64),
               "run with fewer ranks per process");
    return false;
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : 0;
      ::close(fd);
      diag.error(path, 0,
                 "cannot read the file" + (err ? std::string(": ") + errno_text(err)
                                               : " (it became shorter while being read)"),
                 "check the disk and that nothing is still writing the file", int64_t(got));
      return false;
    }
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

}  // namespace

bool load_json_file(const std::string& path, simdjson::padded_string& out, Diagnostics& diag) {
  simdjson::padded_string buf;
  bool ok = load_file(path, diag, [&](size_t n) {
    buf = simdjson::padded_string(n);
    return buf.data();
  });
  if (ok) out = std::move(buf);
  return ok;
}

char* JsonFileBuffer::resize(size_t n) {
  const size_t need = n + simdjson::SIMDJSON_PADDING;
  if (need > capacity_) {
    data_.reset(new (std::nothrow) char[need]);
    capacity_ = data_ ? need : 0;
    if (!data_) {
      size_ = 0;
      return nullptr;
    }
  }
  size_ = n;
  std::memset(data_.get() + n, 0, simdjson::SIMDJSON_PADDING);
  return data_.get();
}

void JsonFileBuffer::release() {
  data_.reset();
  size_ = capacity_ = 0;
}

bool load_json_file(const std::string& path, JsonFileBuffer& out, Diagnostics& diag) {
  return load_file(path, diag, [&](size_t n) { return out.resize(n); });
}

JsonFileBuffer& thread_json_buffer() {
  thread_local JsonFileBuffer buffer;
  return buffer;
}

simdjson::padded_string to_padded(std::string_view json) {
  return simdjson::padded_string(json);
}

simdjson::ondemand::parser& thread_json_parser() {
  thread_local simdjson::ondemand::parser parser;
  return parser;
}

}  // namespace cs::io

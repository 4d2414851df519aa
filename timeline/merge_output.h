#pragma once
// The byte sink `clusterscope merge` streams the merged trace into: a plain file, or gzip (zlib)
// when the name ends in ".gz". Writes are buffered; nothing is kept beyond the buffer.
//
//   MergeOutput out;
//   if (!out.open("merged.json.gz.tmp", /*gzip=*/true, error)) ...
//   out.write("{\"traceEvents\":[");  ...  if (!out.close(error)) ...

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <zlib.h>

namespace cs::timeline {

class MergeOutput {
 public:
  MergeOutput() = default;
  MergeOutput(const MergeOutput&) = delete;
  MergeOutput& operator=(const MergeOutput&) = delete;
  ~MergeOutput();

  // Creates (truncates) `path`; gzip-compresses when `gzip` (level 1: merged traces are large,
  // speed matters more than the last 10% of size). False with `error` set when it cannot.
  bool open(const std::string& path, bool gzip, std::string& error);
  // Appends bytes. Errors are remembered and reported by close().
  void write(std::string_view bytes);
  // Appends the content of file `path`, skipping its first `skip` bytes. False with `error`.
  bool append_file(const std::string& path, size_t skip, std::string& error);
  // Flushes and closes; false with `error` when any write failed (disk full, ...).
  bool close(std::string& error);

  uint64_t bytes_written() const { return bytes_; }  // uncompressed

 private:
  void flush();

  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  std::string buf_;
  std::string path_;
  std::string error_;
  uint64_t bytes_ = 0;
};

// True when `path` ends in ".gz".
bool wants_gzip(std::string_view path);

}  // namespace cs::timeline

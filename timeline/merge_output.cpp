#include "timeline/merge_output.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cs::timeline {

namespace {
constexpr size_t kBufferBytes = size_t{1} << 20;
}

bool wants_gzip(std::string_view path) {
  return path.size() >= 3 && path.substr(path.size() - 3) == ".gz";
}

MergeOutput::~MergeOutput() {
  std::string ignored;
  if (file_ || gz_) close(ignored);
}

bool MergeOutput::open(const std::string& path, bool gzip, std::string& error) {
  path_ = path;
  error_.clear();
  bytes_ = 0;
  buf_.clear();
  buf_.reserve(kBufferBytes + 4096);
  if (gzip) {
    gz_ = gzopen(path.c_str(), "wb1");
    if (gz_) gzbuffer(gz_, 1 << 18);
  } else {
    file_ = std::fopen(path.c_str(), "wb");
  }
  if (!file_ && !gz_) {
    error = std::string("cannot create: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void MergeOutput::flush() {
  if (buf_.empty()) return;
  if (error_.empty()) {
    if (gz_) {
      if (gzwrite(gz_, buf_.data(), static_cast<unsigned>(buf_.size())) !=
          static_cast<int>(buf_.size())) {
        int zerr = 0;
        const char* msg = gzerror(gz_, &zerr);
        error_ = std::string("write failed: ") +
                 (zerr == Z_ERRNO ? std::strerror(errno) : (msg ? msg : "zlib error"));
      }
    } else if (file_ && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
      error_ = std::string("write failed: ") + std::strerror(errno);
    }
  }
  buf_.clear();
}

void MergeOutput::write(std::string_view bytes) {
  bytes_ += bytes.size();
  if (buf_.size() + bytes.size() > kBufferBytes) {
    flush();
    if (bytes.size() > kBufferBytes) {  // a big chunk: no copy through the buffer
      buf_.assign(bytes.data(), bytes.size());
      flush();
      return;
    }
  }
  buf_.append(bytes.data(), bytes.size());
}

bool MergeOutput::append_file(const std::string& path, size_t skip, std::string& error) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string chunk(kBufferBytes, '\0');
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), in)) > 0) {
    size_t from = std::min(skip, n);
    skip -= from;
    write(std::string_view(chunk.data() + from, n - from));
  }
  const bool bad = std::ferror(in);
  std::fclose(in);
  if (bad) {
    error = path + ": read failed";
    return false;
  }
  return true;
}

bool MergeOutput::close(std::string& error) {
  flush();
  if (gz_) {
    int rc = gzclose(gz_);
    if (rc != Z_OK && error_.empty()) error_ = "closing the gzip stream failed (disk full?)";
    gz_ = nullptr;
  }
  if (file_) {
    if (std::fclose(file_) != 0 && error_.empty())
      error_ = std::string("close failed: ") + std::strerror(errno);
    file_ = nullptr;
  }
  if (!error_.empty()) {
    error = error_;
    return false;
  }
  return true;
}

}  // namespace cs::timeline

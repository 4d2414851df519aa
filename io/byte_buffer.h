#pragma once
// Packed binary buffers for moving summaries between processes (MPI) — little-endian, no padding.
//
//   ByteWriter w; w.put<int32_t>(7); w.str("hcom"); ...   ByteReader r(w.data()); r.get<int32_t>();

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cs::io {

class ByteWriter {
 public:
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    buf_.insert(buf_.end(), p, p + sizeof(T));
  }
  void str(std::string_view s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    buf_.insert(buf_.end(), s.begin(), s.end());
  }
  // n may be 0 with p null (an empty vector's data()).
  void bytes(const void* p, size_t n) {
    if (n == 0) return;
    const auto* c = static_cast<const char*>(p);
    buf_.insert(buf_.end(), c, c + n);
  }
  const std::vector<char>& data() const { return buf_; }
  std::vector<char>& data() { return buf_; }
  size_t size() const { return buf_.size(); }

 private:
  std::vector<char> buf_;
};

// Reads what ByteWriter wrote. Throws std::runtime_error on a short buffer (a packing bug,
// never user input).
class ByteReader {
 public:
  ByteReader(const char* p, size_t n) : p_(p), end_(p + n) {}
  explicit ByteReader(const std::vector<char>& v) : ByteReader(v.data(), v.size()) {}

  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::string str() { return std::string(view()); }
  // A string written by ByteWriter::str, viewed in place (valid while the buffer is).
  std::string_view view() {
    auto n = get<uint32_t>();
    need(n);
    std::string_view s(p_, n);
    p_ += n;
    return s;
  }
  // n may be 0 with out null (an empty vector's data()): nothing is copied.
  void bytes(void* out, size_t n) {
    need(n);
    if (n > 0) std::memcpy(out, p_, n);
    p_ += n;
  }
  // Skips n bytes and returns where they start (a length-prefixed blob, read on its own later).
  const char* skip(size_t n) {
    need(n);
    const char* at = p_;
    p_ += n;
    return at;
  }
  bool done() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

 private:
  void need(size_t n) const {
    if (static_cast<size_t>(end_ - p_) < n)
      throw std::runtime_error("ByteReader: buffer too short");
  }
  const char* p_;
  const char* end_;
};

}  // namespace cs::io

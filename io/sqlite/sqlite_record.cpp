#include "io/sqlite/sqlite_record.h"

#include <bit>
#include <cstring>

namespace cs::io::sqlite {

namespace {

void put_be(std::string& out, uint64_t v, int bytes) {
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(bytes));
  char* p = out.data() + at;
  for (int i = bytes - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}

// Writes the record of `types` and `body` at the end of `out`.
void append_record(const std::vector<uint64_t>& types, const std::string& body, std::string& out) {
  size_t types_len = 0;
  for (uint64_t t : types) types_len += varint_length(t);
  // The header's size counts its own varint.
  size_t header = types_len + 1;
  while (types_len + varint_length(header) != header) header = types_len + varint_length(header);
  const size_t start = out.size();
  out.resize(start + header + body.size());
  auto* p = reinterpret_cast<unsigned char*>(out.data()) + start;
  size_t at = put_varint(p, header);
  for (uint64_t t : types) at += put_varint(p + at, t);
  std::memcpy(p + at, body.data(), body.size());
}

}  // namespace

size_t varint_length(uint64_t v) {
  if (v >> 56) return 9;
  size_t n = 1;
  while (v >>= 7) ++n;
  return n;
}

size_t put_varint(unsigned char* out, uint64_t v) {
  if (v >> 56) {  // nine bytes: eight of seven bits, then one of eight
    out[8] = static_cast<unsigned char>(v & 0xff);
    v >>= 8;
    for (int i = 7; i >= 0; --i) {
      out[i] = static_cast<unsigned char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    return 9;
  }
  const size_t n = varint_length(v);
  for (size_t i = n; i-- > 0;) {
    out[i] = static_cast<unsigned char>((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
    v >>= 7;
  }
  return n;
}

size_t get_varint(const unsigned char* p, const unsigned char* end, uint64_t& v) {
  v = 0;
  for (size_t i = 0; i < 9; ++i) {
    if (p + i >= end) return 0;
    if (i == 8) {
      v = (v << 8) | p[i];
      return 9;
    }
    v = (v << 7) | (p[i] & 0x7f);
    if (!(p[i] & 0x80)) return i + 1;
  }
  return 0;
}

void RecordEncoder::null() {
  types_.push_back(0);
}

void RecordEncoder::integer(int64_t v) {
  // Serial types 8 and 9 are the constants 0 and 1 (schema format 4); then the smallest of 1, 2,
  // 3, 4, 6 and 8 bytes, two's complement.
  if (v == 0 || v == 1) {
    types_.push_back(static_cast<uint64_t>(8 + v));
    return;
  }
  static constexpr int64_t kLimits[] = {0x7f, 0x7fff, 0x7fffff, 0x7fffffff, 0x7fffffffffff};
  static constexpr int kBytes[] = {1, 2, 3, 4, 6};
  const auto u = static_cast<uint64_t>(v);
  for (int i = 0; i < 5; ++i) {
    if (v >= -kLimits[i] - 1 && v <= kLimits[i]) {
      types_.push_back(static_cast<uint64_t>(i + 1));
      put_be(body_, u, kBytes[i]);
      return;
    }
  }
  types_.push_back(6);
  put_be(body_, u, 8);
}

void RecordEncoder::real(double v) {
  types_.push_back(7);
  put_be(body_, std::bit_cast<uint64_t>(v), 8);
}

void RecordEncoder::text(std::string_view s) {
  types_.push_back(13 + 2 * static_cast<uint64_t>(s.size()));
  body_.append(s);
}

std::string_view RecordEncoder::finish() {
  record_.clear();
  finish_into(record_);
  return record_;
}

void RecordEncoder::finish_into(std::string& out) {
  append_record(types_, body_, out);
  types_.clear();
  body_.clear();
}

}  // namespace cs::io::sqlite

#pragma once
// The record format's small readers shared by io/sqlite/page_database (checking the rows) and
// io/sqlite/table_rows (decoding them): https://www.sqlite.org/fileformat2.html#record_format.

#include <cstddef>
#include <cstdint>

#include "io/sqlite/sqlite_record.h"

namespace cs::io::sqlite {

// A varint of the record header at [p, end): its length (0 past `end`); most are one byte.
inline size_t varint_at(const unsigned char* p, const unsigned char* end, uint64_t& v) {
  if (p < end && p[0] < 0x80) {
    v = p[0];
    return 1;
  }
  return get_varint(p, end, v);
}

// Bytes a value of serial type `type` takes; false for the reserved types 10 and 11.
inline bool value_size(uint64_t type, uint64_t& size) {
  static constexpr uint8_t kSizes[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  if (type < 10) {
    size = kSizes[type];
    return true;
  }
  if (type < 12) return false;
  size = (type - 12) / 2;
  return true;
}

}  // namespace cs::io::sqlite

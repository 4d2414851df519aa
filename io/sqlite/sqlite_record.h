#pragma once
// Rows encoded as SQLite records (the database file format, https://www.sqlite.org/fileformat2.html
// "Record Format"): a header of serial types, then the values, big-endian. Used to write tables
// without the SQLite library (io/sqlite/table_btree.h).
//
//   RecordEncoder r; r.integer(7); r.text("hcom"); r.null(); std::string_view rec = r.finish();

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cs::io::sqlite {

// Bytes SQLite's variable-length integer takes for `v` (1 to 9).
size_t varint_length(uint64_t v);

// Writes `v` as SQLite's variable-length integer at `out` (room for 9 bytes); returns its length.
size_t put_varint(unsigned char* out, uint64_t v);

// Reads a variable-length integer from [p, end); returns its length, 0 when it runs past `end`.
size_t get_varint(const unsigned char* p, const unsigned char* end, uint64_t& v);

// Builds one record, value by value, in column order. finish() returns it; the next value
// starts a new record.
class RecordEncoder {
 public:
  void null();
  void integer(int64_t v);
  void real(double v);  // stored as the 8-byte IEEE value (NaN is the caller's to map to NULL)
  void text(std::string_view s);
  // The record of the values added since the last finish(); valid until the next call.
  std::string_view finish();
  // The same record appended to `out` (no copy kept here).
  void finish_into(std::string& out);

 private:
  std::vector<uint64_t> types_;
  std::string body_;
  std::string record_;
};

}  // namespace cs::io::sqlite

#pragma once
// A streaming CSV reader for profiler CSV files (RFC 4180 plus the producers' quirks): columns
// found by header name; quoted fields with commas, newlines and doubled quotes; CRLF; a UTF-8 BOM;
// rows with the wrong number of fields reported (file, line, byte offset, raw row) and skipped.
// Memory holds one row plus a fixed read buffer, whatever the file size.
//
//   CsvReader r(path, diag);
//   if (!r.open()) return;
//   int dur = r.column("Duration(us)");
//   CsvRow row;
//   while (r.next(row)) { double d; if (parse_number(row[dur], d)) ... }

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"

namespace cs::io {

// Fields of one row; views stay valid until the next call to next().
struct CsvRow {
  std::vector<std::string_view> fields;
  int64_t line = 0;    // 1-based line where the row starts
  int64_t offset = 0;  // byte offset where the row starts

  size_t size() const { return fields.size(); }
  // The field at column index i, or "" when i < 0 or beyond the row.
  std::string_view operator[](int i) const {
    return i >= 0 && static_cast<size_t>(i) < fields.size() ? fields[static_cast<size_t>(i)]
                                                            : std::string_view();
  }
};

class CsvReader {
 public:
  CsvReader(std::string path, Diagnostics& diag);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Opens the file and reads the header. False (with a diagnostic) if missing, empty or binary.
  bool open();
  // Reads from memory instead of a file (tests); `source` names it in diagnostics.
  bool open_text(std::string_view text, std::string source);

  const std::vector<std::string>& header() const { return header_; }
  // Index of the column with this header name (exact match after trimming spaces/TABs), -1 if
  // absent.
  int column(std::string_view name) const;

  // Next well-formed row; rows with a field count different from the header's are reported and
  // skipped. A short row is accepted when `allow_short_rows` (missing trailing optional columns).
  bool next(CsvRow& row);
  void set_allow_short_rows(bool v) { allow_short_rows_ = v; }
  // Read buffer size (default 1 MiB; tests use tiny buffers to exercise refills). Call before
  // open().
  void set_buffer_size(size_t bytes) { buffer_size_ = bytes < 16 ? 16 : bytes; }
  // The buffer's current capacity: stays at the configured size unless one row is longer.
  size_t buffer_capacity() const { return buf_.size() > kPad ? buf_.size() - kPad : 0; }
  // Records longer than this stop the reader with an error (a file without newlines is not CSV).
  static constexpr size_t kMaxRecordBytes = size_t{64} << 20;
  // Records with more fields than this are not stored field by field (a run of millions of
  // commas must not cost ~100 bytes each): a header that wide stops the reader with an error, a
  // row that wide is reported and skipped.
  static constexpr size_t kMaxFields = size_t{1} << 16;

  const std::string& path() const { return path_; }
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_skipped() const { return rows_skipped_; }
  int64_t bytes_read() const { return bytes_consumed_; }

 private:
  static constexpr size_t kPad = 64;  // readable slack after the data for 16-byte scans
  enum class Parse { kRecord, kNeedMore, kEof };

  bool fill();
  bool read_record(std::vector<std::string_view>& fields, int64_t& line, int64_t& offset);
  // Splits the record at pos_ into fields[0, n) (views into buf_, quotes not yet collapsed).
  Parse parse_record(std::vector<std::string_view>& fields, size_t& n, size_t& record_end,
                     int64_t& newlines);
  bool start();
  void report_row(int64_t line, int64_t offset, size_t begin, size_t end, std::string what,
                  std::string hint, bool error);

  std::string path_;
  Diagnostics& diag_;
  std::FILE* file_ = nullptr;
  std::string buf_;  // raw bytes read, [pos_, end_) unconsumed
  size_t pos_ = 0;
  bool eof_ = false;
  std::string record_;                            // unescaped field bytes of the current record
  std::vector<std::pair<size_t, size_t>> spans_;  // [begin, end) of each field in buf_
  std::vector<uint32_t> unescape_;                // fields holding doubled quotes
  size_t extra_fields_ = 0;                       // fields of the record beyond kMaxFields
  size_t end_ = 0;                                // buf_[pos_, end_) holds unread bytes
  size_t buffer_size_ = size_t{1} << 20;
  int64_t base_offset_ = 0;    // file offset of buf_[0]
  bool stopped_ = false;       // fatal problem (read error, giant row): no more rows
  bool unterminated_ = false;  // the last parsed record ran into EOF inside quotes
  int64_t nul_offset_ = -1;    // file offset of the first NUL byte; data ends there
  bool nul_reported_ = false;
  bool read_error_ = false;
  std::vector<std::string> header_;
  int64_t line_ = 1;
  int64_t bytes_consumed_ = 0;
  int64_t rows_read_ = 0;
  int64_t rows_skipped_ = 0;
  bool allow_short_rows_ = false;
  std::string text_;  // open_text() source
  bool from_text_ = false;
};

// Parses a numeric cell: trims spaces and TABs; "" / "N/A" / "NA" / "nan" -> false (missing).
// Accepts "1e-05", "-3", "1736413971558972.912". Overflow ("1e999") -> false.
bool parse_number(std::string_view cell, double& out);

// Why a numeric cell was or was not usable, so callers can warn about bad cells but stay silent
// about the producer's normal "missing" markers.
enum class NumberStatus {
  kOk,          // a finite number
  kMissing,     // "", "N/A", "NA", "n/a", "null", "None", "-" — the producer's "no value"
  kNotFinite,   // "nan", "NaN", "inf", "-Infinity"
  kOutOfRange,  // "1e999", "1e-400"
  kInvalid,     // anything else: "12abc", "0x1F", "fast"
};
// Like parse_number, saying why: parse_number_status("1e999", d) == NumberStatus::kOutOfRange.
// `out` is set only for kOk.
NumberStatus parse_number_status(std::string_view cell, double& out);
// "out of range", "not a number" ...: a phrase for diagnostics.
const char* number_status_text(NumberStatus s);
// Parses an integer cell ("19", " 19\t", "19.0"); false when missing or not an integer.
bool parse_int(std::string_view cell, int64_t& out);
// Trims leading/trailing spaces, TABs and CR: trim(" 1.5\t") == "1.5".
inline std::string_view trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

}  // namespace cs::io

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
  // Index of the column with this header name (exact match after trimming spaces/TABs), -1 if absent.
  int column(std::string_view name) const;

  // Next well-formed row; rows with a field count different from the header's are reported and
  // skipped. A short row is accepted when `allow_short_rows` (missing trailing optional columns).
  bool next(CsvRow& row);
  void set_allow_short_rows(bool v) { allow_short_rows_ = v; }

  const std::string& path() const { return path_; }
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_skipped() const { return rows_skipped_; }
  int64_t bytes_read() const { return bytes_consumed_; }

 private:
  bool fill();
  bool read_record(std::vector<std::string_view>& fields, int64_t& line, int64_t& offset);

  std::string path_;
  Diagnostics& diag_;
  std::FILE* file_ = nullptr;
  std::string buf_;        // raw bytes read, [pos_, end_) unconsumed
  size_t pos_ = 0;
  bool eof_ = false;
  std::string record_;     // unescaped field bytes of the current record
  std::vector<std::pair<size_t, size_t>> spans_;
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
// Trims leading/trailing spaces, TABs and CR.
std::string_view trim(std::string_view s);

}  // namespace cs::io

#pragma once
// The generic CSV writer for io::Table: every clusterscope-own CSV file (interface.md) goes
// through here, so all of them quote, format numbers and fail the same way.
//
//   Table t("slow_ranks"); ... fill columns ...
//   Diagnostics diag;
//   if (!write_table_csv(t, out_dir + "/slow_ranks.csv", diag)) { /* diag says why */ }
//
// Format: a header row of column names, then one line per row, '\n' line ends, no trailing
// spaces. Strings are quoted only when they hold a comma, a double quote, CR or LF (quotes
// doubled), like Python's csv module with QUOTE_MINIMAL; ints as integers; doubles with the
// digits their column's unit needs (csv_number_rule), then as the shortest text that reads back
// to that rounded double ("0.1", "3", "1e+20"), NaN and infinities as "nan", "inf", "-inf" (what
// Python's float() and pandas read back).

#include <memory>
#include <string>
#include <string_view>

#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::io {

// How a double column is written, by its unit (interface.md, "Numbers in clusterscope's CSV
// files"): times to the nanosecond, the profilers' resolution ("us" 3 decimals, "ms" and
// "ms per step" 6, "s" 9, "ns" 0), "MB" to the byte (6 decimals), rates and ratios ("ratio", "%",
// "GB/s", "TFLOP/s") to 6 significant digits; counts ("FLOP", "bytes") and any other unit exact.
struct CsvNumberRule {
  enum class Kind { kExact, kDecimals, kSignificant };
  Kind kind = Kind::kExact;
  int digits = 0;
};
CsvNumberRule csv_number_rule(std::string_view unit);

// Appends `v` rounded by `rule` (correctly rounded, as printf), as the shortest text of the
// rounded double; a rounded zero is "0", never "-0". Example: 71.87163054120971 with the "us"
// rule -> "71.872"; 0.123456789 with the "ratio" rule -> "0.123457"; 3.0 -> "3".
void append_csv_number(std::string& out, double v, CsvNumberRule rule);

// Appends one CSV field: as is, or quoted with doubled quotes when it needs quoting.
// Example: append_csv_field(s, "a,b") appends "\"a,b\""; "say \"hi\"" -> "\"say \"\"hi\"\"\"".
void append_csv_field(std::string& out, std::string_view field);

// The whole table as CSV text (header + rows), for tests and small tables.
// Example: a table with int column "rank" {3} and double column "score" {0.5} ->
// "rank,score\n3,0.5\n". Columns of different lengths are a programming error: throws
// std::logic_error (Table::validate).
std::string table_to_csv(const Table& t);

// The header line of t's CSV text, and its rows [first, last): table_to_csv's text is the header
// followed by the rows of any cut into consecutive ranges, in order.
void append_csv_header(std::string& out, const Table& t);
void append_csv_rows(std::string& out, const Table& t, size_t first, size_t last);

// Streams the table to `path` through a buffered FILE*: writes "<path>.tmp", then renames it
// over `path`, so a crash or a full disk never leaves a half file under the final name.
// Returns false with an error in `diag` (file, what, what to do) when the directory does not
// exist or is not writable, the disk is full, or the table's columns differ in length; the
// temporary file is removed then.
bool write_table_csv(const Table& t, const std::string& path, Diagnostics& diag);

// write_table_csv() compressed as one gzip member (zlib's default level): the same CSV text as
// `gunzip -c` or pandas.read_csv("x.csv.gz") reads it. `path` is the final name (".csv.gz").
bool write_table_csv_gz(const Table& t, const std::string& path, Diagnostics& diag);

// A table's CSV file written a chunk of rows at a time, never held whole: the same bytes as
// write_table_csv (or write_table_csv_gz with gz) of the rows of every append() in turn, through
// "<path>.tmp" renamed by commit(). A write error (disk full) is kept and reported once by
// commit(); without commit() the .tmp is removed.
//
//   CsvTableWriter w;
//   if (!w.open(schema, out_dir + "/communication_ops.csv", false, diag)) return;
//   w.append(batch1); w.append(batch2);  // same columns as schema
//   w.commit(diag);
class CsvTableWriter {
 public:
  CsvTableWriter();
  ~CsvTableWriter();
  CsvTableWriter(CsvTableWriter&&) noexcept;
  CsvTableWriter& operator=(CsvTableWriter&&) noexcept;

  // Creates "<path>.tmp" and writes the header of `schema` (its rows are ignored). False with an
  // error in `diag` when the file cannot be created.
  bool open(const Table& schema, const std::string& path, bool gz, Diagnostics& diag);
  // Appends the rows of `rows` (the schema's columns). False once a write failed.
  bool append(const Table& rows);
  // Flushes, closes and renames; false with an error in `diag` when any write failed.
  bool commit(Diagnostics& diag);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cs::io

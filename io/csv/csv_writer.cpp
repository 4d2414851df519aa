#include "io/csv/csv_writer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <zlib.h>

#include "io/output_file.h"
#include "io/py_format.h"
#include "io/utf8.h"

namespace cs::io {

namespace {

constexpr size_t kFlushAt = 1 << 20;  // bytes buffered before one fwrite

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void append_header(std::string& out, const Table& t) {
  bool first = true;
  for (const auto& c : t.columns) {
    if (!first) out += ',';
    first = false;
    append_csv_field(out, c.name);
  }
  // One empty name alone would be an empty line, which readers skip: quote it (as Python does).
  if (t.columns.size() == 1 && t.columns.front().name.empty()) out += "\"\"";
  out += '\n';
}

// The rule of every column, in column order (ignored for non-double columns).
std::vector<CsvNumberRule> column_rules(const Table& t) {
  std::vector<CsvNumberRule> rules;
  rules.reserve(t.columns.size());
  for (const auto& c : t.columns) rules.push_back(csv_number_rule(c.unit));
  return rules;
}

void append_row(std::string& out, const Table& t, const std::vector<CsvNumberRule>& rules,
                size_t r) {
  bool first = true;
  size_t k = 0;
  for (const auto& c : t.columns) {
    const CsvNumberRule& rule = rules[k++];
    if (!first) out += ',';
    first = false;
    switch (c.type) {
      case ColumnType::kString:
        if (t.columns.size() == 1 && c.str(r).empty()) {
          out += "\"\"";  // a lone empty field must not become a blank line
        } else {
          append_csv_field(out, c.str(r));
        }
        break;
      case ColumnType::kInt:
        append_int(out, c.ints[r]);
        break;
      case ColumnType::kDouble:
        append_csv_number(out, c.doubles[r], rule);
        break;
    }
  }
  out += '\n';
}

// The first column whose length differs from the first column's, or nullptr.
const Column* ragged_column(const Table& t) {
  for (const auto& c : t.columns)
    if (c.size() != t.rows()) return &c;
  return nullptr;
}

// True when rounding a double whose shortest text is `s` by `rule` gives that double back: its
// shortest text has no more decimals (or significant digits) than the rule keeps. That text is
// within half a unit in the last place of the double, far less than half the rule's step, so it
// is the correctly rounded decimal, and it reads back as the double.
bool rounding_keeps(std::string_view s, CsvNumberRule rule) {
  const size_t e = s.find('e');
  if (rule.kind == CsvNumberRule::Kind::kDecimals) {
    if (e != std::string_view::npos) return false;
    const size_t dot = s.find('.');
    return dot == std::string_view::npos || s.size() - dot - 1 <= static_cast<size_t>(rule.digits);
  }
  int digits = 0;
  bool leading = true;
  for (char ch : s.substr(0, e)) {
    if (ch < '0' || ch > '9') continue;
    if (leading && ch == '0') continue;
    leading = false;
    ++digits;
  }
  return digits <= rule.digits;
}

}  // namespace

CsvNumberRule csv_number_rule(std::string_view unit) {
  using K = CsvNumberRule::Kind;
  if (unit == "us") return {K::kDecimals, 3};
  if (unit == "ms" || unit == "ms per step" || unit == "MB") return {K::kDecimals, 6};
  if (unit == "s") return {K::kDecimals, 9};
  if (unit == "ns") return {K::kDecimals, 0};
  if (unit == "ratio" || unit == "%" || unit == "GB/s" || unit == "TFLOP/s")
    return {K::kSignificant, 6};
  return {K::kExact, 0};
}

void append_csv_number(std::string& out, double v, CsvNumberRule rule) {
  if (rule.kind == CsvNumberRule::Kind::kExact || !std::isfinite(v)) {
    append_shortest(out, v);
    return;
  }
  if (v == 0) {  // a zero of either sign is "0"
    out += '0';
    return;
  }
  // Most numbers need no rounding: their shortest text has no more digits than the rule keeps.
  char text[64];
  const auto shortest = std::to_chars(text, text + sizeof text, v);
  if (shortest.ec == std::errc() &&
      rounding_keeps(std::string_view(text, static_cast<size_t>(shortest.ptr - text)), rule)) {
    out.append(text, shortest.ptr);
    return;
  }
  // printf-exact rounding (std::to_chars with a precision), read back, then the shortest text.
  char buf[400];
  const auto res =
      rule.kind == CsvNumberRule::Kind::kDecimals
          ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, rule.digits)
          : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, rule.digits);
  double rounded = v;
  if (res.ec == std::errc()) std::from_chars(buf, res.ptr, rounded);
  if (rounded == 0) rounded = 0;  // no "-0"
  append_shortest(out, rounded);
}

void append_csv_field(std::string& out, std::string_view field) {
  // Invalid UTF-8 and NUL bytes from a damaged input never reach the file: U+FFFD instead.
  std::string clean;
  if (!is_clean_utf8(field)) {
    append_utf8_sanitized(clean, field);
    field = clean;
  }
  bool quote = false;
  for (char ch : field) quote |= ch == ',' || ch == '"' || ch == '\n' || ch == '\r';
  if (!quote) {
    out += field;
    return;
  }
  out += '"';
  for (char ch : field) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

std::string table_to_csv(const Table& t) {
  t.validate();
  std::string out;
  append_header(out, t);
  append_csv_rows(out, t, 0, t.rows());
  return out;
}

void append_csv_header(std::string& out, const Table& t) {
  append_header(out, t);
}

void append_csv_rows(std::string& out, const Table& t, size_t first, size_t last) {
  const std::vector<CsvNumberRule> rules = column_rules(t);
  last = std::min(last, t.rows());
  for (size_t r = first; r < last; ++r) append_row(out, t, rules, r);
}

namespace {

bool check_columns(const Table& t, const std::string& path, Diagnostics& diag) {
  const Column* bad = ragged_column(t);
  if (!bad) return true;
  diag.error(path, 0,
             "table " + t.name + ": column " + bad->name + " has " + std::to_string(bad->size()) +
                 " rows, expected " + std::to_string(t.rows()),
             "the file was not written; this is a bug in clusterscope, please report it");
  return false;
}

}  // namespace

struct CsvTableWriter::State {
  OutputFile out;
  bool gz = false;
  bool failed = false;  // a write failed: reported by commit()
  z_stream z{};
  std::vector<unsigned char> zbuf;
  std::string buf;
  std::vector<CsvNumberRule> rules;
  size_t columns = 0;
  std::string name;

  ~State() {
    if (gz) deflateEnd(&z);
  }
  // Writes `buf` (compressed when gz; `last` finishes the gzip member) and empties it.
  bool flush(bool last) {
    if (failed) return false;
    std::FILE* f = out.get();
    if (!gz) {
      if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
        out.fail(errno);
        failed = true;
      }
      buf.clear();
      return !failed;
    }
    z.next_in = reinterpret_cast<Bytef*>(buf.data());
    z.avail_in = static_cast<uInt>(buf.size());
    int rc;
    do {
      z.next_out = zbuf.data();
      z.avail_out = static_cast<uInt>(zbuf.size());
      rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      const size_t n = zbuf.size() - z.avail_out;
      if (n > 0 && std::fwrite(zbuf.data(), 1, n, f) != n) {
        out.fail(errno);
        failed = true;
        break;
      }
    } while (z.avail_out == 0 || (last && rc != Z_STREAM_END));
    buf.clear();
    return !failed;
  }
};

CsvTableWriter::CsvTableWriter() = default;
CsvTableWriter::~CsvTableWriter() = default;  // OutputFile removes an uncommitted .tmp
CsvTableWriter::CsvTableWriter(CsvTableWriter&&) noexcept = default;
CsvTableWriter& CsvTableWriter::operator=(CsvTableWriter&&) noexcept = default;

bool CsvTableWriter::open(const Table& schema, const std::string& path, bool gz,
                          Diagnostics& diag) {
  s_ = std::make_unique<State>();
  if (!s_->out.open(path, diag)) {
    s_.reset();
    return false;
  }
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  if (gz && deflateInit2(&s_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK) {
    s_->out.abandon();
    s_.reset();
    diag.error(path, 0, "zlib could not start compressing (out of memory)",
               "the file was not written; free memory or use --op-tables csv");
    return false;
  }
  s_->gz = gz;
  if (gz) s_->zbuf.resize(1 << 18);
  s_->buf.reserve(kFlushAt + 4096);
  s_->rules = column_rules(schema);
  s_->columns = schema.columns.size();
  s_->name = schema.name;
  append_header(s_->buf, schema);
  return true;
}

bool CsvTableWriter::append(const Table& rows) {
  if (!s_ || s_->failed) return false;
  if (rows.columns.size() != s_->columns || ragged_column(rows)) {
    s_->failed = true;  // a programming error: commit() says so
    s_->out.fail(EINVAL);
    return false;
  }
  const size_t n = rows.rows();
  for (size_t r = 0; r < n; ++r) {
    append_row(s_->buf, rows, s_->rules, r);
    if (s_->buf.size() >= kFlushAt && !s_->flush(false)) return false;
  }
  return true;
}

bool CsvTableWriter::commit(Diagnostics& diag) {
  if (!s_) return false;
  s_->flush(true);
  const bool ok = s_->out.commit(diag);
  s_.reset();
  return ok;
}

bool write_table_csv(const Table& t, const std::string& path, Diagnostics& diag) {
  if (!check_columns(t, path, diag)) return false;
  CsvTableWriter w;
  if (!w.open(t, path, false, diag)) return false;
  w.append(t);
  return w.commit(diag);
}

bool write_table_csv_gz(const Table& t, const std::string& path, Diagnostics& diag) {
  if (!check_columns(t, path, diag)) return false;
  CsvTableWriter w;
  if (!w.open(t, path, true, diag)) return false;
  w.append(t);
  return w.commit(diag);
}

}  // namespace cs::io

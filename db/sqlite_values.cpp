#include "db/sqlite_values.h"

#include <sqlite3.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace cs::db {

namespace {

// `v` bound to `SELECT ?1` on a private in-memory connection: the statement, stepped to its row,
// for SQLite's own conversions of the value; nullptr when that fails.
sqlite3_stmt* as_sqlite_value(const io::sqlite::StoredValue& v) {
  struct Conn {
    sqlite3* db = nullptr;
    sqlite3_stmt* st = nullptr;
    Conn() {
      if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK)
        sqlite3_prepare_v2(db, "SELECT ?1", -1, &st, nullptr);
    }
    ~Conn() {
      sqlite3_finalize(st);
      sqlite3_close_v2(db);
    }
  };
  thread_local Conn c;
  if (!c.st) return nullptr;
  sqlite3_reset(c.st);
  using K = io::sqlite::StoredValue::Kind;
  switch (v.kind) {
    case K::kInt:
      sqlite3_bind_int64(c.st, 1, v.i);
      break;
    case K::kReal:
      sqlite3_bind_double(c.st, 1, v.r);
      break;
    case K::kText:
      sqlite3_bind_text(c.st, 1, v.bytes.data(), static_cast<int>(v.bytes.size()),
                        SQLITE_TRANSIENT);
      break;
    case K::kBlob:
      sqlite3_bind_blob(c.st, 1, v.bytes.data(), static_cast<int>(v.bytes.size()),
                        SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_bind_null(c.st, 1);
  }
  return sqlite3_step(c.st) == SQLITE_ROW ? c.st : nullptr;
}

}  // namespace

int64_t sqlite_int64_of(const io::sqlite::StoredValue& v) {
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kInt) return v.i;
  if (v.kind == K::kNull) return 0;
  sqlite3_stmt* st = as_sqlite_value(v);
  return st ? sqlite3_column_int64(st, 0) : 0;
}

double sqlite_double_of(const io::sqlite::StoredValue& v) {
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kReal) return v.r;
  if (v.kind == K::kInt) return static_cast<double>(v.i);
  if (v.kind == K::kNull) return 0;
  sqlite3_stmt* st = as_sqlite_value(v);
  return st ? sqlite3_column_double(st, 0) : 0;
}

std::string sqlite_text_of(const io::sqlite::StoredValue& v) {
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kText || v.kind == K::kBlob) return std::string(v.bytes);
  if (v.kind == K::kInt) return std::to_string(v.i);
  if (v.kind == K::kNull) return {};
  sqlite3_stmt* st = as_sqlite_value(v);
  const unsigned char* t = st ? sqlite3_column_text(st, 0) : nullptr;
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(st, 0)))
           : std::string();
}

std::optional<int64_t> int64_of_real(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18)
    return static_cast<int64_t>(v);
  return std::nullopt;
}

std::optional<int64_t> int64_of_text(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // The common case without a copy: an optional '-' and 1 to 19 digits, which strtoll below
  // reads the same (no whitespace, no '+'; 19 digits fit in 64 unsigned bits, so overflow is
  // one comparison).
  const bool minus = text.front() == '-';
  const size_t digits = text.size() - (minus ? 1 : 0);
  if (digits >= 1 && digits <= 19) {
    uint64_t v = 0;
    bool all = true;
    for (size_t i = minus ? 1 : 0; i < text.size() && all; ++i) {
      const unsigned d = static_cast<unsigned char>(text[i]) - static_cast<unsigned>('0');
      all = d <= 9;
      v = v * 10 + d;
    }
    constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
    if (all) {
      if (!minus) return v <= kMax ? std::optional<int64_t>(static_cast<int64_t>(v)) : std::nullopt;
      if (v <= kMax) return -static_cast<int64_t>(v);
      if (v == kMax + 1) return INT64_MIN;
      return std::nullopt;
    }
  }
  const std::string s(text);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace cs::db

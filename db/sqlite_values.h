#pragma once
// SQLite's own conversions of a stored value (sqlite3_column_int64, _double, _text), for readers
// of a database's pages that must give what SQLite would.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/sqlite/page_database.h"

namespace cs::db {

// What SQLite's sqlite3_column_int64, sqlite3_column_double and sqlite3_column_text give for a
// value of any storage class (the conversions made by SQLite itself, for readers of the pages).
int64_t sqlite_int64_of(const io::sqlite::StoredValue& v);
double sqlite_double_of(const io::sqlite::StoredValue& v);
std::string sqlite_text_of(const io::sqlite::StoredValue& v);

// What Statement::int64_at makes of a REAL value (a finite whole number within int64) and of a
// TEXT value (a whole decimal integer, as strtoll reads it); shared with readers that decode the
// file's records themselves.
std::optional<int64_t> int64_of_real(double v);
std::optional<int64_t> int64_of_text(std::string_view s);

}  // namespace cs::db

#pragma once
// The words of the database diagnostics (db/database, db/statement): what to do about a failed
// SQLite call, and the "table T: " a message starts with.

#include <string>
#include <string_view>

namespace cs::db {

// What to tell the user about a failed SQLite call with result code `code` (primary or extended).
std::string sqlite_hint(int code);

// "table T: " (empty for no table): how a message names the table it is about.
std::string table_where(std::string_view table);

}  // namespace cs::db

#include "db/sqlite_messages.h"

#include <sqlite3.h>

namespace cs::db {

std::string sqlite_hint(int code) {
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      return "the file is not an SQLite database; re-export the rank's profile data or remove it";
    case SQLITE_CORRUPT:
      return "the database is corrupt or truncated (an interrupted copy?); copy or re-export the "
             "rank's profile data again";
    case SQLITE_CANTOPEN:
      return "check the file exists and is readable";
    case SQLITE_IOERR:
      return "the file could not be read; check the disk or file system and copy it again";
    case SQLITE_NOMEM:
      return "out of memory; run with fewer threads or on a node with more memory";
    default:
      return "check the file is a complete profiler database; re-export it if it is not";
  }
}

std::string table_where(std::string_view table) {
  if (table.empty()) return {};
  return "table " + std::string(table) + ": ";
}

}  // namespace cs::db

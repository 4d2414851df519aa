#pragma once
// The rows of a plain query read from a database file's pages (db/database: Database::page_scan),
// which a paged Statement steps through.

#include <memory>
#include <string>
#include <vector>

#include "io/sqlite/page_database.h"

namespace cs::db {

// The rows of a plain query answered from the file's pages (Database::page_scan).
struct PageScan {
  std::shared_ptr<io::sqlite::PagedDatabase> db;  // keeps the pages the rows point into
  io::sqlite::TableRows rows;
  std::vector<int> pick;  // per result column: the table's column, or -1 for the rowid
  std::vector<std::string> names;
  size_t decode = 0;  // the table's columns to decode per row: up to the last one picked
};

}  // namespace cs::db

#pragma once
// Database's file pages (internal to db/): the page reader of the file, opened on first use and
// shared by the statements reading its rows.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "db/database.h"
#include "io/sqlite/page_database.h"

namespace cs::db {

struct Database::Paged {
  explicit Paged(std::string p) : path(std::move(p)) {}
  // `sql` answered from the pages (see Database::page_scan).
  std::optional<PageScan> scan(std::string_view sql, bool rowid);
  // The file's pages, read on first use; nullptr when the page reader declines the file.
  // Called with `mutex` held.
  const std::shared_ptr<io::sqlite::PagedDatabase>& pages() {
    if (!tried) {
      tried = true;
      auto d = std::make_shared<io::sqlite::PagedDatabase>(path);
      if (d->ok()) db = std::move(d);
    }
    return db;
  }

  std::string path;
  std::mutex mutex;  // the pages are read under it (PagedDatabase is not for concurrent use)
  bool tried = false;
  std::shared_ptr<io::sqlite::PagedDatabase> db;
};

}  // namespace cs::db

#include "db/private_copy.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace cs::db {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Opens the copy read-write (it is ours), reads its schema (a hot journal is rolled back then)
// and turns it into a rollback-journal database (a WAL is checkpointed into it first). Empty on
// success, else what failed.
std::string apply_changes(const std::string& copy) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open_v2(copy.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    error = db ? sqlite3_errmsg(db) : "cannot open the copy";
  } else {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, nullptr) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
      error = sqlite3_errmsg(db);
    } else {
      const unsigned char* mode = sqlite3_column_text(st, 0);
      if (!mode || std::strcmp(reinterpret_cast<const char*>(mode), "delete") != 0)
        error = "the WAL could not be checkpointed into the copy";
    }
    sqlite3_finalize(st);
  }
  if (sqlite3_close(db) != SQLITE_OK && error.empty()) error = "the copy could not be closed";
  return error;
}

}  // namespace

std::unique_ptr<PrivateCopy> PrivateCopy::make(const std::string& path, const std::string& sidecar,
                                               io::Diagnostics& diag) {
  const bool wal = ends_with(sidecar, "-wal");
  const std::string side_name = wal ? "-wal" : "-journal";
  auto refuse = [&](const std::string& why) {
    diag.error(path, 0,
               "committed changes to this database are still in its " + side_name +
                   " file, which clusterscope reads only from a private copy, and the copy "
                   "failed (" +
                   why + "); the rank was not read, so that no stale rows are analysed",
               wal ? "run sqlite3 " + path +
                         " 'PRAGMA wal_checkpoint' (or free space in $TMPDIR) "
                         "and run again"
                   : "run sqlite3 " + path +
                         " 'PRAGMA quick_check' (which rolls the journal back; "
                         "or free space in $TMPDIR) and run again");
    return nullptr;
  };
  std::error_code ec;
  const char* tmpdir = std::getenv("TMPDIR");
  const fs::path tmp = tmpdir && *tmpdir ? tmpdir : "/tmp";
  std::string templ = (tmp / "clusterscope-db-XXXXXX").string();
  if (!::mkdtemp(templ.data())) return refuse("cannot create a directory in " + tmp.string());
  std::unique_ptr<PrivateCopy> c(new PrivateCopy);
  c->dir_ = templ;
  c->path_ = (fs::path(templ) / "copy.db").string();
  if (!fs::copy_file(path, c->path_, ec) || !fs::copy_file(sidecar, c->path_ + side_name, ec))
    return refuse("copying into " + templ + ": " + ec.message());
  if (const std::string error = apply_changes(c->path_); !error.empty())
    return refuse("SQLite: " + error);
  // Nothing may be left beside the copy for the readers to skip it over.
  for (const char* tail : {"-wal", "-shm", "-journal"}) fs::remove(c->path_ + tail, ec);
  return c;
}

PrivateCopy::~PrivateCopy() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

}  // namespace cs::db

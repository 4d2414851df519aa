#pragma once
// A private, checkpointed copy of a database whose newest committed changes are still in a file
// beside it (a non-empty -wal, a hot -journal: io/sqlite/pending_sidecar). The profiler's files
// are never written (opening them without `immutable` would make SQLite create or update a -shm
// and possibly checkpoint into the database): the database and that file are copied into a new
// directory under $TMPDIR, SQLite applies the changes to the copy there (a WAL checkpointed and
// the copy turned into a rollback-journal database, a hot journal rolled back), and the copy is
// then read like any other file, its pages included. The directory is removed with the object.

#include <memory>
#include <string>

#include "io/diagnostics.h"

namespace cs::db {

class PrivateCopy {
 public:
  // The copy of `path` with the changes of `sidecar` (its -wal or -journal) applied; nullptr with
  // one error in `diag` naming `path` and the fix (checkpoint the file with sqlite3) when it
  // cannot be made (no space in $TMPDIR, an unreadable file, a WAL SQLite cannot apply).
  static std::unique_ptr<PrivateCopy> make(const std::string& path, const std::string& sidecar,
                                           io::Diagnostics& diag);
  ~PrivateCopy();
  PrivateCopy(const PrivateCopy&) = delete;
  PrivateCopy& operator=(const PrivateCopy&) = delete;

  // The copy's path (a plain database file with nothing beside it).
  const std::string& path() const { return path_; }

 private:
  PrivateCopy() = default;
  std::string dir_;
  std::string path_;
};

}  // namespace cs::db

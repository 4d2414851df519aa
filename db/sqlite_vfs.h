#pragma once
// The VFS every profiler database is opened through (db/database): the platform's, except that
// an absolute path is taken as its own full path name.

struct sqlite3_vfs;

namespace cs::db {

// The platform's VFS with one change: an absolute path is its own full path name (SQLite's own
// xFullPathname lstat()s every component to resolve links: six system calls per profiler
// database; the name only identifies a file opened read-only and immutable). Registered on the
// first call, which also turns SQLite's memory statistics off before SQLite starts; nullptr when
// the platform has no VFS.
sqlite3_vfs* direct_path_vfs();

}  // namespace cs::db

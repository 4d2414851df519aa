#include "db/sqlite_vfs.h"

#include <sqlite3.h>

#include <cstring>

namespace cs::db {

namespace {

sqlite3_vfs* platform_vfs = nullptr;  // the VFS direct_path_vfs() copies

// Relative paths are resolved by the platform's VFS as before.
int direct_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  const size_t len = std::strlen(name);
  if (name[0] != '/' || len + 1 > static_cast<size_t>(n))
    return platform_vfs->xFullPathname(platform_vfs, name, n, out);
  std::memcpy(out, name, len + 1);
  return SQLITE_OK;
}

}  // namespace

sqlite3_vfs* direct_path_vfs() {
  static sqlite3_vfs vfs{};
  static const bool registered = [] {
    // Before SQLite initializes (sqlite3_vfs_find does): no memory statistics, which SQLite
    // otherwise keeps under one global mutex taken on every allocation and free of every
    // connection, so the threads reading ranks wait for each other. Nothing here reads them
    // (sqlite3_memory_used, soft heap limits). Refused harmlessly when SQLite already started.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    platform_vfs = sqlite3_vfs_find(nullptr);
    if (!platform_vfs) return false;
    vfs = *platform_vfs;  // pAppData too: the unix VFS finds its I/O methods through it
    vfs.zName = "cs-direct-path";
    vfs.xFullPathname = direct_full_pathname;
    return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK;
  }();
  return registered ? &vfs : nullptr;
}

}  // namespace cs::db

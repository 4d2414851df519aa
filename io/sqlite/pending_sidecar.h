#pragma once
// The file beside an SQLite database that holds changes its own pages do not have yet: a WAL
// database's "-wal" with committed frames not checkpointed (a copy taken while the writer still
// had the database open), or a hot "-journal" whose interrupted transaction SQLite rolls back.
// Any SQLite reader that does not open the file immutable sees those changes; a reader of the
// pages alone (io/sqlite/page_database) would not, and declines such a file.

#include <string>

namespace cs::io::sqlite {

// The path of `path`'s non-empty "-wal", else of its hot "-journal" (non-empty, its first byte
// not zero: SQLite's own test, leaving out the locks a reader of a copy cannot see); empty when
// neither is there.
std::string pending_sidecar(const std::string& path);

}  // namespace cs::io::sqlite

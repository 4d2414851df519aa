#pragma once
// Constants of SQLite's database file format (https://www.sqlite.org/fileformat2.html) that the
// page reader and the two page writers share.

#include <cstddef>

namespace cs::io::sqlite {

inline constexpr size_t kFileHeaderBytes = 100;        // the file header, at the start of page 1
inline constexpr unsigned char kLeafTablePage = 0x0d;  // a b-tree page's type: a table leaf

}  // namespace cs::io::sqlite

#include "io/hdf5/hdf5_tables.h"

#include "io/hdf5/hdf5_writer.h"

namespace cs::io {

bool write_tables_hdf5(const std::string& path, const std::vector<const Table*>& tables,
                       const Hdf5Meta& meta, Diagnostics& diag) {
  auto file = Hdf5File::create(path, diag);
  if (!file) return false;
  bool all = true;
  for (const Table* t : tables) {
    if (!t) continue;
    all = file->write_table(*t, diag) && all;
    if (file->failed()) return false;  // the destructor removes the temporary file
  }
  if (!write_hdf5_meta(*file, meta, diag)) return false;
  return file->finish(diag) && all;
}

}  // namespace cs::io

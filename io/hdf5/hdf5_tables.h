#pragma once
// One call for the usual case: a set of tables plus /meta into one HDF5 file.
//
//   Hdf5Meta meta; meta.input_path = dir; meta.ranks = 16; meta.processes = 4;
//   write_tables_hdf5(out + "/cluster_analysis.h5", {&ops, &bandwidth, &slow_ranks}, meta, diag);

#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "io/hdf5/hdf5_meta.h"
#include "io/table.h"

namespace cs::io {

// Creates `path` (through "<path>.tmp"), writes each table as group /<name> (layout in
// io/hdf5/hdf5_writer.h) and the /meta attributes, then publishes it. Returns true when everything
// was written. A table that cannot be written as it is (bad name, ragged columns) is reported in
// `diag` and left out, and the file is still published with the others; when HDF5 itself fails
// (disk full, unwritable directory) nothing is left under `path`.
bool write_tables_hdf5(const std::string& path, const std::vector<const Table*>& tables,
                       const Hdf5Meta& meta, Diagnostics& diag);

}  // namespace cs::io

#pragma once
// The /meta group of clusterscope's HDF5 files: who wrote the file, from what, when.
//
//   Hdf5Meta meta;
//   meta.input_path = "/data/job42"; meta.ranks = 16; meta.processes = 4;
//   write_hdf5_meta(*h5, meta, diag);
//   // h5py: f["meta"].attrs["tool_version"] == "0.1.0", f["meta"].attrs["ranks"] == 16

#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "io/diagnostics.h"
#include "io/hdf5/hdf5_writer.h"

namespace cs::io {

struct Hdf5Meta {
  std::string tool_version;  // "" = this build's version (CLUSTERSCOPE_VERSION)
  std::string input_path;
  int64_t ranks = 0;                                     // rank directories analysed
  int64_t processes = 1;                                 // MPI processes that did the work
  std::string created;                                   // ISO-8601 UTC; "" = now
  std::vector<std::pair<std::string, Hdf5Value>> extra;  // more attributes, written after these
};

// Writes /meta attributes: tool ("clusterscope"), tool_version, input_path, ranks, processes,
// created, then `extra` in order. False with an error in `diag` on an HDF5 failure.
bool write_hdf5_meta(Hdf5File& file, const Hdf5Meta& meta, Diagnostics& diag);

// Writes the given attributes, in order, on /meta (created when missing).
// Example: write_hdf5_meta(file, {{"mode", std::string("all")}, {"steps", int64_t{3}}}, diag).
bool write_hdf5_meta(Hdf5File& file, const std::vector<std::pair<std::string, Hdf5Value>>& attrs,
                     Diagnostics& diag);

// `t` as ISO-8601 UTC with seconds: utc_iso8601(0) == "1970-01-01T00:00:00Z".
std::string utc_iso8601(std::time_t t);

}  // namespace cs::io

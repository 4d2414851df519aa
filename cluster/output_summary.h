#pragma once
// The closing summary's line about the outputs: how large they are, the largest files, and where
// the per-op tables went (cluster_analysis.h5 by default, or CSV / gzipped CSV with --op-tables;
// interface.md).
//
//   "Outputs: 912 MB in 17 files (cluster_communication_matrix.json 512 MB,
//    cluster_communication.json 158 MB, cluster_analysis.h5 210 MB); per-op tables
//    communication_ops (1,310,720 rows) and communication_matrix (3,145,728 rows) in
//    cluster_analysis.h5 only (--op-tables csv or csv.gz writes them as text too)\n"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster_mode.h"

namespace cs::cluster {

// One output file and its size in bytes.
struct OutputFileSize {
  std::string name;  // relative to the output directory
  uint64_t bytes = 0;
};

// The sizes of `paths` (files this run wrote) that lie in `out_dir`, largest first; files that
// are gone are left out.
std::vector<OutputFileSize> output_file_sizes(const std::vector<std::string>& paths,
                                              const std::string& out_dir);

// The line (ending in '\n'): the total of `files`, the three largest, and where the per-op tables
// of `op_rows` (table name -> rows; only the tables that were built) went under `where`
// (`hdf5_written`: cluster_analysis.h5 is among the outputs).
std::string outputs_line(const std::vector<OutputFileSize>& files,
                         const std::map<std::string, size_t>& op_rows, OpTables where,
                         bool hdf5_written);

}  // namespace cs::cluster

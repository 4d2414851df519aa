#pragma once
// cluster_communication_matrix.json, as msprof-analyze writes it (CommMatrixAnalysis), and the
// merged global-rank links it contains (also the input of the slow-link analysis).
//
// Per (group rank tuple, step): the same link reported by several ranks under the same op key is
// merged (size and time summed, transport and op name of the last report kept); local ranks
// become global through the "i-i" self links of that step (rank r reporting "i-i" means local i
// is r; msprof-analyze's metadata path is dead code, see docs/msprof-compat.md); bandwidth =
// round(size / time, 4). "Total Op Info@<group>" sums, per global link, every op key that contains
// none of "middle", "top", "bottom".

#include <string>
#include <vector>

#include "cluster/communication_groups.h"
#include "cluster/rank_data.h"
#include "io/diagnostics.h"
#include "io/json_writer.h"
#include "io/py_format.h"

namespace cs::cluster {

struct MatrixOptions {
  // false (default) = msprof-analyze: local ranks map only through "i-i" self links. true = also
  // map through profiler_metadata.json global_ranks first (what msprof-analyze meant to do).
  bool use_metadata_ranks = false;
};

// One merged link with global ranks.
struct GlobalLink {
  std::string step;
  std::string op_key;  // "allreduce-top1@<group>" or "Total Op Info@<group>"
  std::string group;   // after the last '@'
  int src_rank = -1;
  int dst_rank = -1;
  std::string transport;
  double size_mb = 0;
  double time_ms = 0;
  double bandwidth_gbps = 0;  // as written: round(size / time, 4), 0 when time < 1e-15
  std::string op_name;
};

// All links of the output file, in file order (group tuples, steps, op keys, links). Unmappable
// links are dropped with a warning in diag.
std::vector<GlobalLink> merge_matrix_links(const std::vector<RankData>& ranks,
                                           const CommGroups& groups, io::Diagnostics& diag,
                                           const MatrixOptions& opts = {});

// Writes the whole document; false when there is no op at all (then msprof-analyze writes no file).
bool write_cluster_matrix(io::JsonWriter& w, const std::vector<RankData>& ranks,
                          const CommGroups& groups, io::Diagnostics& diag,
                          const MatrixOptions& opts = {});
// Same, to a file (nothing written, true returned, when there is no op).
bool write_cluster_communication_matrix_json(const std::string& path,
                                             const std::vector<RankData>& ranks,
                                             const CommGroups& groups, io::Diagnostics& diag,
                                             const io::JsonStyle& style = io::JsonStyle::python(),
                                             const MatrixOptions& opts = {});
// Both at once, merging each link only once: writes the file (as above) and returns
// merge_matrix_links()'s links. Merge warnings and write errors go to `diag`. Group tuples are
// merged on up to `threads` threads; the bytes, links and warnings do not depend on the count.
std::vector<GlobalLink> merge_and_write_cluster_matrix(
    const std::string& path, const std::vector<RankData>& ranks, const CommGroups& groups,
    io::Diagnostics& diag, const io::JsonStyle& style = io::JsonStyle::python(),
    const MatrixOptions& opts = {}, int threads = 1);

}  // namespace cs::cluster

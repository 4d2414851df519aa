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

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/communication_groups.h"
#include "cluster/rank_data.h"
#include "io/diagnostics.h"
#include "io/json_writer.h"
#include "io/py_format.h"
#include "io/string_pool.h"

namespace cs::cluster {

struct MatrixOptions {
  // false (default) = msprof-analyze: local ranks map only through "i-i" self links. true = also
  // map through profiler_metadata.json global_ranks first (what msprof-analyze meant to do).
  bool use_metadata_ranks = false;
};

// One merged link with global ranks. Its names are views into the GlobalLinks that holds it.
struct GlobalLink {
  std::string_view step;
  std::string_view op_key;  // "allreduce-top1@<group>" or "Total Op Info@<group>"
  std::string_view group;   // after the last '@'
  int src_rank = -1;
  int dst_rank = -1;
  std::string_view transport;
  double size_mb = 0;
  double time_ms = 0;
  double bandwidth_gbps = 0;  // as written: round(size / time, 4), 0 when time < 1e-15
  std::string_view op_name;
};

// Merged links and the interned names they point into (a 1,024-rank job has ~700k links but only
// a few thousand distinct names). Movable, not copyable; use it like a const vector.
class GlobalLinks {
 public:
  size_t size() const { return links_.size(); }
  bool empty() const { return links_.empty(); }
  const GlobalLink& operator[](size_t i) const { return links_[i]; }
  std::vector<GlobalLink>::const_iterator begin() const { return links_.begin(); }
  std::vector<GlobalLink>::const_iterator end() const { return links_.end(); }
  // Frees the links and their names.
  void clear() {
    std::vector<GlobalLink>().swap(links_);
    names_.clear();
  }
  // Takes `links` and the pool their views point into.
  void append(std::vector<GlobalLink>&& links, io::StringPool&& names) {
    if (links_.empty()) {
      links_ = std::move(links);
    } else {
      links_.insert(links_.end(), links.begin(), links.end());
    }
    names_.push_back(std::move(names));
  }

 private:
  std::vector<GlobalLink> links_;
  std::deque<io::StringPool> names_;  // a moved StringPool keeps its strings where they are
};

// All links of the output file, in file order (group tuples, steps, op keys, links). Unmappable
// links are dropped with a warning in diag.
GlobalLinks merge_matrix_links(const std::vector<RankData>& ranks, const CommGroups& groups,
                               io::Diagnostics& diag, const MatrixOptions& opts = {});

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
GlobalLinks merge_and_write_cluster_matrix(const std::string& path,
                                           const std::vector<RankData>& ranks,
                                           const CommGroups& groups, io::Diagnostics& diag,
                                           const io::JsonStyle& style = io::JsonStyle::python(),
                                           const MatrixOptions& opts = {}, int threads = 1);

}  // namespace cs::cluster

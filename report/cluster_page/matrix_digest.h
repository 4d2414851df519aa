#pragma once
// What report.html draws of the communication matrix (cluster_report.h's MatrixDigest): one
// entry per communication group, its links summed, kept only for the groups whose heatmap is
// drawn. Private to this folder: the matrix section (cluster_matrix.cpp) builds and draws it,
// matrix_digest_codec.cpp packs it (cluster_report.h), so that it can wait on disk while stage 4
// runs.

#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cs::report {

// One source -> destination link, its rows summed.
struct DigestLink {
  double size_mb = 0, time_ms = 0, bw_sum = 0;
  size_t bw_n = 0;
  double bandwidth() const {
    if (time_ms > 0) return size_mb / time_ms;  // MB/ms = GB/s
    return bw_n ? bw_sum / static_cast<double>(bw_n) : std::nan("");
  }
};

// One communication group.
struct DigestGroup {
  std::string name;
  // Its links, kept only when the page draws its heatmap (drawn_groups): the rest of the page
  // needs their count and bandwidths alone, so a digest does not grow with every group's links.
  std::map<std::pair<long long, long long>, DigestLink> links;
  size_t link_count = 0;
  std::set<std::string> transports;
  std::vector<long long> ranks;  // sorted
  std::string ops_used;          // which op keys were summed
  size_t slow = 0;
  double bw_min = 0, bw_median = 0, bw_max = 0;
};

struct MatrixDigest {
  std::vector<DigestGroup> groups;  // most relevant first
};

}  // namespace cs::report

#pragma once
// Communication groups of a cluster, as msprof-analyze derives them (communication_group.json):
// a group is the part of an op key after its last '@' (the double hash of the HCCL group id); its
// ranks are every rank that reported at least one op of it, in communication.json or
// communication_matrix.json, "collective" and "p2p" sections kept apart. profiler_metadata.json's
// parallel_group_info adds group_id, pg_name ("dp", "tp", "pp", ...) and the authoritative
// global_ranks. See docs/msprof-compat.md for the exact rules and their quirks.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/diagnostics.h"
#include "io/json/json_writer.h"
#include "io/text_hash.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/py_int_set.h"

namespace cs::documents {

// Python's key.split('@')[-1]: the text after the last '@', or the whole key when it has none.
// "hcom_allReduce__844_2_1@1368" -> "1368"; "Total Op Info" -> "Total Op Info".
std::string_view py_group_of(std::string_view op_key);
// The op part: text before the last '@' ("" when there is none).
std::string_view op_part_of(std::string_view op_key);

// Group name of an HCCL group id (io::group_double_hash_str): double hash h0 = h0*29 + c, h1 =
// h1*131 + c (mod 2^32, over the Unicode code points), printed as the unsigned decimal of (h0 <<
// 32) | h1.
std::string group_name_of_group_id(std::string_view group_id);

struct CommGroup {
  std::string type;           // "collective" or "p2p"
  std::string group_name;     // as in op keys, e.g. "13681369207305868844"
  PyIntSet ranks;             // reporting ranks, added in rank order (Python set: see py_int_set.h)
  std::vector<int> rank_set;  // comm_group_parallel_info's: sorted global_ranks from metadata when
                              // known, else the sorted reporting ranks
  std::vector<int> global_ranks;  // sorted metadata global_ranks, empty when unknown
  std::string group_id;           // HCCL group id from metadata, "" when unknown
  std::string pg_name;            // "dp", "tp", "pp", ... from metadata, "" when unknown
  bool has_parallel_info = false;

  // str(tuple(ranks)) — the group key of cluster_communication*.json, e.g. "(0, 1, 2, 3)".
  std::string tuple_key() const { return ranks.tuple_str(); }
};

struct CommGroups {
  std::vector<CommGroup> collective;  // first-appearance order
  std::vector<CommGroup> p2p;

  // The group of that type and name, nullptr when unknown. type: "collective" or "p2p".
  const CommGroup* find(std::string_view type, std::string_view group_name) const;
  // Collective groups then p2p groups: the rows of comm_group_parallel_info.
  std::vector<const CommGroup*> all() const;

  // Looked up by string_view (io::TextHash): no std::string per op.
  std::unordered_map<std::string, size_t, io::TextHash, std::equal_to<>> collective_index,
      p2p_index;
};

struct GroupOptions {
  bool use_communication =
      true;                // read groups from communication.json (modes all, communication_time)
  bool use_matrix = true;  // and from communication_matrix.json (all, communication_matrix)
  // Threads reading the ranks' ops and matrix (held, packed or spilled); the groups are the same
  // for any count.
  int threads = 1;
};

// Builds the groups from ranks (sorted by rank; each rank's steps in file order, collective then
// p2p). Ops whose key starts with "Total" are not ops. Example: rank 0 and 1 both reporting
// "hcom_allReduce_1@77" give one collective group "77" with ranks (0, 1).
CommGroups build_comm_groups(const std::vector<load::RankData>& ranks, const GroupOptions& opts,
                             io::Diagnostics& diag);

// communication_group.json: {"collective": [[ranks]...], "p2p": [...],
// "comm_group_parallel_info": [{"type", "rank_set", "group_name", "group_id", "pg_name"}...]}.
void write_communication_group(io::JsonWriter& w, const CommGroups& groups);
// Same, to a file. Returns false (with an error diagnostic) when the file cannot be written.
bool write_communication_group_json(const std::string& path, const CommGroups& groups,
                                    io::Diagnostics& diag,
                                    const io::JsonStyle& style = io::JsonStyle::python());

}  // namespace cs::documents

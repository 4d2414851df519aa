#pragma once
// cluster_communication.json, as msprof-analyze writes it (CommunicationAnalysis):
//   { "<str(tuple(group ranks))>": { "<step>": { "<op key>": { "<rank>": {op's blocks as read} },
//       ..., "Total Op Info@<group>": { "<rank>": {summed blocks} } } } }
// Ops are gathered per rank (rank order), step (file order), collective then p2p, op (file
// order); a p2p op goes under its p2p group's rank tuple, a collective op under its collective
// group's. The writer streams a batch of group tuples at a time (comm_batches.h), never a copy of
// the document nor every rank's ops.

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/diagnostics.h"
#include "io/json/json_writer.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "readers/communication.h"

namespace cs::documents {

// Where each op of the output lives: group tuple -> step -> op key -> ranks (first one wins).
struct CommOpRef {
  int rank;
  const readers::CommOp* op;
};
struct CommOpEntry {
  std::string key;  // op key as written, e.g. "hcom_allReduce__844_2_1@1368"
  bool p2p = false;
  std::vector<CommOpRef> ranks;  // first-appearance order
};
struct CommStepEntry {
  std::string step;
  std::vector<CommOpEntry> ops;
  std::unordered_map<std::string, size_t> op_index;
};
struct CommGroupEntry {
  std::string tuple_key;  // "(0, 1, 2, 3)"
  std::vector<CommStepEntry> steps;
  std::unordered_map<std::string, size_t> step_index;
};
struct CommIndex {
  std::vector<CommGroupEntry> groups;
  std::unordered_map<std::string, size_t> group_index;
};

// Builds the index from ranks (sorted by rank) and the groups of build_comm_groups. The index
// points into the ranks' ops: they must be held unpacked (CommBatches reads packed or spilled
// ones, a batch of group tuples at a time).
CommIndex index_communication(const std::vector<load::RankData>& ranks, const CommGroups& groups);

// "Total Op Info@<group>" of one rank: time fields summed (floats, in first-seen order), the two
// ratios recomputed, per transport time and size summed, size distributions merged, bandwidth =
// round(size / time, 4) (int 0 when time < 1e-15).
struct TotalTransport {
  std::string name;
  io::Num time_ms = io::Num::integer(0);
  io::Num size_mb = io::Num::integer(0);
  std::vector<readers::SizeBucket> size_distribution;  // first-seen order
  io::Num bandwidth_gbps;
};
struct TotalRank {
  int rank = -1;
  std::vector<std::pair<readers::TimeField, double>> time;  // first-seen order
  io::Num wait_ratio, sync_ratio;
  std::vector<TotalTransport> transports;  // first-seen order

  double get(readers::TimeField f) const;  // 0 when absent
};
struct TotalGroup {
  std::string group;  // the group name after '@'
  std::vector<TotalRank> ranks;
};

// The Total Op Info entries of one (group tuple, step), in the order msprof-analyze appends them.
std::vector<TotalGroup> compute_total_op_info(const CommStepEntry& step);

// compute_ratio of msprof-analyze: int 0 when |divisor| < 1e-15, else round(a / b, 4) as a float.
io::Num msprof_ratio(io::Num dividend, io::Num divisor);

// True when write_cluster_communication renders group tuples on several threads: threads > 1 and a
// compact style (a group rendered apart then has the same bytes as one written in place).
bool renders_groups_in_parallel(const io::JsonStyle& style, int threads);

class CommBatches;  // comm_batches.h

// Op reports (a rank's report of an op) in a group tuple: its text is about 1.2 KB a report.
size_t comm_group_reports(const CommGroupEntry& group);

// A group tuple of more reports than this is written in place by the thread that writes the
// document, not rendered apart ahead of it: about 1 MB of text. A tuple's size grows with its
// group (a data-parallel tuple of a 16,384-rank job renders to about 8 MB), and up to 16 tuples
// per thread are rendered ahead, which held 30 MB at 16,384 ranks (docs/root_memory.md).
inline constexpr size_t kCommApartMaxReports = 900;
// The reports of the tuples rendered ahead of the writer, together (beyond one per thread): about
// 5 MB of text, the window of up to 16 tuples per thread held 20 MB at 16,384 ranks.
inline constexpr size_t kCommAheadReports = 4096;

// Writes index's group tuples as members of the open top-level object (key: the tuple, value: its
// steps), rendered on up to `threads` threads (same bytes for any count); tuples of more than
// `apart_max_reports` reports are written in place.
void write_comm_groups(io::JsonWriter& w, const CommIndex& index, int threads = 1,
                       size_t apart_max_reports = kCommApartMaxReports);

// Writes the whole document, one batch of group tuples at a time (comm_batches.h: no more than a
// batch's ops held at once), each rendered on up to `threads` threads (same bytes for any count);
// `also`, when set, is given each batch's index once it is written, or, when `also_beside`, while
// it is written, on a thread of its own (both only read the index; the batch is let go once both
// are done). Returns false when there is no op at all (msprof-analyze then writes no file).
bool write_cluster_communication(io::JsonWriter& w, const CommBatches& batches, int threads = 1,
                                 const std::function<void(const CommIndex&)>& also = {},
                                 bool also_beside = false);
// Same, from the ranks (sorted by rank; ops packed, spilled or not) and their groups.
bool write_cluster_communication(io::JsonWriter& w, const std::vector<load::RankData>& ranks,
                                 const CommGroups& groups, int threads = 1);
// Same, to a file; writes nothing (and returns true) when there is no op. false + diagnostic on
// write errors.
bool write_cluster_communication_json(const std::string& path, const CommBatches& batches,
                                      io::Diagnostics& diag, const io::JsonStyle& style,
                                      int threads = 1,
                                      const std::function<void(const CommIndex&)>& also = {},
                                      bool also_beside = false);
bool write_cluster_communication_json(const std::string& path,
                                      const std::vector<load::RankData>& ranks,
                                      const CommGroups& groups, io::Diagnostics& diag,
                                      const io::JsonStyle& style = io::JsonStyle::python(),
                                      int threads = 1);

// Adds the one warning for an output file in which `count` numbers were not finite (sums of
// finite inputs beyond 1.8e308) and were written as null; nothing when count is 0.
void warn_nonfinite_written(io::Diagnostics& diag, const std::string& path, size_t count);

// One op's two blocks exactly as read (canonical key order, values as written).
void write_comm_op_blocks(io::JsonWriter& w, const readers::CommOp& op);

}  // namespace cs::documents

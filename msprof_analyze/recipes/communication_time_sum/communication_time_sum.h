#pragma once
// msprof-analyze's communication_time_sum recipe: every rank's CommAnalyzerTime and
// CommAnalyzerBandwidth rows (analysis.db) with their rank, plus per (step, rank, group) a
// "Total Op Info" row: summed times with the synchronization and wait ratios, and per transport
// and packet size the summed counts and durations with the bandwidth of the distinct ops' sizes
// and times. Text: CommunicationTimeSum/cluster_communication_{time,bandwidth}.csv (and the
// group mapping in CommunicationTimeSum/cluster_analysis.db); db: tables
// ClusterCommunicationTime, ClusterCommunicationBandwidth and CommunicationGroupMapping.

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "frame/frame_ops.h"

#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::communication_time_sum {

class CommunicationTimeSum : public Recipe {
 public:
  std::string name() const override { return "communication_time_sum"; }
  std::string dir_name() const override { return "CommunicationTimeSum"; }
  bool needs_analysis_db() const override { return true; }
  // The two tables, and the groups each rank took part in (a few rows, but a held frame costs
  // about 1 KB a rank: 35 MB of the root's heap at 16,384 ranks, gathered before any merge).
  std::vector<std::string> parkable_frames() const override {
    return {"time", "bandwidth", "comm_groups", "parallel_info"};
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  // Takes the parts' frames (see Recipe::merge).
  WriteStep merge(std::vector<RankPartial>& parts, int threads,
                  io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// The map step on `paths.analysis_db` already open as `db` (cluster -m all reads it once for
// both communication recipes: msprof_analyze/recipes/communication_sums_map.h).
bool map_communication_time(recipes::RankDb& db, const RankDbPaths& paths, frame::FrameSet& out,
                            io::Diagnostics& diag);

// The dtypes of the columns of the whole concatenated table, by name, when a function below is
// given one rank's rows of it (time_sum_stream.h): its sums are typed as the whole table's.
using WholeDtypes = std::map<std::string, frame::Dtype>;

// The columns of ClusterCommunicationTime (`key` "time") or ClusterCommunicationBandwidth (any
// other key), in order.
const std::vector<std::string>& table_columns(std::string_view key);
// The map results' columns they come from: the same names but elapse_time (time) and
// transport_type (bandwidth), renamed on output.
std::vector<std::string> input_columns(std::string_view key);

// How often pd.merge(df, mapping, on="group_name", how="left") repeats a row of each group: the
// number of the group's distinct (rank_set, group_name) rows in the CommunicationGroupMapping
// frame; a group it lacks, once. Built once and used for every rank (building it per rank made
// the time tables' first walk grow with ranks x groups: 16,384 ranks, about 10,000 groups).
class GroupRepeats {
 public:
  explicit GroupRepeats(const frame::Frame& mapping);
  // The repeats of a row of group `group` (1 when the mapping lacks it).
  size_t of(const frame::Cell& group) const;

 private:
  std::unordered_map<frame::Cell, size_t, frame::CellKeyHash, frame::CellKeyEqual> counts_;
};

// The time table with its per-(step, rank, group) totals appended (msprof-analyze's
// _compute_time_info); `mapping` is the CommunicationGroupMapping frame.
// `time`'s columns become the result's (no copy when they have room for the totals).
frame::Frame communication_time_with_totals(frame::Frame time, const frame::Frame& mapping,
                                            const WholeDtypes* whole = nullptr);
// The bandwidth table with its per-(group, step, rank, transport, packet size) totals appended
// (msprof-analyze's _compute_bandwidth_info).
// `bandwidth`'s columns become the result's, as above.
frame::Frame communication_bandwidth_with_totals(frame::Frame bandwidth,
                                                 const frame::Frame& mapping,
                                                 const WholeDtypes* whole = nullptr);
// The same two, with the mapping's repeats built already (one rank at a time: time_sum_stream).
frame::Frame communication_time_with_totals(frame::Frame time, const GroupRepeats& repeats,
                                            const WholeDtypes* whole = nullptr);
frame::Frame communication_bandwidth_with_totals(frame::Frame bandwidth,
                                                 const GroupRepeats& repeats,
                                                 const WholeDtypes* whole = nullptr);

}  // namespace cs::recipes::communication_time_sum

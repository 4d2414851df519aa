#pragma once
// msprof-analyze's communication_group_map recipe: every communication group (type, the ranks
// that took part, its name) from each rank's analysis.db CommAnalyzerTime, joined with the
// parallel_group_info of ascend_pytorch_profiler_N.db META_DATA (group id, pg name, global
// ranks). Written as table CommunicationGroupMapping of cluster_analysis.db (also in text mode,
// in CommunicationGroupMap/, as msprof-analyze does).

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::communication_group_map {

class CommunicationGroupMap : public Recipe {
 public:
  std::string name() const override { return "communication_group_map"; }
  std::string dir_name() const override { return "CommunicationGroupMap"; }
  bool needs_analysis_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// The map step's frames for one rank ("comm_groups": group_name, rank_id, type;
// "parallel_info": group_name, group_id, pg_name, global_ranks). Shared with
// communication_time_sum.
bool map_communication_groups(const RankDbPaths& paths, frame::FrameSet& out,
                              io::Diagnostics& diag);
// The same frames from CommAnalyzerTime's rows already read (`time_rows`, with columns
// hccl_op_name and group_name; null when the rank has no such table).
void communication_groups_from(const RankDbPaths& paths, const frame::Frame* time_rows,
                               frame::FrameSet& out, io::Diagnostics& diag);
// The CommunicationGroupMapping table (type, rank_set, group_name, group_id, pg_name) from the
// ranks' frames; false when there are no groups.
bool build_group_mapping(const std::vector<RankPartial>& parts, frame::Frame& out);

// msprof-analyze's double_hash of a group id (two 32-bit polynomial hashes), as decimal text.
std::string double_hash_text(const std::string& s);
// True when the profiler database `db_path` has a parallel_group_info row in META_DATA (or the
// quick read declined and SQLite would have to say): where msprof-analyze's group pg names, and
// so its pipeline stages, come from on the DB path.
bool has_parallel_group_info(const std::string& db_path);

}  // namespace cs::recipes::communication_group_map

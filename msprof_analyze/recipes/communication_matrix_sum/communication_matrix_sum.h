#pragma once
// msprof-analyze's communication_matrix_sum recipe: every rank's CommAnalyzerMatrix rows
// (analysis.db) summed per (group, step, op, link) across ranks, local ranks mapped to global
// ones (a rank's own row, src == dst, tells which local rank it is in each group), bandwidths
// recomputed, and per link a "Total Op Info" row summing the "-total" rows. Text:
// CommMatrixSum/cluster_communication_matrix.csv; db: table ClusterCommunicationMatrix.
//
// msprof-analyze also reads META_DATA's parallel_group_info, but keys it by the integer hash of
// the group id while CommAnalyzerMatrix holds group names as text, so for torch_npu data it
// never matches; it is not read here.

#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::communication_matrix_sum {

class CommunicationMatrixSum : public Recipe {
 public:
  std::string name() const override { return "communication_matrix_sum"; }
  std::string dir_name() const override { return "CommMatrixSum"; }
  bool needs_analysis_db() const override { return true; }
  std::vector<std::string> parkable_frames() const override { return {"matrix"}; }
  // A parked matrix's own rows (src == dst: the rank map), so the merge reads it back once.
  std::optional<frame::Frame> kept_beside(const std::string& key,
                                          const frame::Frame& f) const override;
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  // Takes the parts' frames (see Recipe::merge).
  WriteStep merge(std::vector<RankPartial>& parts, int threads,
                  io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// The map step on `paths.analysis_db` already open as `db` (cluster -m all reads it once for
// both communication recipes: msprof_analyze/recipes/communication_sums_map.h).
bool map_communication_matrix(recipes::RankDb& db, const RankDbPaths& paths, frame::FrameSet& out,
                              io::Diagnostics& diag);

// The merged matrix from the ranks' CommAnalyzerMatrix frames (in rank order); `ranks[i]` is
// the global rank of frames[i]. An empty frame when no link could be mapped.
frame::Frame merge_communication_matrix(const std::vector<const frame::Frame*>& frames,
                                        const std::vector<int>& ranks);
// The same, taking the frames: each is freed as soon as its rows are concatenated.
frame::Frame merge_communication_matrix(std::vector<frame::Frame>&& frames,
                                        const std::vector<int>& ranks);

}  // namespace cs::recipes::communication_matrix_sum

#include "msprof_analyze/recipes/communication_sums_map.h"

#include "msprof_analyze/recipes/communication_matrix_sum/communication_matrix_sum.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/rank_db.h"

namespace cs::recipes {

void map_communication_sums(const RankDbPaths& paths, std::span<RankPartial> parts,
                            std::span<io::Diagnostics> diag) {
  io::Diagnostics open_diag;
  recipes::RankDb db(paths.analysis_db, open_diag);
  if (!db.ok()) {  // each recipe says so, as on its own
    parts[0].used =
        communication_time_sum::CommunicationTimeSum().map(paths, parts[0].frames, diag[0]);
    parts[1].used =
        communication_matrix_sum::CommunicationMatrixSum().map(paths, parts[1].frames, diag[1]);
    return;
  }
  parts[0].used =
      communication_time_sum::map_communication_time(db, paths, parts[0].frames, diag[0]);
  parts[1].used =
      communication_matrix_sum::map_communication_matrix(db, paths, parts[1].frames, diag[1]);
}

}  // namespace cs::recipes

#include "recipes/communication_sums_map.h"

#include "recipes/communication_matrix_sum.h"
#include "recipes/communication_time_sum.h"
#include "recipes/frame/rank_db.h"

namespace cs::recipes {

void map_communication_sums(const RankDbPaths& paths, std::span<RankPartial> parts,
                            std::span<io::Diagnostics> diag) {
  io::Diagnostics open_diag;
  frame::RankDb db(paths.analysis_db, open_diag);
  if (!db.ok()) {  // each recipe says so, as on its own
    parts[0].used = CommunicationTimeSum().map(paths, parts[0].frames, diag[0]);
    parts[1].used = CommunicationMatrixSum().map(paths, parts[1].frames, diag[1]);
    return;
  }
  parts[0].used = map_communication_time(db, paths, parts[0].frames, diag[0]);
  parts[1].used = map_communication_matrix(db, paths, parts[1].frames, diag[1]);
}

}  // namespace cs::recipes

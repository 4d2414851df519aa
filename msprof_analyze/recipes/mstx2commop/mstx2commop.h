#pragma once
// msprof-analyze's mstx2commop recipe: for a rank profiled without the HCCL op detail (no
// COMMUNICATION_OP table), the communication library's mstx markers (a message naming opName,
// groupName, dataType, count and streamId, as JSON or as four comma-separated fields) become
// COMMUNICATION_OP rows: the device span of the marker's task, op type "<opName>_", op name
// "<opType>_<last 3 digits of the group's double hash>_<n>_1" (n counts the markers of that
// group and op type), the data type's ENUM_HCCL_DATA_TYPE id, new texts appended to STRING_IDS.
// msprof-analyze writes a copy of each such rank database under
// cluster_analysis_output/Mstx2Commop/<its path in the job> (both export types), and so does
// clusterscope.

#include <cstdint>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::mstx2commop {

class Mstx2Commop : public Recipe {
 public:
  std::string name() const override { return "mstx2commop"; }
  std::string dir_name() const override { return "Mstx2Commop"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile communication as mstx markers without the HCCL op detail (no "
           "COMMUNICATION_OP), e.g. generate --mstx-comm";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// Writes what map() found for a rank (its frames "op" and "strings") into `db`, a copy of the
// rank's database: the new STRING_IDS rows, then the COMMUNICATION_OP table. `shown`: the name
// messages use.
bool write_communication_op(const std::string& db, const frame::FrameSet& mapped,
                            const std::string& shown, io::Diagnostics& diag);

// msprof-analyze's double_hash of a group name (two 32-bit polynomial hashes, 29 and 131, over
// the characters' code points), as the decimal it compares the last three digits of.
std::string double_hash(const std::string& group);

}  // namespace cs::recipes::mstx2commop

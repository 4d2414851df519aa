#pragma once
// msprof-analyze's p2p_pairing recipe: pairs every send with its receive. Each rank's
// hcom_send__/hcom_receive__ ops (COMMUNICATION_OP whose group matches their tasks') are given an
// opConnectionId "<group hash tail>_<sender>_<receiver>_<n>" from their Notify_Record /
// Notify_Wait tasks (COMMUNICATION_TASK_INFO: the rank itself and its peer, local ranks in the
// group; n counts the earlier ops between the same two ranks by start time), the same id on both
// sides. msprof-analyze writes the column into each rank's database in place; clusterscope never
// changes an input: it writes a copy of each database it would change, with the column, under
// cluster_analysis_output/P2PPairing/<the database's path in the job> (both export types).

#include <functional>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::p2p_pairing {

class P2PPairing : public Recipe {
 public:
  std::string name() const override { return "p2p_pairing"; }
  std::string dir_name() const override { return "P2PPairing"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile at level1 or above (COMMUNICATION_TASK_INFO with the Notify_Record / "
           "Notify_Wait tasks of each send and receive), e.g. generate --notify-tasks";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// One p2p op after msprof-analyze's filtering: its name, its start and the sending and receiving
// local ranks (already swapped for a receive).
struct P2POp {
  std::string name;
  int64_t name_id = 0;
  int64_t start_ns = 0;
  int64_t src = 0, dst = 0;
};

// The connection ids of `ops` (in their order): "<domain>_<src>_<dst>_<n>", n the op's place
// among the ops with the same (src, dst) in start order (stable for equal starts).
std::vector<std::string> connection_ids(const std::vector<P2POp>& ops);

// The pairs of one rank: opName ids and their opConnectionId (two columns, sorted by op name as
// msprof-analyze's groupby). False (with a warning saying why) when the rank has none.
bool pair_rank(const RankDbPaths& paths, frame::Frame& pairs, io::Diagnostics& diag);
// The same on the rank's database `db` already open (a recipe reading it for more).
bool pair_rank(RankDb& db, const RankDbPaths& paths, frame::Frame& pairs, io::Diagnostics& diag);

// Gives the ops of `pairs` their opConnectionId in the database `db` (a copy): adds the TEXT
// column when missing, NULL for every op, then each pair's id on the ops of its name. `shown`:
// the name messages use.
bool add_connection_ids(const std::string& db, const frame::Frame& pairs, const std::string& shown,
                        io::Diagnostics& diag);

// Writes a copy of rank database `source` to <cluster output>/<dir_name>/<its path below the
// job> (its file name alone when it lies outside the job): copied to a .tmp, changed by `edit`
// (given the .tmp and the final name), then renamed. False (with an error) when any step fails;
// nothing is left under the final name then.
bool write_rank_copy(
    const RecipeOutput& out, const std::string& dir_name, const std::string& source,
    const std::function<bool(const std::string& tmp, const std::string& shown)>& edit,
    io::Diagnostics& diag);

}  // namespace cs::recipes::p2p_pairing

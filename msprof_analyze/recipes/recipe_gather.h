#pragma once
// The map step of a recipe run, gathered on the root rank by rank: every process maps its share
// of the ranks on its threads, in share order (runtime/ordered_parallel); the root takes its own
// ranks' results as each is done, the other processes pack each rank's results as it is done and
// stream them to the root in batches of about 4 MB (mpi::BatchStream), which the root unpacks as
// they arrive. So no process other than the root holds more than a window of its ranks (mapped,
// then packed), and the root never holds a process's whole share as one received buffer.

#include <functional>
#include <utility>
#include <vector>

#include "io/diagnostics.h"
#include "mpi/mpi_comm.h"
#include "msprof_analyze/recipes/recipe.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes {

// One rank's map results, one per recipe of the run.
struct MappedRank {
  std::vector<RankPartial> parts;     // parts[k]: recipe k's
  std::vector<io::Diagnostics> diag;  // what recipe k's map step said
};

// One recipe's results of every rank, on the root, in the order they arrived (the root's own
// ranks first): the parts, and what the map steps said with the rank each message is about.
struct GatheredRecipe {
  std::vector<RankPartial> parts;
  std::vector<std::pair<int, io::Diagnostic>> messages;
};

// Maps the rank at position `i` of this process's share into `out` (sized for the run's recipes).
using MapInShare = std::function<void(size_t i, MappedRank& out)>;

// Root: called with each rank's result of recipe k as the root takes it, before it is kept (where
// the root parks its frames on disk: msprof_analyze/recipes/parked_frames.h).
using TakePart = std::function<void(size_t k, RankPartial& part)>;

// Collective. Maps this process's `share_size` ranks with `map` on `threads` threads and gathers
// every process's results on the root: one GatheredRecipe per recipe (`recipes` of them) on the
// root, empty elsewhere. `paths` gets, on the root, the query paths every process counted while
// it mapped (take_query_paths after the map step; each process's own count elsewhere).
// `on_take` (root, when given) sees each part as it is taken.
std::vector<GatheredRecipe> gather_mapped(const mpi::MpiSession& mpi, size_t recipes,
                                          size_t share_size, int threads, const MapInShare& map,
                                          QueryPathCounts& paths, const TakePart& on_take = {});

}  // namespace cs::recipes

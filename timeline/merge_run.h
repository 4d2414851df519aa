#pragma once
// `clusterscope merge DIR -o merged.json[.gz]`: every rank's timeline in one Chrome/Perfetto
// trace. See timeline/merge_trace.h for how one rank is rewritten and timeline/merge_sources.h for
// which files are merged.
//
// Output: {"otherData":{"merged_by":"clusterscope merge"},"traceEvents":[...],
//          ["baseTimeNanoseconds":N,] "clusterscope":{"merge":{... one entry per rank: source file,
//          where its rank id came from, shift, pid mapping ...}}}
// Memory does not grow with the number of ranks: one file is in memory at a time, events are
// written as they are read. The file is written to OUT.tmp and renamed at the end.
//
// Under mpirun the ranks are split in contiguous blocks across the processes; each non-root
// process writes its block to OUT.part<P>.tmp and the root appends the parts in order.

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "mpi/mpi_comm.h"

namespace cs::timeline {

struct MergeOptions {
  std::string input_dir;
  std::string output;                        // "merged.json" or "merged.json.gz"
  std::optional<std::set<int>> rank_filter;  // --ranks
  std::string align;                         // --align: text an event name contains; "" = none
  bool quiet = false;                        // no closing summary
};

// Collective. Returns the exit status, the same on every process: 0 every timeline merged,
// 3 some skipped (each reported on stderr), 1 nothing usable or the output cannot be written.
// Example: DIR with two rank directories -> OUT with both, pids 0..n and 10000..10000+m.
int run_merge(const mpi::MpiSession& mpi, const MergeOptions& opts);

}  // namespace cs::timeline

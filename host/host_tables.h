#pragma once
// The host tables of a job from its ranks' summaries (in rank order, so the result does not
// depend on which process read which rank):
//   host_ops:       operator, ranks, calls, host_self_us, host_total_us, device_self_us,
//                   launches, launch_delay_mean_us, launch_delay_max_us, launch_delay_lt<B>us...
//                   (histogram counts), host_bound (1 when the host self time exceeds the device
//                   self time of an operator that launches device work); sorted by host_self_us,
//                   largest first, then name.
//   free_breakdown: rank, step, free_us, data_us, compile_us, sync_us, gc_us, dispatch_us,
//                   unattributed_us (the last six add up to free_us); rank then step order.

#include <functional>
#include <utility>
#include <vector>

#include "host/host_summary.h"
#include "io/table.h"

namespace cs::host {

using RankSummary = std::pair<int, const HostSummary*>;

// One rank's summary handed over by a walk; the summary lives only for the call.
using SummaryVisit = std::function<void(int rank, const HostSummary& s)>;
// A walk over a job's summaries: calls `visit` once per rank, in the order the tables list the
// ranks. A walk may be taken several times; each may read the summaries back one at a time (the
// root of `cluster` keeps them parked on disk: load/host_walk.h), so nothing here keeps one.
using SummaryWalk = std::function<void(const SummaryVisit& visit)>;
// The walk over summaries held in memory (`ranks` must outlive it).
SummaryWalk walk_of(const std::vector<RankSummary>& ranks);

io::Table host_ops_table(const SummaryWalk& ranks);
io::Table free_breakdown_table(const SummaryWalk& ranks);
// host_rank_ops (for the report's rank drill-down, not written as a file): rank, operator,
// calls, host_self_us, device_self_us, launches, launch_delay_mean_us, host_bound; each rank's
// `top` operators of largest host self time (then name), ranks in the order given.
io::Table host_rank_ops_table(const SummaryWalk& ranks, size_t top);
// The same table given to `emit` in chunks of whole ranks, each of at least `chunk_rows` rows
// but the last (at least one chunk, empty when no rank has operators), each string column with
// a dictionary of its own: the table need never be whole in memory (cluster/parked_table.h).
void host_rank_ops_chunks(const SummaryWalk& ranks, size_t top, size_t chunk_rows,
                          const std::function<void(io::Table)>& emit);

// The same tables from summaries held in memory.
io::Table host_ops_table(const std::vector<RankSummary>& ranks);
io::Table free_breakdown_table(const std::vector<RankSummary>& ranks);
io::Table host_rank_ops_table(const std::vector<RankSummary>& ranks, size_t top);

// True when the operator is host-bound: it launches device work and its host self time exceeds
// that work's device time.
bool host_bound(const OpStats& o);

}  // namespace cs::host

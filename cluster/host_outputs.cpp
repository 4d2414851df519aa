// host_outputs: the host tables and findings of a cluster run (host_outputs.h).

#include "cluster/host_outputs.h"

#include <algorithm>
#include <utility>

#include "host/host_findings.h"
#include "host/host_tables.h"
#include "load/host_walk.h"

namespace cs::cluster {

namespace {
constexpr size_t kDrillOps = 10;  // host-heaviest operators per rank in the report's drill-down
constexpr size_t kDrillChunkRows = 8192;  // rows of the drill-down built before they are parked
}  // namespace

HostOutputs host_outputs(const std::vector<load::RankData>& ranks, TableSink& sink,
                         const std::shared_ptr<runtime::SpillFile>& spill) {
  HostOutputs out;
  if (std::none_of(ranks.begin(), ranks.end(), [](const load::RankData& d) { return d.has_host; }))
    return out;
  // The summaries are read back a rank at a time on each walk (on the root of `cluster` they are
  // parked in the spill file): the tables and findings are built as ranks pass, none kept.
  const host::SummaryWalk summaries = load::host_walk(ranks);
  io::Table ops = host::host_ops_table(summaries);
  if (ops.rows() > 0) {  // some rank has operators
    sink.put(std::move(ops));
    out.rank_ops = ParkedTable(spill);
    host::host_rank_ops_chunks(summaries, kDrillOps, kDrillChunkRows,
                               [&](io::Table rows) { out.rank_ops.append(std::move(rows)); });
  }
  sink.put(host::free_breakdown_table(summaries));
  const host::HostFindings f = host::host_findings(summaries);
  for (const auto& line : f.lines) out.summary += line + "\n";
  if (f.ranks_without_timeline > 0)
    out.notes.warn("", 0,
                   std::to_string(f.ranks_without_timeline) +
                       " rank(s) have no host timeline (trace_view.json or the profiler "
                       "database's PYTORCH_API): their Free time is all unattributed in "
                       "free_breakdown.csv",
                   "profile with the host side on (torch_npu's default) to see why the device "
                   "was idle");
  return out;
}

}  // namespace cs::cluster

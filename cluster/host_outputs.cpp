// host_outputs: the host tables and findings of a cluster run (host_outputs.h).

#include "cluster/host_outputs.h"

#include "host/host_findings.h"
#include "host/host_tables.h"

namespace cs::cluster {

namespace {
constexpr size_t kDrillOps = 10;  // host-heaviest operators per rank in the report's drill-down
}  // namespace

HostOutputs host_outputs(const std::vector<load::RankData>& ranks, TableSink& sink) {
  HostOutputs out;
  std::vector<host::RankSummary> summaries;
  bool any_ops = false;
  for (const load::RankData& d : ranks) {
    if (!d.has_host) continue;
    summaries.push_back({d.rank(), &d.host});
    any_ops = any_ops || !d.host.ops.empty();
  }
  if (summaries.empty()) return out;
  if (any_ops) {
    sink.put(host::host_ops_table(summaries));
    out.rank_ops = host::host_rank_ops_table(summaries, kDrillOps);
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

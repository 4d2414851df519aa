#include "cluster/memory_step.h"

#include "analysis/operators_topn.h"
#include "memory/cluster_memory.h"

namespace cs::cluster {

std::string memory_step(const std::vector<load::RankData>& ranks,
                        const documents::CommGroups* groups, TableSink& sink) {
  const stats::RankStages stages = analysis::rank_stages(ranks, groups);
  std::vector<memory::RankMemoryRef> refs;
  for (const load::RankData& r : ranks) {
    if (!r.memory) continue;
    const auto it = stages.find(r.rank());
    refs.push_back({r.rank(), it == stages.end() ? -1 : it->second, &*r.memory});
  }
  if (refs.empty()) return {};
  const auto findings = memory::find_memory_issues(refs);
  sink.put(memory::memory_ranks_table(refs, findings));
  sink.put(memory::memory_steps_table(refs));
  sink.put(memory::memory_stages_table(refs));
  sink.put(memory::memory_operators_table(refs));
  sink.put(memory::memory_components_table(refs));
  sink.put(memory::memory_curves_table(refs));
  if (groups) {
    std::vector<memory::MemoryGroup> g;
    for (const documents::CommGroup& c : groups->collective)
      g.push_back({c.pg_name.empty() ? c.group_name : c.pg_name, c.group_name, c.rank_set});
    sink.put(memory::memory_groups_table(refs, g));
  }
  sink.put(memory::memory_findings_table(findings));
  return memory::memory_summary(findings);
}

}  // namespace cs::cluster

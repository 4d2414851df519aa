#include "analysis/link_observations.h"

namespace cs::analysis {

std::vector<LinkObservation> link_observations(const documents::GlobalLinks& links) {
  std::vector<LinkObservation> out;
  const documents::GlobalLinkOp* last_op = nullptr;
  bool derived = false;
  for (const auto& l : links) {
    if (l.op != last_op) {  // links come op by op: test each op's key once
      last_op = l.op;
      derived = is_derived_matrix_key(l.op_key());
    }
    if (derived || l.src_rank == l.dst_rank || l.transport == "LOCAL") continue;
    out.push_back({l.op_key(), l.src_rank, l.dst_rank, l.transport.view(), l.size_mb, l.time_ms});
  }
  return out;
}

}  // namespace cs::analysis

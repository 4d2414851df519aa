#include "analysis/link_observations.h"

namespace cs::analysis {

namespace {

// Appends the observations of `links`; each op key is keys(view) (the view itself, or a copy).
template <class Key>
void add_observations(const documents::GlobalLinks& links, std::vector<LinkObservation>& out,
                      Key keys) {
  const documents::GlobalLinkOp* last_op = nullptr;
  bool derived = false;
  std::string_view key;
  for (const auto& l : links) {
    if (l.op != last_op) {  // links come op by op: test each op's key once
      last_op = l.op;
      derived = is_derived_matrix_key(l.op_key());
      if (!derived) key = keys(l.op_key());
    }
    if (derived || l.src_rank == l.dst_rank || l.transport == "LOCAL") continue;
    out.push_back({key, l.src_rank, l.dst_rank, l.transport.view(), l.size_mb, l.time_ms});
  }
}

}  // namespace

std::vector<LinkObservation> link_observations(const documents::GlobalLinks& links) {
  std::vector<LinkObservation> out;
  add_observations(links, out, [](std::string_view k) { return k; });
  return out;
}

void LinkObservationSet::add(const documents::GlobalLinks& batch) {
  add_observations(batch, obs_, [this](std::string_view k) { return keys_.str(keys_.intern(k)); });
}

}  // namespace cs::analysis

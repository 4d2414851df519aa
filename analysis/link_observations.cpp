#include "analysis/link_observations.h"

#include <cmath>

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

void LinkObservationSet::add(const documents::GlobalLinks& batch) {
  const documents::GlobalLinkOp* last_op = nullptr;
  bool derived = false;
  uint32_t op = 0;
  for (const auto& l : batch) {
    if (l.op != last_op) {  // links come op by op: test and intern each op's key once
      last_op = l.op;
      derived = is_derived_matrix_key(l.op_key());
      if (!derived) op = keys_.intern(l.op_key());
    }
    if (!derived) add_one(op, l.src_rank, l.dst_rank, l.transport.view(), l.size_mb, l.time_ms);
  }
}

void LinkObservationSet::add(const std::vector<LinkObservation>& obs) {
  for (const auto& o : obs)
    if (!is_derived_matrix_key(o.op_key))
      add_one(keys_.intern(o.op_key), o.src_rank, o.dst_rank, o.transport, o.size_mb, o.time_ms);
}

void LinkObservationSet::add_one(uint32_t op, int src, int dst, std::string_view transport,
                                 double size_mb, double time_ms) {
  if (src == dst || transport == "LOCAL") return;
  // find_slow_links() skips these for their numbers: the same tests.
  if (!(size_mb > min_size_mb_) || !(time_ms > 0) || !std::isfinite(size_mb) ||
      !std::isfinite(time_ms) || !std::isfinite(size_mb / time_ms))
    return;
  if (size_ % kChunk == 0)
    chunks_.emplace_back().held = std::make_unique_for_overwrite<Record[]>(kChunk);
  chunks_.back().held[size_ % kChunk] = {op,
                                         transports_.intern(transport),
                                         static_cast<int32_t>(src),
                                         static_cast<int32_t>(dst),
                                         size_mb,
                                         time_ms};
  ++size_;
  if (size_ % kChunk == 0) park_last();
}

void LinkObservationSet::park_last() {
  if (!file_) return;
  Chunk& c = chunks_.back();
  try {
    c.block = file_->append(reinterpret_cast<const char*>(c.held.get()), kChunk * sizeof(Record));
  } catch (const std::exception& e) {
    // A full disk: the parked chunks stay readable there, the rest stays in memory.
    problem_ = e.what();
    file_.reset();
    return;
  }
  c.file = file_;
  c.held.reset();
  ++parked_;
}

std::vector<LinkObservation> LinkObservationSet::to_vector() const {
  std::vector<LinkObservation> out;
  out.reserve(size_);
  for_each(
      [&](uint32_t op, std::string_view transport, int src, int dst, double size, double time) {
        out.push_back({keys_.str(op), src, dst, transport, size, time});
      });
  return out;
}

}  // namespace cs::analysis
